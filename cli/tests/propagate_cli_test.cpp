// `tfspec propagate` end to end (spec/PROPAGATION.md): the docs/propagation.md example, exit codes 0 / 1 / 3,
// --json, --insert-reshards, --check and a program on stdin.
#include <gtest/gtest.h>

#include <fstream>
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

// Issue 19 item 2: 2^64-1 wrapped to -1 (Partial(max) became Partial(min) and --check passed).
TEST(PropagateCli, IntegersPastInt64AreAnInputError) {
  RunResult r = run("propagate - --check",
                    R"J({"mesh": "x=2", "inputs": {"a": {"shape": [4], "layout": "(4) where x=P(\"max\")"}},
                        "ops": [{"op": "scale", "operands": ["a"], "result": "b", "constant": 18446744073709551615}], "outputs": ["b"]})J");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("[int-literal-range §1] ops[0].constant"), std::string::npos) << r.out;
}

// Issue 19 item 3: an unknown member nested 100,000 arrays deep (200 KB) died with SIGSEGV, from
// a file and from stdin.
TEST(PropagateCli, DeepNestingIsAnInputErrorNotACrash) {
  const std::string deep = R"J({"mesh": "x=2", "inputs": {}, "ops": [], "outputs": [], "zz": )J" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::string file = ::testing::TempDir() + "/tfspec_deep_program.json";
  std::ofstream(file) << deep;
  RunResult f = run("propagate " + shell_quote(file));
  EXPECT_EQ(f.rc, 3) << f.out.substr(0, 400);
  EXPECT_NE(f.out.find("[nesting-too-deep §1]"), std::string::npos) << f.out.substr(0, 400);
  RunResult in = run("propagate - --insert-reshards", deep);
  EXPECT_EQ(in.rc, 3) << in.out.substr(0, 400);
  EXPECT_NE(in.out.find("[nesting-too-deep §1]"), std::string::npos) << in.out.substr(0, 400);
  std::remove(file.c_str());
}

// Issue 19 item 6: a = (4 @ m.y) where x=D, b = (4 @ m.x), c = add(a, b): exit 1 with the conflict
// report, and with --insert-reshards exit 0 (b resharded), never an input error.
TEST(PropagateCli, AnOverlapOfADynamicAxisIsAConflictAndReshardsResolveIt) {
  const std::string prog = R"J({"mesh": "x=2,y=2",
    "inputs": {"a": {"shape": [4], "layout": "(4 @ m.y) where x=D"}, "b": {"shape": [4], "layout": "(4 @ m.x)"}},
    "ops": [{"op": "add", "operands": ["a", "b"], "result": "c"}], "outputs": ["c"]})J";
  RunResult plain = run("propagate -", prog);
  EXPECT_EQ(plain.rc, 1) << plain.out;
  EXPECT_NE(plain.out.find("conflict at op 0 (a): [propagation-split-conflict"), std::string::npos) << plain.out;
  RunResult fixed = run("propagate - --insert-reshards --check", prog);
  EXPECT_EQ(fixed.rc, 0) << fixed.out;
  EXPECT_NE(fixed.out.find("reshard before op 0: b (4 @ m.x) -> (4 @ m.y) by all-gather(x) + local-slice(y), 8 elements"), std::string::npos) << fixed.out;
}

// Issue 19 item 5: a concat of one Broadcast and 13 Partial(sum) operands exited 4.
TEST(PropagateCli, ConcatOfThirteenPartialsIsResolved) {
  std::string inputs = R"J("b": {"shape": [2,2], "layout": "(2, 2)"})J", operands = R"J("b")J";
  for (int i = 0; i < 13; ++i) {
    inputs += ", \"p" + std::to_string(i) + R"J(": {"shape": [2,2], "layout": "(2, 2) where x=P()"})J";
    operands += ", \"p" + std::to_string(i) + "\"";
  }
  RunResult r = run("propagate - --insert-reshards --check --json",
                    R"J({"mesh": "x=2", "inputs": {)J" + inputs + R"J(}, "ops": [{"op": "concat", "operands": [)J" + operands +
                        R"J(], "result": "c", "dim": 0}], "outputs": ["c"]})J");
  EXPECT_EQ(r.rc, 0) << r.out;
  tfspec::Json j = tfspec::Json::parse(last_line(r.out));
  EXPECT_EQ(j["reshards"].size(), 13u);  // every Partial all-reduced (P4: no Partial(sum) beside a Broadcast)
  EXPECT_EQ(j["check"]["ok"], true);
}

// Issue 19 items 15 and 17: a directory is named as one (it read as "not JSON"); --seed without
// --check was silently ignored; the help said "the program as JSON" where it takes a path.
TEST(PropagateCli, PathsAndOptionsAreCheckedAndNamed) {
  RunResult dir = run("propagate " + shell_quote(std::string(TFSPEC_SOURCE_DIR) + "/propagation/examples"));
  EXPECT_EQ(dir.rc, 3) << dir.out;
  EXPECT_NE(dir.out.find("is a directory"), std::string::npos) << dir.out;
  RunResult missing = run("propagate /no/such/file.json");
  EXPECT_EQ(missing.rc, 3);
  EXPECT_NE(missing.out.find("no such file"), std::string::npos) << missing.out;
  RunResult seed = run("propagate " + shell_quote(kMlp) + " --seed 5");
  EXPECT_EQ(seed.rc, 3) << seed.out;
  EXPECT_NE(seed.out.find("[usage -] --seed sets the data of --check"), std::string::npos) << seed.out;
  RunResult help = run("propagate --help");
  EXPECT_NE(help.out.find("path of the program"), std::string::npos) << help.out;
}

}  // namespace
