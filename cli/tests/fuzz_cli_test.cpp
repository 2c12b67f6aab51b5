// `tfspec fuzz` end to end: a short host run passes, replay, sharding, usage errors, and the
// CUDA backend either runs or says why not with exit 5 (never a silent pass).
#include <gtest/gtest.h>

#include "run_tfspec.hpp"

namespace tfspec::testing {
namespace {

TEST(FuzzCli, AShortHostRunPassesWithASummary) {
  auto r = run_tfspec("fuzz --backend host --seconds 1 --seed 3 --op offsets");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("fuzz: PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no disagreement (offsets"), std::string::npos) << r.out;
}

TEST(FuzzCli, ReplaysACaseAndHonoursGtestSharding) {
  auto r = run_tfspec("fuzz --replay " + shell_quote("crd2idx # (4,8):(8,1) # 1,2;3,7"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("reference: (10,31)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fuzz: AGREE"), std::string::npos) << r.out;
  setenv("GTEST_TOTAL_SHARDS", "3", 1);  // inherited by the child; restored below
  setenv("GTEST_SHARD_INDEX", "2", 1);
  r = run_tfspec("fuzz --seconds 0.5 --max-cases 100 --quiet");
  unsetenv("GTEST_TOTAL_SHARDS");
  unsetenv("GTEST_SHARD_INDEX");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("shard 2/3"), std::string::npos) << r.out;
}

TEST(FuzzCli, UsageErrorsExitThree) {
  EXPECT_EQ(run_tfspec("fuzz --backend tpu --seconds 1").rc, 3);
  EXPECT_EQ(run_tfspec("fuzz --op transpose --seconds 1").rc, 3);
  auto r = run_tfspec("fuzz --replay " + shell_quote("offsets # (2,2):(1,2) # 7"));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("usage"), std::string::npos) << r.out;
}

TEST(FuzzCli, TheCudaBackendRunsOrSaysWhyNot) {
  auto r = run_tfspec("fuzz --backend cuda --seconds 1 --seed 1");
  if (r.rc == 5) {
    EXPECT_NE(r.out.find("fuzz: SKIPPED, backend cuda unavailable: "), std::string::npos) << r.out;
    GTEST_SKIP() << "CUDA backend unavailable: " << r.out;
  }
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("fuzz: PASS"), std::string::npos) << r.out;
}

// Issue 23: the CUDA kernel source on the emulated grid is always available, and replays.
TEST(FuzzCli, TheEmulatedCudaBackendAlwaysRunsAndReplays) {
  auto r = run_tfspec("fuzz --backend cuda-emu --seconds 20 --max-cases 500 --seed 1 --quiet");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("fuzz: backend cuda-emu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fuzz: PASS, 500 cases"), std::string::npos) << r.out;
  r = run_tfspec("fuzz --backend cuda-emu --replay " + shell_quote("crd2idx # (4,8):(8,1) # 1,2;3,7"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("cuda-emu:  (10,31)"), std::string::npos) << r.out;
  r = run_tfspec("fuzz --backend tpu --seconds 1");
  EXPECT_NE(r.out.find("host, cuda or cuda-emu"), std::string::npos) << r.out;
}

// Issue 19, item 7: a budget that never ends or runs nothing is refused; a run with no case is
// never a PASS.
TEST(FuzzCli, ABudgetThatIsNotAFinitePositiveNumberIsRefused) {
  for (const char* s : {"nan", "inf", "0", "-1", "1e999", "abc"}) {
    // --max-cases bounds the run should a budget be accepted (NaN never ends).
    auto r = run_tfspec(std::string("fuzz --quiet --max-cases 20 --seconds ") + s);
    EXPECT_EQ(r.rc, 3) << s << ": " << r.out;
    EXPECT_NE(r.out.find("--seconds"), std::string::npos) << s << ": " << r.out;
    EXPECT_EQ(r.out.find("PASS"), std::string::npos) << s << ": " << r.out;
  }
  // Below a millisecond is no budget on any clock (issue 30): refused by the option, not run.
  auto r = run_tfspec("fuzz --quiet --seconds 1e-9");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from 0.001 to 1e7"), std::string::npos) << r.out;
}

// --rank-timeout below a second would give up ranks at work: their notes come every 0.2 s and
// rank 0's signs of life every 0.5 s (measured: 0.3 s ended a healthy 3-rank campaign with exit
// 2). Refused as a usage error before anything runs, in both commands; 1 s is accepted.
TEST(FuzzCli, ARankTimeoutBelowASecondIsRefused) {
  for (const char* cmd : {"fuzz --quiet --max-cases 20", "conform --quiet --filter '§5'"})
    for (const char* s : {"0.3", "0.999", "0", "nan"}) {
      const auto r = run_tfspec(std::string(cmd) + " --rank-timeout " + s);
      EXPECT_EQ(r.rc, 3) << cmd << " " << s << ": " << r.out;
      EXPECT_NE(r.out.find("--rank-timeout: must be a finite number of seconds from 1 to 1e7"), std::string::npos) << r.out;
    }
  EXPECT_EQ(run_tfspec("fuzz --quiet --max-cases 20 --rank-timeout 1").rc, 0);
}

