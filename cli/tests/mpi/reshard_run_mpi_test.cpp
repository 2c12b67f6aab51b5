// `tfspec reshard-run` under mpiexec (spec/MULTIGPU.md "Executing a plan on MPI", "Faults"): the
// report with bytes derived by hand, the rank count refused, and the faults (a rank that exits,
// hangs, or whose MPI call fails) ending the run with the rank and the step named, well within
// the bound each test puts around mpiexec. One ctest entry per test (cli/CMakeLists.txt), each
// with its own TIMEOUT.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

#include "../run_tfspec.hpp"

namespace {

using tfspec::testing::CommandResult;
using tfspec::testing::shell_quote;

const std::string kRun = " reshard-run '(8 @ m.x, 2) on x=4' '(8, 2) on x=4' '(8,2)'";

// `mpiexec -n RANKS tfspec ARGS` with ENV, bounded by `timeout` so a hang fails the test rather
// than the ctest TIMEOUT; returns the exit code, the output and the seconds it took.
struct Timed {
  CommandResult r;
  double seconds;
};
Timed mpirun(int ranks, const std::string& args, const std::string& env = "", int bound = 45) {
  const std::string cmd = env + " timeout -k 5 " + std::to_string(bound) + " " + TFSPEC_MPIEXEC + " -n " + std::to_string(ranks) + " " +
                          shell_quote(TFSPEC_BINARY) + args + " 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out}, s};
}

// "KIND: [RULE CLAUSE] MESSAGE" as the command prints it (docs/cli.md "Exit codes").
std::string line(const char* kind, const std::string& rule, const char* clause, const std::string& message) {
  return std::string(kind) + ": [" + rule + " " + clause + "] " + message;
}

// All-gather of (8 @ m.x, 2) on x=4: each rank holds 4 float32 (16 B) and receives the other
// 12 (48 B); in the ring it forwards 3 blocks of 4: sends 48 B. 4 ranks: 192 B in all.
TEST(ReshardRunMpi, ReportsTheBytesDerivedByHand) {
  const Timed t = mpirun(4, kRun + " --seed 7");
  EXPECT_EQ(t.r.rc, 0) << t.r.out;
  EXPECT_EQ(t.r.out,
            "reshard-run: all-gather on 4 MPI ranks, float32 (seed 7)\n"
            "rank 0: DST 16 elements; sent 48 B, received 48 B (plan: 48 B, 48 B)\n"
            "rank 1: DST 16 elements; sent 48 B, received 48 B (plan: 48 B, 48 B)\n"
            "rank 2: DST 16 elements; sent 48 B, received 48 B (plan: 48 B, 48 B)\n"
            "rank 3: DST 16 elements; sent 48 B, received 48 B (plan: 48 B, 48 B)\n"
            "OK: every rank's DST equals the reference's reshard and every rank moved the plan's bytes (192 B in all)\n");
}

// A Partial(max) all-reduce in int8, as JSON: 8 elements on each of 2 ranks; ring chunks of 4:
// each rank sends 2*8 - 4 - 4 = 8 B and receives 8 B.
TEST(ReshardRunMpi, JsonReport) {
  const Timed t = mpirun(2, " reshard-run 'shard((2,4):None; P(max); device(2)|x=2)' 'shard((2,4):None; B; device(2)|x=2)' '(8)' --dtype int8 --json");
  EXPECT_EQ(t.r.rc, 0) << t.r.out;
  EXPECT_NE(t.r.out.find(R"("ok":true)"), std::string::npos) << t.r.out;
  EXPECT_NE(t.r.out.find(R"({"dst_elements":8,"plan_received":8,"plan_sent":8,"rank":1,"received":8,"sent":8})"), std::string::npos) << t.r.out;
}

TEST(ReshardRunMpi, TheRankCountIsTheDeviceCount) {
  const Timed t = mpirun(2, kRun);
  EXPECT_EQ(t.r.rc, 3) << t.r.out;
  EXPECT_NE(t.r.out.find(line("error", "mpi-ranks", "§5",
                              "the meshes span 4 devices and reshard-run runs one MPI rank per device, but 2 rank(s) were "
                              "started: run it as `mpiexec -n 4 tfspec reshard-run ...`")),
            std::string::npos)
      << t.r.out;
  EXPECT_EQ(t.r.out.find("error:", t.r.out.find("error:") + 1), std::string::npos) << "reported once, by rank 0:\n" << t.r.out;
}

// The test-only fault TFSPEC_MPI_FAULT=exit:2:0: rank 2 exits (code 9) before step 0. mpiexec
// ends the job at once; the run must fail, name rank 2, and take nowhere near the timeout.
TEST(ReshardRunMpi, ARankThatExitsEndsTheRun) {
  const Timed t = mpirun(4, kRun + " --timeout 20", "TFSPEC_MPI_FAULT=exit:2:0");
  EXPECT_NE(t.r.rc, 0) << t.r.out;
  EXPECT_NE(t.r.rc, 124) << "timed out:\n" << t.r.out;
  EXPECT_NE(t.r.out.find("rank 2: TFSPEC_MPI_FAULT: exiting before step 0 (ncclAllGather along x, groups [[0,1,2,3]])"), std::string::npos) << t.r.out;
  EXPECT_LT(t.seconds, 20) << t.r.out;
}

// Rank 1 hangs before step 0: the others time out after --timeout 3, find that rank 1 does not
// answer, and rank 0 reports it with the step; the job ends with exit 2 (undecided). The same
// where the world is taken for two nodes of two ranks (default+nodes-of-2): rank 0 then waits on
// rank 1's shared-memory flag and on messages from ranks 2 and 3 (spec/MULTIGPU.md "Executor variants").
TEST(ReshardRunMpi, ARankThatHangsIsNamedWithTheStep) {
  for (const std::string variant : {"", " --mpi-variant default+nodes-of-2"}) {
    const Timed t = mpirun(4, kRun + variant + " --timeout 3", "TFSPEC_MPI_FAULT=hang:1:0");
    EXPECT_EQ(t.r.rc, 2) << variant << "\n" << t.r.out;
    EXPECT_NE(t.r.out.find(line("undecided", "mpi-timeout", "-",
                                "rank 0: step 0 (ncclAllGather along x, groups [[0,1,2,3]]) did not finish within 3 s; "
                                "rank(s) 1 did not answer (exited or hung); aborting the run")),
              std::string::npos)
        << variant << "\n" << t.r.out;
    EXPECT_LT(t.seconds, 20) << variant << "\n" << t.r.out;
  }
}

// An MPI call that fails (injected MPI_ERR_OTHER on rank 3 before step 0) is reported with the
// call, the rank and the step, and the job is aborted rather than left waiting.
TEST(ReshardRunMpi, AFailedMpiCallIsReported) {
  const Timed t = mpirun(4, kRun + " --timeout 20", "TFSPEC_MPI_FAULT=error:3:0");
  EXPECT_EQ(t.r.rc, 2) << t.r.out;
  EXPECT_NE(t.r.out.find(line("undecided", "mpi-error", "-", "rank 3: MPI_Testall (injected) failed in step 0 (ncclAllGather along x, groups [[0,1,2,3]]): ")),
            std::string::npos)
      << t.r.out;
  EXPECT_LT(t.seconds, 20) << t.r.out;
}

}  // namespace

