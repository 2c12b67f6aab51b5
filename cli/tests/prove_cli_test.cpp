// `tfspec prove ...` and `prove.*` over `tfspec serve`: verdicts, exit codes (spec/PROVE.md).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using Proved = tfspec::testing::CommandResult;

// Verdicts that must not depend on machine load get a generous wall-clock limit (sanitizer
// builds on a loaded CI machine are many times slower than a release build).
Proved tfspec(const std::string& args, const std::string& stdin_text = "") {
  return tfspec::testing::run_tfspec(args, stdin_text);
}

TEST(ProveCli, ProvedIsExitZero) {
  auto r = tfspec("prove injective '(M,N):(1,M)'");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("PROVED injective (§2) for all values, by structural"), std::string::npos) << r.out;
}

TEST(ProveCli, RefutedIsExitOneWithAReplayedCounterexample) {
  auto r = tfspec("prove injective '(M,N):(1,K)' --assume 'K < M' --assume 'N >= 2' --json --timeout 60");
  ASSERT_EQ(r.rc, 1) << r.out;
  auto j = tfspec::Json::parse(r.out);
  EXPECT_EQ(j["verdict"], "REFUTED");
  EXPECT_LT(j["counterexample"]["symbols"]["K"].get<int64_t>(), j["counterexample"]["symbols"]["M"].get<int64_t>());
}

// gcd(M, N) == 1 (Bezout) makes (M,N):(N,M) injective; nonlinear: Z3 gives up within 0.2 s.
TEST(ProveCli, UnknownIsExitTwoWithAReason) {
  auto r = tfspec("prove injective '(M,N):(N,M)' --assume 'M*X - N*Y == 1' --timeout 0.2");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("UNKNOWN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reason:"), std::string::npos) << r.out;
}

TEST(ProveCli, InputErrorsAreExitThree) {
  EXPECT_EQ(tfspec("prove injective '(M,N):(1,M'").rc, 3);
  EXPECT_EQ(tfspec("prove injective '(M,N):(1,M)' --assume 'M +'").rc, 3);
  EXPECT_EQ(tfspec("prove no-such-goal x").rc, 3);
  EXPECT_EQ(tfspec("prove in-bounds '(M,N):(1,M)'").rc, 3);  // --size missing
  auto r = tfspec("prove injective '(M,N):(1,M' ");
  EXPECT_NE(r.out.find("error: [parse-error"), std::string::npos) << r.out;
}

TEST(ProveCli, EveryGoalRuns) {
  EXPECT_EQ(tfspec("prove in-bounds '(M,N):(1,M)' --size 'M*N' --timeout 60").rc, 0);
  EXPECT_EQ(tfspec("prove fits-int32 '(M,N):(1,M)' --assume 'M <= 65536' --assume 'N <= 65536' --timeout 60").rc, 1);
  EXPECT_EQ(tfspec("prove fits-int64 '(M,N):(1,M)' --assume 'M <= 65536' --assume 'N <= 65536' --timeout 60").rc, 0);
  EXPECT_EQ(tfspec("prove equivalent '(M,N):(1,M)' 'M*N:1' --timeout 60").rc, 0);
  EXPECT_EQ(tfspec("prove admissible '(4,6,8):(2,3,5)' '6:3'").rc, 1);
  EXPECT_EQ(tfspec("prove divides M 128 --assume 'M % 128 == 0' --timeout 60").rc, 0);
  EXPECT_EQ(tfspec("prove divides '(N @ m.x, 12 @ m.y) on x=4,y=4' --timeout 60").rc, 1);
  EXPECT_EQ(tfspec("prove shard 'shard((4,M):(M,1); S(0); x=4)' --storage gmem --timeout 60").rc, 0);
  EXPECT_EQ(tfspec("prove shard 'shard((4,M):(0,1); S(0); x=4)' --storage gmem --timeout 60").rc, 1);
}

TEST(ProveCli, Smt2FilesAreWritten) {
  std::string prefix = testing::TempDir() + "/tfspec_prove_cli";
  auto r = tfspec("prove injective '(M,N):(1,M)' --smt2 " + prefix);
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream f(prefix + "-injective-z3-unbounded.smt2");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("(set-logic QF_NIA)"), std::string::npos);
  EXPECT_NE(text.find("(check-sat)"), std::string::npos);
  EXPECT_EQ(text.find(":named"), std::string::npos);
}

TEST(ProveServe, ProveOpsAnswerWithVerdicts) {
  auto r = tfspec("serve",
                  "{\"cmd\":\"start\",\"protocol\":1}\n"
                  "{\"seq\":1,\"op\":\"prove.injective\",\"args\":{\"layout\":\"(M,N):(1,M)\"}}\n"
                  "{\"seq\":2,\"op\":\"prove.divides\",\"args\":{\"extent\":\"M\",\"divisor\":128}}\n"
                  "{\"seq\":3,\"op\":\"prove.injective\",\"args\":{\"layout\":\"(M,N):(1,M)\",\"assume\":\"M +\"}}\n"
                  "{\"cmd\":\"stop\"}\n");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  std::vector<tfspec::Json> replies;
  while (std::getline(lines, line)) replies.push_back(tfspec::Json::parse(line));
  ASSERT_EQ(replies.size(), 5u) << r.out;
  EXPECT_EQ(replies[1]["result"]["verdict"], "PROVED");
  EXPECT_EQ(replies[2]["result"]["verdict"], "REFUTED");
  EXPECT_EQ(replies[3]["error"]["rule"], "prove-assumption-syntax");
}

