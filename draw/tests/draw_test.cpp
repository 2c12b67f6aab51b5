// Layout pictures (issue 14): well-formed XML, one cell per element with the offset a hand
// derivation gives (§3 L(c) = sum c_i d_i; D1 colexicographic index), both stages of a
// ComposedLayout (§4), the TV view, the check picture's marks (§2), determinism, goldens, and a
// real renderer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "golden.hpp"
#include "svg_xml.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/notation.hpp"

#include "../../reference/tests/test_support.hpp"

using namespace tfspec;
using namespace tfspec::draw;
using namespace tfspec::draw::testing;
using Labels = std::map<std::pair<int, int>, std::string>;

namespace {
using tfspec::testing::error_id;  // the rule id a statement fails with, or "(no error)"
}  // namespace

// (2,3):(3,1): cell (r, c) holds 3r + c. Rows are mode 0 (2), columns mode 1 (3).
TEST(LayoutDraw, RowMajorTwoByThree) {
  const std::string svg = layout_svg(*parse_any_layout("(2,3):(3,1)"));
  const Labels want = {{{0, 0}, "0"}, {{0, 1}, "1"}, {{0, 2}, "2"}, {{1, 0}, "3"}, {{1, 1}, "4"}, {{1, 2}, "5"}};
  EXPECT_EQ(labels(svg, "offsets"), want);
  auto grid = select(svg, "//s:g[@class='grid']");
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0]["data-rows"], "2");
  EXPECT_EQ(grid[0]["data-cols"], "3");
  // colour by offset: the two cells with the same offset in another layout share a fill; here all differ
  std::set<std::string> fills;
  for (const auto& r : select(svg, "//s:g[@class='cell']/s:rect[@class='stripe']")) fills.insert(r.at("fill"));
  EXPECT_EQ(fills.size(), 6u);
}

// A rank-1 layout is one column (CuTe appends a mode of size 1): 4:2 holds 0, 2, 4, 6 down it.
TEST(LayoutDraw, RankOneIsOneColumn) {
  const Labels want = {{{0, 0}, "0"}, {{1, 0}, "2"}, {{2, 0}, "4"}, {{3, 0}, "6"}};
  EXPECT_EQ(labels(layout_svg(*parse_any_layout("4:2")), "offsets"), want);
}

// Nested mode 0: ((2,2),3):((1,6),2). Row r = (r % 2, r / 2) in mode 0, so cell (r, c) holds
// (r % 2)*1 + (r / 2)*6 + 2c: rows 0..3 start at 0, 1, 6, 7.
TEST(LayoutDraw, NestedModesFlattenColexicographically) {
  Labels want;
  const int start[] = {0, 1, 6, 7};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) want[{r, c}] = std::to_string(start[r] + 2 * c);
  EXPECT_EQ(labels(layout_svg(*parse_any_layout("((2,2),3):((1,6),2)")), "offsets"), want);
}

// §4: (4,2):(2,1) o 1 o 4:2. Stage 1: 1 + 2i = 1, 3, 5, 7. Stage 2: inner(j) = 2(j % 4) + (j / 4):
// inner(1) = 2, inner(3) = 6, inner(5) = 3, inner(7) = 7.
TEST(LayoutDraw, ComposedDrawsBothStages) {
  const std::string svg = layout_svg(*parse_any_layout("(4,2):(2,1) o 1 o 4:2"));
  EXPECT_EQ(labels(svg, "stage1"), (Labels{{{0, 0}, "1"}, {{1, 0}, "3"}, {{2, 0}, "5"}, {{3, 0}, "7"}}));
  EXPECT_EQ(labels(svg, "stage2"), (Labels{{{0, 0}, "2"}, {{1, 0}, "6"}, {{2, 0}, "3"}, {{3, 0}, "7"}}));
}