// Item 17: --max-cases N runs exactly N cases (fewer only when the time is up); N < 1, an empty
// replay and a negative seed are refused.
TEST(FuzzCli, MaxCasesIsExactAndTheOtherOptionsAreChecked) {
  for (int n : {1, 7, 250}) {
    auto r = run_tfspec("fuzz --quiet --op offsets --seconds 60 --max-cases " + std::to_string(n));
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("fuzz: PASS, " + std::to_string(n) + " cases"), std::string::npos) << n << ": " << r.out;
  }
  for (const char* bad : {"--max-cases -5", "--max-cases 0", "--replay ''", "--seed -1"}) {
    auto r = run_tfspec(std::string("fuzz --quiet --seconds 1 ") + bad);
    EXPECT_EQ(r.rc, 3) << bad << ": " << r.out;
    EXPECT_EQ(r.out.find("PASS"), std::string::npos) << bad << ": " << r.out;
  }
  // The refusal states the bound as the help does, not as CLI11's doubles ("not in range 0.000000 to 1.79e308").
  EXPECT_NE(run_tfspec("fuzz --quiet --max-cases 0").out.find("--max-cases: must be an integer >= 1, not '0'"), std::string::npos);
  EXPECT_NE(run_tfspec("fuzz --quiet --seed -1").out.find("--seed: must be an integer from 0 to 2^64-1, not '-1'"), std::string::npos);
  EXPECT_EQ(run_tfspec("fuzz --quiet --seed 18446744073709551616").rc, 3);  // 2^64
}

// Item 14: a report that cannot be written is an error, not a silent loss.
TEST(FuzzCli, AJunitFileThatCannotBeWrittenIsAnError) {
  auto r = run_tfspec("fuzz --quiet --max-cases 10 --junit /dev/full");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("cannot write the report file /dev/full"), std::string::npos) << r.out;
  r = run_tfspec("fuzz --quiet --max-cases 10 --junit /no/such/dir/report.xml");
  EXPECT_EQ(r.rc, 3) << r.out;
}

// Item 16: SIGINT stops the run at a case boundary with the summary and the JUnit file, exit 130.
TEST(FuzzCli, SigintPrintsTheSummaryWritesTheReportAndExits130) {
  const std::string dir = ::testing::TempDir();
  const std::string tag = std::to_string(getpid());  // ctest may run another build's copy at once
  const std::string out_path = dir + "/fuzz_sigint_out" + tag + ".txt", junit = dir + "/fuzz_sigint" + tag + ".xml";
  std::remove(junit.c_str());
  std::remove(out_path.c_str());  // a previous run's output would look like this one's progress
  const pid_t pid = spawn_tfspec({"fuzz", "--seconds", "120", "--seed", "5", "--junit", junit}, out_path);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for_output(out_path, " cases/s", 10)) << "no progress line: " << read_file(out_path);  // it is fuzzing
  kill(pid, SIGINT);
  const int status = wait_or_kill(pid, 30);
  const std::string out = read_file(out_path);
  ASSERT_NE(status, -1) << "no exit within 30 s of SIGINT:\n" << out;
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal, not stopped by it:\n" << out;
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  EXPECT_NE(out.find("fuzz: INTERRUPTED by signal 2"), std::string::npos) << out;
  EXPECT_NE(out.find("no disagreement so far, "), std::string::npos) << out;
  EXPECT_NE(out.find("fuzz: largest cases:"), std::string::npos) << out;
  const std::string xml = read_file(junit);
  EXPECT_NE(xml.find("<error message=\"interrupted by signal 2 after "), std::string::npos) << xml;
  EXPECT_NE(xml.find("</testsuites>"), std::string::npos) << xml;
}

}  // namespace

// A report path that cannot be opened is refused before the first case (exit 3, no header line).
TEST(FuzzCli, AReportPathThatCannotBeOpenedIsRefusedBeforeTheRun) {
  for (const char* reports : {"--json /nonexistent-dir/f.json", "--junit /nonexistent-dir/f.xml"}) {
    const auto r = run_tfspec(std::string("fuzz --quiet --seconds 30 ") + reports);
    EXPECT_EQ(r.rc, 3) << reports << ": " << r.out;
    EXPECT_NE(r.out.find("cannot open the report file /nonexistent-dir/f."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("fuzz: backend"), std::string::npos) << "it ran:\n" << r.out;
  }
}

}  // namespace tfspec::testing
