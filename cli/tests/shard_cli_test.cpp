// `tfspec shard ...` and `shard.*` over `tfspec serve`: the documented examples (§7.5) and errors.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using Ran = tfspec::testing::CommandResult;

Ran tfspec_run(const std::string& args, const std::string& stdin_text = "") {
  return tfspec::testing::run_tfspec(args, stdin_text);
}

const char* kSugar = "'(2 @ m.x, 12 @ m.y, 128 @ m.t)' 'warp(8)*thread(32)|x=2,y=4,t=32'";

TEST(ShardCli, CanonEmitsNoneStrides) {  // §7.5, §7.1.2
  Ran r = tfspec_run(std::string("shard canon ") + kSugar);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "shard((2,4,3,32,4):None; S(0),S(1),S(3); warp(8)*thread(32)|x=2,y=4,t=32)\n");
}

TEST(ShardCli, TypeinferBothDirections) {  // §7.5
  Ran down = tfspec_run("shard typeinfer '(2 @ m.x, 12 @ m.y, 128 @ m.t) on x=2,y=4,t=32' '(2,1536)' gmem rmem --json");
  ASSERT_EQ(down.rc, 0) << down.out;
  auto j = tfspec::Json::parse(down.out);
  EXPECT_EQ(j["layout"]["layout"]["stride"], tfspec::Json::parse("[0,0,4,0,1]"));
  EXPECT_EQ(j["local_shape"], tfspec::Json::parse("[1,1,3,1,4]"));
  EXPECT_EQ(j["shape"], tfspec::Json::parse("[2,1536]"));
  Ran up = tfspec_run("shard typeinfer '(2 @ m.x, 12 @ m.y, 128 @ m.t) on x=2,y=4,t=32' '(2,1536)' rmem gmem --json");
  ASSERT_EQ(up.rc, 0) << up.out;
  EXPECT_EQ(tfspec::Json::parse(up.out)["layout"]["layout"]["stride"], tfspec::Json::parse("[1536,384,128,4,1]"));
}

TEST(ShardCli, CheckListsEveryViolationAndExitsOne) {
  Ran r = tfspec_run("shard check 'shard((3,4):(1,1); S(0),S(0),P(\"avg\"); a=2,b=2,c=1)'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("[split-axis-unique §6]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[partial-reduction §6]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[split-divides §6]"), std::string::npos) << r.out;
  // The generic layout gate reaches the same rules.
  Ran l = tfspec_run("layout check 'shard((2,2):None; S(0),S(0); x=2,y=2)'");
  EXPECT_EQ(l.rc, 1);
  EXPECT_NE(l.out.find("split-axis-unique"), std::string::npos) << l.out;
}

// "-" is an optional argument not given, so a later one can be (docs/shard-model.md): the check
// of shard((2,3):(3,1); S(0),P(); x=2,y=2) with no stage and no shape but gmem finds the Partial
// contributions of y sharing gmem offsets (§6, D3); distribute with no data uses 0,1,2,...
// (element (x, c) at offset 3x + c of the one gmem engine).
TEST(ShardCli, DashSkipsAnOptionalArgument) {
  Ran check = tfspec_run("shard check 'shard((2,3):(3,1); S(0),P(); x=2,y=2)' - gmem -");
  EXPECT_EQ(check.rc, 1) << check.out;
  EXPECT_NE(check.out.find("[partial-aliased §6]"), std::string::npos) << check.out;
  Ran dist = tfspec_run("shard distribute 'shard((2,3):(3,1); S(0); x=2)' '(2,3)' gmem -");
  EXPECT_EQ(dist.rc, 0) << dist.out;
  EXPECT_EQ(dist.out, "gmem engine 0: (0,1,2,3,4,5)\n");
  Ran required = tfspec_run("shard distribute '(2 @ m.x, 3) on x=2' - gmem");
  EXPECT_EQ(required.rc, 3) << required.out;  // a required argument has no "-"
}

TEST(ShardCli, ErrorsCarryRuleIds) {
  Ran r = tfspec_run("shard canon '(6 @ m.y) on x=2,y=4'");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("[sugar-divides §7.1.1]"), std::string::npos) << r.out;
}

TEST(ShardCli, ServeReachesShardOps) {
  std::string req =
      R"J({"seq":1,"op":"shard.local-shape","args":{"layout":"(2 @ m.x, 12 @ m.y, 128 @ m.t)","mesh":"x=2,y=4,t=32"}})J"
      "\n"
      R"J({"seq":2,"op":"shard.reshard","args":{"src":"(6 @ m.x) on x=6","dst":"(6) where x=P() on x=6","shape":[6],"src_storage":"gmem","dst_storage":"rmem","data":[5,-1,0,3,9,-7]}})J"
      "\n"
      R"J({"seq":3,"op":"shard.assemble","args":{"layout":"shard((3):(1); B; x=2)","shape":[3],"engines":{"storage":"rmem","buffers":{"0":[1,2,3],"1":[1,2,4]}}}})J"
      "\n";
  Ran r = tfspec_run("serve", req);
  ASSERT_EQ(r.rc, 0) << r.out;
  std::vector<tfspec::Json> lines;
  size_t b = 0;
  for (size_t e; (e = r.out.find('\n', b)) != std::string::npos; b = e + 1) lines.push_back(tfspec::Json::parse(r.out.substr(b, e - b)));
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0]["result"], tfspec::Json::parse("[1,1,3,1,4]"));
  EXPECT_EQ(lines[1]["result"]["preserved"], true);
  // sum Partial: instance 0 holds x, instance 1..5 hold 0.
  EXPECT_EQ(lines[1]["result"]["engines"]["buffers"]["0"], tfspec::Json::parse("[5,-1,0,3,9,-7]"));
  EXPECT_EQ(lines[1]["result"]["engines"]["buffers"]["5"], tfspec::Json::parse("[0,0,0,0,0,0]"));
  EXPECT_EQ(lines[2]["error"]["rule"], "replica-mismatch");
}

}  // namespace

// A tuple argument written in the protocol's JSON form stays one argument (CLI11 would read a
// word `[a,b]` as its own array syntax and split it): the data and shape of §7.5-style
// distribute, `[1,2,3,4,5,6]` and `[6]`, give the engines `(1,2,3)` and `(4,5,6)` that instance
// x = 0 and x = 1 hold (row x of the (2,3) layout, Split on dim 0), exactly as the notation does.
TEST(ShardCli, JsonArrayArgumentsStayOneWord) {
  Ran json = tfspec_run("shard distribute 'shard((2,3):(0,1); S(0); x=2)' '[6]' rmem '[1, 2, 3, 4, 5, 6]'");
  EXPECT_EQ(json.rc, 0) << json.out;
  EXPECT_EQ(json.out, "rmem engine 0: (1,2,3)\nrmem engine 1: (4,5,6)\n");
  Ran text = tfspec_run("shard distribute 'shard((2,3):(0,1); S(0); x=2)' '(6)' rmem '(1,2,3,4,5,6)'");
  EXPECT_EQ(text.out, json.out);
  Ran bad = tfspec_run("shard distribute 'shard((2,3):(0,1); S(0); x=2)' '[6]' rmem '[1,2,x]'");
  EXPECT_EQ(bad.rc, 3) << bad.out;
  EXPECT_NE(bad.out.find("[json-malformed"), std::string::npos) << bad.out;
  Ran extra = tfspec_run("layout size '[1,2]' '[3]'");  // two words, two arguments
  EXPECT_EQ(extra.rc, 3) << extra.out;
  EXPECT_NE(extra.out.find("takes 1 argument (layout); 2 given"), std::string::npos) << extra.out;
}
