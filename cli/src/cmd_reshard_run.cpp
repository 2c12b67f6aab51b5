// `tfspec reshard-run SRC DST SHAPE [--dtype T] [--seed N] [--timeout S] [--json]`, started under
// `mpiexec -n P` (P = the meshes' devices): the reshard plan executed on MPI and checked against
// the reference's reshard and the plan's bytes (spec/MULTIGPU.md "Executing a plan on MPI").
// Built without MPI, the command exists and says so (mpi-unavailable, exit 5).
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "run_control.hpp"
#include "tfspec/multigpu/executor.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"
#ifdef TFSPEC_HAVE_MPI
#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/protocol/wire.hpp"
#endif
#ifdef TFSPEC_HAVE_NCCL
#include "tfspec/multigpu/nccl.hpp"
#endif

namespace tfspec::cli {
namespace {

struct ReshardRunArgs {
  std::string src, dst, shape;
  std::string dtype = "float32";
  uint64_t seed = 1;
  double timeout = 60;
  std::string executor = "mpi";
  std::string variant = "default";
  bool json = false;
};

constexpr bool nccl_built() {
#ifdef TFSPEC_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

#ifdef TFSPEC_HAVE_MPI
std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  for (const auto& leaf : flat_leaves(parse_inttuple(text))) shape.push_back(leaf.value());
  return shape;
}

#ifdef TFSPEC_HAVE_NCCL
// --executor nccl needs a CUDA device on every rank; the ranks agree on it first (one without a
// device would otherwise leave the others waiting in the NCCL setup until the timeout). Where one
// is missing: why, once, and exit 5 (unavailable: a skip, never a pass), as `fuzz --backend cuda`.
bool nccl_devices_everywhere(multigpu::mpi::World& world) {
  const std::optional<std::string> why = multigpu::nccl::unavailable();
  int64_t missing = why ? 1 : 0, any = 0;
  std::vector<MPI_Request> req(1);
  world.check(MPI_Iallreduce(&missing, &any, 1, MPI_INT64_T, MPI_MAX, world.comm(), &req[0]), "MPI_Iallreduce", "the CUDA device check");
  world.wait(req, "the CUDA device check of --executor nccl");
  if (any == 0) return true;
  if (world.rank() == 0)
    std::cerr << "unavailable: [" << rule::kCudaError.id << " -] reshard-run --executor nccl needs one CUDA device per rank, and "
              << (why ? "this machine has none usable: " + *why : std::string("another rank has none usable")) << " (exit " << kUnavailable
              << ", never a pass; --executor mpi runs the same plan on the host)\n";
  return false;
}
#endif

int run_checked(multigpu::mpi::World& world, const ReshardRunArgs& a) {
  using namespace multigpu;
  const Dtype dtype = dtype_of(a.dtype);
  const std::vector<int64_t> shape = parse_shape(a.shape);
  const ShardLayout src_in = read_shard_layout(Json(a.src)), dst_in = read_shard_layout(Json(a.dst));
  mpi::RunSpec spec{plan_reshard(src_in, dst_in, shape, dtype.bytes), materialize_for_devices(src_in, shape),
                    materialize_for_devices(dst_in, shape), shape, dtype, a.seed, {}};
  spec.expected = spec.plan.bytes;
  const int64_t devices = spec.src.mesh().topology_domain().value_or(0);  // equal for DST (mgpu-device-domain)
  if (world.size() != devices)
    fail(rule::kMpiRanks, "the meshes span " + std::to_string(devices) + " devices and reshard-run runs one MPI rank per device, but " +
                              std::to_string(world.size()) + " rank(s) were started: run it as `mpiexec -n " + std::to_string(devices) +
                              " tfspec reshard-run ...`");
  const mpi::Fault fault = mpi::fault_from_env();
  mpi::check_fault_fires(fault, world.size(), spec.plan.steps.size());
  std::unique_ptr<Executor> ex;
  if (a.variant != "default" && a.executor != "mpi") fail(rule::kUsage, "--mpi-variant chooses the MPI executor's variant; --executor is '" + a.executor + "'");
  if (a.executor == "mpi") ex = mpi::make_mpi_executor(world, dtype, mpi::parse_executor_options(a.variant));
#ifdef TFSPEC_HAVE_NCCL
  else if (a.executor == "nccl") {
    if (!nccl_devices_everywhere(world)) return kUnavailable;
    ex = nccl::make_nccl_executor(world, dtype);
  }
#endif
  else fail(rule::kUsage, "--executor is mpi" + std::string(nccl_built() ? " or nccl" : " (this tfspec was built without NCCL)") + ", not '" + a.executor + "'");
  const mpi::RunOutcome out = mpi::run_plan(world, *ex, spec, fault);
  if (world.rank() == 0) {
    if (a.json) std::cout << protocol::dump_line(out.json) << "\n";
    else std::cout << out.text;
    if (!out.mismatch.empty()) std::cerr << "mismatch: [" << rule::kMpiMismatch.id << " " << rule::kMpiMismatch.clause << "] " << out.mismatch << "\n";
  }
  return out.exit_code == 0 ? kOk : kViolations;
}

int run(const ReshardRunArgs& a) {
  multigpu::mpi::World world(a.timeout);
  // Every rank parses and plans the same input, so an input error happens on all of them alike:
  // rank 0 reports it, the others exit with the same code silently.
  std::ostringstream quiet;
  std::streambuf* saved = world.rank() == 0 ? nullptr : std::cerr.rdbuf(quiet.rdbuf());
  const int code = reported([&] { return run_checked(world, a); });
  if (saved) std::cerr.rdbuf(saved);
  return code;
}
#else
int run(const ReshardRunArgs&) {
  std::cerr << "error: [" << rule::kMpiUnavailable.id << " -] this tfspec was built without MPI (CMake's find_package(MPI) found none), so "
            << "reshard-run cannot execute a plan: install libopenmpi-dev and openmpi-bin (scripts/setup.sh), reconfigure and rebuild\n";
  return kUnavailable;
}
#endif

}  // namespace

void add_reshard_run_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ReshardRunArgs>();
  auto* sub = app.add_subcommand("reshard-run",
                                 "Execute a reshard plan on MPI (under mpiexec -n DEVICES) and check it against the reference and the plan's bytes");
  sub->add_option("src", a->src, "the source ShardLayout: shard(...) text, sugar '... on MESH', or JSON")->required();
  sub->add_option("dst", a->dst, "the destination ShardLayout (same forms)")->required();
  sub->add_option("shape", a->shape, "the logical shape, e.g. '(8,1024)'")->required();
  sub->add_option("--dtype", a->dtype, "the element type the data moves in, an NCCL datatype (default float32)");
  sub->add_option("--seed", a->seed, "the seed of the global tensor every rank builds, 0 to 2^64-1 (default 1)")
      ->check(integer_in(0, ~0ULL, "an integer from 0 to 2^64-1"));
  sub->add_option("--timeout", a->timeout, "seconds any one step (or the final gather) may take before the run is aborted (default 60)")
      ->check(positive_seconds());
  sub->add_option("--executor", a->executor, "mpi (default), or nccl when built with NCCL (spec/MULTIGPU.md)");
  sub->add_option("--mpi-variant", a->variant,
                  "the MPI executor's variant: default, base, all, or recv-first / reduce-arrival / datatypes / stagger / one-round / "
                  "one-round-always / alltoallw / pack / persistent / arrival / shm / nodes-of-K joined by '+' "
                  "(spec/MULTIGPU.md \"Executor variants\")");
  sub->add_flag("--json", a->json, "print the report as JSON");
  sub->callback([a, &exit_code] { exit_code = reported([&] { return run(*a); }); });
}

}  // namespace tfspec::cli