// Issue 30 item 11: a fault spec whose RANK or STEP is not a number is a usage error naming the
// part (exit 3), never an exception out of main (exit 4); a timeout past the clock's range is
// refused before MPI starts, never a healthy run aborted at once as mpi-timeout.
TEST(ReshardRunMpi, ABadFaultSpecOrTimeoutIsAUsageError) {
  const Timed word = mpirun(4, kRun, "TFSPEC_MPI_FAULT=hang:x:1");
  EXPECT_EQ(word.r.rc, 3) << word.r.out;
  EXPECT_NE(word.r.out.find("TFSPEC_MPI_FAULT's RANK is an integer from 0 to"), std::string::npos) << word.r.out;
  const Timed huge = mpirun(4, kRun, "TFSPEC_MPI_FAULT=exit:1:99999999999999999999");
  EXPECT_EQ(huge.r.rc, 3) << huge.r.out;
  EXPECT_NE(huge.r.out.find("STEP"), std::string::npos) << huge.r.out;
  const Timed timeout = mpirun(4, kRun + " --timeout 1e10");
  EXPECT_EQ(timeout.r.rc, 3) << timeout.r.out;
  EXPECT_NE(timeout.r.out.find("from 0.001 to 1e7"), std::string::npos) << timeout.r.out;
  EXPECT_EQ(timeout.r.out.find("mpi-timeout"), std::string::npos) << timeout.r.out;
}

