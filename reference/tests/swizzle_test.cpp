// X1 swizzles (spec/ALGEBRA.md, Extensions): CuTe's Swizzle<B,M,S> and the composed-layout algebra.
// Expected values are derived by hand from the bit definition (the bits are written out).
#include <gtest/gtest.h>

#include <vector>

#include "test_support.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {
namespace {

const ComposedLayout& composed(const LayoutPtr& p) { return static_cast<const ComposedLayout&>(*p); }

TEST(Swizzle, PositiveShiftXorsTheHighBitsIntoTheLowOnes) {
  const Swizzle sw(3, 4, 3);  // YYY = bits 7..9, ZZZ = bits 4..6
  EXPECT_EQ(sw.yyy_mask(), 0b1110000000);
  EXPECT_EQ(sw.zzz_mask(), 0b0001110000);
  // 640 = 0b10'1000'0000: YYY = 101 -> ZZZ ^= 101 -> + 0b101'0000 (80) = 720
  EXPECT_EQ(sw(640), 720);
  // 72 = 0b00'0100'1000: YYY = 000 -> unchanged
  EXPECT_EQ(sw(72), 72);
  // 0b1111111111 (1023): YYY = 111 flips ZZZ 111 -> 000: 1023 - 112 = 911
  EXPECT_EQ(sw(1023), 911);
}

TEST(Swizzle, NegativeShiftXorsTheLowBitsIntoTheHighOnes) {
  const Swizzle sw(2, 0, -3);  // YYY = bits 0..1 (M + max(0,S)), ZZZ = bits 3..4 (M - min(0,S))
  EXPECT_EQ(sw.yyy_mask(), 0b00011);
  EXPECT_EQ(sw.zzz_mask(), 0b11000);
  EXPECT_EQ(sw(3), 27);    // 0b00011: YYY = 11 -> ZZZ = 11: 0b11011
  EXPECT_EQ(sw(26), 10);   // 0b11010: YYY = 10 -> ZZZ (bits 4,3) ^= 10: bit 4 clears: 0b01010
  EXPECT_EQ(sw(-4), -4);   // ...11100: YYY = 00 -> unchanged
}

TEST(Swizzle, HighestLegalBitsAndTheIdentity) {
  const Swizzle top(1, 61, 1);  // Y = bit 62, Z = bit 61
  EXPECT_EQ(top(INT64_MAX), INT64_MAX ^ (int64_t{1} << 61));
  EXPECT_EQ(top(-1), -1 ^ (int64_t{1} << 61));  // the sign bit is never read nor changed
  const Swizzle id(0, 5, 0);                   // B = 0: no bits
  EXPECT_EQ(id(12345), 12345);
}

TEST(Swizzle, IllegalParametersNameTheRule) {
  EXPECT_RULE(Swizzle(3, 4, 2), "swizzle-params");   // |S| < B
  EXPECT_RULE(Swizzle(3, 4, -2), "swizzle-params");  // |S| < B, negative
  EXPECT_RULE(Swizzle(-1, 4, 3), "swizzle-params");
  EXPECT_RULE(Swizzle(1, -1, 1), "swizzle-params");
  EXPECT_RULE(Swizzle(3, 58, 3), "swizzle-params");  // 58 + 3 + 3 = 64 > 63
  EXPECT_RULE(Swizzle(1, 0, INT64_MIN), "swizzle-params");
  EXPECT_RULE(parse_any_layout("Sw<2,1,1> o 0 o 8:1"), "swizzle-params");
}

// For every legal Sw<B,M,S> whose bits lie below 2^16: applying it twice is the identity on each
// of the 2^16 offsets, and it permutes [0, 2^16) (each image inside the range, none repeated).
TEST(Swizzle, IsAnInvolutionAndAPermutationOfEveryAlignedRange) {
  constexpr int64_t kN = int64_t{1} << 16;
  int checked = 0;
  std::vector<uint32_t> seen(kN, 0);
  for (int b = 0; b <= 16; ++b)
    for (int s = -16; s <= 16; ++s)
      for (int m = 0; m <= 16; ++m) {
        if ((s < 0 ? -s : s) < b || m + (s < 0 ? -s : s) + b > 16) continue;
        const Swizzle sw(b, m, s);
        ++checked;
        bool involution = true, permutation = true;
        for (int64_t x = 0; x < kN; ++x) {
          const int64_t y = sw(x);
          involution = involution && sw(y) == x;
          permutation = permutation && y >= 0 && y < kN && seen[static_cast<size_t>(y)] != static_cast<uint32_t>(checked);
          if (y >= 0 && y < kN) seen[static_cast<size_t>(y)] = static_cast<uint32_t>(checked);
        }
        EXPECT_TRUE(involution) << to_string(sw);
        EXPECT_TRUE(permutation) << to_string(sw);
      }
  EXPECT_GT(checked, 500);
}

TEST(SwizzleNotation, ParsesPrintsAndRoundTrips) {
  const LayoutPtr l = parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)");
  EXPECT_EQ(to_string(*l), "Sw<3,4,3> o 0 o (8,64):(64,1)");
  EXPECT_EQ(to_string(*parse_any_layout("Sw<3,4,3> o _0 o (8,64):(64,1)")), "Sw<3,4,3> o 0 o (8,64):(64,1)");  // CuTe's print
  EXPECT_EQ(to_string(*parse_any_layout("Sw< 2 , 0 , -3 >")), "Sw<2,0,-3>");
  const Json j = to_json(*l);
  EXPECT_EQ(j["inner"], (Json{{"kind", "swizzle"}, {"bits", 3}, {"base", 4}, {"shift", 3}}));
  EXPECT_EQ(to_string(*any_layout_from_json(j)), to_string(*l));
  EXPECT_EQ(to_string(*any_layout_from_json(Json{{"kind", "swizzle"}, {"bits", 2}, {"base", 0}, {"shift", -3}})), "Sw<2,0,-3>");
  EXPECT_RULE(any_layout_from_json(Json{{"kind", "swizzle"}, {"bits", "3"}, {"base", 0}, {"shift", 3}}), "json-type");
}

