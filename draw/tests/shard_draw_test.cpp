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
#include "tfspec/reference/reshard.hpp"

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
  EXPECT_EQ(error_id([] { shard_svg(shard("shard((16385):(1); B; x=1)"), {16385}, Storage::Rmem); }), "draw-too-large");
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

// ---- the shard check picture (§2, D3) ----
namespace {
ShardCheckOptions check_opts(std::optional<Storage> storage, std::vector<IntTuple> shape = {}) {
  ShardCheckOptions o;
  o.storage = storage;
  if (!shape.empty()) o.tensor_shape = IntTuple::tuple(shape);
  return o;
}
std::vector<std::string> notes(const std::string& svg) {
  std::vector<std::string> out;
  for (const auto& n : select(svg, "//s:text[@class='note']")) out.push_back(n.at("#text"));
  return out;
}
bool any_note_starts(const std::string& svg, const std::string& prefix) {
  for (const auto& n : notes(svg))
    if (n.starts_with(prefix)) return true;
  return false;
}
std::string cell_title(const std::string& svg, int row, int col) {
  auto c = select(svg, "//s:g[@class='cell'][@data-row='" + std::to_string(row) + "'][@data-col='" + std::to_string(col) + "']/s:title");
  return c.empty() ? "" : c[0].at("#text");
}
}  // namespace

// shard((2,2,2):(0,1,1); S(0),B; x=2,y=2) on rmem, logical (2,4): x Splits flat dim 0, so device
// 2x+y holds row x at local (0, a, b) and offset 0*0 + 1*a + 1*b = a + b (§7.1.2). Column
// c = 2a + b: offsets 0, 1, 1, 2, so columns 1 and 2 of each row share offset 1 on both of the
// row's devices (D3: distinct layout coordinates, one (engine, offset)); columns 0 and 3 do not.
TEST(ShardCheckDraw, MarksEveryElementThatSharesAnEngineOffset) {
  const std::string svg = shard_check_svg(shard("shard((2,2,2):(0,1,1); S(0),B; x=2,y=2)"), check_opts(Storage::Rmem, {2, 4}));
  using RC = std::pair<int, int>;
  EXPECT_EQ(marked(svg, "owners"), (std::vector<RC>{{0, 1}, {0, 2}, {1, 1}, {1, 2}})) << svg;
  EXPECT_NE(cell_title(svg, 0, 1).find("shares engine 0 offset 1 with element (0,2) (shard-injective"), std::string::npos) << cell_title(svg, 0, 1);
  EXPECT_NE(cell_title(svg, 1, 2).find("shares engine 3 offset 1 with element (1,1)"), std::string::npos) << cell_title(svg, 1, 2);
  EXPECT_TRUE(any_note_starts(svg, "violation: [shard-injective §2]"));
  EXPECT_TRUE(any_note_starts(svg, "4 marked element(s)"));
  EXPECT_EQ(labels(svg, "owners").at({1, 3}), "#2@2 #3@2");  // a + b = 2 on devices 2 and 3
  EXPECT_EQ(select(svg, "//s:text[@class='title']")[0].at("#text"), "check shard((2,2,2):(0,1,1); S(0),B; device(4)|x=2,y=2): 1 violation(s)");
}

// gmem (D3: one engine) with strides (3,1): element e = (x, c) sits at offset 3x + c = e on every
// owner. Broadcast replicas may share it; Partial contributions may not (they would overwrite each
// other), so under P() every element is marked, under B none.
TEST(ShardCheckDraw, PartialContributionsSharingAnOffsetAreMarkedReplicasAreNot) {
  const std::string partial = shard_check_svg(shard("shard((2,3):(3,1); S(0),P(); x=2,y=2)"), check_opts(Storage::Gmem, {6}));
  EXPECT_EQ(marked(partial, "owners").size(), 6u);
  EXPECT_NE(cell_title(partial, 0, 4).find("Partial contributions of #2 and #3 share engine 0 offset 4 (partial-aliased §6)"), std::string::npos)
      << cell_title(partial, 0, 4);
  EXPECT_TRUE(any_note_starts(partial, "violation: [partial-aliased §6]")) << partial;
  const std::string broadcast = shard_check_svg(shard("shard((2,3):(3,1); S(0),B; x=2,y=2)"), check_opts(Storage::Gmem, {6}));
  EXPECT_TRUE(marked(broadcast, "owners").empty());
  EXPECT_EQ(select(broadcast, "//s:text[@class='title']")[0].at("#text"), "check shard((2,3):(3,1); S(0),B; device(4)|x=2,y=2): ok");
}

