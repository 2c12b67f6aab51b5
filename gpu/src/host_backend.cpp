// The host backend: the index core run by a few threads over contiguous chunks. Each chunk keeps
// its first failing element; the smallest one is reported.
#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>

#include "tfspec/gpu/backend.hpp"
#include "tfspec/pack/pack.hpp"

namespace tfspec::gpu {
namespace {

constexpr int64_t kSerialBelow = 1 << 15;  // smaller jobs stay on the calling thread
constexpr int64_t kBlock = 1024;           // offsets computed per block before they are used

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

// The first stage's tile (core.hpp: make_stage_tile), built once per call and shared by every
// thread; none for checked plans, plans not starting with a Layout stage, or a first mode longer
// than a tile.
struct Tiles {
  std::unique_ptr<StageTile<int32_t>> t32;
  std::unique_ptr<StageTile<int64_t>> t64;
  explicit Tiles(const FnPlan& p) {
    if (p.mode == kIndex64Checked || p.num_stages == 0 || p.stages[0].is_layout != kStageLayout) return;
    if (p.mode == kIndex32) t32 = make_tile<int32_t>(p.stages[0]);
    else t64 = make_tile<int64_t>(p.stages[0]);
  }
  template <class Int>
  static std::unique_ptr<StageTile<Int>> make_tile(const Stage& s) {
    auto t = std::make_unique<StageTile<Int>>();
    make_stage_tile(s, *t);
    if (t->modes == 0) t.reset();
    return t;
  }
};

// The tiled runs, compiled twice: for AVX2 and for any x86-64, picked at run time (the default
// build stays free of -march=native: the binary runs on any x86-64).
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define TFSPEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TFSPEC_CLONES
#endif
TFSPEC_CLONES void tiled_run32(const Stage& s, const StageTile<int32_t>& t, int64_t i, int64_t count, int64_t* out) {
  layout_stage_tiled_run(s, t, i, count, out);
}
TFSPEC_CLONES void tiled_run64(const Stage& s, const StageTile<int64_t>& t, int64_t i, int64_t count, int64_t* out) {
  layout_stage_tiled_run(s, t, i, count, out);
}

// L(i) for i in [b, e) into out[0, e - b), in blocks: the first stage by tiled odometer runs (no
// division per element), the remaining stages per element. Checked plans go element by element.
void offsets_block(const FnPlan& p, const Tiles& tiles, int64_t b, int64_t e, int64_t* out, FirstError& err) {
  if (p.mode == kIndex64Checked || p.num_stages == 0 || p.stages[0].is_layout != kStageLayout) {
    for (int64_t i = b; i < e; ++i)
      if (Status st = eval_index(p, i, out[i - b]); st != kOk) return err.take(i, st);
    return;
  }
  if (tiles.t32) tiled_run32(p.stages[0], *tiles.t32, b, e - b, out);
  else if (tiles.t64) tiled_run64(p.stages[0], *tiles.t64, b, e - b, out);
  else if (p.mode == kIndex32) layout_stage_run<int32_t>(p.stages[0], b, e - b, out);
  else layout_stage_run<int64_t>(p.stages[0], b, e - b, out);
  if (p.num_stages == 1) return;
  for (int64_t i = b; i < e; ++i) {
    Status st;
    if (p.mode == kIndex32) {
      int32_t v = 0;
      st = eval_stages<int32_t>(p, 1, static_cast<int32_t>(out[i - b]), v);
      out[i - b] = v;
    } else {
      st = eval_stages<int64_t>(p, 1, out[i - b], out[i - b]);
    }
    if (st != kOk) return err.take(i, st);
  }
}

// A segment's copy through the packing core (pack/), the code the plan executors copy with too.
struct PackCopy {
  static void run(int64_t* dst, const int64_t* src, int64_t count) { pack::copy_elements(dst, src, count, sizeof(int64_t)); }
};

class HostBackend final : public Backend {
 public:
  explicit HostBackend(int threads) : threads_(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}
  std::string name() const override { return "host"; }
  std::optional<std::string> unavailable() const override { return std::nullopt; }

