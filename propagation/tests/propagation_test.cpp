// Shard propagation (spec/PROPAGATION.md): the program format and its errors, the op rules, the
// Partial table's regressions, conflicts, inserted reshards and their costs, and --check.
// Expected layouts and costs are derived by hand in the comments (mesh x=2,y=2: 4 instances).
#include <gtest/gtest.h>

#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

Json program(const std::string& inputs, const std::string& ops, const std::string& outputs, const std::string& mesh = "x=2,y=2") {
  return Json::parse(R"J({"mesh": ")J" + mesh + R"J(", "inputs": {)J" + inputs + R"J(}, "ops": [)J" + ops + R"J(], "outputs": [)J" + outputs + "]}");
}

Propagation run(const Json& j, bool insert = false) { return propagate(parse_program(j), insert); }

std::string layout(const Propagation& r, const std::string& v) { return sugar_text(r.shardings.at(v), r.program.shapes.at(v), r.program.mesh); }

std::vector<std::string> rules(const Propagation& r) {
  std::vector<std::string> out;
  for (const auto& c : r.conflicts) out.push_back(c.diagnostic.rule);
  return out;
}

void expect_error(const Json& j, const RuleId& id, const std::string& path) {
  try {
    parse_program(j);
    ADD_FAILURE() << "no error, expected " << id.id;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), id.id) << e.what();
    EXPECT_EQ(e.diagnostic().path, path) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "the message names the path: " << e.what();
  }
}

const char* kMlp = R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 4)"}, "w": {"shape": [4,6], "layout": "(4, 6)"})J";

TEST(ProgramFormat, MalformedProgramsNameTheRuleAndThePath) {
  expect_error(Json::parse("[1]"), rule::kProgramFormat, "$");
  expect_error(Json::parse(R"J({"inputs": {}, "ops": [], "outputs": []})J"), rule::kProgramFormat, "$");
  expect_error(program(kMlp, R"J({"op": "gelu", "operands": ["a"], "result": "y"})J", ""), rule::kProgramOp, "ops[0].op");
  expect_error(program(kMlp, R"J({"op": "relu", "operands": ["a"], "result": "y"}, {"op": "neg", "operands": ["q"], "result": "z"})J", ""),
               rule::kProgramName, "ops[1].operands[0]");
  expect_error(program(kMlp, R"J({"op": "relu", "operands": ["a"], "result": "w"})J", ""), rule::kProgramName, "ops[0].result");
  // (8,4) x (8,4): the contracted dims 4 and 8 differ.
  expect_error(program(kMlp, R"J({"op": "matmul", "operands": ["a","a"], "result": "y"})J", ""), rule::kProgramShape, "ops[0]");
  expect_error(program(kMlp, R"J({"op": "reduce", "operands": ["a"], "result": "y", "reduction": "sum", "axes": [2]})J", ""), rule::kProgramOp,
               "ops[0].axes[0]");
  expect_error(program(kMlp, R"J({"op": "neg", "operands": ["a"], "result": "y", "colour": 1})J", ""), rule::kProgramFormat, "ops[0].colour");
  // (8 @ m.x, 5) has 40 elements, the value 32 (§7.1.1 size(G) == size(T.shape)).
  expect_error(program(R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 5)"})J", "", ""), rule::kProgramLayout, "inputs.a.layout");
  expect_error(program(R"J("a": {"shape": [8,0], "layout": "?"})J", "", ""), rule::kProgramFormat, "inputs.a.shape[1]");
  expect_error(program(kMlp, "", R"J("nope")J"), rule::kProgramName, "outputs[0]");
  expect_error(program(kMlp, R"J({"op": "reshard", "operands": ["a"], "result": "b", "layout": "?"})J", ""), rule::kProgramLayout, "ops[0].layout");
}