// Issue 47: --mpi-variant picks the MPI executor's variant; each runs the same checks (values
// against the reference, bytes against the plan: the 48 B each way per rank of
// ReportsTheBytesDerivedByHand), and a word that names no variant is a usage error (exit 3), as
// is nodes-of-K with K not a positive integer or without the shared-memory exchange it splits.
TEST(ReshardRunMpi, EveryMpiVariantRunsCheckedAndABadOneIsAUsageError) {
  for (const char* v : {"base", "recv-first", "reduce-arrival", "datatypes", "stagger", "all", "datatypes+stagger", "one-round", "one-round-always+pack",
                        "datatypes+one-round+persistent", "one-round+alltoallw", "default", "one-round-always+shm", "default+nodes-of-1", "default+nodes-of-2",
                        "default+nodes-of-3"}) {
    const Timed run = mpirun(4, kRun + " --mpi-variant " + v);
    EXPECT_EQ(run.r.rc, 0) << v << "\n" << run.r.out;
    EXPECT_NE(run.r.out.find("rank 3: DST 16 elements; sent 48 B, received 48 B (plan: 48 B, 48 B)"), std::string::npos) << v << "\n" << run.r.out;
  }
  const char* kPositive = "nodes-of-K takes a positive integer K";
  const std::pair<std::string, const char*> kBad[] = {
      {"fast", "executor variant 'fast'"},
      {"default+nodes-of-0", kPositive},
      {"default+nodes-of-", kPositive},
      {"default+nodes-of-2x", kPositive},
      {"default+nodes-of--1", kPositive},
      {"default+nodes-of-99999999999", kPositive},
      {"one-round+nodes-of-2", "nodes-of-K splits the nodes of the shared-memory exchange; join it with shm or default"}};
  for (const auto& [v, says] : kBad) {
    const Timed bad = mpirun(4, kRun + " --mpi-variant " + v);
    EXPECT_EQ(bad.r.rc, 3) << v << "\n" << bad.r.out;
    EXPECT_NE(bad.r.out.find(says), std::string::npos) << v << "\n" << bad.r.out;
  }
}

// The default's shared-memory window is backed by a file in OpenMPI's osc_sm_backing_directory
// (/dev/shm, 64 MiB in a container started without --shm-size). Where the window does not fit,
// OpenMPI fails its allocation and the run would abort; tfspec checks the room first and runs the
// exchange as messages with a note naming the directory (spec/MULTIGPU.md "Executor variants").
// Here the directory does not exist: the run passes, with the bytes of ReportsTheBytesDerivedByHand.
TEST(ReshardRunMpi, ASharedMemoryWindowThatDoesNotFitRunsAsMessages) {
  const Timed t = mpirun(4, kRun, "OMPI_MCA_osc_sm_backing_directory=/nonexistent-tfspec-shm");
  EXPECT_EQ(t.r.rc, 0) << t.r.out;
  EXPECT_NE(t.r.out.find("does not fit in /nonexistent-tfspec-shm (statvfs: No such file or directory): the exchange runs as messages here"), std::string::npos)
      << t.r.out;
  EXPECT_NE(t.r.out.find("rank 3: DST 16 elements; sent 48 B, received 48 B (plan: 48 B, 48 B)"), std::string::npos) << t.r.out;
  EXPECT_NE(t.r.out.find("OK: every rank's DST equals the reference's reshard"), std::string::npos) << t.r.out;
  // Where the world is that one node, the factor-2 rule (one exchange through the window where it
  // moves at most twice the steps' bytes) is off too: the 4-rank all-reduce runs its ring, not
  // the one exchange as messages. (8,4) Partial(sum) -> replicated: 32 float32 a rank in chunks
  // of 8; reduce-scatter then all-gather, 3 chunks each way in each: 6 * 8 * 4 B = 192 B sent and
  // received (the one exchange would move 3 * 32 * 4 B = 384 B).
  const Timed ring = mpirun(4, " reshard-run 'shard((8,4):None; P(); device(4)|x=4)' 'shard((8,4):None; B; device(4)|x=4)' '(8,4)'",
                            "OMPI_MCA_osc_sm_backing_directory=/nonexistent-tfspec-shm");
  EXPECT_EQ(ring.r.rc, 0) << ring.r.out;
  EXPECT_NE(ring.r.out.find("rank 2: DST 32 elements; sent 192 B, received 192 B (plan: 192 B, 192 B)"), std::string::npos) << ring.r.out;
}

