// Issue 25, the command line as a new user meets it: unknown words are named with the nearest
// command or op, both spellings of an op name work (CuTe's `logical_divide` and `logical-divide`),
// argument-count errors read naturally, and `--version` names the version and the commit.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::last_line;
using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

void expect_suggestion(const std::string& args, const std::string& suggestion) {
  SCOPED_TRACE(args);
  auto r = run_tfspec(args);
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("did you mean `" + suggestion + "`?"), std::string::npos) << r.out;
}

TEST(Usability, UnknownCommandNamesTheNearest) {
  expect_suggestion("layuot size '(2,3)'", "layout");
  expect_suggestion("drwa '(2,3)'", "draw");
  expect_suggestion("porve injective '(M,N):(1,M)'", "prove");
  auto r = run_tfspec("layuot");
  EXPECT_NE(r.out.find("unknown command 'layuot'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("A subcommand is required"), std::string::npos) << r.out;
}

TEST(Usability, FarWordGetsNoGuess) {
  auto r = run_tfspec("zzzzzzzzzz");
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.out.find("unknown command 'zzzzzzzzzz'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("did you mean"), std::string::npos) << r.out;
}

TEST(Usability, UnknownOpNamesTheNearest) {
  expect_suggestion("layout compostion '(4,8):(8,1)' '(2,2):(1,4)'", "composition");
  expect_suggestion("layout logical_dvide '(4,8):(8,1)' '(2:1,4:1)'", "logical_divide");
  expect_suggestion("shard locl-shape '(2 @ m.x)' x=2", "local-shape");
}

TEST(Usability, BothSpellingsOfAnOp) {
  // docs/layout-algebra.md's logical_divide example, by hand: A = (4,8):(8,1), tiler (2:1,4:1) by mode: mode 0
  // (4:8) divided by 2:1 -> (2,2):(8,16); mode 1 (8:1) by 4:1 -> (4,2):(1,4).
  const std::string expected = "((2,2),(4,2)):((8,16),(1,4))";
  auto a = run_tfspec("layout logical_divide '(4,8):(8,1)' '(2:1,4:1)'");
  auto b = run_tfspec("layout logical-divide '(4,8):(8,1)' '(2:1,4:1)'");
  EXPECT_EQ(a.rc, 0) << a.out;
  EXPECT_EQ(b.rc, 0) << b.out;
  EXPECT_EQ(last_line(a.out), expected);
  EXPECT_EQ(last_line(b.out), expected);
  // local shape, by hand: the sugar canonicalizes to G = (2,4,3,32,4) (D5: 12 @ m.y with y=4 is
  // (4 @ m.y, 3), 128 @ m.t with t=32 is (32 @ m.t, 4)); G[k] / extent on the Split dims 0, 1, 3.
  auto c = run_tfspec("shard local-shape '(2 @ m.x, 12 @ m.y, 128 @ m.t)' x=2,y=4,t=32");
  auto d = run_tfspec("shard local_shape '(2 @ m.x, 12 @ m.y, 128 @ m.t)' x=2,y=4,t=32");
  EXPECT_EQ(c.rc, 0) << c.out;
  EXPECT_EQ(last_line(c.out), "(1,1,3,1,4)");
  EXPECT_EQ(last_line(d.out), "(1,1,3,1,4)");
}

TEST(Usability, BothSpellingsOfReshardPlan) {
  const std::string args = " '(8 @ m.x, 4) on x=4,y=2' '(8, 4) on x=4,y=2' '(8,4)'";
  auto a = run_tfspec("reshard-plan" + args);
  auto b = run_tfspec("reshard_plan" + args);
  EXPECT_EQ(a.rc, 0) << a.out;
  EXPECT_EQ(b.rc, 0) << b.out;
  EXPECT_EQ(a.out, b.out);
}

TEST(Usability, BothSpellingsOverTheProtocol) {
  auto r = run_tfspec("serve",
                      "{\"cmd\":\"start\",\"protocol\":1}\n"
                      "{\"seq\":1,\"op\":\"logical-divide\",\"args\":{\"a\":\"(4,8):(8,1)\",\"tiler\":\"(2:1,4:1)\"}}\n");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"seq\":1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"error\""), std::string::npos) << r.out;
}

TEST(Usability, ArgumentCountReadsNaturally) {
  auto r = run_tfspec("layout composition '(4,8):(8,1)'");
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.out.find("`composition` takes 2 or 3 arguments (a, tiler, [domain]); 1 given"), std::string::npos) << r.out;
  r = run_tfspec("layout size");
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.out.find("`size` takes 1 argument (layout); 0 given"), std::string::npos) << r.out;
}

TEST(Usability, VersionNamesVersionAndCommit) {
  auto r = run_tfspec("--version");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.rfind("tfspec 0.1.0 (commit ", 0), 0u) << r.out;
  // The commit is the checkout's own when the source is a git checkout.
  std::string cmd = std::string("git -C ") + shell_quote(TFSPEC_SOURCE_DIR) + " rev-parse --short=12 HEAD 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[64] = {0};
  const bool have_git = p && std::fgets(buf, sizeof buf, p) != nullptr;
  if (p) pclose(p);
  if (have_git) {
    std::string head(buf);
    while (!head.empty() && head.back() == '\n') head.pop_back();
    EXPECT_NE(r.out.find("(commit " + head), std::string::npos) << r.out << " vs HEAD " << head;
  } else {
    EXPECT_NE(r.out.find("(commit unknown)"), std::string::npos) << r.out;
  }
}

}  // namespace

