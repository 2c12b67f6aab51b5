// §3 Layout and §4 ComposedLayout.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

TEST(Layout, DefaultStrideIsPrefixProduct) {
  Layout l(parse_inttuple("(2,(3,4))"));
  EXPECT_EQ(l.stride(), parse_inttuple("(1,(2,6))"));
  EXPECT_TRUE(l.materialized());
}

TEST(Layout, UnmaterializedIsDistinctFromRankZero) {
  Layout none = Layout::unmaterialized(parse_inttuple("(2,4)"));
  Layout rank0{IntTuple(), IntTuple()};
  EXPECT_FALSE(none.materialized());
  EXPECT_TRUE(rank0.materialized());
  EXPECT_EQ(rank0.size(), 1);
  EXPECT_EQ(rank0(0), 0);
  EXPECT_RULE(none(0), "stride-unmaterialized");
  EXPECT_FALSE(none == Layout(parse_inttuple("(2,4)")));
}

TEST(Layout, EvalByIndexAndCoordinate) {
  Layout l = parse_layout("(2,(3,4)):(1,(2,6))");
  // compact: L(i) == i for every i.
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(l(i), i);
  EXPECT_EQ(l.apply(parse_coord("(1,(2,3))")), 1 + 4 + 18);
  Layout t = parse_layout("(16,16):(16,1)");  // row-major 16x16: i -> (i%16)*16 + i/16
  EXPECT_EQ(t(1), 16);
  EXPECT_EQ(t(17), 16 + 1);
  EXPECT_EQ(t(255), 255);
}

TEST(Layout, DomainChecked) {
  Layout l = parse_layout("(2,3):(1,2)");
  EXPECT_RULE(l(6), "coord-in-domain");
  EXPECT_RULE(l(-1), "coord-in-domain");
  EXPECT_RULE(l.apply(parse_coord("(2,0)")), "coord-in-domain");
  EXPECT_RULE(l.apply(parse_coord("(1,0,0)")), "coord-in-domain");
}

TEST(Layout, SizeCosizeRank) {
  Layout l = parse_layout("((4,8),(2,16)):((1,64),(4,512))");
  EXPECT_EQ(l.size(), 4 * 8 * 2 * 16);
  // cosize = 1 + 3*1 + 7*64 + 1*4 + 15*512
  EXPECT_EQ(l.cosize(), 1 + 3 + 448 + 4 + 7680);
  EXPECT_EQ(l.rank(), 2);
  EXPECT_EQ(l.depth(), 2);
  EXPECT_EQ(l.domain_rank(), 4);
  EXPECT_EQ(l.mode(1), parse_layout("(2,16):(4,512)"));
}

TEST(Layout, BadExtentsRefused) {
  EXPECT_RULE(parse_layout("(2,0):(1,2)"), "extent-positive");
  EXPECT_RULE(parse_layout("(2,-3):(1,2)"), "extent-positive");
  EXPECT_RULE(parse_layout("(2,3):(1,(2,1))"), "stride-congruent");
  EXPECT_RULE(parse_layout("(4294967296,4294967296):(1,4294967296)").size(), "int64-overflow");
}

TEST(Layout, SliceAndOffset) {
  Layout l = parse_layout("((2,3),4):((1,2),6)");
  SliceResult s = slice_and_offset(parse_coord("((1,_),_)"), l);
  EXPECT_EQ(s.offset, 1);  // fixed coordinate 1 on the stride-1 mode
  EXPECT_EQ(s.layout, parse_layout("(3,4):(2,6)"));
}

TEST(ComposedLayout, ApplyIsInnerOfOffsetPlusOuter) {
  auto inner = std::make_shared<Layout>(parse_layout("(4,8):(8,1)"));
  auto outer = std::make_shared<Layout>(parse_layout("(2,2):(1,4)"));
  ComposedLayout c(inner, 2, outer);
  // coord 3 -> outer (1,1) = 5 -> +2 = 7 -> inner: 7 = (3,1) -> 3*8 + 1 = 25
  EXPECT_EQ(c.apply(IntTuple(3)), 25);
  EXPECT_EQ(c.shape(), parse_inttuple("(2,2)"));
  EXPECT_EQ(c.domain_rank(), 2);
}

TEST(ComposedLayout, NoneIsIdentityAndShapeFallsBack) {
  auto inner = std::make_shared<Layout>(parse_layout("(4,8):(8,1)"));
  ComposedLayout only_inner(inner, 0, nullptr);
  EXPECT_EQ(only_inner.shape(), parse_inttuple("(4,8)"));  // from inner when no outer
  EXPECT_EQ(only_inner.apply(IntTuple(5)), (*inner)(5));
  ComposedLayout neither(nullptr, 7, nullptr);
  EXPECT_EQ(neither.shape(), IntTuple());  // §4: no explicit domain -> ()
  EXPECT_EQ(neither.apply(IntTuple(3)), 10);  // apply(None, v) == v
}
