// One checked execution of a reshard plan (spec/MULTIGPU.md "Executing a plan on MPI"): every
// rank builds its SRC buffer from one seeded global tensor (a Partial's value split over every
// contributing rank: split_contributions), runs the plan through the executor and checks its own
// bytes against the plan; rank 0 gathers every DST buffer and compares it, element by element,
// with the reference's reshard (§7.4, D9), or, for a DST with Partial axes fed split
// contributions, the value the DST buffers assemble to with the seeded tensor.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <random>
#include <sstream>
#include <thread>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::mpi {
namespace {

// What each rank sends rank 0: its bytes as counted and as planned, then its DST values.
struct RankReport {
  DeviceBytes moved, planned;
  std::vector<int64_t> dst;
};

std::vector<unsigned char> serialize(const RankReport& r) {
  std::vector<int64_t> words{r.moved.sent, r.moved.received, r.planned.sent, r.planned.received};
  words.insert(words.end(), r.dst.begin(), r.dst.end());
  std::vector<unsigned char> out(words.size() * 8);
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}

RankReport deserialize(const std::vector<unsigned char>& bytes) {
  std::vector<int64_t> words(bytes.size() / 8);
  std::memcpy(words.data(), bytes.data(), words.size() * 8);
  if (words.size() < 4) fail(rule::kInternal, "a rank's report is shorter than its header");
  return {{words[0], words[1]}, {words[2], words[3]}, std::vector<int64_t>(words.begin() + 4, words.end())};
}

void inject(World& w, const Fault& f, size_t step, const std::string& what) {
  if (f.kind == Fault::Kind::None || f.rank != w.rank() || f.step != step) return;
  const char* act = f.kind == Fault::Kind::Exit ? "exiting" : f.kind == Fault::Kind::Hang ? "hanging" : "failing an MPI call";
  std::fprintf(stderr, "rank %d: TFSPEC_MPI_FAULT: %s before %s\n", w.rank(), act, what.c_str());  // stderr itself: see World::check
  std::fflush(stderr);
  if (f.kind == Fault::Kind::Exit) std::_Exit(9);
  if (f.kind == Fault::Kind::Error) w.check(MPI_ERR_OTHER, "MPI_Testall (injected)", what);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// The first rank whose bytes differ from the plan's ("" when none).
std::string bytes_mismatch(const std::vector<RankReport>& ranks) {
  for (size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r].moved != ranks[r].planned)
      return "rank " + std::to_string(r) + " (device " + std::to_string(r) + "): sent " + std::to_string(ranks[r].moved.sent) + " B and received " +
             std::to_string(ranks[r].moved.received) + " B; the plan says " + std::to_string(ranks[r].planned.sent) + " B and " +
             std::to_string(ranks[r].planned.received) + " B";
  return "";
}

// Rank 0's verdict: the first DST element that differs from the reference's reshard, else the
// first rank whose bytes differ from the plan's ("" when everything agrees).
std::string first_mismatch(const std::vector<RankReport>& ranks, const Engines& ref) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    auto it = ref.buffers.find(static_cast<int64_t>(r));
    const std::vector<int64_t> want = it == ref.buffers.end() ? std::vector<int64_t>{} : it->second;
    const auto& got = ranks[r].dst;
    for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
      if (i < want.size() && i < got.size() && want[i] == got[i]) continue;
      std::ostringstream o;
      o << "rank " << r << " (device " << r << "): ";
      if (i >= got.size() || i >= want.size()) o << "DST holds " << got.size() << " elements, the reference's reshard " << want.size();
      else o << "DST[" << i << "] = " << got[i] << ", the reference's reshard has " << want[i];
      return o.str();
    }
  }
  return bytes_mismatch(ranks);
}

