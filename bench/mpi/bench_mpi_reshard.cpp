// Reshard plans on MPI against one naive MPI_Alltoallv (issues 24, 35; bench/RESULTS.md). Run under
// mpiexec with 4 or 8 ranks: `mpiexec -n 8 build/bench/bench_mpi_reshard [--reps N] [--json] [--steps] [--cols C] [--executor=LIST]`;
// --cols C: the tensors' second extent (default 256: 4096 float32 elements, 16 KB, a device; 4096:
// 256 KB), for the same patterns at other sizes;
// --executor=LIST (issue 47): the executor variants to time, comma-separated (each `base`, `default`,
// `all` or names joined by '+': recv-first, reduce-arrival, datatypes, stagger, one-round, one-round-always,
// alltoallw, pack, persistent, arrival, shm, nodes-of-K; spec/MULTIGPU.md "Executor variants"), default
// datatypes+one-round+pack+persistent (the previous default: messages),default (the same through shared
// memory),one-round-always+shm: one row per pattern and variant,
// each checked, their repetitions alternating with the baselines' (the order shuffled every repetition);
// --json prints one object per row (pattern: the row, executor: the variant, plan: the plan's pattern, ranks, plan_ms,
// naive_ms, plan_bytes, naive_bytes, lower_bound_bytes: the Plan's own figure, checked: values
// and bytes agreed with the reference and the plan; naive_reduce_ms for a Partial SRC: the naive
// exchange plus the receiver's sum of what it received, null otherwise; packed_ms: the second baseline,
// the reshard as a user would write it around one MPI_Alltoallv (pack SRC, exchange, unpack into DST,
// sum a Partial SRC's contributions: struct Packed), packed_checked: its DST agreed with the
// reference); --steps adds, under each row, the time of
// each step's run() and of finish() (the slowest rank's, median).
//
// For each plan: the bytes it moves (its byte model, as the executor counts them) and the wall
// time of its steps, against a naive exchange of the same destination data: every DST slot that
// holds data (a Partial(sum) slot at coordinate != 0 holds none) is sent by the lowest SRC device
// holding its element, or, when SRC has a Partial axis, by every SRC device holding a contribution
// (reduced at the receiver), in one MPI_Alltoallv over the world; slots a device already holds
// move nothing. Times are the median over repetitions of the slowest rank; on a shared 2-core
// machine they are mostly overhead, so the table reports them as ratios measured in one run.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/reshard.hpp"

using namespace tfspec;
using namespace tfspec::multigpu;