// Issue 9, end to end: every example's verdict as an exit code (1 REFUTED, 0 PROVED, 3 input
// error; never 4). The hand derivations are in solver/tests/issue9_test.cpp, one line each here.
TEST(ProveCliVerdicts, EveryExampleGivesItsVerdict) {
  const std::string m40 = [] {
    std::string s = "M";
    for (int i = 1; i < 40; ++i) s += "*M";
    return s;
  }();
  const std::vector<std::pair<std::string, int>> cases{
      // (0,1,0,0) and (0,0,0,2) share offset 2 once N >= 2.
      {"prove injective '(K,N,K,3):(3,2,3*K*N,1)'", 1},
      // M = 2: (4,2,2):(1,2,8), (2,0,0) and (0,1,0) share offset 2.
      {"prove injective '(4,M,M):(1,M,4*M)'", 1},
      // 3*M*M passes 2^63 - 1 for large M: the overflow is the answer.
      {"prove fits-int64 '4:M*M'", 1},
      // (1,0) and (0,1) share offset K (2K overflows int64, irrelevant).
      {"prove injective '(2,2):(K,K)' --assume 'K >= 4611686018427387904'", 1},
      // (1,0) and (0,1) share offset 1; M*10^10 >= 1 holds although it overflows int64.
      {"prove injective '(M,2):(1,1)' --assume 'M >= 1000000000' --assume 'M*10000000000 >= 1'", 1},
      // M = 3, K = 2: (2,2,3,3):(1,1,4,12); the once unsound PROVED.
      {"prove injective '(2,K,M,3):(1,1+(M-3)*(M-3),2*K*(1+(M-3)*(M-3)),(2*K*(1+(M-3)*(M-3)))*M)' --assume '1 <= M <= 8' "
       "--assume '1 <= K <= 8' --assume 'M*4611686018427387904 >= 1'", 1},
      // M = 4: (2,2):(1,1).
      {"prove injective '(2,2):(1,5-M)' --assume '1 <= M <= 4' --assume '" + m40 + " > 0'", 1},
      // Three consecutive integers; M even; M(N+1).
      {"prove divides 'M*(M+1)*(M+2)' 6", 0},
      {"prove divides 'M*M' 4 --assume 'M % 2 == 0'", 0},
      {"prove divides 'M*N+M' M", 0},
      // The largest offset (M-1)*4M, (M-1)*M*M, the size M*N leave int64.
      {"prove fits-int64 '(2,M):(1,4*M)'", 1},
      {"prove fits-int64 '(2,M):(1,M*M)'", 1},
      {"prove fits-int64 '(M,N):(1,M)'", 1},
      // 1 == 2; M <= 0 against the default M >= 1; M < 0 and M > 5.
      {"prove injective '4:1' --assume '1 == 2'", 3},
      {"prove injective '4:1' --assume 'M <= 0'", 3},
      {"prove injective '(2,2):(1,1)' --assume 'M < 0' --assume 'M > 5'", 3},
  };
  for (const auto& [args, rc] : cases) {
    auto r = tfspec(args + " --timeout 10");
    EXPECT_EQ(r.rc, rc) << args << "\n" << r.out;
  }
  // M*X - N*Y is even when M = 2A, N = 2B: never PROVED (UNKNOWN, or the inconsistency found).
  auto u = tfspec("prove injective '(M,N):(1,M)' --assume 'M*X - N*Y == 1' --assume 'M == 2*A' --assume 'N == 2*B' --timeout 1");
  EXPECT_TRUE(u.rc == 2 || u.rc == 3) << u.out;
}

// --timeout bounds the whole verdict, Z3 included (a watchdog interrupts it), in `serve` too: a
// slow request no longer blocks the next one.
TEST(ProveCliVerdicts, TheTimeoutIsAHardLimit) {
  std::string m32 = "M";
  for (int i = 1; i < 32; ++i) m32 += "*M";
  auto t0 = std::chrono::steady_clock::now();
  auto r = tfspec("prove fits-int64 '(M,4):(1," + m32 + ")' --timeout 1");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.rc, 4) << r.out;
  EXPECT_LT(s, 1.0 + 2.0) << r.out;  // the limit, plus process start-up on a loaded (sanitizer) machine
  t0 = std::chrono::steady_clock::now();
  auto v = tfspec("serve",
                  "{\"cmd\":\"start\",\"protocol\":1}\n"
                  "{\"seq\":1,\"op\":\"prove.injective\",\"args\":{\"layout\":\"(M,N):(N,M)\",\"assume\":\"M*X - N*Y == 1\",\"timeout_ms\":1000}}\n"
                  "{\"seq\":2,\"op\":\"prove.injective\",\"args\":{\"layout\":\"(M,N):(1,M)\"}}\n"
                  "{\"cmd\":\"stop\"}\n");
  s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(v.rc, 0) << v.out;
  EXPECT_NE(v.out.find("\"UNKNOWN\""), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("\"PROVED\""), std::string::npos) << v.out;
  EXPECT_LT(s, 1.0 + 3.0) << v.out;
}

// (M,M):(1,M): the condition M >= 1 is printed once.
TEST(ProveCliVerdicts, ConditionsArePrintedOnce) {
  auto r = tfspec("prove injective '(M,M):(1,M)'");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("where the objects exist: M >= 1\n"), std::string::npos) << r.out;
}

}  // namespace
