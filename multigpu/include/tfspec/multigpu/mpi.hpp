// Reshard plans executed on MPI (spec/MULTIGPU.md "Executing a plan on MPI"). Built only when
// find_package(MPI) finds MPI: the target tfspec_multigpu_mpi, which defines TFSPEC_HAVE_MPI.
// One rank per device (rank = device id). Every MPI call returns its errors (MPI_ERRORS_RETURN)
// and every wait has a deadline: a rank that exits or hangs never blocks the others for ever.
#pragma once
#include <mpi.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tfspec/multigpu/executor.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec::multigpu::mpi {

// MPI_Init .. MPI_Finalize around one run; the world communicator with MPI_ERRORS_RETURN.
class World {
 public:
  explicit World(double timeout_seconds);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  double timeout_seconds() const { return timeout_.count(); }
  void set_timeout(double seconds) { timeout_ = std::chrono::duration<double>(seconds); }
  // An MPI return code other than MPI_SUCCESS: prints mpi-error naming the call, this rank and
  // `what` (the step), and aborts the job (a half-run collective cannot be recovered).
  void check(int rc, const char* call, const std::string& what);
  // Waits for the requests, at most the timeout. Past it: mpi-timeout naming this rank, `what`,
  // and the ranks that did not answer a last round of messages (exited or hung), then abort.
  void wait(std::vector<MPI_Request>& requests, const std::string& what);
  // The same for the calls of a plan's step: polls `test` (true when done; an MPI error code in
  // its argument) until done or the timeout; the step's description (describe_step) is built only
  // for a report, never on the way of a step that completes.
  void wait_until(const std::function<bool(int&)>& test, const Plan& plan, size_t step);
  // Rank 0 receives every rank's bytes, in rank order (others get an empty vector).
  std::vector<std::vector<unsigned char>> gather(const std::vector<unsigned char>& mine, const std::string& what);
  int64_t broadcast(int64_t value, const std::string& what);  // rank 0's value, on every rank
  // The timeout report of wait(), for an executor that waits on something else (a CUDA stream).
  [[noreturn]] void abort_timed_out(const std::string& what) { timed_out(what); }

 private:
  [[noreturn]] void timed_out(const std::string& what);
  int rank_ = 0, size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;   // a dup of MPI_COMM_WORLD: the run's own messages
  MPI_Comm alive_ = MPI_COMM_NULL;  // another dup: the who-is-alive round after a timeout
  std::chrono::duration<double> timeout_;
};

// The MPI executor: buffers on the host; step groups as communicators from MPI_Comm_split
// (created in load(), before the first step, so a rank that stops mid-plan leaves no peer
// blocked in a split); collectives as non-blocking MPI calls, left in flight until a later step
// touches their buffer ranges (or finish()), waited for with the deadline; local copies through
// the packing core, compiled in load().
//
// Executor variants (issue 47; spec/MULTIGPU.md "Executor variants"), each on or off alone, so a
// run can measure each against the others (bench_mpi_reshard --executor=...). Every variant moves
// the same bytes and writes the same DST as the default:
//  - receives_first: at this device's first local copy before a collective (its pack), the
//    collective's receives are posted before the copy runs (when no step in flight or copy before
//    it touches their buffers); the sends follow when the collective's step runs.
//  - reduce_on_arrival: a reduce-scatter's / all-reduce's blocks are tested one by one
//    (MPI_Testsome) and reduced as they arrive, in rank order (block q once blocks 0..q are in:
//    float sums round exactly as the default's), instead of all after the last.
//  - datatypes: MPI derived datatypes (MPI_Type_create_hindexed over the pack's / unpack's runs)
//    send a collective's blocks straight out of SRC and receive them straight into DST, where one
//    local copy packs SRC into the SEND ranges only that collective reads, or unpacks the RECV
//    ranges only it writes into DST; those copies then run only for what stays on this device.
//  - staggered (not one of issue 35's three; tried beside them): each rank posts its sends to
//    pos+1, pos+2, ... and its receives from pos-1, pos-2, ... (modulo the group) instead of all
//    ranks starting with rank 0, as MPI libraries' linear all-to-all schedules do.
//  - one_round (one-round): where the plan chose one-round execution (Plan::one_round, spec/MULTIGPU.md
//    "One-round execution"), the whole plan as one exchange at its first step: each rank sends
//    every peer, in one message through a derived datatype over SRC, the SRC elements that end in
//    the peer's DST (compose_one_round) and receives its own straight into DST, or, for elements
//    that reduce several, into a scratch reduced in the steps' order when all are in; elsewhere the
//    steps as the other options run them.
//  - one_round_always (one-round-always): the same wherever the steps compose, whatever it moves
//    (an all-reduce as every rank sending its whole block to every other: issue 47's one-round
//    all-reduce at small rank counts); the bytes it moves are then its own, not the plan's.
//  - alltoallw (with one-round / one-round-always): the one exchange as a single MPI_Ialltoallw
//    (each peer's message one count of its derived datatype) instead of MPI_Isend / MPI_Irecv pairs.
//  - pack (with one-round / one-round-always, not alltoallw): a message whose elements are not one
//    run is packed into a contiguous buffer by the packing core before its send / received into one
//    and unpacked after, instead of a derived datatype (so MPI sees contiguous messages only; a
//    message of one run is always sent and received in place).
//  - persistent (with one-round / one-round-always, not alltoallw): the exchange's messages as
//    persistent requests (MPI_Send_init / MPI_Recv_init) made in load(), started together
//    (MPI_Startall) at each run.
//  - arrival (with one-round / one-round-always, not alltoallw): the exchange's receives tested one
//    by one (MPI_Testsome); as each completes its packed elements are unpacked (pack) and every
//    reduction group's rows 1, 2, ... reduced into row 0 as far as they are in, in row order (the
//    contributors' order, so float sums round as without it), instead of all when the last is in.
//  - shm (with one-round / one-round-always): where every rank of the world shares one node
//    (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) holds them all), the one exchange through MPI-3
//    shared memory (MPI_Win_allocate_shared) instead of messages: each rank's SRC lives in its
//    segment of the window; a run raises this rank's "SRC ready" flag, copies (and reduces) the
//    elements it needs straight from each peer's SRC into DST as that peer's flag is up (one copy
//    per element, no message), raises a "done reading" count on each peer, and returns once every
//    peer that reads its SRC is done with it. pack / persistent / alltoallw / arrival then have no
//    messages to act on. With one-round, the one exchange also runs where the plan did not choose
//    it when no device receives more than twice what the steps move to it (a round through shared
//    memory costs a flag, not a handshake per message). Where the world spans several nodes, the
//    peers on this rank's node are read through the node's window and those on other nodes reached
//    by the messages (as the other options send them), in the same run; the reductions wait for both.
//  - node_ranks (nodes-of-K, with shm): each node's ranks split further into groups of K
//    consecutive world ranks, each group taken for a node of its own (so one machine runs, and the
//    tests check, the exchange of a world spread over several nodes). 0: the machine's nodes.
struct ExecutorOptions {
  bool receives_first = false, reduce_on_arrival = false, datatypes = false, staggered = false;
  bool one_round = false, one_round_always = false, alltoallw = false, pack = false, persistent = false;
  bool arrival = false, shm = false;
  int node_ranks = 0;
  friend bool operator==(const ExecutorOptions&, const ExecutorOptions&) = default;
};
// "default" (the kept default), "base" (none), or names joined by '+': recv-first, reduce-arrival,
// datatypes, stagger, one-round, one-round-always, alltoallw, pack, persistent, arrival, shm,
// nodes-of-K (K a positive integer); "all" = the first four. Anything else: SpecError (rule usage)
// naming the accepted words.
ExecutorOptions parse_executor_options(const std::string& text);
std::string to_string(const ExecutorOptions& options);
// The options the executor uses when none are given (the kept default of issue 47's experiments).
ExecutorOptions default_executor_options();
std::unique_ptr<Executor> make_mpi_executor(World& world, const Dtype& dtype, const ExecutorOptions& options);
std::unique_ptr<Executor> make_mpi_executor(World& world, const Dtype& dtype);

