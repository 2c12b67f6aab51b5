// `tfspec draw`, `tfspec shard draw [--to]`, `tfspec layout check --draw` end to end (issue 14):
// files written, exit codes, and bad input reported with the reference's rule id (exit 3).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The command is an input error (exit 3) whose message says `says`.
void expect_input_error(const std::string& args, const std::string& says) {
  auto r = run_tfspec(args);
  EXPECT_EQ(r.rc, 3) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
}

std::string temp(const std::string& name) { return ::testing::TempDir() + "/tfspec_draw_" + std::to_string(::getpid()) + "_" + name; }

}  // namespace

TEST(DrawCli, LayoutToStdoutAndToAFile) {
  auto r = run_tfspec("draw '(2,3):(3,1)'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(r.out.starts_with("<?xml")) << r.out;
  EXPECT_NE(r.out.find("data-row=\"1\" data-col=\"2\" data-label=\"5\""), std::string::npos);  // 3*1 + 1*2
  const std::string f = temp("l.svg");
  auto w = run_tfspec("draw '(2,3):(3,1)' -o " + f);
  ASSERT_EQ(w.rc, 0) << w.out;
  EXPECT_EQ(w.out, "wrote " + f + "\n");
  EXPECT_EQ(slurp(f), r.out);  // same input, same bytes
  std::filesystem::remove(f);
}

TEST(DrawCli, TvView) {
  auto r = run_tfspec("draw '(2,2):(2,1)' --tv --tile '(2,2)'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("data-row=\"0\" data-col=\"1\" data-label=\"T1V0\""), std::string::npos);  // offset 2 = 2*1 + 0
  auto bad = run_tfspec("draw '8:1' --tv");
  EXPECT_EQ(bad.rc, 3);
  EXPECT_NE(bad.out.find("[draw-tv-modes §3]"), std::string::npos) << bad.out;
  auto outside = run_tfspec("draw '(2,2):(2,1)' --tv --tile '(2,1)'");  // offsets 2 and 3 lie outside a tile of 2
  EXPECT_EQ(outside.rc, 3);
  EXPECT_NE(outside.out.find("draw-tv-modes"), std::string::npos) << outside.out;
}

TEST(DrawCli, BadInputNamesTheRule) {
  auto parse = run_tfspec("draw '(2,3:(3,1)'");
  EXPECT_EQ(parse.rc, 3);
  EXPECT_NE(parse.out.find("[parse-error §1]"), std::string::npos) << parse.out;
  auto large = run_tfspec("draw '(128,129):(1,128)'");  // 16512 cells
  EXPECT_EQ(large.rc, 3);
  EXPECT_NE(large.out.find("error: [draw-too-large -]"), std::string::npos) << large.out;
  auto sugar = run_tfspec("shard draw '(6 @ m.y) on x=2,y=4' '(6)' rmem");
  EXPECT_EQ(sugar.rc, 3);
  EXPECT_NE(sugar.out.find("[sugar-divides §7.1.1]"), std::string::npos) << sugar.out;
  auto storage = run_tfspec("shard draw 'shard((2,3):(0,1); S(0),B; x=2,y=2)' '(6)' hbm");
  EXPECT_EQ(storage.rc, 3);
  EXPECT_NE(storage.out.find("[storage-unknown"), std::string::npos) << storage.out;
}

TEST(DrawCli, ShardDrawAndReshard) {
  auto r = run_tfspec("shard draw 'shard((2,3):(0,1); S(0),B; x=2,y=2)' '(6)' rmem");
  ASSERT_EQ(r.rc, 0) << r.out;
  // element 4 sits at G (1,1): owners (x=1, y=0|1) = devices 2 and 3, local offset 1
  EXPECT_NE(r.out.find("data-col=\"4\" data-label=\"#2@1 #3@1\""), std::string::npos) << r.out;
  auto m = run_tfspec("shard draw 'shard((2,3):(0,1); S(0),B; x=2,y=2)' '(6)' rmem --to 'shard((2,3):(0,1); B,S(0); x=2,y=2)'");
  ASSERT_EQ(m.rc, 0) << m.out;
  EXPECT_NE(m.out.find("data-kind=\"moves\""), std::string::npos);
  EXPECT_NE(m.out.find("data-col=\"3\" data-label=\"#1&lt;-#2 #3 kept\""), std::string::npos) << m.out;
  // the shard group's own ops still work, and --list names draw
  auto canon = run_tfspec("shard canon '(6 @ m.y) on x=2,y=3'");
  EXPECT_EQ(canon.rc, 0) << canon.out;
  auto list = run_tfspec("shard --list");
  EXPECT_NE(list.out.find("draw ..."), std::string::npos) << list.out;
}