// Issue 19: nlohmann keeps 2^63..2^64-1 as unsigned and get<int64_t>() wrapped it (scale by
// 2^64-1 read as -1 turned Partial(max) into Partial(min)); every integer is now refused there
// with int-literal-range, as the reference's readers do (§1).
TEST(ProgramFormat, IntegersPastInt64AreRefusedNotWrapped) {
  expect_error(program(kMlp, R"J({"op": "scale", "operands": ["a"], "result": "y", "constant": 18446744073709551615})J", ""), rule::kIntLiteralRange,
               "ops[0].constant");
  expect_error(program(kMlp, R"J({"op": "reduce", "operands": ["a"], "result": "y", "reduction": "sum", "axes": [18446744073709551615]})J", ""),
               rule::kIntLiteralRange, "ops[0].axes[0]");
  expect_error(program(kMlp, R"J({"op": "concat", "operands": ["a"], "result": "y", "dim": 9223372036854775808})J", ""), rule::kIntLiteralRange,
               "ops[0].dim");
  expect_error(program(R"J("a": {"shape": [9223372036854775809], "layout": "?"})J", "", ""), rule::kIntLiteralRange, "inputs.a.shape[0]");
  // The ends of int64 still read as themselves.
  Program p = parse_program(program(kMlp, R"J({"op": "scale", "operands": ["a"], "result": "y", "constant": 9223372036854775807},
                                              {"op": "scale", "operands": ["a"], "result": "z", "constant": -9223372036854775808})J", ""));
  EXPECT_EQ(p.ops[0].constant, INT64_MAX);
  EXPECT_EQ(p.ops[1].constant, INT64_MIN);
}

// Issue 19: a member nested 100,000 arrays deep crashed (the value was copied recursively). The
// text reader drops what nests deeper than kMaxProgramDepth while parsing and refuses it.
TEST(ProgramFormat, DeepNestingIsRefusedBeforeTheValueIsBuilt) {
  auto nested = [](int depth) {
    return R"J({"mesh": "x=2", "inputs": {}, "ops": [], "outputs": [], "zz": )J" + std::string(depth, '[') + std::string(depth, ']') + "}";
  };
  try {
    read_program_json(nested(100000));
    ADD_FAILURE() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), std::string("nesting-too-deep")) << e.what();
    EXPECT_EQ(e.diagnostic().path, "$");
  }
  // The program object is level 0, its members' values level 1: kMaxProgramDepth arrays inside
  // a member still read (the unknown member is then what parse_program refuses), one more not.
  expect_error(read_program_json(nested(kMaxProgramDepth)), rule::kProgramFormat, "zz");
  EXPECT_THROW(read_program_json(nested(kMaxProgramDepth + 1)), SpecError);
  try {
    read_program_json("{nope");
    ADD_FAILURE() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), std::string("program-format"));
  }
}

