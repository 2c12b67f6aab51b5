// `tfspec prove ...` and `prove.*` over `tfspec serve`: verdicts, exit codes (spec/PROVE.md).
#include <gtest/gtest.h>

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

}  // namespace
