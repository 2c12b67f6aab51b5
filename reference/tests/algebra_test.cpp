// CuTe algebra: expected values from the CuTe layout-algebra documentation's worked examples
// and from hand derivations written next to each case.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

static Layout L(const char* s) { return parse_layout(s); }

TEST(Coalesce, MergesContiguousModes) {
  EXPECT_EQ(coalesce(L("(2,(1,6)):(1,(6,2))")), L("12:1"));  // 2:1 then 6:2 continues it
  EXPECT_EQ(coalesce(L("(2,4):(4,1)")), L("(2,4):(4,1)"));   // 2*4 != 1: nothing merges
  EXPECT_EQ(coalesce(L("(1,1):(3,5)")), L("1:0"));
  // by-mode profile keeps the rank: mode 0 (2,3):(1,2) -> 6:1, mode 1 untouched
  EXPECT_EQ(coalesce(L("((2,3),(2,2)):((1,2),(6,12))"), parse_inttuple("(1,1)")), L("(6,4):(1,6)"));
}

TEST(Filter, DropsBroadcastAndUnitModes) {
  EXPECT_EQ(filter(L("(2,4,3):(1,0,2)")), L("6:1"));  // drop 4:0, then 2:1 + 3:2 coalesce
  EXPECT_EQ(filter(L("(4,1):(0,7)")), L("1:0"));
}

TEST(Composition, CuteDocExample) {
  // (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8)
  EXPECT_EQ(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)")), L("((2,2),3):((24,2),8)"));
}

TEST(Composition, HandDerived) {
  // A=(4,8):(8,1): A(i) = (i%4)*8 + i/4. B=(2,2):(1,4): B(a,b) = a + 4b.
  // A(B(1,0)) = A(1) = 8; A(B(0,1)) = A(4) = 1  ->  (2,2):(8,1)
  EXPECT_EQ(composition(L("(4,8):(8,1)"), L("(2,2):(1,4)")), L("(2,2):(8,1)"));
  // stride-0 B is the constant A(0) = 0
  EXPECT_EQ(composition(L("(4,8):(8,1)"), L("5:0")), L("5:0"));
}

TEST(Composition, CuteTooWeakCasesAreRefused) {
  // 3 is neither a multiple nor a divisor of A's first extent 4: no layout computes A(3i).
  EXPECT_RULE(composition(L("(4,6,8):(2,3,5)"), L("6:3")), "composition-stride-divisibility");
  // Each mode alone is admissible, but B(2,1) = 7 carries out of A's first mode (extent 6):
  // A(7) = 1 + 7 = 8 while composing mode by mode would give 4 + 3 = 7.
  EXPECT_RULE(composition(L("(6,2):(1,7)"), L("(3,2):(2,3)")), "composition-mode-overlap");
}

TEST(Composition, ShapeDivisibilityAndDomain) {
  // B = 3:2 over A=(4,4):(1,5): offsets 0,2,4 fill digit 0 with 2 values and then need 3 to be
  // a multiple of 2 (A(0), A(2), A(4) = 0, 2, 5 is no arithmetic progression).
  EXPECT_RULE(composition(L("(4,4):(1,5)"), L("3:2")), "composition-shape-divisibility");
  EXPECT_EQ(composition(L("(4,4):(1,5)"), L("6:2")), L("(2,3):(2,5)"));  // 0,2 | 5,7 | 10,12
  EXPECT_RULE(composition(L("8:1"), L("4:3")), "composition-image-in-domain");  // B(3) = 9 >= 8
}

TEST(Complement, CuteDocExamples) {
  EXPECT_EQ(complement(L("4:1"), 24), L("6:4"));
  EXPECT_EQ(complement(L("6:4"), 24), L("4:1"));
  EXPECT_EQ(complement(L("(4,6):(1,4)"), 24), L("1:0"));
  EXPECT_EQ(complement(L("4:2"), 24), L("(2,3):(1,8)"));
  EXPECT_EQ(complement(L("(2,2):(1,6)"), 24), L("(3,2):(2,12)"));
}

TEST(Complement, OverlappingModesRefused) {
  // modes 2:2 and 2:3: the span of 2:2 is 4, and 3 is not a multiple of it.
  EXPECT_RULE(complement(L("(2,2):(2,3)"), 24), "complement-disjoint");
  EXPECT_RULE(complement(L("4:-1"), 8), "complement-negative-stride");
}

TEST(Inverse, RightAndLeft) {
  // L=(2,4):(4,1): R(a + 4b) = 2a + b for a<4, b<2  ->  (4,2):(2,1)
  EXPECT_EQ(right_inverse(L("(2,4):(4,1)")), L("(4,2):(2,1)"));
  EXPECT_EQ(left_inverse(L("(2,4):(4,1)")), L("(4,2):(2,1)"));
  EXPECT_EQ(right_inverse(L("4:2")), L("1:0"));  // no stride-1 mode: only R(0) = 0
}