// Issue 44 item 14: a fault that names a rank the run lacks, or a step past the last point a fault
// fires (steps 0..N-1 of an N-step plan, then N: before the gather), would never fire, and the run
// would pass as if the fault had been tested: a usage error (exit 3) before anything runs. kRun's
// plan (reshard-plan prints it) is one ncclAllGather, then a local src->dst and a local recv->dst
// copy on each of the 4 devices: 1 + 4 + 4 = 9 steps. So exit:1:9 still fires (before the
// gather) and exit:1:10 cannot. (--seed -1: cli/tests/unfired_options_cli_test.cpp.)
TEST(ReshardRunMpi, AFaultThatCannotFireIsAUsageError) {
  const std::string run2 = " reshard-run 'shard((2,4):None; P(max); device(2)|x=2)' 'shard((2,4):None; B; device(2)|x=2)' '(8)'";
  const Timed rank = mpirun(2, run2, "TFSPEC_MPI_FAULT=hang:5:0");
  EXPECT_EQ(rank.r.rc, 3) << rank.r.out;
  EXPECT_NE(rank.r.out.find(line("error", "usage", "-", "TFSPEC_MPI_FAULT=hang:5:0 names rank 5, but the run has 2 rank(s), 0..1: the fault could never fire")),
            std::string::npos)
      << rank.r.out;
  EXPECT_LT(rank.seconds, 20) << rank.r.out;
  const Timed step = mpirun(4, kRun, "TFSPEC_MPI_FAULT=exit:1:999");
  EXPECT_EQ(step.r.rc, 3) << step.r.out;
  EXPECT_NE(step.r.out.find("names step 999, but the plan has 9 step(s): a fault fires before a step 0..9 (9: before the gather to rank 0)"),
            std::string::npos)
      << step.r.out;
  const Timed past = mpirun(4, kRun, "TFSPEC_MPI_FAULT=exit:1:10");
  EXPECT_EQ(past.r.rc, 3) << past.r.out;
  EXPECT_NE(past.r.out.find("names step 10"), std::string::npos) << past.r.out;
  const Timed last = mpirun(4, kRun + " --timeout 20", "TFSPEC_MPI_FAULT=exit:1:9");
  EXPECT_NE(last.r.rc, 0) << last.r.out;
  EXPECT_NE(last.r.rc, 3) << last.r.out;
  EXPECT_NE(last.r.out.find("rank 1: TFSPEC_MPI_FAULT: exiting before the gather to rank 0"), std::string::npos) << last.r.out;
}


#ifdef TFSPEC_NCCL_BUILT
// --executor nccl (built wherever CMake finds NCCL: the CUDA toolkit ships it). A 1-rank run of a
// plan whose one collective is an ncclAllReduce on a 1-rank communicator (a Partial(sum) axis of
// extent 1 reduced, then a local copy). Without a usable CUDA device it must say why and exit 5
// (never a crash, a hang or a pass); with one it must run end to end and agree with the
// reference (bench/gpu-check.sh runs it on a GPU).
TEST(ReshardRunMpi, NcclExecutorRunsOrSaysWhyNot) {
  const Timed t = mpirun(1, " reshard-run '(8, 16) where x=P(\"sum\") on x=1' '(8, 16) on x=1' '(8,16)' --executor nccl", "", 60);
  if (t.r.rc == 0) {
    EXPECT_NE(t.r.out.find("reshard-run: all-reduce on 1 MPI ranks"), std::string::npos) << t.r.out;
    EXPECT_NE(t.r.out.find("OK: every rank's DST equals the reference's reshard"), std::string::npos) << t.r.out;
    return;
  }
  EXPECT_EQ(t.r.rc, 5) << t.r.out;
  EXPECT_NE(t.r.out.find("unavailable: [cuda-error -] reshard-run --executor nccl needs one CUDA device per rank, and this machine has none "
                         "usable: cudaGetDeviceCount: cudaError"),
            std::string::npos)
      << t.r.out;
  EXPECT_EQ(t.r.out.find("this tfspec was built without NCCL"), std::string::npos) << t.r.out;
  EXPECT_EQ(t.r.out.find("internal"), std::string::npos) << t.r.out;
}
#endif
