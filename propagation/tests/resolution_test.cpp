// P7 resolution (spec/PROPAGATION.md), issue 19: the fewest all-reduces for any arity (checked
// against every subset), a Dynamic axis that cannot take its sibling's split, and many conflicts
// resolved in one pass. Expected reshards and costs are derived by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/mesh.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

Propagation run(const Json& j, bool insert) { return propagate(parse_program(j), insert); }
std::string layout(const Propagation& r, const std::string& v) { return sugar_text(r.shardings.at(v), r.program.shapes.at(v), r.program.mesh); }

// An independent minimal fix: every subset of the Partial operands, fewest first, then the
// lexicographically least sorted index list, the first the Partial table accepts.
std::optional<std::pair<std::vector<AxisState>, AxisState>> brute_force(const OpNode& op, const std::vector<AxisState>& in) {
  std::vector<size_t> parts;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i].kind == AxisState::Part) parts.push_back(i);
  std::vector<std::vector<size_t>> sets;
  for (uint32_t mask = 1; mask < (1u << parts.size()); ++mask) {
    std::vector<size_t> s;
    for (size_t b = 0; b < parts.size(); ++b)
      if (mask & (1u << b)) s.push_back(parts[b]);
    sets.push_back(s);
  }
  std::sort(sets.begin(), sets.end(), [](const auto& a, const auto& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
  for (const auto& s : sets) {
    auto trial = in;
    for (size_t i : s) trial[i] = AxisState::broadcast();
    auto o = partial_rule(op, trial);
    if (o.result) return std::make_pair(trial, *o.result);
  }
  return std::nullopt;
}

TEST(PartialTable, FewestAllReducesAgreeWithBruteForce) {
  const std::vector<AxisState> states = {AxisState::broadcast(), AxisState::partial("sum"), AxisState::partial("max"), AxisState::partial("min")};
  struct Case {
    OpKind kind;
    size_t arity;
    int64_t constant;
    std::string reduction;
  };
  std::vector<Case> cases = {{OpKind::Neg, 1, 1, "sum"}, {OpKind::Scale, 1, -2, "sum"}, {OpKind::Exp, 1, 1, "sum"},  {OpKind::Relu, 1, 1, "sum"},
                             {OpKind::Reduce, 1, 1, "max"}, {OpKind::Add, 2, 1, "sum"}, {OpKind::Sub, 2, 1, "sum"},   {OpKind::Mul, 2, 1, "sum"},
                             {OpKind::Max, 2, 1, "sum"},  {OpKind::Matmul, 2, 1, "sum"}};
  for (size_t m = 1; m <= 6; ++m) cases.push_back({OpKind::Concat, m, 1, "sum"});
  size_t compared = 0;
  for (const auto& c : cases) {
    OpNode op;
    op.kind = c.kind;
    op.constant = c.constant;
    op.reduction = c.reduction;
    size_t combos = 1;
    for (size_t i = 0; i < c.arity; ++i) combos *= states.size();
    for (size_t code = 0; code < combos; ++code) {
      std::vector<AxisState> in;
      for (size_t i = 0, k = code; i < c.arity; ++i, k /= states.size()) in.push_back(states[k % states.size()]);
      if (partial_rule(op, in).result) continue;  // nothing to fix
      auto want = brute_force(op, in);
      auto got = fewest_all_reduces(op, in);
      ASSERT_TRUE(want.has_value());  // all-reducing every Partial leaves only Broadcast
      ASSERT_TRUE(got.has_value()) << to_string(op.kind);
      EXPECT_EQ(got->first, want->first) << to_string(op.kind) << " case " << code;
      EXPECT_EQ(got->second, want->second) << to_string(op.kind) << " case " << code;
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000u);
}

// concat on dim 0 of one Broadcast (2,2) and n Partial(sum) (2,2) on mesh x=2. Partial(sum) with
// a Broadcast operand is partial-broadcast (P4), so every Partial must be all-reduced: n reshards,
// each all-reduce(x) of 4 elements per instance on 2 instances: 2 * 2 * (2-1) * 4 / 2 = 8.
// Before issue 19 the search looked only at the first 12 Partials and n >= 13 exited 4.
Json concat_program(int n) {
  Json inputs = Json::object(), operands = Json::array({"b"});
  inputs["b"] = {{"shape", {2, 2}}, {"layout", "(2, 2)"}};
  for (int i = 0; i < n; ++i) {
    const std::string name = "p" + std::to_string(i);
    inputs[name] = {{"shape", {2, 2}}, {"layout", "(2, 2) where x=P()"}};
    operands.push_back(name);
  }
  return Json{{"mesh", "x=2"}, {"inputs", inputs}, {"ops", {{{"op", "concat"}, {"operands", operands}, {"result", "c"}, {"dim", 0}}}}, {"outputs", {"c"}}};
}

TEST(InsertReshards, ConcatOfABroadcastAndManyPartialSumsHasNoArityCap) {
  for (int n : {12, 13, 20, 40}) {
    auto r = run(concat_program(n), true);
    ASSERT_TRUE(r.ok()) << n;
    ASSERT_EQ(r.reshards.size(), static_cast<size_t>(n));
    for (const auto& x : r.reshards) {
      EXPECT_EQ(x.collective, "all-reduce(x)");
      EXPECT_EQ(x.elements, 8);
      EXPECT_EQ(x.before_op, 0u);
    }
    EXPECT_EQ(layout(r, "c"), "(" + std::to_string(2 * (n + 1)) + ", 2)");
    EXPECT_TRUE(check_program(r, 7).ok) << n;
  }
}

// a = (4 @ m.y) where x=D: y splits the outer 2 of dim 0 (lo = 2), x is Dynamic. b = (4 @ m.x):
// x splits that same factor. c = add(a, b). Carrying b's x split onto a would split one factor of
// a by two axes (no layout, §7.1.1), so a's x takes no split: no state is conflict-free, and
// phase 3 gives it the first candidate that is a layout, Broadcast. The add then has two
// conflicts: on x a (B) against b's split, on y b (B) against a's split.
Json overlap_program() {
  return Json::parse(R"J({"mesh": "x=2,y=2",
    "inputs": {"a": {"shape": [4], "layout": "(4 @ m.y) where x=D"}, "b": {"shape": [4], "layout": "(4 @ m.x)"}},
    "ops": [{"op": "add", "operands": ["a", "b"], "result": "c"}], "outputs": ["c"]})J");
}

TEST(Propagation, ADynamicAxisNeverTakesASplitOverlappingItsOwn) {
  auto r = run(overlap_program(), false);
  ASSERT_EQ(r.conflicts.size(), 2u);
  EXPECT_EQ(r.conflicts[0].value, "a");
  EXPECT_EQ(r.conflicts[0].diagnostic.rule, "propagation-split-conflict");
  EXPECT_EQ(r.conflicts[1].value, "b");
  EXPECT_EQ(r.conflicts[1].diagnostic.rule, "propagation-split-conflict");
  EXPECT_EQ(layout(r, "a"), "(4 @ m.y)");  // x: Broadcast, a layout
  // The report says why a's Dynamic axis did not simply take b's split.
  EXPECT_NE(r.conflicts[0].diagnostic.message.find("mesh axis x of a was Dynamic"), std::string::npos) << r.conflicts[0].diagnostic.message;
}

// With --insert-reshards each axis's own lead asks a for both splits (x from b, y its own): not a
// layout. Then a leads on every axis: on x nothing is split once b's split is set aside (all
// Broadcast), on y a's split leads and b must take it. One reshard: b (x split, y B) -> (x B, y
// split), axis by axis: all-gather over x (4 instances, 2 local each, receiving 1 * 2: 8) then a
// local slice over y (0). c = (4 @ m.y), and the program runs shard-locally.
TEST(InsertReshards, ASplitOverlapIsResolvedByAReshardNotAnError) {
  auto r = run(overlap_program(), true);
  ASSERT_TRUE(r.ok()) << (r.conflicts.empty() ? "" : r.conflicts[0].diagnostic.message);
  ASSERT_EQ(r.reshards.size(), 1u);
  EXPECT_EQ(r.reshards[0].value, "b");
  EXPECT_EQ(r.reshards[0].from, "(4 @ m.x)");
  EXPECT_EQ(r.reshards[0].to, "(4 @ m.y)");
  EXPECT_EQ(r.reshards[0].collective, "all-gather(x) + local-slice(y)");
  EXPECT_EQ(r.reshards[0].elements, 8);
  EXPECT_EQ(layout(r, "c"), "(4 @ m.y)");
  for (uint64_t seed : {1, 2}) EXPECT_TRUE(check_program(r, seed).ok);
}

// 10,000 relu of one Partial(sum) value y (2) on x=2: each relu needs y all-reduced (P3), one
// reshard per op, all-reduce(x) of 2 elements on 2 instances: 2 * 2 * 1 * 2 / 2 = 4 each. Before
// issue 19 every inserted reshard restarted the scan and the fixpoint (quadratic: no answer in
// 60 s); bench/bench_propagate.cpp measures it.
TEST(InsertReshards, TenThousandConflictsAreResolvedInOnePass) {
  Json ops = Json::array();
  for (int i = 0; i < 10000; ++i) ops.push_back({{"op", "relu"}, {"operands", {"y"}}, {"result", "r" + std::to_string(i)}});
  Json j{{"mesh", "x=2"}, {"inputs", {{"y", {{"shape", {2}}, {"layout", "(2) where x=P()"}}}}}, {"ops", ops}, {"outputs", {"r0", "r9999"}}};
  auto r = run(j, true);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.reshards.size(), 10000u);
  EXPECT_EQ(r.reshards[9999].before_op, 9999u);
  EXPECT_EQ(r.reshards[9999].collective, "all-reduce(x)");
  EXPECT_EQ(r.reshards[9999].elements, 4);
  EXPECT_EQ(r.program.ops.size(), 20000u);
  EXPECT_EQ(layout(r, "r9999"), "(2)");
}

