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

}  // namespace
}  // namespace tfspec::testing
