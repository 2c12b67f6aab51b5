// One checked execution of a reshard plan (spec/MULTIGPU.md "Executing a plan on MPI"): every
// rank builds its SRC buffer from one seeded global tensor through the reference's distribute,
// runs the plan through the executor and checks its own bytes against the plan; rank 0 gathers
// every DST buffer and compares it, element by element, with the reference's reshard (§7.4, D9).
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
  for (size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r].moved != ranks[r].planned)
      return "rank " + std::to_string(r) + " (device " + std::to_string(r) + "): sent " + std::to_string(ranks[r].moved.sent) + " B and received " +
             std::to_string(ranks[r].moved.received) + " B; the plan says " + std::to_string(ranks[r].planned.sent) + " B and " +
             std::to_string(ranks[r].planned.received) + " B";
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

RunOutcome run_plan(World& world, Executor& ex, const RunSpec& spec, const Fault& fault) {
  const int me = world.rank();
  const Tensor t = seeded_tensor(spec.shape, spec.dtype, spec.seed);
  const Engines in = distribute(t, spec.src, Storage::Rmem);
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
  RankReport r{ex.moved(), spec.expected.count(me) ? spec.expected.at(me) : DeviceBytes{}, decode(spec.dtype, ex.dst())};
  const auto all = world.gather(serialize(r), "the gather of DST buffers to rank 0 (after the plan)");
  int64_t code = 0;
  if (me == 0) {
    std::vector<RankReport> ranks;
    for (const auto& b : all) ranks.push_back(deserialize(b));
    for (const auto& k : ranks) out.dst.push_back(k.dst);
    const Engines ref = reshard(in, spec.src, spec.dst, Storage::Rmem, spec.shape);
    out.mismatch = first_mismatch(ranks, ref);
    report(out, spec, ranks);
    code = out.mismatch.empty() ? 0 : 1;
  }
  out.exit_code = static_cast<int>(world.broadcast(code, "the verdict's broadcast from rank 0"));
  return out;
}

}  // namespace tfspec::multigpu::mpi