TEST(SwizzleNotation, ASwizzleIsNeverTheOuterPart) {
  EXPECT_RULE(parse_any_layout("(8,64):(64,1) o 0 o Sw<3,4,3>"), "swizzle-position");
  EXPECT_RULE(any_layout_from_json(Json{{"kind", "composed"}, {"inner", nullptr}, {"offset", 0}, {"outer", "Sw<3,4,3>"}}), "swizzle-position");
  EXPECT_RULE(parse_layout("Sw<3,4,3>"), "parse-error");  // not a plain Layout
}

TEST(SwizzledLayout, EvaluatesSizeShapeAndRankFromTheOuter) {
  const LayoutPtr l = parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)");
  // (2,16): 2*64 + 16 = 144 = 0b1001_0000: YYY (bits 7..9) = 001 -> bit 4 flips: 128
  EXPECT_EQ(l->apply(parse_coord("(2,16)")), 128);
  // (3,0): 192 = 0b1100_0000: YYY = 001 -> bit 4 set: 208
  EXPECT_EQ(l->apply(parse_coord("(3,0)")), 208);
  // index 3 + 8*2 = 19 is (3,2): 194 -> 210
  EXPECT_EQ(l->apply(IntTuple(19)), 210);
  EXPECT_EQ(to_string(l->shape()), "(8,64)");
  EXPECT_EQ(l->domain_rank(), 2);
  // An offset goes in before the swizzle: Sw(16 + 128) = 128
  EXPECT_EQ(parse_any_layout("Sw<3,4,3> o 16 o (8,64):(64,1)")->apply(parse_coord("(2,0)")), 128);
  EXPECT_RULE(parse_any_layout("Sw<3,4,3>")->apply(parse_coord("(1,2)")), "identity-needs-index");
}