TEST(Divide, CuteDocLogicalDivide) {
  EXPECT_EQ(logical_divide(L("(4,2,3):(2,1,8)"), Tiler(L("4:2"))), L("((2,2),(2,3)):((4,1),(2,8))"));
}

TEST(Divide, ByModeAndItsZippedTiledFlatForms) {
  // (4,8):(8,1) by (2:1,4:1): mode 0: 4:8 / 2:1 = (2,2):(8,16); mode 1: 8:1 / 4:1 = (4,2):(1,4)
  Tiler t = parse_tiler("(2:1,4:1)");
  EXPECT_EQ(logical_divide(L("(4,8):(8,1)"), t), L("((2,2),(4,2)):((8,16),(1,4))"));
  EXPECT_EQ(zipped_divide(L("(4,8):(8,1)"), t), L("((2,4),(2,2)):((8,1),(16,4))"));
  EXPECT_EQ(tiled_divide(L("(4,8):(8,1)"), t), L("((2,4),2,2):((8,1),16,4)"));
  EXPECT_EQ(flat_divide(L("(4,8):(8,1)"), t), L("(2,4,2,2):(8,1,16,4)"));
  // a bare shape is a by-mode tiler (CuTe)
  EXPECT_EQ(logical_divide(L("(4,8):(8,1)"), parse_tiler("(2,4)")), logical_divide(L("(4,8):(8,1)"), t));
}

TEST(Product, CuteDocLogicalProduct) {
  EXPECT_EQ(logical_product(L("(2,2):(4,1)"), Tiler(L("6:1"))), L("((2,2),(2,3)):((4,1),(2,8))"));
  // an integer n is Layout(n): (2,2):(1,2) x 3 = ((2,2),3):((1,2),4)
  EXPECT_EQ(logical_product(L("(2,2):(1,2)"), parse_tiler("3")), L("((2,2),3):((1,2),4)"));
}

TEST(Product, CuteDocBlockedAndRaked) {
  // CuTe's documented results: mode i zips (A_i, B_i) (blocked) or (B_i, A_i) (raked).
  EXPECT_EQ(blocked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)")), L("((2,3),(5,4)):((5,10),(1,30))"));
  EXPECT_EQ(raked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)")), L("((3,2),(4,5)):((10,5),(30,1))"));
}

TEST(MaxCommonVector, HandDerived) {
  EXPECT_EQ(max_common_vector(L("(4,8):(1,4)"), L("(4,8):(1,4)")), 32);  // identical, compact
  EXPECT_EQ(max_common_vector(L("(4,8):(1,4)"), L("(4,8):(8,1)")), 1);   // transposed
  EXPECT_EQ(max_common_vector(L("(4,8):(1,8)"), L("(4,8):(1,4)")), 4);   // first 4 agree
}

TEST(Algebra, SymbolicInputFailsClosedNamingTheLeaf) {
  try {
    coalesce(L("(M,4):(1,M)"));
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "needs-concrete");
    EXPECT_NE(std::string(e.what()).find("'M'"), std::string::npos) << e.what();
  }
}

TEST(Product, ZippedTiledFlatForms) {
  // (2,2):(1,2) by-mode with (3,4): mode 0: 2:1 x 3:1 = (2,3):(1,2);
  // mode 1: 2:2 x 4:1: complement(2:2, 8) = (2,2):(1,4), composed with 4:1 -> (2,2):(1,4).
  Tiler t = parse_tiler("(3,4)");
  EXPECT_EQ(logical_product(L("(2,2):(1,2)"), t), L("((2,3),(2,(2,2))):((1,2),(2,(1,4)))"));
  EXPECT_EQ(zipped_product(L("(2,2):(1,2)"), t), L("((2,2),(3,(2,2))):((1,2),(2,(1,4)))"));
  EXPECT_EQ(tiled_product(L("(2,2):(1,2)"), t), L("((2,2),3,(2,2)):((1,2),2,(1,4))"));
  EXPECT_EQ(flat_product(L("(2,2):(1,2)"), t), L("(2,2,3,(2,2)):(1,2,2,(1,4))"));
}

TEST(Divide, ByModeRankMustFit) {
  EXPECT_RULE(logical_divide(L("8:1"), parse_tiler("(2,2)")), "by-mode-rank");
}

TEST(Filter, ByModeProfile) {
  // mode 0 (2,3):(0,1) filters to 3:1; mode 1 kept as is
  EXPECT_EQ(filter(L("((2,3),4):((0,1),3)"), parse_inttuple("(1,1)")), L("(3,4):(1,3)"));
}

TEST(Composition, ByModeTiler) {
  // A = (4,8):(8,1); tiler (2:2, 4:1): mode 0: 4:8 o 2:2 = 2:16; mode 1: 8:1 o 4:1 = 4:1
  EXPECT_EQ(composition(L("(4,8):(8,1)"), parse_tiler("(2:2,4:1)")), L("(2,4):(16,1)"));
}
