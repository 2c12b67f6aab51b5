// Equivalence of plain (and same-swizzle) layouts without enumerating (issue 44 item 11;
// spec/ALGEBRA.md X2 "Equivalence"): decided on the coalesced forms, checked here against brute
// force, index by index, on small random pairs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

// The issue's pair: both send i < 4096 to i (mode 0, stride 1); index 4096 is (0, 1), 4096 in A
// and 4097 in B. 2^25 points: beyond the enumeration bound, so only the structure can decide it.
TEST(EquivalentPlain, DecidesTheIssuesLargePairAndNamesIndex4096) {
  const Equivalence e = equivalent(*parse_any_layout("(4096,8192):(1,4096)"), *parse_any_layout("(4096,8192):(1,4097)"));
  EXPECT_FALSE(e.equal);
  EXPECT_EQ(e.method, "coalesced");
  ASSERT_TRUE(e.index.has_value());
  EXPECT_EQ(*e.index, 4096);
  EXPECT_EQ(e.value_a, 4096);
  EXPECT_EQ(e.value_b, 4097);
  // (4096,8192):(1,4096) is 2^25:1 coalesced: the same function as ((64,64),8192):((1,64),4096).
  const Equivalence same = equivalent(*parse_any_layout("(4096,8192):(1,4096)"), *parse_any_layout("((64,64),8192):((1,64),4096)"));
  EXPECT_TRUE(same.equal);
  // 27,000,000 points, no power of two: (3000,9000):(1,3000) is 27000000:1, the other agrees
  // below 3000 and sends index 3000 = (0, 1) to 3001.
  const Equivalence e2 = equivalent(*parse_any_layout("(3000,9000):(1,3000)"), *parse_any_layout("(3000,9000):(1,3001)"));
  ASSERT_TRUE(e2.index.has_value());
  EXPECT_EQ(*e2.index, 3000);
  // Under one swizzle, the swizzle's bijection keeps the answer: Sw<3,4,3> o 0 o the pair above.
  const Equivalence sw = equivalent(*parse_any_layout("Sw<3,4,3> o 0 o (4096,8192):(1,4096)"), *parse_any_layout("Sw<3,4,3> o 0 o (4096,8192):(1,4097)"));
  ASSERT_TRUE(sw.index.has_value());
  EXPECT_EQ(*sw.index, 4096);
  EXPECT_EQ(sw.method, "coalesced");
}

// Brute force: the first index where two layouts of one size differ, by evaluating both.
std::optional<int64_t> brute_first_difference(const LayoutBase& a, const LayoutBase& b, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (a.apply(IntTuple(i)) != b.apply(IntTuple(i))) return i;
  return std::nullopt;
}

std::string random_layout(const std::vector<int64_t>& shape) {
  std::string s = "(", d = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? "," : "") + std::to_string(shape[i]);
    d += (i ? "," : "") + std::to_string(*rc::gen::inRange<int64_t>(-3, 13));
  }
  return s + "):" + d + ")";
}

// B reuses A's extents (shuffled and sometimes split, so the sizes match) with its own strides,
// or A's strides with one changed: both equal and unequal pairs occur.
RC_GTEST_PROP(EquivalentPlain, AgreesWithBruteForceOnSmallRandomPairs, ()) {
  const auto shape = *rc::gen::container<std::vector<int64_t>>(*rc::gen::inRange<size_t>(1, 4), rc::gen::inRange<int64_t>(1, 7));
  const std::string a = random_layout(shape);
  std::string b;
  if (*rc::gen::arbitrary<bool>()) {
    const auto la = parse_layout(a);
    std::string s = "(", d = "(";
    for (int i = 0; i < la.rank(); ++i) {
      const std::string st = to_string(la.mode(i).stride());
      s += (i ? "," : "") + to_string(la.mode(i).shape());
      d += (i ? "," : "") + (*rc::gen::inRange(0, 4) == 0 ? std::to_string(*rc::gen::inRange<int64_t>(-3, 13)) : st);
    }
    b = s + "):" + d + ")";
  } else {
    std::vector<int64_t> sb = shape;
    std::rotate(sb.begin(), sb.begin() + *rc::gen::inRange<size_t>(0, sb.size()), sb.end());
    b = random_layout(sb);
  }
  const std::string sw = *rc::gen::element(std::string(), std::string("Sw<2,1,2> o 0 o "), std::string("Sw<1,0,3> o 3 o "));
  const LayoutPtr la = parse_any_layout(sw + a), lb = parse_any_layout(sw + b);
  const Equivalence e = equivalent(*la, *lb);
  RC_ASSERT(e.method != std::string("enumeration"));  // "bases" where both happen to be F2-linear
  const int64_t n = e.size_a;
  const auto want = brute_first_difference(*la, *lb, n);
  RC_ASSERT(e.equal == !want.has_value());
  if (want) {
    RC_ASSERT(e.index == want);
    RC_ASSERT(e.value_a == la->apply(IntTuple(*want)));
    RC_ASSERT(e.value_b == lb->apply(IntTuple(*want)));
  }
}

}  // namespace
}  // namespace tfspec