namespace {

struct Case {
  const char* name;
  std::string src, dst;
  std::vector<int64_t> shape;
};

std::vector<Case> cases(int p, int64_t cols) {
  const std::string n = std::to_string(p), half = std::to_string(p / 2);
  const std::string mesh = "x=" + n, mesh2 = "x=2,y=" + half;
  const int64_t rows = 16 * p;  // 16 * cols elements per device
  const std::string r = std::to_string(rows), c = std::to_string(cols);
  return {
      {"all-gather", "(" + r + " @ m.x, " + c + ") on " + mesh, "(" + r + ", " + c + ") on " + mesh, {rows, cols}},
      {"reduce-scatter", "shard((" + n + "," + std::to_string(rows / p) + "," + c + "):None; P(); device(" + n + ")|" + mesh + ")",
       "shard((" + n + "," + std::to_string(rows / p) + "," + c + "):None; S(0); device(" + n + ")|" + mesh + ")", {rows, cols}},
      {"all-reduce", "shard((" + r + "," + c + "):None; P(); device(" + n + ")|" + mesh + ")",
       "shard((" + r + "," + c + "):None; B; device(" + n + ")|" + mesh + ")", {rows, cols}},
      {"all-to-all", "(" + r + " @ m.x, " + c + ") on " + mesh, "(" + r + ", " + c + " @ m.x) on " + mesh, {rows, cols}},
      {"point-to-point", "(" + r + " @ m.x, " + c + ") on " + mesh, "(" + r + " @ m.y, " + c + " @ m.x) on " + mesh2, {rows, cols}},
      {"2 all-gathers", "(" + r + " @ m.x, " + c + " @ m.y) on " + mesh2, "(" + r + ", " + c + ") on " + mesh2, {rows, cols}},
  };
}

std::vector<int64_t> g_extents(const ShardLayout& sl) {
  std::vector<int64_t> g;
  for (const auto& x : flat_leaves(sl.shape())) g.push_back(x.value());
  return g;
}

std::vector<int64_t> coord_of(int64_t e, const std::vector<int64_t>& g) {
  std::vector<int64_t> c(g.size());
  for (int64_t k = static_cast<int64_t>(g.size()) - 1; k >= 0; --k) c[static_cast<size_t>(k)] = e % g[static_cast<size_t>(k)], e /= g[static_cast<size_t>(k)];
  return c;
}

// counts[s * p + d]: elements device s sends device d in the naive exchange (see the header).
std::vector<int> naive_counts(const ShardLayout& src, const ShardLayout& dst, int64_t elements, int p) {
  bool src_partial = false;
  for (const auto& a : src.attrs()) src_partial = src_partial || std::holds_alternative<Partial>(a);
  const auto gs = g_extents(src), gd = g_extents(dst);
  std::vector<int> counts(static_cast<size_t>(p * p), 0);
  for (int64_t e = 0; e < elements; ++e) {
    std::set<int64_t> have;
    for (const auto& m : holders(src, coord_of(e, gs))) have.insert(src.mesh().device_of(m));
    for (const auto& m : holders(dst, coord_of(e, gd))) {
      bool zero = false;
      for (size_t a = 0; a < m.size(); ++a)
        if (auto* q = std::get_if<Partial>(&dst.attrs()[a])) zero = zero || (q->reduction == "sum" && m[a] != 0);
      const int64_t d = dst.mesh().device_of(m);
      if (zero || (!src_partial && have.count(d))) continue;
      for (int64_t s : have) {
        if (s != d) ++counts[static_cast<size_t>(s * p + d)];
        if (!src_partial) break;
      }
    }
  }
  return counts;
}

double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The naive exchange's buffers and counts on this rank.
struct Naive {
  std::vector<int> sc, sd, rc, rd;
  std::vector<float> send, recv, acc;
  Naive(const std::vector<int>& counts, int p, int rank) : sc(static_cast<size_t>(p)), sd(sc), rc(sc), rd(sc) {
    int st = 0, rt = 0;
    for (size_t q = 0; q < static_cast<size_t>(p); ++q) {
      sc[q] = counts[static_cast<size_t>(rank * p) + q], sd[q] = st, st += sc[q];
      rc[q] = counts[q * static_cast<size_t>(p) + static_cast<size_t>(rank)], rd[q] = rt, rt += rc[q];
    }
    send.assign(static_cast<size_t>(std::max(st, 1)), 1.0f), recv.assign(static_cast<size_t>(std::max(rt, 1)), 0.0f);
    acc.assign(static_cast<size_t>(std::max(1, *std::max_element(rc.begin(), rc.end()))), 0.0f);
  }
  // With `reduce` (a Partial SRC: "naive + reduce"), the receiver also adds up the contributions
  // it received (blocks of one size in the Partial rows: every holder sends the same elements in
  // the same order), the work the plan's reduce-scatter / all-reduce does and the exchange skips.
  double once(bool reduce) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_FLOAT, recv.data(), rc.data(), rd.data(), MPI_FLOAT, MPI_COMM_WORLD);
    if (reduce) fold();
    return slowest(MPI_Wtime() - t0);
  }
  void fold() {
    int first = -1;
    for (size_t q = 0; q < rc.size(); ++q) {
      if (rc[q] == 0) continue;
      const float* in = recv.data() + rd[q];
      if (first < 0) {
        first = static_cast<int>(q);
        std::copy(in, in + rc[q], acc.begin());
        continue;
      }
      const int n = std::min(rc[q], rc[static_cast<size_t>(first)]);
      for (int i = 0; i < n; ++i) acc[static_cast<size_t>(i)] += in[i];
    }
  }
};