TEST(ProgramFormat, ShapesAreInferred) {
  Program p = parse_program(program(R"J("a": {"shape": [2,3,4], "layout": "?"}, "b": {"shape": [2,4,5], "layout": "?"})J",
                                    R"J({"op": "matmul", "operands": ["a","b"], "result": "c"},
                                       {"op": "transpose", "operands": ["c"], "result": "t", "perm": [2,0,1]},
                                       {"op": "reduce", "operands": ["t"], "result": "r", "reduction": "max", "axes": [1]},
                                       {"op": "reshape", "operands": ["r"], "result": "s", "shape": [15]},
                                       {"op": "broadcast_in_dim", "operands": ["s"], "result": "bb", "shape": [2,15], "dims": [1]},
                                       {"op": "slice", "operands": ["bb"], "result": "sl", "start": [0,5], "limit": [2,15]},
                                       {"op": "concat", "operands": ["sl","sl"], "result": "cc", "dim": 1})J",
                                    R"J("cc")J"));
  // (2,3,4) x (2,4,5) = (2,3,5); perm (2,0,1) -> (5,2,3); drop dim 1 -> (5,3); 15; (2,15); (2,10); (2,20).
  EXPECT_EQ(p.shapes.at("c"), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(p.shapes.at("t"), (std::vector<int64_t>{5, 2, 3}));
  EXPECT_EQ(p.shapes.at("r"), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(p.shapes.at("sl"), (std::vector<int64_t>{2, 10}));
  EXPECT_EQ(p.shapes.at("cc"), (std::vector<int64_t>{2, 20}));
}

TEST(Propagation, TheIssueExampleSplitsRowsThroughMatmulAndRelu) {
  auto r = run(program(kMlp, R"J({"op": "matmul", "operands": ["a","w"], "result": "y"}, {"op": "relu", "operands": ["y"], "result": "z"})J", R"J("z")J"));
  EXPECT_TRUE(r.ok());
  // m (rows of a) passes through matmul: y rows split by x; relu is elementwise.
  EXPECT_EQ(layout(r, "y"), "(8 @ m.x, 6)");
  EXPECT_EQ(layout(r, "z"), "(8 @ m.x, 6)");
  EXPECT_TRUE(check_program(r, 1).ok);
}

TEST(Propagation, ContractedSplitGivesPartialSumAndReluNeedsAnAllReduce) {
  const auto j = program(R"J("a": {"shape": [8,4], "layout": "(8, 4 @ m.x)"}, "w": {"shape": [4,6], "layout": "(4 @ m.x, 6)"})J",
                         R"J({"op": "matmul", "operands": ["a","w"], "result": "y"}, {"op": "relu", "operands": ["y"], "result": "z"})J", R"J("z")J");
  auto r = run(j);
  EXPECT_EQ(layout(r, "y"), "(8, 6) where x=P()");
  EXPECT_EQ(rules(r), std::vector<std::string>{"propagation-partial-nonlinear"});
  auto fixed = run(j, true);
  ASSERT_TRUE(fixed.ok());
  ASSERT_EQ(fixed.reshards.size(), 1u);
  const auto& x = fixed.reshards[0];
  EXPECT_EQ(x.before_op, 1u);
  EXPECT_EQ(x.value, "y");
  EXPECT_EQ(x.collective, "all-reduce(x)");
  // 4 instances, each holds all 48 elements of y; a ring all-reduce over x (n = 2) sends
  // 2 (n-1)/n * 48 = 48 per instance: 192 in all.
  EXPECT_EQ(x.elements, 192);
  EXPECT_EQ(layout(fixed, "z"), "(8, 6)");
  EXPECT_TRUE(check_program(fixed, 3).ok);
}

// Rank-0 results: a sum over both dims of (8 @ m.x, 4) sums a Split factor, so the scalar is
// Partial(sum) over x (P2), written `() where x=P()`. relu of it is nonlinear (P3); the fix is an
// all-reduce over x of one element: 4 instances, ring over n = 2 sends 2 (n-1)/n * 1 = 1 each, 4
// in all. --check then runs the scalar program shard-locally and compares with the global one.
TEST(Propagation, RankZeroResultsCarryPartialAndAreAllReduced) {
  const auto j = program(R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 4)"})J",
                         R"J({"op": "reduce", "operands": ["a"], "result": "s", "reduction": "sum", "axes": [0,1]},
                             {"op": "relu", "operands": ["s"], "result": "z"})J",
                         R"J("z")J");
  auto r = run(j);
  EXPECT_TRUE(r.program.shapes.at("s").empty());
  EXPECT_EQ(layout(r, "s"), "() where x=P()");
  EXPECT_EQ(rules(r), std::vector<std::string>{"propagation-partial-nonlinear"});
  auto fixed = run(j, true);
  ASSERT_TRUE(fixed.ok());
  ASSERT_EQ(fixed.reshards.size(), 1u);
  EXPECT_EQ(fixed.reshards[0].collective, "all-reduce(x)");
  EXPECT_EQ(fixed.reshards[0].elements, 4);
  EXPECT_EQ(layout(fixed, "z"), "()");
  EXPECT_TRUE(check_program(fixed, 5).ok);
  // A max over the rows only keeps the column dim: (4), no Split left, Partial(max) over x.
  auto m = run(program(R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 4)"})J",
                       R"J({"op": "reduce", "operands": ["a"], "result": "c", "reduction": "max", "axes": [0]})J", R"J("c")J"));
  EXPECT_EQ(layout(m, "c"), "(4) where x=P(\"max\")");
}

TEST(Propagation, PartialSumWithBroadcastIsRejected) {
  auto r = run(program(R"J("a": {"shape": [4], "layout": "(4) where x=P()"}, "b": {"shape": [4], "layout": "(4)"})J",
                       R"J({"op": "add", "operands": ["a","b"], "result": "c"})J", R"J("c")J"));
  EXPECT_EQ(rules(r), std::vector<std::string>{"propagation-partial-broadcast"});
}

