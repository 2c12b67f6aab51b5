// The host backend: the index core run by a few threads over contiguous chunks. Each chunk keeps
// its first failing element; the smallest one is reported.
#include <algorithm>
#include <atomic>
#include <thread>

#include "tfspec/gpu/backend.hpp"

namespace tfspec::gpu {
namespace {

constexpr int64_t kSerialBelow = 1 << 15;  // smaller jobs stay on the calling thread

struct FirstError {
  int64_t index = INT64_MAX;
  Status status = kOk;
  void take(int64_t i, Status st) {
    if (i < index) index = i, status = st;
  }
};

// Runs body(begin, end, err) over [0, n) on up to `threads` threads; returns the first error.
template <class Body>
FirstError run_chunks(int threads, int64_t n, Body body) {
  const int t = n < kSerialBelow ? 1 : std::max(1, threads);
  std::vector<FirstError> errs(static_cast<size_t>(t));
  if (t == 1) {
    body(int64_t{0}, n, errs[0]);
  } else {
    std::vector<std::thread> pool;
    const int64_t chunk = (n + t - 1) / t;
    for (int w = 0; w < t; ++w)
      pool.emplace_back([&, w] { body(std::min(n, w * chunk), std::min(n, (w + 1) * chunk), errs[static_cast<size_t>(w)]); });
    for (auto& th : pool) th.join();
  }
  FirstError first;
  for (const auto& e : errs) first.take(e.index, e.status);
  return first;
}

template <class Body>
void parallel_for(int threads, int64_t n, const char* what, Body body) {
  FirstError first = run_chunks(threads, n, body);
  if (first.status != kOk) raise_status(first.status, first.index, what);
}

// The index loop specialised by index width, so the hot loop carries no mode test.
template <class Int>
void offsets_range(const FnPlan& p, int64_t b, int64_t e, int64_t* out, FirstError& err) {
  for (int64_t i = b; i < e; ++i) {
    Int v = 0;
    Status st = eval_stages<Int>(p, 0, static_cast<Int>(i), v);
    if (st != kOk) return err.take(i, st);
    out[i] = v;
  }
}

class HostBackend final : public Backend {
 public:
  explicit HostBackend(int threads) : threads_(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}
  std::string name() const override { return "host"; }
  std::optional<std::string> unavailable() const override { return std::nullopt; }

  std::vector<int64_t> offsets(const FnPlan& p) override {
    std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
    parallel_for(threads_, p.domain_size, "offsets", [&](int64_t b, int64_t e, FirstError& err) {
      if (p.mode == kIndex32) return offsets_range<int32_t>(p, b, e, out.data(), err);
      if (p.mode == kIndex64) return offsets_range<int64_t>(p, b, e, out.data(), err);
      for (int64_t i = b; i < e; ++i)
        if (Status st = eval_index(p, i, out[i]); st != kOk) return err.take(i, st);
    });
    return out;
  }

  std::vector<int64_t> crd2idx(const FnPlan& p, const std::vector<int64_t>& coords) override {
    const int64_t r = std::max(1, p.domain_rank);
    const int64_t n = p.domain_rank == 0 ? static_cast<int64_t>(coords.size()) : static_cast<int64_t>(coords.size()) / r;
    std::vector<int64_t> out(static_cast<size_t>(n));
    parallel_for(threads_, n, "crd2idx", [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t j = b; j < e; ++j)
        if (Status st = eval_coord(p, coords.data() + j * p.domain_rank, out[j]); st != kOk) return err.take(j, st);
    });
    return out;
  }

  std::vector<int64_t> gather(const FnPlan& p, const std::vector<int64_t>& src) override {
    std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
    const int64_t n = static_cast<int64_t>(src.size());
    parallel_for(threads_, p.domain_size, "gather", [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t i = b; i < e; ++i) {
        int64_t off = 0;
        Status st = eval_index(p, i, off);
        if (st == kOk && off < 0) st = kOffsetNegative;
        if (st == kOk && off >= n) st = kEngineBufferSize;
        if (st != kOk) return err.take(i, st);
        out[i] = src[off];
      }
    });
    return out;
  }

  std::vector<int64_t> scatter(const FnPlan& p, const std::vector<int64_t>& values, int64_t dst_size) override {
    const int64_t n = p.domain_size;
    std::vector<int64_t> off(static_cast<size_t>(n));
    std::vector<std::atomic<int64_t>> first(static_cast<size_t>(std::max<int64_t>(dst_size, 0)));
    for (auto& f : first) f.store(INT64_MAX, std::memory_order_relaxed);
    // pass 1: offsets, the first bounds error, and the first writer of every slot
    FirstError bad = run_chunks(threads_, n, [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t i = b; i < e; ++i) {
        Status st = eval_index(p, i, off[i]);
        if (st == kOk && off[i] < 0) st = kOffsetNegative;
        if (st == kOk && off[i] >= dst_size) st = kEngineBufferSize;
        if (st != kOk) return err.take(i, st);
        auto& slot = first[static_cast<size_t>(off[i])];
        int64_t cur = slot.load(std::memory_order_relaxed);
        while (i < cur && !slot.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
        }
      }
    });
    // pass 2: the first index before that error whose slot an earlier index wrote
    const int64_t limit = bad.status == kOk ? n : bad.index;
    FirstError collision = run_chunks(threads_, limit, [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t i = b; i < e; ++i)
        if (first[static_cast<size_t>(off[i])].load(std::memory_order_relaxed) != i) return err.take(i, kCollision);
    });
    bad.take(collision.index, collision.status);
    if (bad.status != kOk) raise_status(bad.status, bad.index, "scatter");
    std::vector<int64_t> dst(static_cast<size_t>(std::max<int64_t>(dst_size, 0)), 0);
    parallel_for(threads_, n, "scatter", [&](int64_t b, int64_t e, FirstError&) {
      for (int64_t i = b; i < e; ++i) dst[static_cast<size_t>(off[i])] = values[static_cast<size_t>(i)];
    });
    return dst;
  }

  Engines reshard(const ReshardPlan& rp, const Engines& src) override {
    PackedEngines in = pack_source(rp.src, src);
    ShardPlan sp = rp.src.plan;
    sp.engine_base = in.base.data();
    sp.engine_size = in.size.data();
    sp.num_engine_ids = static_cast<int64_t>(in.base.size());
    std::vector<int64_t> x(static_cast<size_t>(rp.size));
    parallel_for(threads_, rp.size, "reshard (assemble)", [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t l = b; l < e; ++l)
        if (Status st = assemble_element(sp, in.data.data(), l, x[l]); st != kOk) return err.take(l, st);
    });
    if (rp.dst_error) throw SpecError(*rp.dst_error);
    PackedEngines out = layout_destination(*rp.dst);
    ShardPlan dp = rp.dst->plan;
    dp.engine_base = out.base.data();
    dp.engine_size = out.size.data();
    dp.num_engine_ids = static_cast<int64_t>(out.base.size());
    parallel_for(threads_, rp.size, "reshard (distribute)", [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t l = b; l < e; ++l)
        if (Status st = distribute_element(dp, out.data.data(), l, x[l]); st != kOk) return err.take(l, st);
    });
    return unpack_destination(*rp.dst, out);
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(int threads) { return std::make_unique<HostBackend>(threads); }

}  // namespace tfspec::gpu
