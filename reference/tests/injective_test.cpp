// §2 injectivity: hand-derived cases for every way the decision can go.
#include <gtest/gtest.h>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

using namespace tfspec;

TEST(Injective, CompactAndPaddedLayoutsAreSeparated) {
  EXPECT_TRUE(is_injective(parse_layout("(2,(3,4)):(1,(2,6))")).injective);
  EXPECT_TRUE(is_injective(parse_layout("(4,8):(16,1)")).injective);  // padded rows
  auto r = is_injective(parse_layout("(2,2):(2,3)"));  // offsets 0,2,3,5: injective, not compact
  EXPECT_TRUE(r.injective);
}

TEST(Injective, OverlapFoundWithWitness) {
  // (3,2):(1,2): (2,0) -> 2 and (0,1) -> 2
  auto r = is_injective(parse_layout("(3,2):(1,2)"));
  ASSERT_FALSE(r.injective);
  ASSERT_TRUE(r.witness);
  Layout l = parse_layout("(3,2):(1,2)");
  EXPECT_EQ(l.apply(r.witness->first), l.apply(r.witness->second));
  EXPECT_FALSE(r.witness->first == r.witness->second);
}

TEST(Injective, BroadcastModeIsNotInjective) {
  auto r = is_injective(parse_layout("(4,3):(1,0)"));
  EXPECT_FALSE(r.injective);
  EXPECT_EQ(r.method, "zero-stride");
}

TEST(Injective, NegativeStridesWork) {
  EXPECT_TRUE(is_injective(parse_layout("(4,2):(-1,4)")).injective);   // -3..0 and 4..1
  EXPECT_FALSE(is_injective(parse_layout("(4,2):(-1,2)")).injective);  // (2,0)=-2 = (0,1)-4? -> (0,1)=2, (2,1)=0=(0,0)
}

TEST(Injective, HugeLayoutsDecidedWithoutEnumeration) {
  // 2^62 points, compact: peeled mode by mode, never enumerated.
  auto r = is_injective(parse_layout("(65536,65536,65536,16384):(1,65536,4294967296,281474976710656)"));
  EXPECT_TRUE(r.injective);
  EXPECT_EQ(r.method, "separated-strides");
}

TEST(Injective, HugeInterleavedLayoutIsUndecidedNotGuessed) {
  try {
    is_injective(parse_layout("(100000,100000,100000):(3,5,7)"));
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "injectivity-undecided");
  }
}

TEST(Validate, TensorTypeGateListsViolations) {
  EXPECT_TRUE(check_layout(parse_layout("(2,4):(4,1)")).ok());
  auto d = check_layout(parse_layout("(2,4):(1,1)")).violations;
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rule, "layout-injective");
  auto un = check_layout(parse_layout("(2,4):None")).violations;
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].rule, "stride-materialized");
  auto sym = check_layout(parse_layout("(M,4):(1,M)")).violations;
  ASSERT_EQ(sym.size(), 1u);
  EXPECT_EQ(sym[0].rule, "layout-concrete");
  EXPECT_THROW(validate(parse_layout("(2,4):(1,1)")), SpecError);
  // a composed layout whose outer folds two coordinates together
  auto c = check_layout(*parse_any_layout("8:1 o 0 o (2,2):(1,1)")).violations;
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].rule, "layout-injective");
}

// Issue 7, problem 1: "could not decide" is never reported as "wrong". The outer layout's modes
// interleave (strides 3 and 5, neither separated), so its 2^25 points must be enumerated, beyond
// the limit: the check is undecided, with no violation (the identity inner does not help).
TEST(Validate, UndecidedIsNotAViolation) {
  CheckReport r = check_layout(*parse_any_layout("None o 0 o (4096,8192):(3,5)"));
  EXPECT_TRUE(r.violations.empty());
  ASSERT_EQ(r.undecided.size(), 1u);
  EXPECT_EQ(r.undecided[0].rule, "injectivity-undecided");
  EXPECT_EQ(rule_kind(r.undecided[0].rule), RuleKind::Limit);
  EXPECT_FALSE(r.ok());
}

// Issue 25: a ComposedLayout whose inner is the identity is injective iff its outer is (§4:
// apply(None, v) == v, and adding the offset is one-to-one). (4096,8192):(1,4096) is compact
// column-major, i -> i, so the 2^25-point composed layout is injective, decided without enumeration.
TEST(Injective, IdentityInnerReducesToOuter) {
  auto r = is_injective(*parse_any_layout("None o 0 o (4096,8192):(1,4096)"));
  EXPECT_TRUE(r.injective);
  EXPECT_EQ(r.method, "identity-inner+separated-strides");
  EXPECT_TRUE(check_layout(*parse_any_layout("None o 0 o (4096,8192):(1,4096)")).ok());
  // (2,4):(1,1) folds (1,0) and (0,1) onto 1; with offset 7 both land on 8.
  auto c = parse_any_layout("None o 7 o (2,4):(1,1)");
  auto n = is_injective(*c);
  ASSERT_FALSE(n.injective);
  ASSERT_TRUE(n.witness);
  EXPECT_EQ(c->apply(n.witness->first), c->apply(n.witness->second));
  EXPECT_EQ(n.offset, c->apply(n.witness->first));
}

// An injective inner whose domain holds outer's image: 3 + (4,8):(8,1) reaches 3..34, inside
// 64:2's domain [0,64); x -> 2x is one-to-one there, so the composition is injective iff the
// outer is (it is: row-major over 32 offsets).
TEST(Injective, InjectiveInnerCoveringTheImageReducesToOuter) {
  auto r = is_injective(*parse_any_layout("64:2 o 3 o (4,8):(8,1)"));
  EXPECT_TRUE(r.injective);
  EXPECT_EQ(r.method, "injective-inner+separated-strides");
}

// A non-injective inner is not short-cut: (2,2):(1,0) sends i to i % 2, so after 4:1 the four
// coordinates land on 0,1,0,1 (found by enumeration).
TEST(Injective, NonInjectiveInnerIsEnumerated) {
  auto r = is_injective(*parse_any_layout("(2,2):(1,0) o 0 o 4:1"));
  EXPECT_FALSE(r.injective);
  EXPECT_EQ(r.method, "enumeration");
}
