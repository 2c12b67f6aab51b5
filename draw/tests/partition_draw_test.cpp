// `kernel check --draw`'s pictures (draw::partition_svg, spec/KERNEL.md): a tile shared out among
// threads, each (thread, value) at the cell its table names, with the marks derived by hand.
#include <gtest/gtest.h>

#include "svg_xml.hpp"
#include "tfspec/draw/draw.hpp"

using namespace tfspec::draw;
using namespace tfspec::draw::testing;
using Labels = std::map<std::pair<int, int>, std::string>;

namespace {

// A 2x2 tile (row + 2 col), 2 threads x 2 values: thread 0 names cells 0 and 1 (column 0), thread
// 1 names cell 1 again and nothing else; cell 3 (row 1, column 1) is never named, cell 2 is
// flagged by a check.
TilePartition two_by_two() {
  TilePartition p;
  p.title = "test";
  p.threads = 2, p.values = 2, p.rows = 2, p.cols = 2;
  p.index = {0, 1, 1, -1};
  p.offending = {2};
  return p;
}

}  // namespace

TEST(PartitionDraw, LabelsThreadsAndMarksWhatIsWrittenTwiceNeverOrNamed) {
  const std::string svg = partition_svg(two_by_two());
  EXPECT_EQ(labels(svg, "tv"), (Labels{{{0, 0}, "T0V0"}, {{1, 0}, "T0V1 T1V0"}, {{0, 1}, ""}, {{1, 1}, ""}}));
  EXPECT_EQ(marked(svg, "tv"), (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {1, 1}}));
}

TEST(PartitionDraw, ASharedPartitionMarksNoCollision) {
  TilePartition p = two_by_two();
  p.exclusive = false;  // an MMA operand: threads of other warps hold the same elements
  p.offending.clear();
  EXPECT_TRUE(marked(partition_svg(p), "tv").empty());
}
