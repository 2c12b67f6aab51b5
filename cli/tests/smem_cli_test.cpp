// `tfspec layout banks` / `vector_width` end to end (spec/SMEM.md): exit 1 on a conflict, 0 when
// conflict-free, 3 on bad input; the named options; --draw marks the worst phase.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

TEST(LayoutBanksCli, ExitCodesFollowTheVerdict) {
  // Row-major floats read by column: 32-way (hand derivation: reference/tests/smem_test.cpp).
  auto conflict = run_tfspec("layout banks '(32,32):(1,32)' '(32,32):(32,1)' --elem-bytes 4");
  EXPECT_EQ(conflict.rc, 1) << conflict.out;
  EXPECT_NE(conflict.out.find("32-way bank conflict"), std::string::npos) << conflict.out;
  auto free = run_tfspec("layout banks '(32,32):(1,32)' 'Sw<5,0,5> o 0 o (32,32):(32,1)' --elem-bytes 4 --json");
  EXPECT_EQ(free.rc, 0) << free.out;
  EXPECT_NE(free.out.find("\"conflict_free\":true"), std::string::npos) << free.out;
  auto positional = run_tfspec("layout banks '(32,32):(1,32)' '(32,32):(33,1)' 4");  // elem_bytes by position
  EXPECT_EQ(positional.rc, 0) << positional.out;
  auto bad = run_tfspec("layout banks '(32,32):(1,32)' '(32,32):(32,1)' --elem-bytes 3");
  EXPECT_EQ(bad.rc, 3) << bad.out;
  EXPECT_NE(bad.out.find("smem-access-params"), std::string::npos) << bad.out;
  auto twice = run_tfspec("layout banks '(32,32):(1,32)' '(32,32):(32,1)' 4 --elem-bytes 4");
  EXPECT_EQ(twice.rc, 3) << twice.out;
  auto wrong_op = run_tfspec("layout size '(32,32):(32,1)' --vector 2");
  EXPECT_EQ(wrong_op.rc, 3) << wrong_op.out;
}

TEST(LayoutBanksCli, DrawMarksTheWorstPhasesBank) {
  const std::string f = (std::filesystem::temp_directory_path() / "tfspec_banks_cli_test.svg").string();
  auto r = run_tfspec("layout banks '((8,8),8):((1,64),8)' '(8,64):(64,1)' --elem-bytes 2 --vector 8 --draw " + f);
  EXPECT_EQ(r.rc, 1) << r.out;
  std::ifstream in(f, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string svg = ss.str();
  // Threads 0..7 start at words 0, 32, ..., 224 (row r of 32 banks, column 0): all marked.
  for (int row = 0; row < 8; ++row)
    EXPECT_NE(svg.find("data-row=\"" + std::to_string(row) + "\" data-col=\"0\" data-label=\"T" + std::to_string(row) + "\" data-mark=\"collision\""),
              std::string::npos)
        << row;
  EXPECT_EQ(svg.find("data-col=\"4\" data-label=\"T"), std::string::npos);  // bank 4 is not read by the worst phase
  std::filesystem::remove(f);
}

}  // namespace
