// `tfspec layout print` (issue 25): CuTe's print_layout table and print_latex TikZ picture of a
// layout, in the rank-2 view the pictures use. Expected tables written by hand from L(r + rows*c).
#include <gtest/gtest.h>

#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/notation.hpp"

#include "../../reference/tests/test_support.hpp"

using namespace tfspec;
using namespace tfspec::draw;

namespace {
std::string print(const char* l) { return print_layout(*parse_any_layout(l)); }
}  // namespace

// (2,3):(3,1): cell (r, c) = 3r + c; cosize 6 has one digit, so each cell is `| d `.
TEST(LayoutPrint, RankTwoTable) {
  EXPECT_EQ(print("(2,3):(3,1)"),
            "(2,3):(3,1)\n"
            "      0   1   2\n"
            "    +---+---+---+\n"
            " 0  | 0 | 1 | 2 |\n"
            "    +---+---+---+\n"
            " 1  | 3 | 4 | 5 |\n"
            "    +---+---+---+\n");
}

// (4,4):(4,1): 4r + c up to 15, cosize 16 has two digits.
TEST(LayoutPrint, TwoDigitCells) {
  EXPECT_EQ(print("(4,4):(4,1)"),
            "(4,4):(4,1)\n"
            "       0    1    2    3\n"
            "    +----+----+----+----+\n"
            " 0  |  0 |  1 |  2 |  3 |\n"
            "    +----+----+----+----+\n"
            " 1  |  4 |  5 |  6 |  7 |\n"
            "    +----+----+----+----+\n"
            " 2  |  8 |  9 | 10 | 11 |\n"
            "    +----+----+----+----+\n"
            " 3  | 12 | 13 | 14 | 15 |\n"
            "    +----+----+----+----+\n");
  // As CuTe, the width follows cosize: (2,5):(5,1) holds 0..9, but cosize 10 has two digits.
  EXPECT_NE(print("(2,5):(5,1)").find(" 0  |  0 |  1 |  2 |  3 |  4 |\n"), std::string::npos) << print("(2,5):(5,1)");
}

// A rank-1 layout is one column: 4:2 holds 0, 2, 4, 6 down it.
TEST(LayoutPrint, RankOneIsOneColumn) {
  EXPECT_EQ(print("4:2"),
            "4:2\n"
            "      0\n"
            "    +---+\n"
            " 0  | 0 |\n"
            "    +---+\n"
            " 1  | 2 |\n"
            "    +---+\n"
            " 2  | 4 |\n"
            "    +---+\n"
            " 3  | 6 |\n"
            "    +---+\n");
}

// Rank 3 is mode 0 x the rest: (2,2,2):(1,2,4) at (r, c) is index r + 2c = coordinate
// (r, c % 2, c / 2), offset r + 2(c % 2) + 4(c / 2) = r + 2c.
TEST(LayoutPrint, RankThreeIsModeZeroByTheRest) {
  EXPECT_EQ(print("(2,2,2):(1,2,4)"),
            "(2,2,2):(1,2,4)\n"
            "      0   1   2   3\n"
            "    +---+---+---+---+\n"
            " 0  | 0 | 2 | 4 | 6 |\n"
            "    +---+---+---+---+\n"
            " 1  | 1 | 3 | 5 | 7 |\n"
            "    +---+---+---+---+\n");
}

// A composed layout prints its final offsets (§4): (4,2):(2,1) o 1 o 4:2 maps i to
// inner(1 + 2i): inner(1) = 2, inner(3) = 6, inner(5) = 3, inner(7) = 7.
TEST(LayoutPrint, ComposedPrintsTheFinalOffsets) {
  const std::string out = print("(4,2):(2,1) o 1 o 4:2");
  EXPECT_NE(out.find(" 0  | 2 |\n    +---+\n 1  | 6 |\n    +---+\n 2  | 3 |\n    +---+\n 3  | 7 |\n"), std::string::npos) << out;
}

// A negative offset widens the cells: 3:-1 holds 0, -1, -2.
TEST(LayoutPrint, NegativeOffsetsStayAligned) {
  EXPECT_EQ(print("3:-1"),
            "3:-1\n"
            "       0\n"
            "    +----+\n"
            " 0  |  0 |\n"
            "    +----+\n"
            " 1  | -1 |\n"
            "    +----+\n"
            " 2  | -2 |\n"
            "    +----+\n");
}

TEST(LayoutPrint, LimitsAndSymbolsAreInputErrors) {
  EXPECT_EQ(::tfspec::testing::error_id([] { print("(128,129):(1,128)"); }), "draw-too-large");
  EXPECT_EQ(::tfspec::testing::error_id([] { print("(M,2):(1,M)"); }), "needs-concrete");
}

// print_latex of (2,2):(1,2): CuTe's standalone TikZ picture (x down, y across); the node at
// (r, c) holds r + 2c, filled with the pictures' colour of that offset.
TEST(LayoutPrint, Latex) {
  auto fill = [](int64_t n) {
    const std::string h = palette(n);
    return "{rgb,255:red," + std::to_string(std::stoi(h.substr(1, 2), nullptr, 16)) + ";green," + std::to_string(std::stoi(h.substr(3, 2), nullptr, 16)) +
           ";blue," + std::to_string(std::stoi(h.substr(5, 2), nullptr, 16)) + "}";
  };
  const std::string want = "% Layout: (2,2):(1,2)\n"
                           "\\documentclass[convert]{standalone}\n"
                           "\\usepackage{tikz}\n\n"
                           "\\begin{document}\n"
                           "\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm, outer sep=0pt}]\n\n"
                           "\\node[fill=" + fill(0) + "] at (0,0) {0};\n"
                           "\\node[fill=" + fill(2) + "] at (0,1) {2};\n"
                           "\\node[fill=" + fill(1) + "] at (1,0) {1};\n"
                           "\\node[fill=" + fill(3) + "] at (1,1) {3};\n"
                           "\\draw[color=black,thick,shift={(-0.5,-0.5)}] (0,0) grid (2,2);\n\n"
                           "\\node at (0,-1) {\\Large{\\texttt{0}}};\n"
                           "\\node at (1,-1) {\\Large{\\texttt{1}}};\n"
                           "\\node at (-1,0) {\\Large{\\texttt{0}}};\n"
                           "\\node at (-1,1) {\\Large{\\texttt{1}}};\n"
                           "\\end{tikzpicture}\n"
                           "\\end{document}\n";
  EXPECT_EQ(print_latex(*parse_any_layout("(2,2):(1,2)")), want);
}
