// Shard pictures (issue 14): owners of each logical element derived by hand from §6 / §7.1.2 /
// §7.2 and D3 / D12 (row-major mesh: device = x * |y| + y; rmem: one engine per device), stacked
// Broadcast replicas, Partial marked, the legend, and what a reshard moves (§7.4).
#include <gtest/gtest.h>
#include <unistd.h>

#include "golden.hpp"
#include "svg_xml.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"

#include "../../reference/tests/test_support.hpp"

using namespace tfspec;
using namespace tfspec::draw;
using namespace tfspec::draw::testing;
using Labels = std::map<std::pair<int, int>, std::string>;

namespace {
ShardLayout shard(const std::string& text) { return read_shard_layout(Json(text)); }

using tfspec::testing::error_id;  // the rule id a statement fails with, or "(no error)"

// shard((2,3):(0,1); S(0),B; x=2,y=2) over the logical (6): element e sits at G coordinate
// (e / 3, e % 3); mesh axis x Splits dim 0, y is Broadcast, so its owners are (e / 3, 0) and
// (e / 3, 1), devices 2(e / 3) and 2(e / 3) + 1, each at local (0, e % 3), offset 0*0 + 1*(e % 3).
Labels split_broadcast_owners(bool one_row) {
  Labels want;
  for (int e = 0; e < 6; ++e) {
    const int x = e / 3, off = e % 3;
    const std::string label = "#" + std::to_string(2 * x) + "@" + std::to_string(off) + " #" + std::to_string(2 * x + 1) + "@" + std::to_string(off);
    want[one_row ? std::pair{0, e} : std::pair{x, off}] = label;
  }
  return want;
}
}  // namespace

TEST(ShardDraw, SplitAndStackedBroadcastOwners) {
  const std::string svg = shard_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {6}, Storage::Rmem);
  EXPECT_EQ(labels(svg, "owners"), split_broadcast_owners(true));
  // two stripes per cell (the replicas), coloured by device
  EXPECT_EQ(select(svg, "//s:g[@class='cell'][@data-col='4']/s:rect[@class='stripe']").size(), 2u);
  auto legend = select(svg, "//s:g[@class='legend-entry']");
  ASSERT_EQ(legend.size(), 4u);
  EXPECT_EQ(legend[0]["data-text"], "#0 (x=0,y=0) -> rmem engine 0");
  EXPECT_EQ(legend[3]["data-text"], "#3 (x=1,y=1) -> rmem engine 3");
  EXPECT_TRUE(select(svg, "//s:g[@class='cell'][@data-partial]").empty());
}

// gmem (D3: one engine) with strides (3,1): the offset is 3x + c = e; replicas alias (allowed for
// Broadcast, D3).
TEST(ShardDraw, GmemOffsetsAreGlobal) {
  const std::string svg = shard_svg(shard("shard((2,3):(3,1); S(0),B; x=2,y=2)"), {6}, Storage::Gmem);
  Labels want;
  for (int e = 0; e < 6; ++e)
    want[{0, e}] = "#" + std::to_string(2 * (e / 3)) + "@" + std::to_string(e) + " #" + std::to_string(2 * (e / 3) + 1) + "@" + std::to_string(e);
  EXPECT_EQ(labels(svg, "owners"), want);
  EXPECT_EQ(select(svg, "//s:g[@class='legend-entry']")[3]["data-text"], "#3 (x=1,y=1) -> gmem engine 0");
}

// Sugar (2 @ m.x, 3) canonicalizes to shard((2,3):None; S(0),B; ...); rmem materializes the
// per-instance strides (0 on the Split dim, C order over local (1,3): (0,1)), so the owners are
// those above, drawn as the 2 x 3 logical tensor.
TEST(ShardDraw, SugarIsMaterializedAsAReshardWould) {
  const std::string svg = shard_svg(shard("(2 @ m.x, 3) on x=2,y=2"), {2, 3}, Storage::Rmem);
  EXPECT_EQ(labels(svg, "owners"), split_broadcast_owners(false));
}

TEST(ShardDraw, PartialOwnersAreMarked) {
  const std::string svg = shard_svg(shard("shard((2,3):(0,1); S(0),P(); x=2,y=2)"), {6}, Storage::Rmem);
  EXPECT_EQ(labels(svg, "owners"), split_broadcast_owners(true));
  auto partial = select(svg, "//s:g[@class='cell'][@data-partial]");
  ASSERT_EQ(partial.size(), 6u);
  EXPECT_EQ(partial[0]["data-partial"], "sum over y");
}