// The guard behind item 6 of issue 19: propagation no longer builds overlapping splits, but
// layout_of still refuses them. Mesh x=2,y=2: on a dim of extent 4, both axes splitting at
// lo=1 claim the same factor [1,2); on extent 3, y's split at lo=2 would cover [2,4), past the
// extent; on extent 4, x on [1,2) and y on [2,4) nest (the layout (2 @ m.y, 2 @ m.x)).
TEST(Sharding, LayoutOfRefusesOverlappingSplits) {
  const Mesh mesh = parse_mesh("x=2,y=2");
  auto rule_of = [&](const Sharding& s, int64_t extent) {
    try {
      layout_of(s, {extent}, mesh);
    } catch (const SpecError& e) {
      return std::string(e.rule());
    }
    return std::string("(no error)");
  };
  const std::string overlap = "propagation-split-overlap";
  EXPECT_EQ(rule_of({AxisState::split(0, 1), AxisState::split(0, 1)}, 4), overlap);
  EXPECT_EQ(rule_of({AxisState::split(0, 1), AxisState::split(0, 2)}, 3), overlap);
  EXPECT_EQ(rule_of({AxisState::split(0, 1), AxisState::split(0, 2)}, 4), "(no error)");  // x on [1,2), y on [2,4): nested
}

}  // namespace
}  // namespace tfspec::propagation
