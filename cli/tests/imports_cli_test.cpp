// `tfspec shard from-jax / from-dtensor / owners / to-jax` end to end (issue 33's interface):
// the last line is a ShardLayout every shard op takes; refusals exit 3 with their rule. The
// expected layouts are derived in protocol/tests/imports_test.cpp and spec/SHARD.md I1-I5.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using Ran = tfspec::testing::CommandResult;
using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

std::string last_line(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
}

TEST(ImportsCli, TheIssuesTwoCommandsGiveOneLayout) {
  Ran jax = run_tfspec("shard from-jax --mesh 'x=2,y=4' --spec 'P(\"x\", None)' --shape '(8,16)'");
  Ran dt = run_tfspec("shard from-dtensor --mesh 'x=2,y=4' --placements 'Shard(0),Replicate()' --shape '(8,16)'");
  ASSERT_EQ(jax.rc, 0) << jax.out;
  ASSERT_EQ(dt.rc, 0) << dt.out;
  const std::string layout = last_line(jax.out);
  EXPECT_EQ(layout, "shard((2,4,16):(0,16,1); S(0),B; device(8)|x=2,y=4)");
  EXPECT_EQ(last_line(dt.out), layout);
  // Every shard op takes it: the final-stage check, distribute (rows 0-3 on x=0), owners.
  EXPECT_EQ(run_tfspec("shard check " + shell_quote(layout) + " final rmem '(8,16)'").out, "ok\n");
  Ran dist = run_tfspec("shard distribute " + shell_quote(layout) + " '(8,16)' rmem");
  EXPECT_EQ(dist.rc, 0) << dist.out;
  Ran own = run_tfspec("shard owners " + shell_quote(layout) + " '(8,16)' --json");
  ASSERT_EQ(own.rc, 0) << own.out;
  auto j = tfspec::Json::parse(own.out);
  ASSERT_EQ(j["devices"].size(), 8u);
  // Device 5 is (x,y) = (1,1) (row-major, x*4+y): rows 4-7, elements 64..127, a replica over y.
  const auto& d5 = j["devices"][5];
  EXPECT_EQ(d5["device"], 5);
  EXPECT_EQ(d5["coord"], tfspec::Json::parse("[1,1]"));
  EXPECT_EQ(d5["elements"].size(), 64u);
  EXPECT_EQ(d5["elements"][0], 64);
  EXPECT_EQ(d5["elements"][63], 127);
  EXPECT_EQ(d5["replica"], true);
  EXPECT_EQ(d5["partial"], false);
}

TEST(ImportsCli, RefusalsExitThreeWithTheirRule) {
  Ran uneven = run_tfspec("shard from-dtensor --mesh 2 --placements 'Shard(0)' --shape '(3)'");
  EXPECT_EQ(uneven.rc, 3);
  EXPECT_NE(uneven.out.find("[import-uneven"), std::string::npos) << uneven.out;
  Ran dyn = run_tfspec("shard owners 'shard((2,2):(2,1); D; x=2)' '(4)'");
  EXPECT_EQ(dyn.rc, 3);
  EXPECT_NE(dyn.out.find("[dynamic-unresolved"), std::string::npos) << dyn.out;
  Ran flag = run_tfspec("shard canon 'shard((2):(1); B; x=2)' --spec 'P()'");
  EXPECT_NE(flag.rc, 0);
  EXPECT_NE(flag.out.find("takes no --spec"), std::string::npos) << flag.out;
}

TEST(ImportsCli, ToJaxPrintsTheLibrarysArguments) {
  Ran r = run_tfspec("shard to-jax 'shard((2,2,2):(0,0,1); S(1),S(0); x=2,y=2)' '(8)'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "--mesh x=2,y=2\n--devices 0,1,2,3\nP(('y', 'x'))\n");
}

}  // namespace