  void offsets_into(const FnPlan& p, int64_t* out) override {
    const Tiles tiles(p);
    parallel_for(threads_, p.domain_size, "offsets", [&](int64_t b, int64_t e, FirstError& err) { offsets_block(p, tiles, b, e, out + b, err); });
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
    const Tiles tiles(p);
    parallel_for(threads_, p.domain_size, "gather", [&](int64_t b, int64_t e, FirstError& err) {
      int64_t off[kBlock];
      for (int64_t blk = b; blk < e; blk += kBlock) {
        const int64_t end = std::min(e, blk + kBlock);
        FirstError local;
        offsets_block(p, tiles, blk, end, off, local);
        const int64_t good = std::min(end, local.index) - blk;  // offsets computed without a failure
        if (pack::gather_in_bounds(off, good, src.data(), n, out.data() + blk)) {
          if (local.status != kOk) return err.take(local.index, local.status);
          continue;
        }
        for (int64_t i = blk; i < end && i < local.index; ++i) {
          const int64_t o = off[i - blk];
          if (o < 0 || o >= n) return err.take(i, o < 0 ? kOffsetNegative : kEngineBufferSize);
          out[i] = src[o];
        }
        if (local.status != kOk) return err.take(local.index, local.status);
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

  void reshard_packed(const ReshardPlan& rp, const PackedLayout& src_layout, const int64_t* src, int64_t* dst) override {
    const ShardPlan sp = bind_engines(rp.src.plan, src_layout);
    if (rp.run > 1 && rp.dst) return reshard_runs(rp, sp, src, dst);
    std::vector<int64_t> x(static_cast<size_t>(rp.size));
    parallel_for(threads_, rp.size, "reshard (assemble)", [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t l = b; l < e; ++l)
        if (Status st = assemble_element(sp, src, l, x[l]); st != kOk) return err.take(l, st);
    });
    if (rp.dst_error) throw SpecError(*rp.dst_error);
    const ShardPlan dp = bind_engines(rp.dst->plan, rp.dst->packed);
    parallel_for(threads_, rp.size, "reshard (distribute)", [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t l = b; l < e; ++l)
        if (Status st = distribute_element(dp, dst, l, x[l]); st != kOk) return err.take(l, st);
    });
  }

 private:
  // Both sides have a common contiguous run: one pass, src buffers straight into dst buffers, a
  // whole segment (the part of a run inside this thread's chunk) per memcpy; a segment whose
  // checks could fail runs element by element. Distribute failures rank after every assemble
  // failure (index + size), as in the two-pass order of the reference.
  void reshard_runs(const ReshardPlan& rp, const ShardPlan& sp, const int64_t* src, int64_t* dst) {
    const ShardPlan dp = bind_engines(rp.dst->plan, rp.dst->packed);
    const int64_t n = rp.size, run = rp.run;
    FirstError first = run_chunks(threads_, n, [&](int64_t b, int64_t e, FirstError& err) {
      for (int64_t l = b; l < e;) {
        const int64_t len = std::min(e - l, run - l % run);
        if (!reshard_segment<PackCopy>(sp, src, dp, dst, l, len))
          for (int64_t t = l; t < l + len; ++t) {
            bool late = false;
            if (Status st = reshard_element(sp, src, dp, dst, t, late); st != kOk) {
              err.take(late ? n + t : t, st);
              if (!late) return;  // a later element's assemble failure still outranks a distribute one
            }
          }
        l += len;
      }
    });
    if (first.status != kOk && first.index < n) raise_status(first.status, first.index, "reshard (assemble)");
    if (first.status != kOk) raise_status(first.status, first.index - n, "reshard (distribute)");
  }

  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(int threads) { return std::make_unique<HostBackend>(threads); }

}  // namespace tfspec::gpu