// S(0),B -> B,S(0) on x=2,y=2: after, element e is held by (x, e / 3) = devices e / 3 and
// 2 + e / 3. Before, by devices 2(e / 3) and 2(e / 3) + 1. So e < 3: #0 keeps it, #2 gets it
// from #0; e >= 3: #1 gets it from #2 (the lowest source), #3 keeps it.
TEST(ReshardDraw, ShowsWhatMoves) {
  const std::string svg = reshard_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), shard("shard((2,3):(0,1); B,S(0); x=2,y=2)"), {6},
                                      Storage::Rmem, Storage::Rmem);
  Labels before = split_broadcast_owners(true), after, moves;
  for (int e = 0; e < 6; ++e) {
    const int y = e / 3, off = e % 3;
    after[{0, e}] = "#" + std::to_string(y) + "@" + std::to_string(off) + " #" + std::to_string(2 + y) + "@" + std::to_string(off);
    moves[{0, e}] = y == 0 ? "#0 kept #2<-#0" : "#1<-#2 #3 kept";
  }
  auto grids = select(svg, "//s:g[@class='grid']");
  ASSERT_EQ(grids.size(), 3u);
  // the first two grids are both of kind owners: read them by position
  std::vector<Labels> owner_grids(2);
  auto cells = select(svg, "//s:g[@class='grid'][1]/s:g[@class='cell']");
  for (const auto& c : cells) owner_grids[0][{std::stoi(c.at("data-row")), std::stoi(c.at("data-col"))}] = c.at("data-label");
  cells = select(svg, "//s:g[@class='grid'][2]/s:g[@class='cell']");
  for (const auto& c : cells) owner_grids[1][{std::stoi(c.at("data-row")), std::stoi(c.at("data-col"))}] = c.at("data-label");
  EXPECT_EQ(owner_grids[0], before);
  EXPECT_EQ(owner_grids[1], after);
  EXPECT_EQ(labels(svg, "moves"), moves);
  bool counted = false;
  for (const auto& n : select(svg, "//s:text[@class='note']")) counted |= n.at("#text").starts_with("6 destination copies move between devices, 6 stay");
  EXPECT_TRUE(counted);
}

// A Partial source: every destination owner reduces the contributions (§6).
TEST(ReshardDraw, PartialSourceIsAReduction) {
  const std::string svg = reshard_svg(shard("shard((2,3):(0,1); S(0),P(); x=2,y=2)"), shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {6},
                                      Storage::Rmem, Storage::Rmem);
  auto moves = labels(svg, "moves");
  EXPECT_EQ(moves.at({0, 0}), "#0<-sum #1<-sum");
  EXPECT_EQ(moves.at({0, 5}), "#2<-sum #3<-sum");
}

TEST(ShardDraw, BadInputNamesTheReferencesRule) {
  // size(G) = 6 but the logical tensor has 7 elements (§7.1.1)
  EXPECT_EQ(error_id([] { shard_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {7}, Storage::Rmem); }), "shard-size-match");
  EXPECT_EQ(error_id([] { shard_svg(shard("shard((4097):(1); B; x=1)"), {4097}, Storage::Rmem); }), "draw-too-large");
}

TEST(ShardDraw, SameInputSameBytes) {
  const auto sl = shard("shard((2,3):(0,1); S(0),P(); x=2,y=2)");
  EXPECT_EQ(shard_svg(sl, {6}, Storage::Rmem), shard_svg(sl, {6}, Storage::Rmem));
  const auto dst = shard("shard((2,3):(0,1); B,S(0); x=2,y=2)");
  EXPECT_EQ(reshard_svg(sl, dst, {6}, Storage::Rmem, Storage::Rmem), reshard_svg(sl, dst, {6}, Storage::Rmem, Storage::Rmem));
}

TEST(ShardDraw, GoldenPictures) {
  const std::string s = shard_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {6}, Storage::Rmem);
  EXPECT_EQ(s, golden("shard", s));
  EXPECT_EQ(labels(golden("shard", s), "owners"), split_broadcast_owners(true));
  const std::string r = reshard_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), shard("shard((2,3):(0,1); B,S(0); x=2,y=2)"), {6},
                                    Storage::Rmem, Storage::Rmem);
  EXPECT_EQ(r, golden("reshard", r));
}

TEST(ShardDraw, RendersWithRsvg) {
  TFSPEC_EXPECT_RENDERS("shard", shard_svg(shard("shard((2,3):(0,1); S(0),P(); x=2,y=2)"), {6}, Storage::Rmem));
  TFSPEC_EXPECT_RENDERS("reshard", reshard_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), shard("shard((2,3):(0,1); B,S(0); x=2,y=2)"),
                                               {6}, Storage::Rmem, Storage::Rmem));
}