TEST(DrawCli, CheckDrawMarksTheCollision) {
  const std::string f = temp("check.svg");
  auto r = run_tfspec("layout check '(2,4):(1,1)' --draw " + f);
  EXPECT_EQ(r.rc, 1) << r.out;  // the check's own exit code: a violation
  EXPECT_NE(r.out.find("[layout-injective §2]"), std::string::npos) << r.out;
  const std::string svg = slurp(f);
  EXPECT_NE(svg.find("data-row=\"1\" data-col=\"0\" data-label=\"1\" data-mark=\"collision\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("data-row=\"0\" data-col=\"1\" data-label=\"1\" data-mark=\"collision\""), std::string::npos);
  std::filesystem::remove(f);
  auto ok = run_tfspec("layout check '(2,4):(4,1)' --draw " + f);
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_EQ(slurp(f).find("data-mark"), std::string::npos);
  std::filesystem::remove(f);
  expect_input_error("layout size '(2,4):(4,1)' --draw " + f, "--draw goes with");
  expect_input_error("layout check '(128,129):(1,128)' --draw " + f, "draw-too-large");
}

// `shard check --draw`: shard((2,2,2):(0,1,1); S(0),B; x=2,y=2) on rmem puts columns 1 and 2 of
// the logical (2,4) at offset a + b = 1 of their row's engines (draw/tests derives it); the check
// exits 1 and the picture marks those four cells. `shard assemble --draw`: engine 3 holds 99 where
// its Broadcast replica (engine 2) holds 4, so element (1,1) is marked and assemble exits 3.
TEST(DrawCli, ShardCheckAndAssembleDrawTheOffendingElements) {
  const std::string f = temp("shard-check.svg");
  auto r = run_tfspec("shard check 'shard((2,2,2):(0,1,1); S(0),B; x=2,y=2)' analysis rmem '(2,4)' --draw " + f);
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("[shard-injective §2]"), std::string::npos) << r.out;
  std::string svg = slurp(f);
  for (const char* rc : {"data-row=\"0\" data-col=\"1\"", "data-row=\"0\" data-col=\"2\"", "data-row=\"1\" data-col=\"1\"", "data-row=\"1\" data-col=\"2\""})
    EXPECT_NE(svg.find(std::string(rc) + " data-label=\"#" ), std::string::npos) << rc;
  size_t marks = 0;
  for (size_t at = svg.find("data-mark=\"collision\""); at != std::string::npos; at = svg.find("data-mark=\"collision\"", at + 1)) ++marks;
  EXPECT_EQ(marks, 4u) << svg;
  std::filesystem::remove(f);

  const std::string engines = R"('{"storage":"rmem","buffers":{"0":[0,1,2],"1":[0,1,2],"2":[3,4,5],"3":[3,99,5]}}')";
  auto a = run_tfspec("shard assemble 'shard((2,3):(0,1); S(0),B; x=2,y=2)' '(2,3)' " + engines + " --draw " + f);
  EXPECT_EQ(a.rc, 3) << a.out;
  EXPECT_NE(a.out.find("[replica-mismatch §6]"), std::string::npos) << a.out;
  svg = slurp(f);
  EXPECT_NE(svg.find("data-row=\"1\" data-col=\"1\" data-label=\"#2=4 #3=99\" data-mark=\"replica-mismatch\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("data-mark", svg.find("data-mark") + 1), std::string::npos);  // one mark
  std::filesystem::remove(f);

  expect_input_error("shard canon '(6 @ m.y) on x=2,y=3' --draw " + f, "--draw goes with `shard check` and `shard assemble`");
  // `shard draw` of that layout refuses with the check's rule and points at the check picture
  expect_input_error("shard draw 'shard((2,2,2):(0,1,1); S(0),B; x=2,y=2)' '(2,4)' rmem", "[shard-injective §2]");
  expect_input_error("shard draw 'shard((2,2,2):(0,1,1); S(0),B; x=2,y=2)' '(2,4)' rmem", "`tfspec shard check LAYOUT - rmem SHAPE --draw FILE`");
  expect_input_error("shard assemble 'shard((2,3):(0,1); S(0),B; x=2,y=2)' '(2,3)' '{\"storage\":1}' --draw " + f, "json-type");
}

// conform --html: a corpus with one case whose expected layout is deliberately wrong, so the
// reference's (right) answer fails it and both answers are drawn. (4,8):(8,1) o (2,2):(1,4) is
// (2,2):(8,1) (README); the corpus here expects (2,2):(1,8).
TEST(DrawCli, ConformHtmlReport) {
  const std::string dir = temp("corpus");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/wrong.json") << R"J({"format": 1, "made_by": "hand: a planted wrong expectation for the HTML report test",
 "cases": [
  {"id": "w-composition", "clause": "§3", "op": "composition", "args": {"a": "(4,8):(8,1)", "tiler": "(2,2):(1,4)"}, "expect": "(2,2):(1,8)", "note": "planted: the right answer is (2,2):(8,1)", "source": "hand"},
  {"id": "w-size", "clause": "§3", "op": "size", "args": {"layout": "(2,3):(1,2)"}, "expect": 6, "note": "2*3", "source": "hand"}
 ]}
)J";
  const std::string html = temp("report.html");
  auto r = run_tfspec("conform --corpus " + dir + " --html " + html + " --quiet");
  EXPECT_EQ(r.rc, 1) << r.out;  // one case failed
  const std::string page = slurp(html);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>")) << page.substr(0, 200);
  EXPECT_NE(page.find("id=\"case-w-composition\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"case-w-size\""), std::string::npos);  // passed: not listed
  EXPECT_NE(page.find("<figure class=\"expected\">"), std::string::npos);
  EXPECT_NE(page.find("<figure class=\"actual\">"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(html);
}
