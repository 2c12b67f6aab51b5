// Issue 30 (reliability round 4), the command line: pictures that cannot be written, bank and
// vector-width requests past the model's bounds, swizzles in the fuzzer's backend, the algebra of
// a swizzled layout, a symbolic layout's check, option typos, and what `conform` says it tests.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

using tfspec::testing::last_line;
using tfspec::testing::run_tfspec;

namespace {

bool has(const std::string& out, const std::string& what) { return out.find(what) != std::string::npos; }

// Item 9: a picture that cannot be written is no picture (exit 3, output-write), never "wrote".
TEST(Round4Cli, APictureToAFullDiskIsAnError) {
  for (const char* args : {"draw '1:1' -o /dev/full", "layout check '1:1' --draw /dev/full",
                           "layout banks '(32,32):(1,32)' '(32,32):(32,1)' --elem-bytes 4 --draw /dev/full"}) {
    const auto r = run_tfspec(args);
    EXPECT_EQ(r.rc, 3) << args << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "output-write")) << args << "\n" << r.out;
    EXPECT_FALSE(has(r.out, "wrote ")) << args << "\n" << r.out;
  }
}

// Item 10: 2^60 (thread, value) pairs are refused before anything is allocated; an offset near
// INT64_MAX is the overflow rule, not undefined behaviour.
TEST(Round4Cli, BankRequestsPastTheModelsBoundsAreRefusedWithARule) {
  for (const char* op : {"banks", "vector_width"}) {
    const auto r = run_tfspec(std::string("layout ") + op + " '(1073741824,1073741824):(1,1073741824)' '(64,64):(64,1)' --elem-bytes 2");
    EXPECT_EQ(r.rc, 2) << op << "\n" << r.out;  // resource-limit is a Limit: undecided
    EXPECT_TRUE(has(r.out, "resource-limit")) << op << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "1152921504606846976 (thread, value) pairs")) << op << "\n" << r.out;
  }
  const auto served = run_tfspec("serve",
                                 R"j({"seq":1,"op":"banks","args":{"tv":"(1073741824,1073741824):(1,1073741824)","smem":"(64,64):(64,1)","elem_bytes":2}})j" "\n");
  EXPECT_TRUE(has(served.out, "\"rule\":\"resource-limit\"")) << served.out;
  const auto near_max = run_tfspec("layout banks '(32,1):(1,1)' '(2,32):(9223372036854775790,1)' --elem-bytes 1 --draw /tmp/tfspec-round4-banks.svg");
  EXPECT_EQ(near_max.rc, 2) << near_max.out;  // int64-overflow is a Limit: the reference cannot represent it
  EXPECT_TRUE(has(near_max.out, "int64-overflow")) << near_max.out;
}

// Item 12: swizzles are implemented in the optimized core; the replay compares them.
TEST(Round4Cli, TheFuzzerComparesSwizzledLayouts) {
  // 4:2 reaches 0, 2, 4, 6; Sw<1,0,1> xors bit 1 into bit 0: 0, 3, 4, 7.
  const auto r = run_tfspec("fuzz --replay 'offsets # Sw<1,0,1> o 0 o 4:2'");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(has(r.out, "host:      (0,3,4,7)")) << r.out;
  EXPECT_TRUE(has(r.out, "fuzz: AGREE")) << r.out;
  const auto sm = run_tfspec("fuzz --replay 'offsets # Sw<3,3,3> o 0 o (8,64):(64,1)'");
  EXPECT_EQ(sm.rc, 0) << sm.out;
  EXPECT_TRUE(has(sm.out, "fuzz: AGREE")) << sm.out;
}

// Item 13: the algebra of a swizzled layout: cosize answered (hand-derived in
// spec/corpus/x1-swizzle.json), the ops a ComposedLayout lacks refused by their own rule.
TEST(Round4Cli, SwizzledLayoutsAreReadAndAnsweredOrRefusedByRule) {
  EXPECT_EQ(last_line(run_tfspec("layout cosize 'Sw<1,0,1> o 0 o 2:2'").out), "4");
  EXPECT_EQ(last_line(run_tfspec("layout cosize 'Sw<3,3,3> o 0 o (8,64):(64,1)'").out), "512");
  for (const char* op : {"coalesce", "filter", "right_inverse", "left_inverse", "complement"}) {
    const auto r = run_tfspec(std::string("layout ") + op + " 'Sw<3,3,3> o 0 o (8,64):(64,1)'");
    EXPECT_EQ(r.rc, 3) << op << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "composed-algebra")) << op << "\n" << r.out;
    EXPECT_FALSE(has(r.out, "parse-error")) << op << "\n" << r.out;
  }
}