// The second baseline (issue 47): the same reshard as a user would write it around one
// MPI_Alltoallv. Each rank gathers, element by element, the SRC elements every peer's DST needs
// into one contiguous send buffer, exchanges them in one MPI_Alltoallv, and scatters what it
// received into DST; its own elements are copied from its SRC; for a Partial(sum) SRC every
// contribution is sent (the naive exchange's choice of senders) and DST = the sum of them all.
// The index lists come from the reference alone (its distribute of a tensor of element numbers
// onto SRC and DST; a Partial SRC read as P("max") so that every contributor holds the number),
// so the baseline shares no code with the planner or the executor; its DST is checked against
// the reference's reshard before it is timed.
struct Packed {
  std::vector<int> sc, sd, rc, rd;
  std::vector<int64_t> send_from, recv_to;         // SRC offsets in send order; DST offsets in receive order
  std::vector<std::pair<int64_t, int64_t>> own;     // this rank's own elements: SRC offset -> DST offset
  bool sum = false;                                 // Partial(sum) SRC: DST adds up the contributions
  std::vector<float> src, dst, send, recv;
  bool checked = false;

  Packed(const mpi::RunSpec& spec, int p, int rank) : sc(static_cast<size_t>(p)), sd(sc), rc(sc), rd(sc) {
    std::vector<ShardAttr> attrs = spec.src.attrs();
    for (auto& a : attrs)
      if (auto* q = std::get_if<Partial>(&a)) sum = sum || q->reduction == "sum", *q = Partial{"max"};
    Tensor numbers{spec.shape, {}};
    int64_t n = 1;
    for (int64_t e : spec.shape) n *= e;
    for (int64_t e = 1; e <= n; ++e) numbers.data.push_back(e);
    const Engines at_src = distribute(numbers, ShardLayout(spec.src.layout(), attrs, spec.src.mesh()), Storage::Rmem);
    const Engines at_dst = distribute(numbers, spec.dst, Storage::Rmem);
    std::vector<std::vector<std::pair<int64_t, int64_t>>> holders(static_cast<size_t>(n + 1));  // number -> (device, SRC offset)
    for (const auto& [d, b] : at_src.buffers)
      for (size_t k = 0; k < b.size(); ++k)
        if (b[k] > 0 && (holders[static_cast<size_t>(b[k])].empty() || holders[static_cast<size_t>(b[k])].back().first != d))
          holders[static_cast<size_t>(b[k])].push_back({d, static_cast<int64_t>(k)});
    std::vector<std::vector<int64_t>> from(static_cast<size_t>(p));  // by sender: DST offsets here, in its send order
    for (const auto& [d, b] : at_dst.buffers) {
      if (d == rank) dst.assign(b.size(), 0.0f);
      for (size_t j = 0; j < b.size(); ++j) {
        if (b[j] <= 0) continue;
        const auto& hs = holders[static_cast<size_t>(b[j])];
        const bool mine = std::any_of(hs.begin(), hs.end(), [&](const auto& h) { return h.first == d; });
        for (const auto& [s, off] : hs) {
          if (!sum && mine && s != d) continue;  // a replica here: copied locally, not sent
          if (s == d && d == rank) own.push_back({off, static_cast<int64_t>(j)});
          else if (s == rank && d != rank) send_from.push_back(off), ++sc[static_cast<size_t>(d)];
          else if (d == rank && s != d) from[static_cast<size_t>(s)].push_back(static_cast<int64_t>(j));
          if (!sum) break;
        }
      }
    }
    for (size_t q = 1; q < sd.size(); ++q) sd[q] = sd[q - 1] + sc[q - 1];
    for (size_t q = 0; q < from.size(); ++q) {
      rc[q] = static_cast<int>(from[q].size()), rd[q] = static_cast<int>(recv_to.size());
      recv_to.insert(recv_to.end(), from[q].begin(), from[q].end());
    }
    send.assign(std::max<size_t>(send_from.size(), 1), 0.0f), recv.assign(std::max<size_t>(recv_to.size(), 1), 0.0f);
    const Engines in = mpi::split_contributions(mpi::seeded_tensor(spec.shape, spec.dtype, spec.seed), spec.src, spec.dtype, spec.seed);
    for (int64_t v : in.buffers.count(rank) ? in.buffers.at(rank) : std::vector<int64_t>{}) src.push_back(static_cast<float>(v));
    const Engines want = reshard(in, spec.src, spec.dst, Storage::Rmem, spec.shape);
    once();
    int bad = 0;
    const std::vector<int64_t> none;
    const std::vector<int64_t>& w = want.buffers.count(rank) ? want.buffers.at(rank) : none;
    bad = w.size() != dst.size();
    for (size_t j = 0; !bad && j < w.size(); ++j) bad = static_cast<float>(w[j]) != dst[j];
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    checked = any == 0;
  }
  double once() {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (size_t i = 0; i < send_from.size(); ++i) send[i] = src[static_cast<size_t>(send_from[i])];
    MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_FLOAT, recv.data(), rc.data(), rd.data(), MPI_FLOAT, MPI_COMM_WORLD);
    if (sum) {
      std::fill(dst.begin(), dst.end(), 0.0f);
      for (auto [from, to] : own) dst[static_cast<size_t>(to)] += src[static_cast<size_t>(from)];
      for (size_t i = 0; i < recv_to.size(); ++i) dst[static_cast<size_t>(recv_to[i])] += recv[i];
    } else {
      for (auto [from, to] : own) dst[static_cast<size_t>(to)] = src[static_cast<size_t>(from)];
      for (size_t i = 0; i < recv_to.size(); ++i) dst[static_cast<size_t>(recv_to[i])] = recv[i];
    }
    return slowest(MPI_Wtime() - t0);
  }
};

