// Layout pictures (issue 14): well-formed XML, one cell per element with the offset a hand
// derivation gives (§3 L(c) = sum c_i d_i; D1 colexicographic index), both stages of a
// ComposedLayout (§4), the TV view, the check picture's marks (§2), determinism, goldens, and a
// real renderer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
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

// TV (2,2):(2,1): thread t, value v at offset 2t + v. The default tile holds the 4 offsets as
// (2,2) (the smallest divisor r of 4 with r^2 >= 4 is 2), as does the tile (2,2) given: offset o
// at (o % 2, o / 2).
TEST(LayoutDraw, TvViewLabelsThreadAndValue) {
  const auto tv = parse_any_layout("(2,2):(2,1)");
  const Labels want = {{{0, 0}, "T0V0"}, {{1, 0}, "T0V1"}, {{0, 1}, "T1V0"}, {{1, 1}, "T1V1"}};
  EXPECT_EQ(labels(tv_svg(*tv), "tv"), want);
  const std::string tiled = tv_svg(*tv, parse_inttuple("(2,2)"));
  EXPECT_EQ(labels(tiled, "tv"), want);
  EXPECT_EQ(labels(tv_svg(*tv, parse_inttuple("(1,4)")), "tv"), (Labels{{{0, 0}, "T0V0"}, {{0, 1}, "T0V1"}, {{0, 2}, "T1V0"}, {{0, 3}, "T1V1"}}));
  // coloured by thread: T0V0 and T0V1 share a fill, T1V0 has another
  auto fill = [&](int r, int c) {
    return select(tiled, "//s:g[@class='cell'][@data-row='" + std::to_string(r) + "'][@data-col='" + std::to_string(c) + "']/s:rect")[0]["fill"];
  };
  EXPECT_EQ(fill(0, 0), fill(1, 0));
  EXPECT_NE(fill(0, 0), fill(0, 1));
}

// Issue 25: `(8,8):(8,1) --tv` was one row of 64 cells. Offset o = 8t + v; the default tile
// (8,8) puts it at (o % 8, o / 8) = (v, t): column t holds thread t's values top to bottom.
TEST(LayoutDraw, TvDefaultTileIsNearSquare) {
  const std::string svg = tv_svg(*parse_any_layout("(8,8):(8,1)"));
  auto grid = select(svg, "//s:g[@class='grid']");
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0]["data-rows"], "8");
  EXPECT_EQ(grid[0]["data-cols"], "8");
  Labels want;
  for (int t = 0; t < 8; ++t)
    for (int v = 0; v < 8; ++v) want[{v, t}] = "T" + std::to_string(t) + "V" + std::to_string(v);
  EXPECT_EQ(labels(svg, "tv"), want);
  EXPECT_LT(std::stoi(select(svg, "/s:svg")[0]["width"]), 600);  // was 5,224 px
  // 32 offsets: divisors of 32 with r^2 >= 32 are 8, 16, 32, so (8,4); 6 offsets: (3,2); 7 (prime): (7,1).
  auto shape_of = [](const char* l) {
    auto g = select(tv_svg(*parse_any_layout(l)), "//s:g[@class='grid']");
    return g[0]["data-rows"] + "x" + g[0]["data-cols"];
  };
  EXPECT_EQ(shape_of("(8,4):(4,1)"), "8x4");
  EXPECT_EQ(shape_of("(3,2):(2,1)"), "3x2");
  EXPECT_EQ(shape_of("(7,1):(1,0)"), "7x1");
}

// (2,2):(1,1): T0V1 and T1V0 both land on offset 1 (stacked and marked). Offsets 0..2: 3 is
// prime, so the default tile is one column (3,1).
TEST(LayoutDraw, TvViewMarksSharedOffsets) {
  const std::string svg = tv_svg(*parse_any_layout("(2,2):(1,1)"));
  EXPECT_EQ(labels(svg, "tv"), (Labels{{{0, 0}, "T0V0"}, {{1, 0}, "T1V0 T0V1"}, {{2, 0}, "T1V1"}}));
  EXPECT_EQ(marked(svg, "tv"), (std::vector<std::pair<int, int>>{{1, 0}}));
}

TEST(LayoutDraw, TvViewNeedsTwoModesAndATileThatHoldsTheOffsets) {
  EXPECT_EQ(error_id([] { tv_svg(*parse_any_layout("8:1")); }), "draw-tv-modes");
  EXPECT_EQ(error_id([] { tv_svg(*parse_any_layout("(2,2):(2,1)"), parse_inttuple("(2,1)")); }), "draw-tv-modes");
}

