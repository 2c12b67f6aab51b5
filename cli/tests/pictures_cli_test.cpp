// The pictures of issue 25 end to end: every colliding cell of `layout check --draw` marked, a
// 128 x 128 tile drawn, `layout print [--latex]`, the TV default tile, `draw --bind`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

std::string temp(const std::string& name) { return ::testing::TempDir() + "/tfspec_pictures_" + std::to_string(::getpid()) + "_" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

// (2,4):(1,1) holds r + c: offsets 1, 2, 3 are each held twice, so six cells are marked (the
// docs/pictures.md example; draw/tests derives it cell by cell).
TEST(PicturesCli, CheckDrawMarksEveryCollidingCell) {
  const std::string f = temp("check.svg");
  auto r = run_tfspec("layout check '(2,4):(1,1)' --draw " + f);
  EXPECT_EQ(r.rc, 1) << r.out;
  const std::string svg = slurp(f);
  EXPECT_EQ(count(svg, "data-mark=\"collision\""), 6u) << svg;
  EXPECT_NE(svg.find("data-row=\"1\" data-col=\"1\" data-label=\"2\" data-mark=\"collision\"><title>(1,1) -&gt; 2 (collides with (0,2)"),
            std::string::npos)
      << svg;
  std::filesystem::remove(f);
}

// The common tile: (64,128):(1,64) was draw-too-large at 4096 cells.
TEST(PicturesCli, DrawsA64By128Tile) {
  auto r = run_tfspec("draw '(64,128):(1,64)'");
  ASSERT_EQ(r.rc, 0) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("data-rows=\"64\" data-cols=\"128\" data-labels=\"dropped\""), std::string::npos);
  EXPECT_LT(r.out.size(), 2u * 1024 * 1024);
}

TEST(PicturesCli, LayoutPrint) {
  auto r = run_tfspec("layout print '(2,3):(3,1)'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out,
            "(2,3):(3,1)\n"
            "      0   1   2\n"
            "    +---+---+---+\n"
            " 0  | 0 | 1 | 2 |\n"
            "    +---+---+---+\n"
            " 1  | 3 | 4 | 5 |\n"
            "    +---+---+---+\n");
  auto latex = run_tfspec("layout print '(2,3):(3,1)' --latex");
  ASSERT_EQ(latex.rc, 0) << latex.out;
  EXPECT_TRUE(latex.out.starts_with("% Layout: (2,3):(3,1)\n\\documentclass[convert]{standalone}\n")) << latex.out;
  EXPECT_NE(latex.out.find("] at (1,2) {5};\n"), std::string::npos) << latex.out;  // 3*1 + 2
  // a symbolic layout with its value; without one, the symbol is named
  auto bound = run_tfspec("layout print '(M,2):(1,M)' --bind M=2");
  ASSERT_EQ(bound.rc, 0) << bound.out;
  EXPECT_NE(bound.out.find(" 1  | 1 | 3 |\n"), std::string::npos) << bound.out;  // (1,1): 1 + 2*1
  auto unbound = run_tfspec("layout print '(M,2):(1,M)'");
  EXPECT_EQ(unbound.rc, 3) << unbound.out;
  EXPECT_NE(unbound.out.find("[unbound-dim §1] symbolic dim 'M' has no value"), std::string::npos) << unbound.out;
  // `layout --list` names it, and a typo is pointed at it
  EXPECT_NE(run_tfspec("layout --list").out.find("print ..."), std::string::npos);
  EXPECT_NE(run_tfspec("layout prnt '4:1'").out.find("did you mean `print`?"), std::string::npos) << run_tfspec("layout prnt '4:1'").out;
}

// `(8,8):(8,1) --tv` was a 5,224-pixel strip; now the (8,8) tile: T1V0 = offset 8 at (0, 1).
TEST(PicturesCli, TvDefaultTile) {
  auto r = run_tfspec("draw '(8,8):(8,1)' --tv");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("data-kind=\"tv\" data-rows=\"8\" data-cols=\"8\""), std::string::npos);
  EXPECT_NE(r.out.find("data-row=\"0\" data-col=\"1\" data-label=\"T1V0\""), std::string::npos);
}

// (M,8):(1,M) at M = 16: cell (r, c) holds r + 16c; (1,1) holds 17.
TEST(PicturesCli, DrawBindsSymbols) {
  auto r = run_tfspec("draw '(M,8):(1,M)' --bind M=16");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("data-rows=\"16\" data-cols=\"8\""), std::string::npos);
  EXPECT_NE(r.out.find("data-row=\"1\" data-col=\"1\" data-label=\"17\""), std::string::npos);
  auto two = run_tfspec("draw '(M,N):(1,M)' --bind M=2 --bind N=3");
  EXPECT_EQ(two.rc, 0) << two.out;
  auto unbound = run_tfspec("draw '(M,N):(1,M)' --bind M=2");
  EXPECT_EQ(unbound.rc, 3) << unbound.out;
  EXPECT_NE(unbound.out.find("[unbound-dim §1] symbolic dim 'N' has no value"), std::string::npos) << unbound.out;
  auto none = run_tfspec("draw '(M,8):(1,M)'");
  EXPECT_EQ(none.rc, 3) << none.out;
  EXPECT_NE(none.out.find("'M'"), std::string::npos) << none.out;
  auto typo = run_tfspec("draw '(M,8):(1,M)' --bind K=16");
  EXPECT_EQ(typo.rc, 3) << typo.out;
  EXPECT_NE(typo.out.find("the layout has no symbol K (its symbols: M)"), std::string::npos) << typo.out;
  for (const char* bad : {"M", "M=", "M=x", "=4", "2M=4", "M=1.5"}) {
    auto b = run_tfspec(std::string("draw '(M,8):(1,M)' --bind '") + bad + "'");
    EXPECT_EQ(b.rc, 3) << bad << "\n" << b.out;
    EXPECT_NE(b.out.find("--bind takes NAME=VALUE"), std::string::npos) << bad << "\n" << b.out;
  }
  auto zero = run_tfspec("draw '(M,8):(1,M)' --bind M=0");
  EXPECT_EQ(zero.rc, 3) << zero.out;
  EXPECT_NE(zero.out.find("extent-positive"), std::string::npos) << zero.out;
}
