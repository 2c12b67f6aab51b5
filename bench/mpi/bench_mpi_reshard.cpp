// Reshard plans on MPI against one naive MPI_Alltoallv (issue 24; bench/RESULTS.md). Run under
// mpiexec with 4 or 8 ranks: `mpiexec -n 8 build/bench/bench_mpi_reshard [--reps N]`.
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
#include <set>
#include <string>
#include <vector>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/reference/canonical.hpp"

using namespace tfspec;
using namespace tfspec::multigpu;

namespace {

struct Case {
  const char* name;
  std::string src, dst;
  std::vector<int64_t> shape;
};

std::vector<Case> cases(int p) {
  const std::string n = std::to_string(p), half = std::to_string(p / 2);
  const std::string mesh = "x=" + n, mesh2 = "x=2,y=" + half;
  const int64_t rows = 16 * p, cols = 256;  // 4096 elements per device
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

// The naive exchange's median time (slowest rank) over `reps`.
double naive_seconds(const std::vector<int>& counts, int p, int rank, int reps) {
  std::vector<int> sc(static_cast<size_t>(p)), rc(static_cast<size_t>(p)), sd(static_cast<size_t>(p)), rd(static_cast<size_t>(p));
  int st = 0, rt = 0;
  for (int q = 0; q < p; ++q) {
    sc[static_cast<size_t>(q)] = counts[static_cast<size_t>(rank * p + q)], sd[static_cast<size_t>(q)] = st, st += sc[static_cast<size_t>(q)];
    rc[static_cast<size_t>(q)] = counts[static_cast<size_t>(q * p + rank)], rd[static_cast<size_t>(q)] = rt, rt += rc[static_cast<size_t>(q)];
  }
  std::vector<float> send(static_cast<size_t>(std::max(st, 1)), 1.0f), recv(static_cast<size_t>(std::max(rt, 1)));
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_FLOAT, recv.data(), rc.data(), rd.data(), MPI_FLOAT, MPI_COMM_WORLD);
    times.push_back(slowest(MPI_Wtime() - t0));
  }
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
  mpi::World world(120);
  const int p = world.size(), rank = world.rank();
  if (p < 4 || p % 2) {
    if (rank == 0) std::fprintf(stderr, "bench_mpi_reshard: run it with an even number >= 4 of ranks (mpiexec -n 4 or -n 8)\n");
    return 3;
  }
  const Dtype dtype = dtype_of("float32");
  if (rank == 0) {
    std::printf("%d ranks, float32, median of %d repetitions (slowest rank)\n\n", p, reps);
    std::printf("| plan | pattern | plan bytes | naive bytes | bytes plan/naive | plan time | naive time | time plan/naive |\n|---|---|---|---|---|---|---|---|\n");
  }
  for (const Case& c : cases(p)) try {
    const ShardLayout s0 = read_shard_layout(Json(c.src)), d0 = read_shard_layout(Json(c.dst));
    mpi::RunSpec spec{plan_reshard(s0, d0, c.shape, dtype.bytes), materialize_for_devices(s0, c.shape), materialize_for_devices(d0, c.shape), c.shape, dtype, 1, {}};
    spec.expected = spec.plan.bytes;
    // Checked once (values and bytes), then timed: the steps alone, on loaded buffers.
    auto ex = mpi::make_mpi_executor(world, dtype);
    const mpi::RunOutcome checked = mpi::run_plan(world, *ex, spec);
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (size_t k = 0; k < spec.plan.steps.size(); ++k) ex->run(spec.plan, k);
      times.push_back(slowest(MPI_Wtime() - t0));
    }
    const double plan_t = median(times);
    std::vector<int> counts(static_cast<size_t>(p * p));
    if (rank == 0) counts = naive_counts(spec.src, spec.dst, spec.shape[0] * spec.shape[1], p);
    MPI_Bcast(counts.data(), p * p, MPI_INT, 0, MPI_COMM_WORLD);
    const double naive_t = naive_seconds(counts, p, rank, reps);
    int64_t naive_bytes = 0;
    for (int n : counts) naive_bytes += int64_t{n} * dtype.bytes;
    if (rank == 0)
      std::printf("| %s%s | %s | %lld | %lld | %.2f | %.3f ms | %.3f ms | %.2f |\n", c.name, checked.exit_code ? " (MISMATCH)" : "", spec.plan.pattern.c_str(),
                  static_cast<long long>(spec.plan.total_bytes()), static_cast<long long>(naive_bytes),
                  naive_bytes ? static_cast<double>(spec.plan.total_bytes()) / static_cast<double>(naive_bytes) : 0.0, plan_t * 1e3, naive_t * 1e3,
                  plan_t / naive_t);
  } catch (const std::exception& e) {  // the same on every rank: the plan is refused before any MPI call
    if (rank == 0) std::printf("| %s | refused: %s | | | | | | |\n", c.name, e.what());
  }
  return 0;
}