// The check example of docs/pictures.md: (2,4):(1,1) holds r + c: row 0 holds 0 1 2 3, row 1 holds 1 2 3 4.
// Offsets 1, 2 and 3 are each held by two cells, 0 and 4 by one: the six cells (0,1) (1,0),
// (0,2) (1,1), (0,3) (1,2) collide (issue 25: only the witness pair was marked), (0,0) and (1,3)
// do not. Each tooltip names the coordinate it collides with.
TEST(CheckDraw, MarksEveryCollidingCoordinate) {
  const std::string svg = check_svg(*parse_any_layout("(2,4):(1,1)"));
  Labels want;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) want[{r, c}] = std::to_string(r + c);
  EXPECT_EQ(labels(svg, "offsets"), want);
  auto m = marked(svg, "offsets");
  std::sort(m.begin(), m.end());
  EXPECT_EQ(m, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}}));
  auto title = [&](int r, int c) {
    return select(svg, "//s:g[@class='cell'][@data-row='" + std::to_string(r) + "'][@data-col='" + std::to_string(c) + "']/s:title")[0]["#text"];
  };
  EXPECT_NE(title(0, 1).find("collides with (1,0)"), std::string::npos) << title(0, 1);
  EXPECT_NE(title(1, 2).find("collides with (0,3)"), std::string::npos) << title(1, 2);
  EXPECT_EQ(title(0, 0).find("collides"), std::string::npos) << title(0, 0);
  bool listed = false;
  for (const auto& n : select(svg, "//s:text[@class='note']")) listed |= n.at("#text").find("[layout-injective §2]") != std::string::npos;
  EXPECT_TRUE(listed);
}

// 4:0 puts all four coordinates on offset 0: each collides with the three others.
TEST(CheckDraw, TooltipNamesEveryOtherHolder) {
  const std::string svg = check_svg(*parse_any_layout("4:0"));
  EXPECT_EQ(marked(svg, "offsets").size(), 4u);
  const auto t = select(svg, "//s:g[@class='cell'][@data-row='2']/s:title")[0]["#text"];
  EXPECT_NE(t.find("collides with 0, 1, 3"), std::string::npos) << t;
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

// Issue 25: a 128 x 128 tile draws; 128 x 129 = 16512 cells > kMaxCells = 16384.
TEST(LayoutDraw, TooLargeIsAnInputErrorWithItsRule) {
  EXPECT_EQ(error_id([] { layout_svg(*parse_any_layout("(128,129):(1,128)")); }), "draw-too-large");
  EXPECT_EQ(error_id([] { check_svg(*parse_any_layout("(128,129):(1,128)")); }), "draw-too-large");
  EXPECT_EQ(error_id([] { layout_svg(*parse_any_layout("(128,128):(1,128)")); }), "(no error)");
  EXPECT_EQ(error_id([] { layout_svg(*parse_any_layout("(M,4):(1,M)")); }), "needs-concrete");
}

TEST(LayoutDraw, SameInputSameBytes) {
  for (const char* l : {"(2,3):(3,1)", "(4,2):(2,1) o 1 o 4:2", "((2,2),3):((1,6),2)"}) {
    EXPECT_EQ(layout_svg(*parse_any_layout(l)), layout_svg(*parse_any_layout(l))) << l;
    EXPECT_EQ(check_svg(*parse_any_layout(l)), check_svg(*parse_any_layout(l))) << l;
  }
  EXPECT_EQ(tv_svg(*parse_any_layout("(4,2):(2,1)")), tv_svg(*parse_any_layout("(4,2):(2,1)")));
}

namespace {
// CIE76 colour distance of two #rrggbb (sRGB -> linear -> XYZ (D65) -> L*a*b*), written here
// independently of the palette's HSL arithmetic.
double delta_e(const std::string& a, const std::string& b) {
  auto lab = [](const std::string& hex) {
    double rgb[3];
    for (int i = 0; i < 3; ++i) {
      const double u = std::stoi(hex.substr(1 + 2 * i, 2), nullptr, 16) / 255.0;
      rgb[i] = u <= 0.04045 ? u / 12.92 : std::pow((u + 0.055) / 1.055, 2.4);
    }
    const double x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047, y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2],
                 z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883;
    auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
    return std::array<double, 3>{116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
  };
  const auto p = lab(a), q = lab(b);
  return std::sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}
}  // namespace

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
  // hue 0, s 65%, l 78%: chroma (1 - |2*0.78 - 1|) * 0.65 = 0.286, m = 0.78 - 0.143 = 0.637:
  // (0.923, 0.637, 0.637) * 255 = (235, 162, 162)
  EXPECT_EQ(palette(0), "#eba2a2");
  // Issue 25: devices #2 and #3 were nearly the same green (CIE76 distance 13). Every two
  // consecutive values (devices, threads, offsets) now differ by at least 25.
  EXPECT_GE(delta_e(palette(2), palette(3)), 25) << palette(2) << " " << palette(3);
  double least = 1e9;
  for (int n = 0; n < 360; ++n) least = std::min(least, delta_e(palette(n), palette(n + 1)));
  EXPECT_GE(least, 25);
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