TEST(Propagation, TwoPartialSumsAddAndStayPartial) {
  auto r = run(program(R"J("a": {"shape": [4], "layout": "(4) where x=P()"}, "b": {"shape": [4], "layout": "(4) where x=P()"})J",
                       R"J({"op": "add", "operands": ["a","b"], "result": "c"}, {"op": "scale", "operands": ["c"], "result": "d", "constant": -3})J", R"J("d")J"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(layout(r, "d"), "(4) where x=P()");
  EXPECT_TRUE(check_program(r, 5).ok);
}

TEST(Propagation, DifferentPartialsMeetingAtAddConflict) {
  auto r = run(program(R"J("a": {"shape": [4], "layout": "(4) where x=P()"}, "b": {"shape": [4], "layout": "(4) where x=P(\"max\")"})J",
                       R"J({"op": "add", "operands": ["a","b"], "result": "c"})J", R"J("c")J"));
  EXPECT_EQ(rules(r), std::vector<std::string>{"propagation-partial-mismatch"});
  auto fixed = run(program(R"J("a": {"shape": [4], "layout": "(4) where x=P()"}, "b": {"shape": [4], "layout": "(4) where x=P(\"max\")"})J",
                           R"J({"op": "add", "operands": ["a","b"], "result": "c"})J", R"J("c")J"),
                   true);
  ASSERT_TRUE(fixed.ok());
  EXPECT_TRUE(check_program(fixed, 2).ok);
}

