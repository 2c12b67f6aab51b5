// Substituting symbol values into a layout of any kind (§1 ShapeDim under bindings).
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

// (M,8):(1,M) at M = 16 is (16,8):(1,16): L(1 + 16*1) = 1 + 16 = 17.
TEST(Bind, SubstitutesShapeAndStride) {
  const LayoutPtr l = bind_symbols(*parse_any_layout("(M,8):(1,M)"), {{"M", 16}});
  EXPECT_EQ(to_string(*l), "(16,8):(1,16)");
  EXPECT_EQ(l->apply(IntTuple(17)), 17);
  // An expression evaluates: (M//2, 2):(2, 1) at M = 8 is (4,2):(2,1).
  EXPECT_EQ(to_string(*bind_symbols(*parse_any_layout("(M//2,2):(2,1)"), {{"M", 8}})), "(4,2):(2,1)");
}

TEST(Bind, ReachesBothPartsOfAComposedLayoutAndNamesTheSymbols) {
  const LayoutPtr c = parse_any_layout("(K,2):(2,1) o 1 o M:2");
  EXPECT_EQ(layout_symbols(*c), (std::set<std::string>{"K", "M"}));
  EXPECT_EQ(to_string(*bind_symbols(*c, {{"K", 4}, {"M", 3}})), "(4,2):(2,1) o 1 o 3:2");
  EXPECT_TRUE(layout_symbols(*parse_any_layout("(2,3):(3,1)")).empty());
}

TEST(Bind, UnboundSymbolAndInvalidValueFailClosed) {
  const LayoutPtr l = parse_any_layout("(M,N):(1,M)");
  EXPECT_RULE(bind_symbols(*l, {{"M", 4}}), "unbound-dim");  // N has no value
  try {
    bind_symbols(*l, {{"M", 4}});
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("'N'"), std::string::npos) << e.what();
  }
  EXPECT_RULE(bind_symbols(*l, {{"M", 0}, {"N", 2}}), "extent-positive");  // §3: an extent is >= 1
}