namespace {

using tfspec::testing::run_tfspec;

// Issue 25: `--assume` (like every repeatable option) takes exactly one value per occurrence, so
// its place on the line does not change the command. (M,N):(1,K) with K < M: N = 2 puts (K,0)
// and (0,1) on offset K, so the goal is refuted (exit 1) whichever order the words come in.
TEST(Usability, RepeatableOptionTakesOneValue) {
  auto after = run_tfspec("prove injective '(M,N):(1,K)' --assume 'K < M'");
  auto before = run_tfspec("prove --assume 'K < M' injective '(M,N):(1,K)'");
  auto middle = run_tfspec("prove injective --assume 'K < M' '(M,N):(1,K)'");
  EXPECT_EQ(after.rc, 1) << after.out;
  EXPECT_EQ(before.rc, after.rc) << before.out;
  EXPECT_EQ(middle.rc, after.rc) << middle.out;
  EXPECT_NE(before.out.find("REFUTED"), std::string::npos) << before.out;
  EXPECT_NE(middle.out.find("REFUTED"), std::string::npos) << middle.out;
}

TEST(Usability, RepeatedFilterOptionsEachTakeOne) {
  // `--filter A B` is one filter and a stray positional, refused, rather than two filters.
  auto r = run_tfspec("conform --filter size composition --quiet");
  EXPECT_EQ(r.rc, 3) << r.out;
}

}  // namespace

namespace {

TEST(Usability, ProveGoalsReadNaturally) {
  auto r = tfspec::testing::run_tfspec("prove injective");
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.out.find("`prove injective` takes 1 argument (layout); 0 given"), std::string::npos) << r.out;
  r = tfspec::testing::run_tfspec("prove injectve '(M,N):(1,M)'");
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.out.find("did you mean `injective`?"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// Issue 25: assumptions take powers. With M, N <= 2^15 the largest offset of (M,N):(1,M) is
// (M-1) + (N-1)*M = M*N - 1 <= 2^30 - 1, inside int32: PROVED (exit 0), whichever spelling.
TEST(Usability, AssumptionsTakePowers) {
  auto r = tfspec::testing::run_tfspec("prove fits-int32 '(M,N):(1,M)' --assume 'M <= 2^15' --assume 'N <= 2**15'");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("PROVED"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// Issue 25: an UNKNOWN that skipped the bounded strategies for want of bounds says what would
// help. gcd(M,N) == 1 (M*X - N*Y == 1) makes (M,N):(N,M) injective, beyond Z3's nonlinear
// reasoning within 1 s, and no symbol has an upper bound: the hint names M (the first symbol).
TEST(Usability, UnknownSaysWhatWouldHelp) {
  auto r = tfspec::testing::run_tfspec("prove injective '(M,N):(N,M)' --assume 'M*X - N*Y == 1' --timeout 1");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("  hint: add bounds for M, e.g. --assume '1 <= M <= 65536'"), std::string::npos) << r.out;
  auto j = tfspec::testing::run_tfspec("prove injective '(M,N):(N,M)' --assume 'M*X - N*Y == 1' --timeout 1 --json");
  EXPECT_NE(j.out.find("\"hint\":\"add bounds for M"), std::string::npos) << j.out;
}

}  // namespace

namespace {

using tfspec::testing::run_tfspec;

// Issue 36: help shows what an option takes: one value per occurrence (`--assume TEXT`, repeated
// for more), never `--assume TEXT ...`, in every command's help.
TEST(Usability, HelpShowsOneValuePerOccurrence) {
  auto prove = run_tfspec("prove --help");
  EXPECT_NE(prove.out.find("--assume TEXT  "), std::string::npos) << prove.out;
  for (const char* cmd : {"layout", "shard", "prove", "serve", "fuzz", "conform", "propagate", "reshard-plan", "reshard-run",
                          "draw", "shard draw", "layout print"}) {
    auto r = run_tfspec(std::string(cmd) + " --help");
    SCOPED_TRACE(cmd);
    EXPECT_EQ(r.rc, 0) << r.out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("  -", 0) == 0) {
        EXPECT_EQ(line.find(" ..."), std::string::npos) << line;
      }
  }
}

// Issue 36: `GROUP --list` lists only what `tfspec GROUP NAME` runs: every listed name reaches
// its op (an argument-count message or an answer, never "unknown"), and `propagate`, a protocol
// op of the layout group that is a command of its own (`tfspec propagate FILE`), is not listed.
TEST(Usability, ListNamesOnlyWhatTheGroupRuns) {
  for (const std::string group : {"layout", "shard"}) {
    auto list = run_tfspec(group + " --list");
    ASSERT_EQ(list.rc, 0) << list.out;
    std::istringstream lines(list.out);
    int names = 0;
    for (std::string line; std::getline(lines, line); ++names) {
      const std::string name = line.substr(0, line.find(' '));
      SCOPED_TRACE(group + " " + name);
      auto r = run_tfspec(group + " " + name);
      EXPECT_EQ(r.out.find("unknown " + group + " operation"), std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("a command of its own"), std::string::npos) << r.out;
      EXPECT_NE(name, "propagate");
    }
    EXPECT_GT(names, 10) << list.out;
  }
  auto r = run_tfspec("layout propagate '{}'");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("`propagate` is a command of its own: tfspec propagate --help"), std::string::npos) << r.out;
}

}  // namespace