// 4:1 o 2 o 4:1: the intermediate values 2, 3, 4, 5; 4 and 5 lie outside inner's domain [0, 4).
TEST(LayoutDraw, ComposedMarksOutOfDomainPositions) {
  const std::string svg = layout_svg(*parse_any_layout("4:1 o 2 o 4:1"));
  EXPECT_EQ(labels(svg, "stage2"), (Labels{{{0, 0}, "2"}, {{1, 0}, "3"}, {{2, 0}, "out"}, {{3, 0}, "out"}}));
  EXPECT_EQ(marked(svg, "stage2"), (std::vector<std::pair<int, int>>{{2, 0}, {3, 0}}));
  for (const auto& c : select(svg, "//s:g[@data-kind='stage2']/s:g[@data-mark]")) EXPECT_EQ(c.at("data-mark"), "out-of-domain");
}

// TV (2,2):(2,1): thread t, value v at offset 2t + v. One row of 4 by default; the tile (2,2)
// puts offset o at (o % 2, o / 2).
TEST(LayoutDraw, TvViewLabelsThreadAndValue) {
  const auto tv = parse_any_layout("(2,2):(2,1)");
  EXPECT_EQ(labels(tv_svg(*tv), "tv"), (Labels{{{0, 0}, "T0V0"}, {{0, 1}, "T0V1"}, {{0, 2}, "T1V0"}, {{0, 3}, "T1V1"}}));
  const std::string tiled = tv_svg(*tv, parse_inttuple("(2,2)"));
  EXPECT_EQ(labels(tiled, "tv"), (Labels{{{0, 0}, "T0V0"}, {{1, 0}, "T0V1"}, {{0, 1}, "T1V0"}, {{1, 1}, "T1V1"}}));
  // coloured by thread: T0V0 and T0V1 share a fill, T1V0 has another
  auto fill = [&](int r, int c) {
    return select(tiled, "//s:g[@class='cell'][@data-row='" + std::to_string(r) + "'][@data-col='" + std::to_string(c) + "']/s:rect")[0]["fill"];
  };
  EXPECT_EQ(fill(0, 0), fill(1, 0));
  EXPECT_NE(fill(0, 0), fill(0, 1));
}

// (2,2):(1,1): T0V1 and T1V0 both land on offset 1 (stacked and marked).
TEST(LayoutDraw, TvViewMarksSharedOffsets) {
  const std::string svg = tv_svg(*parse_any_layout("(2,2):(1,1)"));
  EXPECT_EQ(labels(svg, "tv"), (Labels{{{0, 0}, "T0V0"}, {{0, 1}, "T1V0 T0V1"}, {{0, 2}, "T1V1"}}));
  EXPECT_EQ(marked(svg, "tv"), (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST(LayoutDraw, TvViewNeedsTwoModesAndATileThatHoldsTheOffsets) {
  EXPECT_EQ(error_id([] { tv_svg(*parse_any_layout("8:1")); }), "draw-tv-modes");
  EXPECT_EQ(error_id([] { tv_svg(*parse_any_layout("(2,2):(2,1)"), parse_inttuple("(2,1)")); }), "draw-tv-modes");
}

// README's check example: (2,4):(1,1) holds r + c; (1,0) and (0,1) share offset 1, so cells
// (1,0) and (0,1) are marked, and nothing else.
TEST(CheckDraw, MarksTheCollidingCoordinates) {
  const std::string svg = check_svg(*parse_any_layout("(2,4):(1,1)"));
  Labels want;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) want[{r, c}] = std::to_string(r + c);
  EXPECT_EQ(labels(svg, "offsets"), want);
  auto m = marked(svg, "offsets");
  std::sort(m.begin(), m.end());
  EXPECT_EQ(m, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}));
  bool listed = false;
  for (const auto& n : select(svg, "//s:text[@class='note']")) listed |= n.at("#text").find("[layout-injective §2]") != std::string::npos;
  EXPECT_TRUE(listed);
}

TEST(CheckDraw, InjectiveLayoutHasNoMarks) {
  const std::string svg = check_svg(*parse_any_layout("(2,4):(4,1)"));
  EXPECT_TRUE(marked(svg, "offsets").empty());
  EXPECT_EQ(select(svg, "//s:title")[0]["#text"], "check (2,4):(4,1): ok");
}

