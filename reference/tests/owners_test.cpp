// Owners (spec/SHARD.md I1): each device's logical elements, hand-derived below from §7.2's
// placement (g[k] = m[a]·local[k] + c[k] on a Split dim) and D2's row-major regroup.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/owners.hpp"

namespace tfspec {
namespace {

using Elements = std::vector<int64_t>;

std::vector<DeviceHolding> owners_of(const std::string& sl, const std::string& shape) {
  return owners(parse_shard_layout(sl), parse_inttuple(shape));
}

// T (4,2) as G (2,2,2), x Splits dim 0, y Broadcast, device x*2+y (D12). x=0 holds rows 0-1, the
// row-major elements 0..3; x=1 rows 2-3, elements 4..7. Each on both y devices: replicas.
TEST(Owners, SplitRowsBroadcastColumns) {
  auto o = owners_of("shard((2,2,2):(0,2,1); S(0),B; x=2,y=2)", "(4,2)");
  ASSERT_EQ(o.size(), 4u);
  const Elements top{0, 1, 2, 3}, bottom{4, 5, 6, 7};
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(o[d].device, d);
    EXPECT_EQ(o[d].coord, (std::vector<int64_t>{d / 2, d % 2}));
    EXPECT_EQ(o[d].elements, d < 2 ? top : bottom);
    EXPECT_TRUE(o[d].replica);
    EXPECT_FALSE(o[d].partial);
  }
}

// T (2,4) as G (2,2,2), y Splits dim 1 (the column halves): y=0 holds columns 0-1, i.e. row 0's
// elements 0,1 and row 1's 4,5; y=1 holds 2,3,6,7.
TEST(Owners, SplitColumns) {
  auto o = owners_of("shard((2,2,2):(2,0,1); B,S(1); x=2,y=2)", "(2,4)");
  EXPECT_EQ(o[0].elements, (Elements{0, 1, 4, 5}));
  EXPECT_EQ(o[1].elements, (Elements{2, 3, 6, 7}));
  EXPECT_EQ(o[2].elements, (Elements{0, 1, 4, 5}));
  EXPECT_EQ(o[3].elements, (Elements{2, 3, 6, 7}));
}

// A permuted mesh layout (2,2):(1,2): coordinate (x,y) is device x + 2y. x Splits (4,) in halves:
// (0,0)->0 and (0,1)->2 hold 0,1; (1,0)->1 and (1,1)->3 hold 2,3. Listed by device.
TEST(Owners, DeviceIsTheMeshLayoutsValue) {
  auto o = owners_of("shard((2,2):(0,1); S(0),B; x=2,y=2|layout=(2,2):(1,2))", "(4)");
  ASSERT_EQ(o.size(), 4u);
  EXPECT_EQ(o[0].coord, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(o[1].coord, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(o[2].coord, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(o[1].elements, (Elements{2, 3}));
  EXPECT_EQ(o[2].elements, (Elements{0, 1}));
}

// Partial(sum) on x=2 over (2,): both devices hold contributions to elements 0 and 1; no
// Broadcast axis, so no replica.
TEST(Owners, PartialHoldsContributions) {
  auto o = owners_of("shard((2):(1); P(); x=2)", "(2)");
  ASSERT_EQ(o.size(), 2u);
  for (const auto& h : o) {
    EXPECT_EQ(h.elements, (Elements{0, 1}));
    EXPECT_TRUE(h.partial);
    EXPECT_FALSE(h.replica);
  }
}

// A Broadcast axis of extent 1 makes no replica.
TEST(Owners, ExtentOneBroadcastIsNoReplica) {
  auto o = owners_of("shard((2,3):(0,1); S(0),B; x=2,y=1)", "(6)");
  EXPECT_EQ(o[1].elements, (Elements{3, 4, 5}));
  EXPECT_FALSE(o[1].replica);
}

TEST(Owners, Refusals) {
  EXPECT_RULE(owners_of("shard((2,2):(2,1); D; x=2)", "(4)"), "dynamic-unresolved");  // §6: not resolved yet
  EXPECT_RULE(owners_of("shard((2,2):(0,1); S(0); x=2)", "(5)"), "shard-size-match");  // §7.1.1: 4 != 5
  EXPECT_RULE(owners_of("shard((2,2):(0,1); S(0); x=2)", "(1,3)"), "shard-size-match");
  EXPECT_RULE(owners_of("shard((2,3):(0,1); S(0); x=2)", "(3,2)"), "shard-regroup");  // D2: 2 does not start 3
}

}  // namespace
}  // namespace tfspec