// Rank 0's verdict for a DST with Partial axes fed split contributions: those travel unreduced
// where the plan keeps the axis, so DST holds other contributions than the reference's canonical
// ones (distribute) and only the value they reduce to (§6 Partial) is fixed.
std::string value_mismatch(const std::vector<RankReport>& ranks, const Engines& ref, const RunSpec& spec, const Tensor& t) {
  Engines got{Storage::Rmem, {}};
  for (const auto& [engine, buffer] : ref.buffers) {
    const auto r = static_cast<size_t>(engine);
    if (r >= ranks.size() || ranks[r].dst.size() != buffer.size())
      return "rank " + std::to_string(r) + " (device " + std::to_string(r) + "): DST holds " +
             std::to_string(r < ranks.size() ? ranks[r].dst.size() : 0) + " elements, the reference's reshard " + std::to_string(buffer.size());
    got.buffers[engine] = ranks[r].dst;
  }
  Tensor v;
  try {  // rank 0 alone: a throw here would leave the others waiting for the verdict
    v = assemble(got, spec.dst, spec.shape);
  } catch (const SpecError& e) {
    return std::string("the DST buffers do not assemble (the reference's reshard has a value): ") + e.what();
  }
  for (size_t i = 0; i < t.data.size(); ++i)
    if (v.data.at(i) != t.data[i])
      return "logical element " + std::to_string(i) + ": the DST contributions reduce to " + std::to_string(v.data[i]) +
             ", the reference's reshard has " + std::to_string(t.data[i]);
  return "";
}

void report(RunOutcome& out, const RunSpec& spec, const std::vector<RankReport>& ranks) {
  std::ostringstream o;
  o << "reshard-run: " << spec.plan.pattern << " on " << ranks.size() << " MPI ranks, " << spec.dtype.name << " (seed " << spec.seed << ")\n";
  Json devices = Json::array();
  int64_t total = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto& k = ranks[r];
    o << "rank " << r << ": DST " << k.dst.size() << " elements; sent " << k.moved.sent << " B, received " << k.moved.received << " B (plan: "
      << k.planned.sent << " B, " << k.planned.received << " B)\n";
    devices.push_back({{"rank", r}, {"dst_elements", k.dst.size()}, {"sent", k.moved.sent}, {"received", k.moved.received},
                       {"plan_sent", k.planned.sent}, {"plan_received", k.planned.received}});
    total += k.moved.sent;
  }
  if (out.mismatch.empty())
    o << "OK: every rank's DST equals the reference's reshard and every rank moved the plan's bytes (" << total << " B in all)\n";
  else
    o << "MISMATCH: " << out.mismatch << "\n";
  out.text = o.str();
  out.json = {{"pattern", spec.plan.pattern}, {"ranks", ranks.size()},     {"dtype", spec.dtype.name}, {"seed", spec.seed},
              {"ok", out.mismatch.empty()}, {"mismatch", out.mismatch.empty() ? Json(nullptr) : Json(out.mismatch)},
              {"rule", out.mismatch.empty() ? Json(nullptr) : Json(std::string(rule::kMpiMismatch.id))},
              {"total_bytes", total},       {"devices", std::move(devices)}};
}

}  // namespace

Tensor seeded_tensor(const std::vector<int64_t>& shape, const Dtype& dtype, uint64_t seed) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  std::mt19937_64 gen(seed);
  const int64_t lo = dtype.kind == Dtype::Kind::Unsigned ? 0 : -100;
  std::uniform_int_distribution<int64_t> value(lo, 100);
  Tensor t{shape, {}};
  for (int64_t i = 0; i < n; ++i) t.data.push_back(value(gen));
  return t;
}

namespace {

bool has_partial(const ShardLayout& sl) {
  return std::any_of(sl.attrs().begin(), sl.attrs().end(), [](const auto& a) { return std::holds_alternative<Partial>(a); });
}

// The largest magnitude up to which every value of the dtype, and every sum of them, is exact
// (the integers are reduced with wrap-around, but the checks add in int64: kept in range too).
int64_t exact_limit(const Dtype& t) {
  using K = Dtype::Kind;
  switch (t.kind) {
    case K::Signed: return t.bytes == 1 ? 127 : int64_t{1} << 30;
    case K::Unsigned: return 0;  // no negative contributions: left to distribute
    case K::Half: return 2048;
    case K::BFloat: return 256;
    case K::Float: return int64_t{1} << 24;
  }
  return 0;
}

}  // namespace