// Without a storage the check assumes per-instance engines (rmem) and says so; without a shape
// the layout's flat shape (2,3) is drawn as 2 rows.
TEST(ShardCheckDraw, DefaultsAreTheChecksAndAreStated) {
  const std::string svg = shard_check_svg(shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), check_opts(std::nullopt));
  Labels want;
  for (const auto& [k, v] : split_broadcast_owners(true)) want[{k.second / 3, k.second % 3}] = v;
  EXPECT_EQ(labels(svg, "owners"), want);
  EXPECT_NE(select(svg, "//s:g[@class='grid']/s:text[@class='caption']")[0].at("#text").find("storage not given"), std::string::npos);
}

// An input error the check reports (a Split on mesh axis 5 of a rank-2 mesh) is listed; owners
// cannot be placed, so no grid is drawn and the note says why. Still well-formed SVG.
TEST(ShardCheckDraw, InvalidLayoutIsListedNotDrawn) {
  const std::string svg = shard_check_svg(shard("shard((2,3):(0,1); S(0),S(5); x=2,y=2)"), check_opts(Storage::Rmem));
  EXPECT_TRUE(select(svg, "//s:g[@class='grid']").empty());
  EXPECT_TRUE(any_note_starts(svg, "violation: [split-axis-range"));
  EXPECT_TRUE(any_note_starts(svg, "not drawn: owners are placed only when"));
  // fuzz_shard_text finding 9 (fuzz/RESULTS.md): one attr for a rank-2 mesh used to be walked
  // past the end of the attrs (ASan: heap-use-after-free); it is listed, not drawn.
  const std::string short_attrs = shard_check_svg(shard("shard((2,4,3):(0,0,1); S(0); x=2,y=4)"), check_opts(std::nullopt));
  EXPECT_TRUE(select(short_attrs, "//s:g[@class='grid']").empty());
  EXPECT_TRUE(any_note_starts(short_attrs, "violation: [shard-attrs-rank"));
  // a picture past kMaxCells is the caller's error, as for every picture
  EXPECT_EQ(error_id([] { shard_check_svg(shard("shard((16385):(1); B; x=1)"), check_opts(Storage::Rmem)); }), "draw-too-large");
}

// ---- engines read back (§6, §7) ----
namespace {
// shard((2,3):(0,1); S(0),B; x=2,y=2) on rmem, data 0..5 (logical (2,3)): device 2x+y holds row x,
// value 3x + c at offset c (§7.1.2), so engines 0, 1 hold 0 1 2 and engines 2, 3 hold 3 4 5.
Engines row_engines() { return Engines{Storage::Rmem, {{0, {0, 1, 2}}, {1, {0, 1, 2}}, {2, {3, 4, 5}}, {3, {3, 4, 5}}}}; }
}  // namespace

TEST(AssembleDraw, AgreeingReplicasAreDrawnWithTheirValues) {
  const std::string svg = assemble_svg(row_engines(), shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {2, 3});
  Labels want;
  for (int x = 0; x < 2; ++x)
    for (int c = 0; c < 3; ++c) {
      const std::string v = std::to_string(3 * x + c);
      want[{x, c}] = "#" + std::to_string(2 * x) + "=" + v + " #" + std::to_string(2 * x + 1) + "=" + v;
    }
  EXPECT_EQ(labels(svg, "values"), want);
  EXPECT_TRUE(marked(svg, "values").empty());
  EXPECT_TRUE(any_note_starts(svg, "assembled: the replicas agree"));
  EXPECT_NE(cell_title(svg, 1, 2).find("value 5"), std::string::npos) << cell_title(svg, 1, 2);
}

