// Every shard rule (§6, §7.1.1, §7.1.2, §7.2, D3, D9): one valid case and at least one
// violating case, asserting the stable rule id.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <set>

#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec {
namespace {

std::set<std::string> ids(const std::string& text, const ShardCheckOptions& opts = {}) {
  std::set<std::string> out;
  for (const auto& d : check_shard_layout(parse_shard_layout(text), opts).violations) out.insert(d.rule);
  return out;
}
bool ok(const std::string& text, const ShardCheckOptions& opts = {}) { return ids(text, opts).empty(); }
bool violates(const std::string& text, const std::string& rule, const ShardCheckOptions& opts = {}) {
  return ids(text, opts).count(rule) == 1;
}
using tfspec::testing::error_id;
ShardCheckOptions with_shape(IntTuple t) {
  ShardCheckOptions o;
  o.tensor_shape = std::move(t);
  return o;
}
ShardCheckOptions final_stage() {
  ShardCheckOptions o;
  o.final_stage = true;
  return o;
}
ShardCheckOptions on(Storage s) {
  ShardCheckOptions o;
  o.storage = s;
  return o;
}

TEST(ShardRules, AttrsRank) {  // §7.2
  EXPECT_TRUE(ok("shard((2,3):None; S(0),B; x=2,y=1)"));
  EXPECT_TRUE(violates("shard((2,3):None; S(0); x=2,y=1)", "shard-attrs-rank"));
  EXPECT_TRUE(violates("shard((2,3):None; S(0),B,B; x=2,y=1)", "shard-attrs-rank"));
}

TEST(ShardRules, SplitAxisRange) {  // §6: 0 <= axis < rank(flatten(G))
  EXPECT_TRUE(ok("shard(((2,3),4):None; B,S(2); x=2,y=4)"));  // the flat view has 3 dims
  EXPECT_TRUE(violates("shard((2,3):None; S(2); x=2)", "split-axis-range"));
  EXPECT_TRUE(violates("shard((2,3):None; S(-1); x=2)", "split-axis-range"));
}

TEST(ShardRules, SplitAxisUnique) {  // §6
  EXPECT_TRUE(ok("shard((2,2):None; S(0),S(1); x=2,y=2)"));
  EXPECT_TRUE(violates("shard((2,2):None; S(0),S(0); x=2,y=2)", "split-axis-unique"));
}

TEST(ShardRules, PartialReduction) {  // §6, D9
  EXPECT_TRUE(ok("shard((4):None; P(\"max\"); x=2)"));
  EXPECT_TRUE(ok("shard((4):None; P(); x=2)"));
  EXPECT_TRUE(violates("shard((4):None; P(\"prod\"); x=2)", "partial-reduction"));
}

TEST(ShardRules, ShardConcrete) {  // §1: numbers needed; symbolic goes to the prover
  EXPECT_TRUE(ok("shard((2,4):None; S(0); x=2)"));
  EXPECT_TRUE(violates("shard((2,M):None; S(0); x=2)", "shard-concrete"));
}

TEST(ShardRules, SplitDividesAndCanonical) {  // §6 divisibility (D8), §7.1.1 canonical form
  EXPECT_TRUE(ok("shard((2,3):None; S(0); x=2)"));
  EXPECT_TRUE(violates("shard((3,4):None; S(0); x=2)", "split-divides"));       // uneven: 2 does not divide 3
  EXPECT_FALSE(violates("shard((3,4):None; S(0); x=2)", "split-extent-canonical"));
  EXPECT_TRUE(violates("shard((4,3):None; S(0); x=2)", "split-extent-canonical"));  // divisible, not canonical
  EXPECT_FALSE(violates("shard((4,3):None; S(0); x=2)", "split-divides"));
}

TEST(ShardRules, SplitStrideNonNegative) {  // §7.1.2: S[k] in {0} ∪ ℤ>0
  EXPECT_TRUE(ok("shard((2,3):(0,1); S(0); x=2)"));
  EXPECT_TRUE(ok("shard((2,3):(3,1); S(0); x=2)"));
  EXPECT_TRUE(violates("shard((2,3):(-3,1); S(0); x=2)", "split-stride-nonneg"));
}

TEST(ShardRules, SplitSingleStride) {  // §7.1.2: cyclic / interleaved layouts are rejected
  EXPECT_TRUE(ok("shard((4):(2) o 0 o 4:1; S(0); x=4)"));
  // Under (2,2):(1,8) the Split dim steps by 1, 7, 1: more than one stride.
  EXPECT_TRUE(violates("shard((2,2):(1,8) o 0 o 4:1; S(0); x=4)", "split-single-stride"));
  // Construction rejects it (fails closed with the same id).
  EXPECT_EQ(error_id([] {
              auto sl = parse_shard_layout("shard((2,2):(1,8) o 0 o 4:1; S(0); x=4)");
              ShardLayout(sl.layout(), sl.attrs(), sl.mesh());
            }),
            "split-single-stride");
}

TEST(ShardRules, EmptyStrideIsNotNone) {  // §7.1.2
  auto rank0 = parse_shard_layout("shard(():(); B; x=1)");
  EXPECT_TRUE(static_cast<const Layout&>(*rank0.layout()).materialized());  // () is concrete
  EXPECT_TRUE(check_shard_layout(rank0).ok());
  auto none = parse_shard_layout("shard(():None; B; x=1)");
  EXPECT_FALSE(static_cast<const Layout&>(*none.layout()).materialized());
  EXPECT_EQ(error_id([] { parse_shard_layout("shard((2,3):(); B; x=2)"); }), "stride-empty-not-none");
  EXPECT_EQ(error_id([] {
              shard_from_json(Json::parse(R"J({"layout":{"shape":[2,3],"stride":[]},"attrs":["B"],"mesh":"x=2"})J"));
            }),
            "stride-empty-not-none");
}

TEST(ShardRules, SizeMatch) {  // §7.1.1: size(G) == size(T.shape)
  EXPECT_TRUE(ok("shard((2,3):None; S(0); x=2)", with_shape(IntTuple::tuple({6}))));
  EXPECT_TRUE(violates("shard((2,3):None; S(0); x=2)", "shard-size-match", with_shape(IntTuple::tuple({2, 4}))));
}

TEST(ShardRules, Regroup) {  // §8 / D2
  EXPECT_TRUE(ok("shard((1,8,192):None; B; w=8)", with_shape(IntTuple::tuple({1, 1536}))));
  EXPECT_TRUE(violates("shard((3,2):None; B; x=2)", "shard-regroup", with_shape(IntTuple::tuple({2, 3}))));
}

TEST(ShardRules, DynamicOnlyBeforeTheFinalCheck) {  // §6
  EXPECT_TRUE(ok("shard((2,3):(3,1); D; x=2)"));
  EXPECT_TRUE(violates("shard((2,3):(3,1); D; x=2)", "dynamic-unresolved", final_stage()));
  EXPECT_TRUE(ok("shard((2,3):(0,1); S(0); x=2)", final_stage()));
}

TEST(ShardRules, StridesMaterializedAtTheFinalCheck) {  // §7.1.2
  EXPECT_TRUE(ok("shard((2,3):None; S(0); x=2)"));
  EXPECT_TRUE(violates("shard((2,3):None; S(0); x=2)", "shard-stride-materialized", final_stage()));
}

TEST(ShardRules, InjectiveOverEngineAndOffset) {  // §2 / D3
  EXPECT_TRUE(ok("shard((2,3):(0,1); S(0); x=2)"));
  EXPECT_TRUE(violates("shard((2,3):(0,0); S(0); x=2)", "shard-injective"));
  // The per-instance form is injective on private engines, not on one shared gmem buffer.
  EXPECT_TRUE(ok("shard((2,3):(0,1); S(0); x=2)", on(Storage::Rmem)));
  EXPECT_TRUE(violates("shard((2,3):(0,1); S(0); x=2)", "shard-injective", on(Storage::Gmem)));
  EXPECT_TRUE(ok("shard((2,3):(3,1); S(0); x=2)", on(Storage::Gmem)));
  // Broadcast replicas may share a physical element.
  EXPECT_TRUE(ok("shard((2,3):(3,1); S(0),B; x=2,y=4)", on(Storage::Gmem)));
}

TEST(ShardRules, PartialNeverAliases) {  // §6 / D3
  EXPECT_TRUE(ok("shard((3):(1); P(); x=2)", on(Storage::Rmem)));
  EXPECT_TRUE(violates("shard((3):(1); P(); x=2)", "partial-aliased", on(Storage::Gmem)));
  // smem: the two instances of one CTA share its engine; across CTAs they do not.
  EXPECT_TRUE(violates("shard((3):(1); P(); cta(1)*thread(2)|x=2)", "partial-aliased", on(Storage::Smem)));
  EXPECT_TRUE(ok("shard((3):(1); P(); cta(2)*thread(1)|x=2)", on(Storage::Smem)));
}

TEST(ShardRules, CheckReportsEveryViolation) {
  auto got = ids("shard((3,4,5):(1,1,-1); S(0),S(0),S(9),P(\"avg\"); a=2,b=2,c=2,d=1)");
  for (const char* rule : {"split-divides", "split-axis-unique", "split-axis-range", "partial-reduction"})
    EXPECT_EQ(got.count(rule), 1u) << rule;
}

TEST(ShardRules, CheckedForTheShardKind) {
  std::set<std::string> registered;
  for (const RuleId* r : checked_rules(LayoutKind::Shard)) registered.insert(std::string(r->id));
  for (const char* rule : {"shard-attrs-rank", "split-axis-range", "split-axis-unique", "partial-reduction", "shard-concrete",
                           "split-divides", "split-extent-canonical", "split-stride-nonneg", "split-single-stride",
                           "stride-empty-not-none", "shard-size-match", "shard-regroup", "dynamic-unresolved",
                           "shard-stride-materialized", "shard-injective", "partial-aliased"})
    EXPECT_EQ(registered.count(rule), 1u) << rule;
  // The generic gate (`tfspec layout check`) reaches them.
  auto sl = parse_any_layout("shard((2,2):None; S(0),S(0); x=2,y=2)");
  ASSERT_EQ(sl->kind(), LayoutKind::Shard);
  bool found = false;
  for (const auto& d : check_layout(*sl, "layout").violations) found = found || d.rule == "split-axis-unique";
  EXPECT_TRUE(found);
}

TEST(ShardRules, SugarCanonicalization) {  // §7.1.1 / D5
  Mesh m = parse_mesh("x=2,y=4");
  auto sl = read_shard_layout(Json("(8 @ m.y, 3, 2 @ m.axes[0])"), m);
  EXPECT_EQ(sl.shape(), IntTuple::tuple({4, 2, 3, 2}));  // 8 @ y -> (4 @ y, 2)
  EXPECT_EQ(sl.attrs(), (std::vector<ShardAttr>{S(3), S(0)}));
  EXPECT_EQ(error_id([&] { read_shard_layout(Json("(6 @ m.y)"), m); }), "sugar-divides");  // 4 does not divide 6
  EXPECT_EQ(error_id([&] { read_shard_layout(Json("(N @ m.y)"), m); }), "sugar-symbolic");
  EXPECT_EQ(error_id([&] { read_shard_layout(Json("(4 @ m.y, 4 @ m.y)"), m); }), "sugar-axis-reused");
  EXPECT_EQ(error_id([&] { read_shard_layout(Json("(4 @ m.z)"), m); }), "mesh-axis-unknown");
  EXPECT_EQ(error_id([&] { read_shard_layout(Json("(4 @ m.x)"), parse_mesh("cta|x=None")); }), "mesh-extent-static");
  // Omitted axes are Broadcast; `where` sets a Partial.
  auto p = read_shard_layout(Json("(2 @ m.x, 5) where y=P(\"max\")"), m);
  EXPECT_EQ(p.attrs(), (std::vector<ShardAttr>{S(0), P("max")}));
  auto b = read_shard_layout(Json("(10) on x=2,y=4"));
  EXPECT_EQ(b.attrs(), (std::vector<ShardAttr>{B(), B()}));
}

}  // namespace
}  // namespace tfspec
