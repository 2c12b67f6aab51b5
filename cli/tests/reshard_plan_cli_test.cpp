// `tfspec reshard-plan` end to end (spec/MULTIGPU.md): the text and JSON of a hand-derived
// all-gather, sugar input, and each refusal with its rule id and exit code.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using Ran = tfspec::testing::CommandResult;
Ran tfspec_run(const std::string& args) { return tfspec::testing::run_tfspec(args); }

// The error line names the rule and its clause: "error: [ID CLAUSE] ...".
bool names_rule(const Ran& r, const std::string& id, const std::string& clause) {
  return r.out.find("error: [" + id + " " + clause + "]") != std::string::npos;
}

const char* kGather = "'shard((4,2):(0,1); S(0); device(4)|x=4)' 'shard((4,2):(2,1); B; device(4)|x=4)' '(8)'";

// 4 devices x 2 float32 elements, Split -> Broadcast: one ncclAllGather of sendcount 2; in the
// ring each rank passes on the 3 blocks it does not own: 3 * 2 * 4 B = 24 B each way, 96 B total.
TEST(ReshardPlanCli, AllGatherText) {
  Ran r = tfspec_run(std::string("reshard-plan ") + kGather);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("plan: all-gather (4 devices, 4 bytes per element)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ncclAllGather along x groups [[0,1,2,3]] count 2 send src+0 recv recv+0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device 2: sends 24 B, receives 24 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total: 96 B moved between devices"), std::string::npos) << r.out;
}

TEST(ReshardPlanCli, AllGatherJsonWithADtype) {
  Ran r = tfspec_run(std::string("reshard-plan ") + kGather + " --dtype bfloat16 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = tfspec::Json::parse(r.out);
  EXPECT_EQ(j["pattern"], "all-gather");
  EXPECT_EQ(j["elem_bytes"], 2);
  EXPECT_EQ(j["steps"][0]["op"], "ncclAllGather");
  EXPECT_EQ(j["steps"][0]["count"], 2);
  EXPECT_EQ(j["total_bytes"], 48);  // 4 ranks x 6 elements x 2 B
}

// Sugar with `on MESH` is materialized per instance (D4) before planning: P(sum) -> Split along
// x=2 of 4 elements is a reduce-scatter of recvcount 2; each rank sends and receives 1 block.
TEST(ReshardPlanCli, SugarInput) {
  Ran r = tfspec_run("reshard-plan '(4) where x=P() on x=2' '(2 @ m.x, 2) on x=2' '(4)' --dtype int64");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("ncclReduceScatter(sum) along x groups [[0,1]] count 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total: 32 B"), std::string::npos) << r.out;  // 2 ranks x 2 elements x 8 B
}

TEST(ReshardPlanCli, RefusalsExitThreeWithTheirRules) {
  // §5: warps are not GPUs.
  Ran warps = tfspec_run("reshard-plan 'shard((4):(1); B; warp(4)|x=4)' 'shard((4):(1); B; warp(4)|x=4)' '(4)'");
  EXPECT_EQ(warps.rc, 3);
  EXPECT_TRUE(names_rule(warps, "mgpu-mesh-devices", "§5")) << warps.out;
  // §5: 4 devices against 8.
  Ran domain = tfspec_run("reshard-plan 'shard((4):(1); B; x=4)' 'shard((4):(1); B; x=8)' '(4)'");
  EXPECT_EQ(domain.rc, 3);
  EXPECT_TRUE(names_rule(domain, "mgpu-device-domain", "§5")) << domain.out;
  Ran dtype = tfspec_run(std::string("reshard-plan ") + kGather + " --dtype float24");
  EXPECT_EQ(dtype.rc, 3);
  EXPECT_TRUE(names_rule(dtype, "mgpu-dtype", "-")) << dtype.out;
  // §6: Dynamic is unresolved.
  Ran dynamic = tfspec_run("reshard-plan 'shard((4):(1); D; x=4)' 'shard((4):(1); B; x=4)' '(4)'");
  EXPECT_EQ(dynamic.rc, 3);
  EXPECT_TRUE(names_rule(dynamic, "dynamic-unresolved", "§6")) << dynamic.out;
  Ran missing = tfspec_run("reshard-plan 'shard((4):(1); B; x=4)'");
  EXPECT_EQ(missing.rc, 3);
}

// Past the enumeration limits (the reference's D3 injectivity check, 2^20 pairs, then the
// planner's 2^22) the answer is undecided (a limit, exit 2), never a wrong plan.
TEST(ReshardPlanCli, TooLargeIsALimit) {
  Ran r = tfspec_run("reshard-plan 'shard((4096,2048):(2048,1); B; x=1)' 'shard((4096,2048):(1,4096); B; x=1)' '(4096,2048)'");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_EQ(r.out.rfind("undecided: [", 0), 0u) << r.out;
}

}  // namespace
