// Large pictures (issue 25): up to kMaxCells = 16384 cells (a 128 x 128 tile); past
// kLabelledCells = 4096 a grid drops its per-cell labels and keeps colours (a colour scale for
// offsets), every 8th row and column numbered, and a legend, within a file-size bound.
#include <gtest/gtest.h>

#include "golden.hpp"
#include "svg_xml.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;
using namespace tfspec::draw;
using namespace tfspec::draw::testing;

namespace {

// The squares of an unlabelled grid, row-major.
std::vector<Attrs> squares(const std::string& svg, const std::string& kind) {
  return select(svg, "//s:g[@class='grid'][@data-kind='" + kind + "']/s:g[@class='cells']/s:rect");
}

std::vector<std::string> texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  for (const auto& t : select(svg, "//s:text[@class='" + cls + "']")) out.push_back(t.at("#text"));
  return out;
}

}  // namespace

// (64,128):(1,64), the tile: L(r, c) = r + 64c, 8192 cells, drawn without labels.
TEST(LargeDraw, ColumnMajorTileOf8192Cells) {
  const std::string svg = layout_svg(*parse_any_layout("(64,128):(1,64)"));
  auto grid = select(svg, "//s:g[@class='grid']");
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0]["data-rows"], "64");
  EXPECT_EQ(grid[0]["data-cols"], "128");
  EXPECT_EQ(grid[0]["data-labels"], "dropped");
  const auto sq = squares(svg, "offsets");
  ASSERT_EQ(sq.size(), 8192u);
  for (size_t k = 0; k < sq.size(); ++k) {
    const int r = static_cast<int>(k / 128), c = static_cast<int>(k % 128);
    ASSERT_EQ(sq[k].at("data-label"), std::to_string(r + 64 * c)) << r << "," << c;
  }
  EXPECT_TRUE(texts(svg, "label").empty());  // no per-cell text
  // rows 0, 8, ..., 56 and columns 0, 8, ..., 120 numbered
  EXPECT_EQ(texts(svg, "row-index"), (std::vector<std::string>{"0", "8", "16", "24", "32", "40", "48", "56"}));
  EXPECT_EQ(texts(svg, "col-index").size(), 16u);
  EXPECT_EQ(texts(svg, "col-index").back(), "120");
  // The colour scale runs from offset 0 (viridis' first stop) to offset 8191 (its last); the
  // legend shows nine steps of it, 1023 apart (8191 * k / 8, rounded down).
  EXPECT_EQ(sq[0].at("fill"), "#440154");
  EXPECT_EQ(sq[64 * 128 - 1].at("fill"), "#fde725");  // (63, 127): 63 + 64 * 127 = 8191
  auto legend = select(svg, "//s:g[@class='legend-entry']");
  ASSERT_EQ(legend.size(), 9u);
  EXPECT_EQ(legend[0]["data-text"], "offset 0");
  EXPECT_EQ(legend[1]["data-text"], "offset 1023");
  EXPECT_EQ(legend[8]["data-text"], "offset 8191");
}

// The file-size discipline: 128 x 128 (16384 cells) stays under 2 MB (docs/pictures.md shows the size, doc-tested).
TEST(LargeDraw, A128By128TileStaysSmall) {
  const std::string svg = layout_svg(*parse_any_layout("(128,128):(1,128)"));
  EXPECT_LT(svg.size(), 2u * 1024 * 1024) << svg.size();
  EXPECT_EQ(squares(svg, "offsets").size(), 16384u);
  std::cout << "[ size     ] (128,128):(1,128): " << svg.size() << " bytes\n";
}

// 64 x 64 = kLabelledCells still draws every label, as before.
TEST(LargeDraw, LabelsKeptUpTo4096Cells) {
  const std::string svg = layout_svg(*parse_any_layout("(64,64):(1,64)"));
  EXPECT_EQ(labels(svg, "offsets").at({1, 2}), "129");  // 1 + 64 * 2
  EXPECT_EQ(texts(svg, "label").size(), 4096u);
  EXPECT_TRUE(select(svg, "//s:g[@data-labels]").empty());
}

// (128,128):(1,1) holds r + c in 0..254; offset k is held by min(k, 254 - k) + 1 cells, so only
// offsets 0 and 254 are held once: 16384 - 2 squares are marked.
TEST(LargeDraw, CheckMarksSquares) {
  const std::string svg = check_svg(*parse_any_layout("(128,128):(1,1)"));
  size_t marked = 0;
  for (const auto& s : squares(svg, "offsets")) marked += s.count("data-mark");
  EXPECT_EQ(marked, 16384u - 2);
}

// TV (128,128):(128,1): offset o = 128t + v in the default tile (128,128) at (o % 128, o / 128)
// = (v, t); the legend names the first 32 threads' colours.
TEST(LargeDraw, TvViewDropsLabelsAndNamesThreadColours) {
  const std::string svg = tv_svg(*parse_any_layout("(128,128):(128,1)"));
  const auto sq = squares(svg, "tv");
  ASSERT_EQ(sq.size(), 16384u);
  EXPECT_EQ(sq[3 * 128 + 5].at("data-label"), "T5V3");  // row v = 3, column t = 5
  EXPECT_EQ(sq[3 * 128 + 5].at("fill"), palette(5));
  auto legend = select(svg, "//s:g[@class='legend-entry']");
  ASSERT_EQ(legend.size(), 32u);
  EXPECT_EQ(legend[31]["data-text"], "T31");
}

TEST(LargeDraw, RendersWithRsvg) {
  TFSPEC_EXPECT_RENDERS("large", layout_svg(*parse_any_layout("(128,128):(1,128)")));
}
