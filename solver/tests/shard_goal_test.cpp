// Shard goals (§6, §7, D3, D5, D8) with symbolic extents; expected verdicts derived by hand.
#include <gtest/gtest.h>

#include "options.hpp"

#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/shard_goal.hpp"

namespace tfspec::solver {
namespace {

ProveResult shard(const std::string& text, std::optional<Storage> st, std::vector<std::string> assume = {}) {
  ProveOptions o = testing::deterministic_options(std::move(assume));
  return prove_shard(parse_shard_layout(text), st, o);
}

// rmem (D3): every instance owns its engine; locally (1, M) at offsets c*1: injective for all M.
TEST(ProveShard, PerInstanceEnginesAreInjective) {
  auto r = shard("shard((4,M):(0,1); S(0); x=4)", std::nullopt);
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
}

// gmem: one shared engine; instance m writes m*M + c, c < M: disjoint blocks.
TEST(ProveShard, SharedEngineWithBlockStridesIsInjective) {
  EXPECT_EQ(shard("shard((4,M):(M,1); S(0); x=4)", Storage::Gmem).verdict, Verdict::Proved);
}

// gmem with stride 0 on the Split dim: all four instances write offsets [0, M) of one engine.
TEST(ProveShard, SharedEngineWithZeroSplitStrideAliases) {
  auto r = shard("shard((4,M):(0,1); S(0); x=4)", Storage::Gmem);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  EXPECT_EQ(r.counterexample["violation"]["rule"], "shard-injective");
}

// gmem, block stride 4 against a local extent M: overlaps exactly when M > 4.
TEST(ProveShard, BlockStrideOverlapDependsOnTheExtent) {
  auto r = shard("shard((4,M):(4,1); S(0); x=4)", Storage::Gmem);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  EXPECT_GT(r.counterexample["symbols"]["M"].get<int64_t>(), 4);
  EXPECT_EQ(shard("shard((4,M):(4,1); S(0); x=4)", Storage::Gmem, {"M <= 4"}).verdict, Verdict::Proved);
}

// §7.1.1: a Split dim's extent must equal its mesh extent; M == 4 only by assumption.
TEST(ProveShard, SymbolicSplitExtentMustBeCanonical) {
  EXPECT_EQ(shard("shard((M,8):(8,1); S(0); x=4)", std::nullopt).verdict, Verdict::Refuted);
  EXPECT_EQ(shard("shard((M,8):(8,1); S(0); x=4)", std::nullopt, {"M == 4"}).verdict, Verdict::Proved);
}

// D3: Partial contributions never share a physical element (mesh axis y is Partial, gmem).
TEST(ProveShard, PartialContributionsMustNotAlias) {
  auto r = shard("shard((4,M,2):(1,8,4); S(0),P(); x=4,y=2)", Storage::Gmem);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  EXPECT_EQ(r.counterexample["violation"]["rule"], "partial-aliased");
}

// §6: two Splits of one layout axis fail for every value.
TEST(ProveShard, ValueIndependentRuleIsRefutedForAllValues) {
  auto r = shard("shard((4,M):(0,1); S(0),S(0); x=4,y=2)", std::nullopt);
  ASSERT_EQ(r.verdict, Verdict::Refuted);
  EXPECT_EQ(r.counterexample["violation"]["rule"], "split-axis-unique");
}

// D5: `N @ m.x` canonicalizes exactly when 4 | N.
TEST(ProveDivides, SugarEntriesNeedTheAxisExtentToDivide) {
  ParsedSugar ps = parse_sugar("(N @ m.x, 12 @ m.y) on x=4,y=4", std::nullopt);
  ProveOptions o;
  auto r = prove_divisions(sugar_divisions(ps.sugar, ps.mesh), o);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  EXPECT_NE(r.counterexample["extent"].get<int64_t>() % 4, 0);
  o.assume = {"N % 8 == 0"};
  EXPECT_EQ(prove_divisions(sugar_divisions(ps.sugar, ps.mesh), o).verdict, Verdict::Proved);
}

// §6 / D8: Split(0) of extent M*4 on a mesh axis of 4.
TEST(ProveDivides, SplitOfAMultipleIsProvedStructurally) {
  auto r = prove_divisions(split_divisions(parse_shard_layout("shard((M*4,8):None; S(0); x=4)")), ProveOptions{});
  EXPECT_EQ(r.verdict, Verdict::Proved);
  EXPECT_EQ(r.method, "structural");
}

}  // namespace
}  // namespace tfspec::solver

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace tfspec::solver {
namespace {

// Soundness: PROVED shard goals hold on every instance M, N in [1, 4] (check_shard_layout), and
// REFUTED counterexamples violate a rule there.
RC_GTEST_PROP(ProveShardSoundness, VerdictsAgreeWithTheReferenceCheck, ()) {
  const int rank = *rc::gen::inRange(2, 4);
  const auto ext = *rc::gen::container<std::vector<std::string>>(rank, rc::gen::element<std::string>("2", "4", "M", "N", "1"));
  const auto str = *rc::gen::container<std::vector<std::string>>(rank, rc::gen::element<std::string>("0", "1", "2", "4", "M", "N", "M*2"));
  const bool two_axes = *rc::gen::arbitrary<bool>();
  auto attr = [&] { return *rc::gen::element<std::string>("S(0)", "S(1)", "B", "P()"); };
  std::string attrs = attr() + (two_axes ? "," + attr() : "");
  std::string s = "(", d = "(";
  for (int i = 0; i < rank; ++i) {
    s += (i ? "," : "") + ext[i];
    d += (i ? "," : "") + str[i];
  }
  const std::string text = "shard(" + s + "):" + d + "); " + attrs + "; " + (two_axes ? "x=2,y=2" : "x=2") + ")";
  const Storage st = *rc::gen::element(Storage::Rmem, Storage::Gmem);
  ProveOptions o;
  o.assume = {"M <= 4", "N <= 4"};
  o.timeout_ms = 500;
  const ShardLayout sl = parse_shard_layout(text);
  ProveResult r = prove_shard(sl, st, o);
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  ShardCheckOptions co;
  co.storage = st;
  const auto& l = static_cast<const Layout&>(*sl.layout());
  auto violations = [&](const Bindings& b) {
    auto sub = [&](const IntTuple& t) {
      std::vector<IntTuple> out;
      for (const auto& x : flat_leaves(t)) out.push_back(x.is_sym() ? IntTuple(evaluate(x.dim(), b)) : x);
      return IntTuple::tuple(out);
    };
    auto c = ShardLayout::unchecked(std::make_shared<Layout>(sub(l.shape_ref()), sub(l.stride())), sl.attrs(), sl.mesh());
    return check_shard_layout(c, co);
  };
  if (r.verdict == Verdict::Proved) {
    for (int64_t m = 1; m <= 4; ++m)
      for (int64_t n = 1; n <= 4; ++n) RC_ASSERT(violations(Bindings{{"M", m}, {"N", n}}).violations.empty());
  } else if (r.verdict == Verdict::Refuted) {
    Bindings b{{"M", 1}, {"N", 1}};
    for (const auto& [k, v] : r.counterexample["symbols"].items()) b[k] = v.get<int64_t>();
    RC_ASSERT(!violations(b).violations.empty());
  }
}

}  // namespace
}  // namespace tfspec::solver