// A composed layout whose stage 2 leaves inner's domain: the check raises coord-in-domain (an
// input error); the picture still draws, with the positions marked and the error listed.
TEST(CheckDraw, MarksOutOfDomainPositions) {
  const std::string svg = check_svg(*parse_any_layout("4:1 o 2 o 4:1"));
  EXPECT_EQ(marked(svg, "stage2"), (std::vector<std::pair<int, int>>{{2, 0}, {3, 0}}));
  bool listed = false;
  for (const auto& n : select(svg, "//s:text[@class='note']")) listed |= n.at("#text").find("coord-in-domain") != std::string::npos;
  EXPECT_TRUE(listed);
}

// 64 x 65 = 4160 cells > kMaxCells.
TEST(LayoutDraw, TooLargeIsAnInputErrorWithItsRule) {
  EXPECT_EQ(error_id([] { layout_svg(*parse_any_layout("(64,65):(1,64)")); }), "draw-too-large");
  EXPECT_EQ(error_id([] { check_svg(*parse_any_layout("(64,65):(1,64)")); }), "draw-too-large");
  EXPECT_EQ(error_id([] { layout_svg(*parse_any_layout("(64,64):(1,64)")); }), "(no error)");
  EXPECT_EQ(error_id([] { layout_svg(*parse_any_layout("(M,4):(1,M)")); }), "needs-concrete");
}

TEST(LayoutDraw, SameInputSameBytes) {
  for (const char* l : {"(2,3):(3,1)", "(4,2):(2,1) o 1 o 4:2", "((2,2),3):((1,6),2)"}) {
    EXPECT_EQ(layout_svg(*parse_any_layout(l)), layout_svg(*parse_any_layout(l))) << l;
    EXPECT_EQ(check_svg(*parse_any_layout(l)), check_svg(*parse_any_layout(l))) << l;
  }
  EXPECT_EQ(tv_svg(*parse_any_layout("(4,2):(2,1)")), tv_svg(*parse_any_layout("(4,2):(2,1)")));
}

TEST(LayoutDraw, PaletteIsFixedAndDistinguishesNeighbours) {
  std::set<std::string> seen;
  for (int n = 0; n < 360; ++n) {
    const std::string c = palette(n);
    EXPECT_EQ(c.size(), 7u);
    EXPECT_EQ(c[0], '#');
    seen.insert(c);
  }
  EXPECT_GT(seen.size(), 300u);  // 360 distinct hues; rounding to bytes may merge a few
  EXPECT_EQ(palette(-1), palette(359));
  EXPECT_EQ(palette(0), "#e8b0b0");  // hue 0, s 55%, l 80%: chroma 0.22, (0.91, 0.69, 0.69) * 255 = (232, 176, 176)
}

// One golden per kind; the expected labels above are the hand derivation, the golden pins the
// rest of the picture (geometry, colours) so a change to it shows up in review.
TEST(LayoutDraw, GoldenPictures) {
  const std::string layout = layout_svg(*parse_any_layout("(2,3):(3,1)"));
  EXPECT_EQ(layout, golden("layout", layout));
  EXPECT_EQ(labels(golden("layout", layout), "offsets").at({1, 2}), "5");  // 3*1 + 1*2
  const std::string composed = layout_svg(*parse_any_layout("(4,2):(2,1) o 1 o 4:2"));
  EXPECT_EQ(composed, golden("composed", composed));
  const std::string tv = tv_svg(*parse_any_layout("(2,2):(2,1)"), parse_inttuple("(2,2)"));
  EXPECT_EQ(tv, golden("tv", tv));
  const std::string check = check_svg(*parse_any_layout("(2,4):(1,1)"));
  EXPECT_EQ(check, golden("check-collision", check));
}

TEST(LayoutDraw, RendersWithRsvg) {
  TFSPEC_EXPECT_RENDERS("layout", layout_svg(*parse_any_layout("(2,3):(3,1)")));
  TFSPEC_EXPECT_RENDERS("composed", layout_svg(*parse_any_layout("4:1 o 2 o 4:1")));
  TFSPEC_EXPECT_RENDERS("tv", tv_svg(*parse_any_layout("(2,2):(1,1)")));
  TFSPEC_EXPECT_RENDERS("check", check_svg(*parse_any_layout("(2,4):(1,1)")));
}
