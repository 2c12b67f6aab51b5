// `tfspec propagate` end to end (spec/PROPAGATION.md): the README example, exit codes 0 / 1 / 3,
// --json, --insert-reshards, --check and a program on stdin.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

using tfspec::testing::last_line;
using tfspec::testing::shell_quote;
using RunResult = tfspec::testing::CommandResult;

namespace {

RunResult run(const std::string& args, const std::string& stdin_text = "") { return tfspec::testing::run_tfspec(args, stdin_text); }
const std::string kMlp = std::string(TFSPEC_SOURCE_DIR) + "/propagation/examples/mlp.json";

// relu of a Partial(sum): a contracted split on x.
const std::string kPartialRelu = R"J({"mesh": "x=2,y=2",
  "inputs": {"a": {"shape": [8,4], "layout": "(8, 4 @ m.x)"}, "w": {"shape": [4,6], "layout": "(4 @ m.x, 6)"}},
  "ops": [{"op": "matmul", "operands": ["a","w"], "result": "y"}, {"op": "relu", "operands": ["y"], "result": "z"}],
  "outputs": ["z"]})J";

TEST(PropagateCli, TheReadmeExample) {
  RunResult r = run("propagate " + shell_quote(kMlp));
  EXPECT_EQ(r.rc, 0) << r.out;
  // a's rows on x pass through matmul's m factor and relu.
  EXPECT_NE(r.out.find("[1] z = relu(y) (8,6) : (8 @ m.x, 6)"), std::string::npos) << r.out;
  RunResult c = run("propagate " + shell_quote(kMlp) + " --check --seed 3");
  EXPECT_EQ(c.rc, 0) << c.out;
  EXPECT_NE(c.out.find("check: every output equals"), std::string::npos) << c.out;
}

TEST(PropagateCli, ConflictsExitOneAndReshardsResolveThem) {
  RunResult r = run("propagate - --json", kPartialRelu);
  EXPECT_EQ(r.rc, 1) << r.out;
  tfspec::Json j = tfspec::Json::parse(last_line(r.out));
  ASSERT_EQ(j["conflicts"].size(), 1u) << r.out;
  EXPECT_EQ(j["conflicts"][0]["rule"], "propagation-partial-nonlinear");
  EXPECT_EQ(j["conflicts"][0]["op"], 1);
  RunResult fixed = run("propagate - --json --insert-reshards --check", kPartialRelu);
  EXPECT_EQ(fixed.rc, 0) << fixed.out;
  tfspec::Json f = tfspec::Json::parse(last_line(fixed.out));
  ASSERT_EQ(f["reshards"].size(), 1u);
  EXPECT_EQ(f["reshards"][0]["collective"], "all-reduce(x)");
  EXPECT_EQ(f["reshards"][0]["elements"], 192);  // 4 instances x 2 (n-1)/n x 48
  EXPECT_EQ(f["check"]["ok"], true);
}

TEST(PropagateCli, MalformedProgramsExitThreeWithTheRuleAndPath) {
  RunResult notjson = run("propagate -", "{nope");
  EXPECT_EQ(notjson.rc, 3) << notjson.out;
  EXPECT_NE(notjson.out.find("[program-format "), std::string::npos) << notjson.out;
  RunResult name = run("propagate -", R"J({"mesh": "x=2", "inputs": {}, "ops": [{"op": "neg", "operands": ["q"], "result": "n"}], "outputs": []})J");
  EXPECT_EQ(name.rc, 3) << name.out;
  EXPECT_NE(name.out.find("[program-name §7.4] ops[0].operands[0]"), std::string::npos) << name.out;
  EXPECT_EQ(run("propagate /no/such/file.json").rc, 3);
}

}  // namespace