// Item 14: a symbolic layout needs concrete values for `check` as for `injective` (exit 3).
TEST(Round4Cli, CheckAndInjectiveAgreeOnASymbolicLayout) {
  const auto check = run_tfspec("layout check '(M,N):(1,M)'");
  const auto inj = run_tfspec("layout injective '(M,N):(1,M)'");
  EXPECT_EQ(check.rc, 3) << check.out;
  EXPECT_EQ(inj.rc, 3) << inj.out;
  EXPECT_TRUE(has(check.out, "needs-concrete")) << check.out;
  EXPECT_TRUE(has(inj.out, "needs-concrete")) << inj.out;
  EXPECT_TRUE(has(check.out, "tfspec prove")) << check.out;
  // A real violation is still one, the symbols listed with it.
  const auto broken = run_tfspec("layout check '(M,4):None'");
  EXPECT_EQ(broken.rc, 1) << broken.out;
  EXPECT_TRUE(has(broken.out, "stride-materialized")) << broken.out;
  EXPECT_TRUE(has(broken.out, "layout-concrete")) << broken.out;
}

// Item 15: option typos get the prefix and a suggestion, as commands and ops do.
TEST(Round4Cli, OptionTyposAreUsageErrorsWithASuggestion) {
  struct Typo {
    const char* args;
    const char* meant;
  };
  for (const Typo& t : {Typo{"conform --filer cosize", "--filter"}, Typo{"conform --imp reference", "--impl"},
                        Typo{"layout --asume 'M >= 1' size '(M,4):(1,M)'", "--assume"}}) {
    const auto r = run_tfspec(t.args);
    EXPECT_EQ(r.rc, 3) << t.args << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "error: [usage -]")) << t.args << "\n" << r.out;
    EXPECT_TRUE(has(r.out, std::string("did you mean `") + t.meant + "`")) << t.args << "\n" << r.out;
  }
}

// Item 1: without --impl, conform tests tfspec's own reference and says so on its first line.
TEST(Round4Cli, ConformWithoutImplSaysItTestsTheReference) {
  const auto r = run_tfspec("conform --quiet --filter s3-cosize");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "conform: testing tfspec's built-in reference implementation (no --impl given; --impl \"CMD\" tests yours)");
}

// Item 1, end to end: an adapter that skips everything tested nothing (exit 3).
TEST(Round4Cli, ConformOfAnAdapterThatSkipsEverythingIsAnInputError) {
  const std::string adapter =
      "python3 -c 'import sys, json\n"
      "for l in sys.stdin:\n"
      "    r = json.loads(l)\n"
      "    if r.get(\"cmd\") == \"start\": print(json.dumps({\"cmd\": \"start\", \"protocol\": 1, \"ops\": [\"cosize\"]}), flush=True)\n"
      "    elif \"op\" in r: print(json.dumps({\"seq\": r[\"seq\"], \"skipped\": {\"reason\": \"no\"}}), flush=True)\n"
      "    elif r.get(\"cmd\") == \"stop\": print(json.dumps({\"cmd\": \"stop\"}), flush=True); break\n"
      "'";
  const auto r = run_tfspec("conform --quiet --filter cosize --impl " + tfspec::testing::shell_quote(adapter));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_TRUE(has(r.out, "answered none of the")) << r.out;
  const auto allowed = run_tfspec("conform --quiet --filter cosize --allow-unsupported --impl " + tfspec::testing::shell_quote(adapter));
  EXPECT_EQ(allowed.rc, 0) << allowed.out;
  // The same for generated cases: all skipped compares nothing.
  // 3 s: on a loaded machine the adapter's start alone can take half a second (then no case ran at all)
  const auto fuzz = run_tfspec("conform --fuzz --seconds 3 --timeout-ms 2000 --impl " + tfspec::testing::shell_quote(adapter));
  EXPECT_EQ(fuzz.rc, 3) << fuzz.out;
  EXPECT_TRUE(has(fuzz.out, "generated cases were skipped: nothing was compared")) << fuzz.out;
}

}  // namespace