TEST(Propagation, MaxPartialPassesReluAndNegFlipsIt) {
  // reduce max over the split dim 1 gives Partial(max) (§6); relu is monotone: max_i relu(a_i) =
  // relu(max_i a_i); -max_i a_i = min_i -a_i.
  auto r = run(program(R"J("a": {"shape": [4,8], "layout": "(4, 8 @ m.y)"})J",
                       R"J({"op": "reduce", "operands": ["a"], "result": "m", "reduction": "max", "axes": [1]},
                          {"op": "relu", "operands": ["m"], "result": "r"}, {"op": "neg", "operands": ["r"], "result": "n"})J",
                       R"J("r", "n")J"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(layout(r, "m"), "(4) where y=P(\"max\")");
  EXPECT_EQ(layout(r, "r"), "(4) where y=P(\"max\")");
  EXPECT_EQ(layout(r, "n"), "(4) where y=P(\"min\")");
  for (uint64_t seed : {1, 2, 3}) EXPECT_TRUE(check_program(r, seed).ok);
}

TEST(Propagation, ReshapeAcrossASplitNeedsReplication) {
  // (12,8) -> (16,6): the flat boundaries 8 and 6 do not nest, so the split of dim 1 (flat digits
  // [4,8)) has no place in (16,6): no zero-communication layout exists.
  auto r = run(program(R"J("a": {"shape": [12,8], "layout": "(12, 8 @ m.x)"})J", R"J({"op": "reshape", "operands": ["a"], "result": "b", "shape": [16,6]})J",
                       R"J("b")J"));
  EXPECT_EQ(rules(r), std::vector<std::string>{"propagation-split-replicated"});
  auto fixed = run(program(R"J("a": {"shape": [12,8], "layout": "(12, 8 @ m.x)"})J",
                           R"J({"op": "reshape", "operands": ["a"], "result": "b", "shape": [16,6]})J", R"J("b")J"),
                   true);
  ASSERT_TRUE(fixed.ok());
  ASSERT_EQ(fixed.reshards.size(), 1u);
  // all-gather over x: each of 4 instances holds 48 elements and receives 48 more: 192.
  EXPECT_EQ(fixed.reshards[0].collective, "all-gather(x)");
  EXPECT_EQ(fixed.reshards[0].elements, 192);
  EXPECT_TRUE(check_program(fixed, 1).ok);
  // The outer split of dim 0 is flat digits [48, 96): the outer 2 of 16 in (16,6).
  auto outer = run(program(R"J("a": {"shape": [12,8], "layout": "(12 @ m.x, 8)"})J",
                           R"J({"op": "reshape", "operands": ["a"], "result": "b", "shape": [16,6]})J", R"J("b")J"));
  ASSERT_TRUE(outer.ok());
  EXPECT_EQ(layout(outer, "b"), "(16 @ m.x, 6)");
  EXPECT_TRUE(check_program(outer, 4).ok);
}

TEST(Propagation, DynamicInputsAreRefinedFromTheirSiblings) {
  auto r = run(program(R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 4 @ m.y)"}, "q": {"shape": [8,4], "layout": "?"})J",
                       R"J({"op": "add", "operands": ["q","a"], "result": "c"})J", R"J("c")J"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(layout(r, "q"), "(8 @ m.x, 4 @ m.y)");
  EXPECT_TRUE(check_program(r, 1).ok);
  // Nothing determines an unused "?" input: the final check rejects the Dynamic left (§6).
  auto lone = run(program(R"J("q": {"shape": [4], "layout": "?"})J", "", R"J("q")J"));
  EXPECT_EQ(rules(lone), std::vector<std::string>{"dynamic-unresolved"});
}

TEST(Propagation, BackwardFromAReshardTarget) {
  auto r = run(program(R"J("q": {"shape": [8,4], "layout": "?"})J",
                       R"J({"op": "neg", "operands": ["q"], "result": "n"}, {"op": "reshard", "operands": ["n"], "result": "o", "layout": "(8, 4 @ m.y)"})J", R"J("o")J"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(layout(r, "q"), "(8, 4 @ m.y)");
}

TEST(Propagation, UserAnnotationsWinOverPropagatedSplits) {
  // c = neg(a) is propagated (rows on x); b is annotated (columns on x). add(c, b): b wins and c
  // is resharded rows -> columns by an all-to-all over x: each of 4 instances holds 16 of the 32
  // elements and sends (n-1)/n of them: 8 each, 32 in all.
  auto r = run(program(R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 4)"}, "b": {"shape": [8,4], "layout": "(8, 4 @ m.x)"})J",
                       R"J({"op": "neg", "operands": ["a"], "result": "c"}, {"op": "add", "operands": ["c","b"], "result": "d"})J", R"J("d")J"),
               true);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.reshards.size(), 1u);
  EXPECT_EQ(r.reshards[0].value, "c");
  EXPECT_EQ(r.reshards[0].collective, "all-to-all(x)");
  EXPECT_EQ(r.reshards[0].elements, 32);
  EXPECT_EQ(layout(r, "d"), "(8, 4 @ m.x)");
  EXPECT_TRUE(check_program(r, 9).ok);
  // Both annotated: the first operand leads; the conflict names the second.
  auto both = run(program(R"J("a": {"shape": [8,4], "layout": "(8 @ m.x, 4)"}, "b": {"shape": [8,4], "layout": "(8, 4 @ m.x)"})J",
                          R"J({"op": "add", "operands": ["a","b"], "result": "d"})J", R"J("d")J"));
  ASSERT_EQ(both.conflicts.size(), 1u);
  EXPECT_EQ(both.conflicts[0].value, "b");
  EXPECT_EQ(both.conflicts[0].diagnostic.rule, "propagation-split-conflict");
}

TEST(ReshardCost, CollectivesAndElements) {
  Mesh m = parse_mesh("x=2,y=2");
  const std::vector<int64_t> shape = {8, 6};  // 48 elements, 4 instances
  Sharding rows = {AxisState::split(0, 4), AxisState::broadcast()}, repl = {AxisState::broadcast(), AxisState::broadcast()},
           psum = {AxisState::partial("sum"), AxisState::broadcast()};
  // all-gather: 24 local, each receives (2-1) * 24: 4 * 24 = 96.
  EXPECT_EQ(reshard_cost(rows, repl, shape, m).collective, "all-gather(x)");
  EXPECT_EQ(reshard_cost(rows, repl, shape, m).elements, 96);
  EXPECT_EQ(reshard_cost(repl, rows, shape, m).collective, "local-slice(x)");
  EXPECT_EQ(reshard_cost(repl, rows, shape, m).elements, 0);
  // reduce-scatter: 48 local, each sends (n-1)/n * 48 = 24: 96.
  EXPECT_EQ(reshard_cost(psum, rows, shape, m).collective, "reduce-scatter(x)");
  EXPECT_EQ(reshard_cost(psum, rows, shape, m).elements, 96);
  EXPECT_EQ(reshard_cost(psum, repl, shape, m).elements, 192);
}

TEST(Execution, OpsOnHandValues) {
  OpNode mm;
  mm.kind = OpKind::Matmul;
  // (1 2; 3 4) (5 6; 7 8) = (19 22; 43 50)
  EXPECT_EQ(eval_op(mm, {{{2, 2}, {1, 2, 3, 4}}, {{2, 2}, {5, 6, 7, 8}}}, {2, 2}).data, (std::vector<int64_t>{19, 22, 43, 50}));
  OpNode tr;
  tr.kind = OpKind::Transpose;
  tr.perm = {1, 0};
  EXPECT_EQ(eval_op(tr, {{{2, 3}, {1, 2, 3, 4, 5, 6}}}, {3, 2}).data, (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  OpNode rd;
  rd.kind = OpKind::Reduce;
  rd.reduction = "min";
  rd.axes = {0};
  EXPECT_EQ(eval_op(rd, {{{2, 3}, {1, 5, 3, 4, 2, 6}}}, {3}).data, (std::vector<int64_t>{1, 2, 3}));
  OpNode bc;
  bc.kind = OpKind::BroadcastInDim;
  bc.dims = {1};
  EXPECT_EQ(eval_op(bc, {{{2}, {7, 8}}}, {2, 2}).data, (std::vector<int64_t>{7, 8, 7, 8}));
  OpNode sl;
  sl.kind = OpKind::Slice;
  sl.start = {1};
  sl.limit = {3};
  EXPECT_EQ(eval_op(sl, {{{4}, {1, 2, 3, 4}}}, {2}).data, (std::vector<int64_t>{2, 3}));
  OpNode cc;
  cc.kind = OpKind::Concat;
  cc.dim = 1;
  EXPECT_EQ(eval_op(cc, {{{2, 1}, {1, 2}}, {{2, 2}, {3, 4, 5, 6}}}, {2, 3}).data, (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
  OpNode ex;
  ex.kind = OpKind::Exp;  // the integer stand-in x^3
  EXPECT_EQ(eval_op(ex, {{{3}, {-2, 0, 3}}}, {3}).data, (std::vector<int64_t>{-8, 0, 27}));
}

TEST(Check, AWrongLayoutIsCaughtWithTheFirstDifferingElement) {
  // Force exp(P(sum)) to claim Partial(sum): exp is not linear, so the assembled sum differs.
  auto r = run(program(R"J("a": {"shape": [4], "layout": "(4) where x=P()"})J", R"J({"op": "neg", "operands": ["a"], "result": "e"})J", R"J("e")J"));
  ASSERT_TRUE(r.ok());
  r.program.ops[0].kind = OpKind::Exp;
  bool caught = false;
  for (uint64_t seed = 1; seed < 20 && !caught; ++seed) {
    CheckResult c = check_program(r, seed);
    if (c.ok) continue;
    caught = true;
    EXPECT_EQ(c.output, "e");
    EXPECT_EQ(c.index.size(), 1u);
    EXPECT_NE(c.expected, c.got);
  }
  EXPECT_TRUE(caught);
}

TEST(Sharding, SugarRoundTripsThroughTheReference) {
  Mesh m = parse_mesh("x=2,y=2");
  for (const char* text : {"(8 @ m.x, 6)", "(4, 2 @ m.y, 6) where x=P()", "(4 @ m.x, 2 @ m.y, 6)", "(8, 6) where x=D, y=P(\"max\")"}) {
    ShardLayout sl = read_shard_layout(Json(text), m);
    Sharding s = sharding_of(sl, {8, 6});
    EXPECT_EQ(sugar_text(s, {8, 6}, m), text);
    EXPECT_EQ(sharding_of(layout_of(s, {8, 6}, m), {8, 6}), s) << text;
  }
  // Two axes on one factor do not nest.
  EXPECT_THROW(layout_of({AxisState::split(0, 1), AxisState::split(0, 1)}, {2, 6}, m), SpecError);
}

}  // namespace
}  // namespace tfspec::propagation
