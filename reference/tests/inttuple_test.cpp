// §1 IntTuple: expected values derived by hand in the comments.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/inttuple.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

static IntTuple P(const char* s) { return parse_inttuple(s); }

TEST(IntTuple, RankDepthFlatten) {
  EXPECT_EQ(rank(P("4")), 1);
  EXPECT_EQ(rank(P("(2,(3,4))")), 2);
  EXPECT_EQ(depth(P("4")), 0);
  EXPECT_EQ(depth(P("(2,(3,4))")), 2);
  EXPECT_EQ(flatten(P("(2,(3,(4,5)))")), P("(2,3,4,5)"));
  EXPECT_EQ(rank(P("()")), 0);
}

TEST(IntTuple, ProductConcreteAndSymbolic) {
  EXPECT_EQ(product_int(P("(2,(3,4))")), 24);
  EXPECT_EQ(product_int(P("()")), 1);  // empty product
  IntTuple p = product(P("(M,(2,N))"));
  ASSERT_TRUE(p.is_sym());
  EXPECT_EQ(evaluate(p.dim(), {{"M", 3}, {"N", 5}}), 3 * 2 * 5);
  EXPECT_RULE(product_int(P("(M,2)")), "needs-concrete");
  EXPECT_RULE(product(P("(None,2)")), "needs-concrete");
}

TEST(IntTuple, ProductOverflowFailsClosed) {
  EXPECT_RULE(product_int(P("(4294967296,4294967296)")), "int64-overflow");
}

TEST(IntTuple, PrefixProduct) {
  // (2,(3,4)) -> (1,(2,6)): each entry is the product of all extents before it.
  EXPECT_EQ(prefix_product(P("(2,(3,4))")), P("(1,(2,6))"));
  EXPECT_EQ(prefix_product(P("(M,N)")), P("(1,M)"));
  // §1 example: (None,) with stride (1,): the last extent is never multiplied.
  EXPECT_EQ(prefix_product(P("(None)")), P("(1)"));
}

TEST(IntTuple, ShapeDiv) {
  EXPECT_EQ(shape_div(P("(4,6)"), P("2")), P("(2,6)"));   // 4/2=2, then 2/4 -> 1 carried: 6/1
  EXPECT_EQ(shape_div(P("(2,6)"), P("4")), P("(1,3)"));   // 2 | 4 -> 1, remaining 4/2=2 divides 6
  EXPECT_RULE(shape_div(P("6"), P("4")), "shape-div-divisibility");
}

TEST(IntTuple, Crd2IdxAndIdx2CrdColex) {
  IntTuple s = P("(2,(3,4))");
  // D1: index 23 = 1 + 2*(2 + 3*3) -> coordinate (1,(2,3)).
  EXPECT_EQ(idx2crd(23, s), P("(1,(2,3))"));
  EXPECT_EQ(crd2idx(P("(1,(2,3))"), s), 23);
  EXPECT_EQ(crd2idx(P("(1,(2,3))"), s, P("(1,(2,6))")), 1 + 4 + 18);
  EXPECT_EQ(crd2idx(P("5"), s, P("(1,(2,6))")), 5);  // 5 -> (1,(2,0)) -> 1+4
  // crd2crd: (1,(2,3)) of (2,(3,4)) -> flat index 23 in a shape of 24
  EXPECT_EQ(crd2crd(P("(1,(2,3))"), P("24"), s), P("23"));
  EXPECT_EQ(crd2crd(P("23"), s, P("24")), P("(1,(2,3))"));
}

TEST(IntTuple, CongruentCompatible) {
  EXPECT_TRUE(congruent(P("(2,(3,4))"), P("(1,(2,6))")));
  EXPECT_FALSE(congruent(P("(2,(3,4))"), P("(1,2,6)")));
  EXPECT_TRUE(compatible(P("(2,12)"), P("(2,(3,4))")));
  EXPECT_FALSE(compatible(P("(2,(3,4))"), P("(2,12)")));
  EXPECT_TRUE(compatible(P("24"), P("(2,(3,4))")));
}

// A symbolic size is compatible with another only where they are equal: M against (2,3) holds at
// M = 6 and nowhere else, so the answer depends on M (it said false, wrong at M = 6). Equal normal
// forms hold for every value: M*N against (M,N), and (M,4*N) against (M,(2,2*N)).
TEST(IntTuple, CompatibleOnSymbolicSizesAnswersOnlyWhatHoldsForEveryValue) {
  try {
    compatible(P("M"), P("(2,3)"));
    ADD_FAILURE() << "M against (2,3) was answered";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "needs-concrete");
  }
  EXPECT_TRUE(compatible(P("M*N"), P("(M,N)")));
  EXPECT_TRUE(compatible(P("(M,4*N)"), P("(M,(2,2*N))")));
  EXPECT_FALSE(compatible(P("(M,N)"), P("M*N")));  // structure: a tuple is never compatible with a leaf
}

TEST(IntTuple, SliceAndDice) {
  IntTuple c = parse_coord("(1,(_,2))");
  IntTuple t = P("(2,(3,4))");
  EXPECT_EQ(slice(c, t), P("(3)"));
  EXPECT_EQ(dice(c, t), P("(2,4)"));
}

TEST(IntTuple, DeepNestingRefused) {
  std::string deep(100000, '(');
  deep += "1";
  deep += std::string(100000, ')');
  EXPECT_RULE(parse_inttuple(deep), "nesting-too-deep");
}