// A test-only fault (spec/MULTIGPU.md "Faults"): rank `rank` exits (code 9), hangs, or sees an
// MPI call fail (MPI_ERR_OTHER) before step `step`. Read from the environment variable
// TFSPEC_MPI_FAULT=exit:RANK:STEP | hang:RANK:STEP | error:RANK:STEP.
struct Fault {
  enum class Kind { None, Exit, Hang, Error } kind = Kind::None;
  int rank = -1;
  size_t step = 0;
};
Fault fault_from_env();
// The text of TFSPEC_MPI_FAULT read whole; a SpecError (usage) naming the part that is wrong.
Fault parse_fault(const std::string& text);
// A fault that names a rank the run does not have, or a step after the last point it can fire
// (steps 0..steps-1, and `steps`: before the gather to rank 0), would never fire and the run would
// pass as if it had been tested: a usage error before anything runs (SpecError, rule usage).
void check_fault_fires(const Fault& fault, int ranks, size_t steps);

// One execution of a plan, checked: every rank distributes the seeded tensor with the reference,
// runs the plan through `ex`, compares its bytes with `expected` (normally plan.bytes); rank 0
// gathers every DST buffer and compares it with the reference's reshard, element by element.
struct RunSpec {
  Plan plan;
  ShardLayout src, dst;  // materialized for devices (materialize_for_devices)
  std::vector<int64_t> shape;
  Dtype dtype;
  uint64_t seed = 1;
  std::map<int64_t, DeviceBytes> expected;
};
struct RunOutcome {
  int exit_code = 0;     // on every rank: 0 all agree, 1 a mismatch (rank 0's verdict, broadcast)
  std::string mismatch;  // rank 0: the first disagreement ("" when none)
  std::string text;      // rank 0: the report
  Json json;             // rank 0: the report as JSON
  std::vector<std::vector<int64_t>> dst;  // rank 0: every rank's DST values, in rank order
  double seconds = 0;    // this rank: wall time of the plan's steps
};
RunOutcome run_plan(World& world, Executor& ex, const RunSpec& spec, const Fault& fault = {});
// The seeded global tensor every rank builds (values every dtype holds exactly: 0..100 for the
// unsigned types, -100..100 otherwise; integers, so reductions are exact).
Tensor seeded_tensor(const std::vector<int64_t>& shape, const Dtype& dtype, uint64_t seed);
// Every rank's SRC buffer of `t` (issue 47's test gap): as the reference's distribute, but a
// Partial value is split over all its contributing ranks, each contribution a deterministic
// (seeded) nonzero part, reducing exactly to the value (§6 Partial; the reference's partition),
// so an executor that drops one is caught. Where the dtype's exact range leaves no room (the
// unsigned types, bfloat16 / int8 on many contributors), the canonical distribute.
Engines split_contributions(const Tensor& t, const ShardLayout& src, const Dtype& dtype, uint64_t seed);

}  // namespace tfspec::multigpu::mpi