// Engine 3 (device 3 = (x=1,y=1)) holds 99 where its replica on device 2 holds 4: element (1,1)
// is marked and assemble refuses with replica-mismatch; nothing else is marked.
TEST(AssembleDraw, MarksTheElementWhoseReplicasDisagree) {
  Engines e = row_engines();
  e.buffers[3][1] = 99;
  const std::string svg = assemble_svg(e, shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {2, 3});
  EXPECT_EQ(marked(svg, "values"), (std::vector<std::pair<int, int>>{{1, 1}}));
  EXPECT_EQ(labels(svg, "values").at({1, 1}), "#2=4 #3=99");
  EXPECT_EQ(select(svg, "//s:g[@class='cell'][@data-mark]")[0].at("data-mark"), "replica-mismatch");
  EXPECT_TRUE(any_note_starts(svg, "assemble refuses: [replica-mismatch §6]"));
  EXPECT_TRUE(any_note_starts(svg, "1 marked element(s) whose Broadcast replicas"));
  EXPECT_EQ(error_id([&] { assemble(e, shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {2, 3}); }), "replica-mismatch");  // the oracle agrees
}

// Engine 3 one value short: device 3's owner of element (1,2) (offset 2) is missing, marked.
TEST(AssembleDraw, MarksOwnersMissingFromTheEngines) {
  Engines e = row_engines();
  e.buffers[3].pop_back();
  const std::string svg = assemble_svg(e, shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {2, 3});
  EXPECT_EQ(marked(svg, "values"), (std::vector<std::pair<int, int>>{{1, 2}}));
  EXPECT_EQ(labels(svg, "values").at({1, 2}), "#2=5 #3=?");
  EXPECT_TRUE(any_note_starts(svg, "assemble refuses: [engine-buffer-size"));
}

// Partial(sum) over y: the contributions of devices 2x and 2x+1 may differ (they are summed, §6):
// a + b, not a mismatch.
TEST(AssembleDraw, PartialContributionsAreNotReplicas) {
  Engines e{Storage::Rmem, {{0, {1, 1, 1}}, {1, {2, 3, 4}}, {2, {0, 0, 0}}, {3, {5, 6, 7}}}};
  const std::string svg = assemble_svg(e, shard("shard((2,3):(0,1); S(0),P(); x=2,y=2)"), {2, 3});
  EXPECT_TRUE(marked(svg, "values").empty());
  EXPECT_EQ(labels(svg, "values").at({0, 2}), "#0=1 #1=4");
  EXPECT_NE(cell_title(svg, 0, 2).find("value 5 (sum over y)"), std::string::npos) << cell_title(svg, 0, 2);
  EXPECT_NE(cell_title(svg, 1, 0).find("value 5 (sum over y)"), std::string::npos) << cell_title(svg, 1, 0);
}

TEST(AssembleDraw, OtherErrorsAreTheCallersWithTheReferencesRule) {
  EXPECT_EQ(error_id([] { assemble_svg(row_engines(), shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {7}); }), "shard-size-match");
}

TEST(ShardCheckDraw, GoldenPicturesAndRenderer) {
  const std::string c = shard_check_svg(shard("shard((2,2,2):(0,1,1); S(0),B; x=2,y=2)"), check_opts(Storage::Rmem, {2, 4}));
  EXPECT_EQ(c, golden("shard-check", c));
  EXPECT_EQ(c, shard_check_svg(shard("shard((2,2,2):(0,1,1); S(0),B; x=2,y=2)"), check_opts(Storage::Rmem, {2, 4})));  // same bytes
  Engines e = row_engines();
  e.buffers[3][1] = 99;
  const std::string a = assemble_svg(e, shard("shard((2,3):(0,1); S(0),B; x=2,y=2)"), {2, 3});
  EXPECT_EQ(a, golden("assemble-mismatch", a));
  TFSPEC_EXPECT_RENDERS("shard-check", c);
  TFSPEC_EXPECT_RENDERS("assemble-mismatch", a);
}