Engines split_contributions(const Tensor& t, const ShardLayout& src, const Dtype& dtype, uint64_t seed) {
  // §6 Partial: the value over a Partial mesh axis is the reduction of every instance's
  // contribution, so an executor that drops or repeats one is wrong. The reference's distribute
  // gives a sum axis's whole value to coordinate 0 and the identity 0 to the others (and max / min
  // axes the value everywhere): an executor that keeps only one rank's block would pass with it.
  // Here every contribution is drawn nonzero (noise in [-D, D] \ {0}, the reference's partition
  // makes them reduce exactly to the value), D the largest (at most 50) that keeps every
  // contribution, and the sum of their magnitudes, within the dtype's exact range: |t| <= 100,
  // N contributors (the product of the Partial axes' extents), A Partial axes: a sum axis adds at
  // most (n-1)D to a part and 2(n-1)D to the parts' magnitudes, a max / min axis D to a part.
  if (!has_partial(src)) return distribute(t, src, Storage::Rmem);
  int64_t n = 1, axes = 0;
  bool sums_only = true;
  for (size_t a = 0; a < src.attrs().size(); ++a)
    if (auto* p = std::get_if<Partial>(&src.attrs()[a])) {
      n *= src.mesh().extent(static_cast<int>(a)), ++axes;
      sums_only = sums_only && p->reduction == "sum";
    }
  const int64_t limit = exact_limit(dtype);
  int64_t d = 50;
  auto fits = [&](int64_t k) {
    const int64_t part = 100 + k * (n - 1 + (sums_only ? 0 : axes));
    return (sums_only ? 100 + 2 * k * (n - 1) : n * part) <= limit;
  };
  while (d > 0 && !fits(d)) --d;
  if (d == 0) return distribute(t, src, Storage::Rmem);  // no room: the canonical contributions
  std::mt19937_64 gen(seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_int_distribution<int64_t> noise(1, d), sign(0, 1);
  return partition(t, src, Storage::Rmem, [&] { return sign(gen) ? noise(gen) : -noise(gen); });
}

RunOutcome run_plan(World& world, Executor& ex, const RunSpec& spec, const Fault& fault) {
  const int me = world.rank();
  const Tensor t = seeded_tensor(spec.shape, spec.dtype, spec.seed);
  const Engines in = split_contributions(t, spec.src, spec.dtype, spec.seed);
  const bool by_value = has_partial(spec.dst) && in != distribute(t, spec.src, Storage::Rmem);
  auto mine = in.buffers.find(me);
  ex.load(spec.plan, encode(spec.dtype, mine == in.buffers.end() ? std::vector<int64_t>{} : mine->second));
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < spec.plan.steps.size(); ++i) {
    inject(world, fault, i, describe_step(spec.plan, i));
    ex.run(spec.plan, i);
  }
  ex.finish();
  RunOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  inject(world, fault, spec.plan.steps.size(), "the gather to rank 0");
  const DeviceBytes planned = ex.own_bytes().value_or(spec.expected.count(me) ? spec.expected.at(me) : DeviceBytes{});
  RankReport r{ex.moved(), planned, decode(spec.dtype, ex.dst())};
  const auto all = world.gather(serialize(r), "the gather of DST buffers to rank 0 (after the plan)");
  int64_t code = 0;
  if (me == 0) {
    std::vector<RankReport> ranks;
    for (const auto& b : all) ranks.push_back(deserialize(b));
    for (const auto& k : ranks) out.dst.push_back(k.dst);
    const Engines ref = reshard(in, spec.src, spec.dst, Storage::Rmem, spec.shape);
    out.mismatch = by_value ? value_mismatch(ranks, ref, spec, t) : first_mismatch(ranks, ref);
    if (by_value && out.mismatch.empty()) out.mismatch = bytes_mismatch(ranks);
    report(out, spec, ranks);
    code = out.mismatch.empty() ? 0 : 1;
  }
  out.exit_code = static_cast<int>(world.broadcast(code, "the verdict's broadcast from rank 0"));
  return out;
}

}  // namespace tfspec::multigpu::mpi