// The plan's steps on loaded buffers, until every posted call completed (the slowest rank).
// `split` (--steps): this rank's time in each run() call and in finish(), the slowest rank's each.
double plan_once(Executor& ex, const Plan& plan, std::vector<std::vector<double>>* split) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  std::vector<double> marks{t0};
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    ex.run(plan, k);
    if (split) marks.push_back(MPI_Wtime());
  }
  ex.finish();
  const double t = MPI_Wtime() - t0;
  if (split) {
    marks.push_back(MPI_Wtime());
    std::vector<double> d(marks.size() - 1), m(d.size());
    for (size_t k = 0; k < d.size(); ++k) d[k] = marks[k + 1] - marks[k];
    MPI_Allreduce(d.data(), m.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    split->resize(m.size());
    for (size_t k = 0; k < m.size(); ++k) (*split)[k].push_back(m[k]);
  }
  return slowest(t);
}

// --steps: where the plan's time goes, each step's (and finish()'s) median over the repetitions
// of the slowest rank in it; steps under 1 us on every rank are left out.
void print_split(const Plan& plan, const std::vector<std::vector<double>>& split) {
  std::printf("  where the time goes (median of the slowest rank per call):");
  for (size_t k = 0; k < split.size(); ++k) {
    const double t = median(split[k]) * 1e3;
    if (t < 0.001) continue;
    std::printf(" %s %.3f ms;", k < plan.steps.size() ? describe_step(plan, k).c_str() : "finish()", t);
  }
  std::printf("\n");
}