TEST(SwizzledLayout, CheckIsTheOutersInjectivityExactly) {
  const InjectivityResult ok = is_injective(*parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)"));
  EXPECT_TRUE(ok.injective);
  EXPECT_EQ(ok.method.rfind("swizzle-inner+", 0), 0u) << ok.method;
  // outer (8,64):(1,8), column-major: rows reach 0..7, columns step 8: injective
  EXPECT_TRUE(is_injective(*parse_any_layout("Sw<3,4,3> o 0 o (8,64):(1,8)")).injective);
  const LayoutPtr zero = parse_any_layout("Sw<3,4,3> o 0 o (8,64):(0,1)");  // (0,0) and (1,0) both 0
  const CheckReport r = check_layout(*zero, "layout");
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].rule, "layout-injective");
  EXPECT_TRUE(check_layout(*parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)"), "layout").ok());
}

// CuTe: composition(ComposedLayout<Sw,o,L>, B) = ComposedLayout<Sw, o, L o B>, i.e. i -> Sw(o + L(B(i))).
TEST(SwizzledAlgebra, CompositionWithALayoutOnTheRight) {
  const LayoutPtr a = parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)");
  const Layout b = parse_layout("(8,8):(1,8)");  // the first 8 columns of each row
  const ComposedLayout r = composition(composed(a), Tiler(b));
  EXPECT_EQ(to_string(r), "Sw<3,4,3> o 0 o (8,8):(64,1)");
  // Hand: (3,2) -> outer 3*64 + 2 = 194 = 0b1100_0010, YYY = 001 -> 210.
  EXPECT_EQ(r.apply(parse_coord("(3,2)")), 210);
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(r.apply(IntTuple(i)), a->apply(IntTuple(b(i)))) << i;
  // The plain rule refuses where L o B is not a layout: 16 points of B past L's 512 under strict.
  EXPECT_RULE(composition(composed(a), Tiler(parse_layout("1024:1"))), "composition-image-in-domain");
  EXPECT_RULE(composition(composed(parse_any_layout("Sw<3,4,3> o 0 o None")), Tiler(parse_layout("8:1"))), "composed-algebra-outer");
}

TEST(SwizzledAlgebra, DividesKeepTheSwizzleAndDivideTheOuter) {
  const LayoutPtr a = parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)");
  const Tiler t = parse_tiler("(8,8)");
  const ComposedLayout ld = logical_divide(composed(a), t);
  EXPECT_EQ(to_string(ld), "Sw<3,4,3> o 0 o " + to_string(logical_divide(parse_layout("(8,64):(64,1)"), t)));
  const ComposedLayout zd = zipped_divide(composed(a), t);
  // ((8,8),(1,8)):((64,1),(0,8)): tile 2's column block starts at column 16: (0,(0,2)) -> Sw(16) = 16,
  // and (1,(0,2)) -> Sw(64 + 16) = 80 (YYY = 000); (2,(0,2)) -> Sw(144) = 128.
  EXPECT_EQ(zd.apply(parse_coord("((2,0),(0,2))")), 128);
  EXPECT_EQ(zd.apply(parse_coord("((1,0),(0,2))")), 80);
  // A tile that does not divide: the composed op refuses exactly as the plain one on the outer.
  const std::string plain = testing::error_id([] { (void)zipped_divide(parse_layout("(8,64):(64,1)"), parse_tiler("(3,8)")); });
  EXPECT_NE(plain, "(no error)");
  EXPECT_RULE(zipped_divide(composed(a), parse_tiler("(3,8)")), plain);
}

TEST(SwizzledAlgebra, SliceMovesTheFixedOffsetInsideTheComposition) {
  const LayoutPtr a = parse_any_layout("Sw<3,4,3> o 0 o (8,64):(64,1)");
  const ComposedLayout row2 = slice(parse_coord("(2,_)"), composed(a));
  EXPECT_EQ(to_string(row2), "Sw<3,4,3> o 128 o 64:1");
  // Column 16 of row 2: Sw(128 + 16) = 128 (as above).
  EXPECT_EQ(row2.apply(IntTuple(16)), 128);
  for (int64_t c = 0; c < 64; ++c) EXPECT_EQ(row2.apply(IntTuple(c)), a->apply(parse_coord("(2," + std::to_string(c) + ")")));
}

}  // namespace
}  // namespace tfspec