// Rank 0's naive counts on every rank; the others wait in the world's poll (which sleeps after
// 50 ms), so rank 0 has the cores while it computes them.
std::vector<int> shared_counts(mpi::World& world, const mpi::RunSpec& spec, int p) {
  std::vector<int> counts(static_cast<size_t>(p * p));
  if (world.rank() == 0) counts = naive_counts(spec.src, spec.dst, spec.shape[0] * spec.shape[1], p);
  std::vector<MPI_Request> req(1);
  MPI_Ibcast(counts.data(), p * p, MPI_INT, 0, world.comm(), &req[0]);
  world.wait(req, "the naive counts' broadcast");
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 50;
  int64_t cols = 256;
  bool json = false, steps = false;
  std::string variants = "datatypes+one-round+pack+persistent,default,one-round-always+shm";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--steps") steps = true;
    if (std::string(argv[i]).starts_with("--executor=")) variants = std::string(argv[i]).substr(11);
    if (std::string(argv[i]) == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (std::string(argv[i]) == "--cols" && i + 1 < argc) cols = std::clamp<int64_t>(std::atoll(argv[++i]), 1, 1 << 16);
    else if (std::string(argv[i]) == "--json") json = true;
  }
  mpi::World world(120);
  const int p = world.size(), rank = world.rank();
  if (p < 4 || p % 2) {
    if (rank == 0) std::fprintf(stderr, "bench_mpi_reshard: run it with an even number >= 4 of ranks (mpiexec -n 4 or -n 8)\n");
    return 3;
  }
  const Dtype dtype = dtype_of("float32");
  std::vector<std::pair<std::string, mpi::ExecutorOptions>> executors;
  try {
    for (size_t start = 0; start <= variants.size();) {
      const size_t end = std::min(variants.find(',', start), variants.size());
      const std::string v = variants.substr(start, end - start);
      executors.push_back({v, mpi::parse_executor_options(v)});
      start = end + 1;
    }
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "bench_mpi_reshard: %s\n", e.what());
    return 2;
  }
  if (rank == 0 && !json) {
    std::printf("%d ranks, float32, median of %d repetitions (slowest rank), plan and naive alternating\n\n", p, reps);
    std::printf("| plan | executor | pattern | plan bytes | naive bytes | lower bound | bytes plan/naive | plan time | naive time | time plan/naive | naive + reduce: time, plan/it | packed (pack + MPI_Alltoallv + unpack) | time plan/packed |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  for (const Case& c : cases(p, cols)) try {
    const ShardLayout s0 = read_shard_layout(Json(c.src)), d0 = read_shard_layout(Json(c.dst));
    mpi::RunSpec spec{plan_reshard(s0, d0, c.shape, dtype.bytes), materialize_for_devices(s0, c.shape), materialize_for_devices(d0, c.shape), c.shape, dtype, 1, {}};
    spec.expected = spec.plan.bytes;
    // Checked once (values and bytes; run_plan splits a Partial SRC's values over every
    // contributing rank, so a dropped contribution is a MISMATCH row), then timed: the steps alone, on loaded buffers, the plan's
    // repetitions alternating with the naive exchange's so that both see the same machine.
    std::vector<std::unique_ptr<Executor>> exs;
    std::vector<bool> checked;
    for (const auto& [v, o] : executors) {
      exs.push_back(mpi::make_mpi_executor(world, dtype, o));
      checked.push_back(mpi::run_plan(world, *exs.back(), spec).exit_code == 0);
    }
    const std::vector<int> counts = shared_counts(world, spec, p);
    Naive naive(counts, p, rank);
    Packed packed(spec, p, rank);
    bool partial = false;
    for (const auto& a : spec.src.attrs()) partial = partial || std::holds_alternative<Partial>(a);
    std::vector<std::vector<double>> plan_times(exs.size());
    std::vector<double> naive_times, reduce_times, packed_times;
    std::vector<std::vector<std::vector<double>>> split(exs.size());
    // Each repetition times every variant and baseline once, in an order shuffled anew (the same
    // seed on every rank, so all ranks run the same exchange together), so that none owns a
    // position or a predecessor: on this machine the measurement right after the others'
    // exchanges ran slower (a variant timed three times in a row took up to 1.35x the time in
    // the first place), and with the order merely rotated, identical code after the packed
    // baseline still read 5-18% slower than after another plan.
    std::vector<std::function<void()>> order;
    for (size_t e = 0; e < exs.size(); ++e)
      order.push_back([&, e] { plan_times[e].push_back(plan_once(*exs[e], spec.plan, steps ? &split[e] : nullptr)); });
    order.push_back([&] { naive_times.push_back(naive.once(false)); });
    if (partial) order.push_back([&] { reduce_times.push_back(naive.once(true)); });
    order.push_back([&] { packed_times.push_back(packed.once()); });
    std::mt19937 shuffle(47);
    std::vector<size_t> pick(order.size());
    for (int i = 0; i < reps; ++i) {
      std::iota(pick.begin(), pick.end(), size_t{0});
      std::shuffle(pick.begin(), pick.end(), shuffle);
      for (size_t k : pick) order[k]();
    }
    const double naive_t = median(naive_times), reduce_t = partial ? median(reduce_times) : 0.0, packed_t = median(packed_times);
    int64_t naive_bytes = 0;
    for (int n : counts) naive_bytes += int64_t{n} * dtype.bytes;
    const long long pb = static_cast<long long>(spec.plan.total_bytes()), nb = static_cast<long long>(naive_bytes);
    const long long lb = static_cast<long long>(spec.plan.lower_bound_bytes);
    for (size_t e = 0; e < exs.size(); ++e) {
    const double plan_t = median(plan_times[e]);
    const char* variant = executors[e].first.c_str();
    if (rank == 0 && json)
      std::printf("%s\n", Json({{"pattern", c.name}, {"executor", variant}, {"plan", spec.plan.pattern}, {"ranks", p}, {"cols", cols}, {"plan_ms", plan_t * 1e3}, {"naive_ms", naive_t * 1e3},
                                {"plan_bytes", pb}, {"naive_bytes", nb}, {"lower_bound_bytes", lb}, {"checked", static_cast<bool>(checked[e])},
                                {"naive_reduce_ms", partial ? Json(reduce_t * 1e3) : Json(nullptr)}, {"packed_ms", packed_t * 1e3},
                                {"packed_checked", packed.checked}})
                             .dump().c_str());
    char extra[64] = "";
    if (partial) std::snprintf(extra, sizeof extra, "%.3f ms: %.2f", reduce_t * 1e3, plan_t / reduce_t);
    if (rank == 0 && !json)
      std::printf("| %s%s | %s | %s | %lld | %lld | %lld | %.2f | %.3f ms | %.3f ms | %.2f | %s | %.3f ms%s | %.2f |\n", c.name, checked[e] ? "" : " (MISMATCH)", variant,
                  spec.plan.pattern.c_str(), pb, nb, lb, nb ? static_cast<double>(pb) / static_cast<double>(nb) : 0.0, plan_t * 1e3, naive_t * 1e3,
                  plan_t / naive_t, extra, packed_t * 1e3, packed.checked ? "" : " (MISMATCH)", plan_t / packed_t);
    if (rank == 0 && steps) print_split(spec.plan, split[e]);
    std::fflush(stdout);
    }
  } catch (const std::exception& e) {  // the same on every rank: the plan is refused before any MPI call
    if (rank == 0 && json) std::printf("%s\n", Json({{"pattern", c.name}, {"ranks", p}, {"refused", e.what()}}).dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    else if (rank == 0) std::printf("| %s | | refused: %s | | | | | | | | | | |\n", c.name, e.what());
  }
  return 0;
}
