// Coordinate layouts (spec/CUTE_DSL.md §2.2): CuTe's basis strides `n@k` map an index to a tuple of
// coordinates (n times the unit vector of mode k). The layout ops that only scale A's strides are
// recomputed on the tuples encoded as integers; expected results are derived by hand below.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace {
namespace coordinate {

kernel::KernelReport check(const std::string& text) { return cute_dsl::check_module(cute_dsl::read_cute_ir(text)); }

// A copy: the reports here are temporaries.
Finding op_finding(const kernel::KernelReport& r, const std::string& name) {
  for (const Finding& f : r.findings)
    if (f.check == "layout-op" && f.subject == name) return f;
  ADD_FAILURE() << "no layout-op finding for " << name;
  return Finding{};
}

std::string one_op(const std::string& name, const std::string& a, const std::string& b, const std::string& result) {
  if (b.empty()) return "%r = " + name + "(%a) : (!cute.layout<\"" + a + "\">) -> !cute.layout<\"" + result + "\">\n";
  return "%r = " + name + "(%a, %b) : (!cute.layout<\"" + a + "\">, !cute.layout<\"" + b + "\">) -> !cute.layout<\"" + result + "\">\n";
}

// flash_attention_v2's composition (fixture line 837). A = ((2,2),1,8):((1@3,8@1),0,8@3): index
// j = j0 + 2 j1 + 4 j3 is the coordinate (0, 8 j1, 0, j0 + 8 j3). B = ((2,1),(2,8)):((2,0),(1,4)):
// index i = i0 + 2 i2 + 4 i3 (i1 of extent 1) is j = 2 i0 + i2 + 4 i3, so j0 = i2, j1 = i0,
// j3 = i3: the coordinate (0, 8 i0, 0, i2 + 8 i3), i.e. ((2,1),(2,8)):((8@1,0),(1@3,8@3)).
const std::string kA = "((2,2),1,8):((1@3,8@1),0,8@3)", kB = "((2,1),(2,8)):((2,0),(1,4))", kResult = "((2,1),(2,8)):((8@1,0),(1@3,8@3))";

}  // namespace coordinate
}  // namespace

TEST(CuteDslCoordinate, FlashAttentionsCompositionOfACoordinateLayoutAgrees) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/cutlass_flash_attention_v2.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_NE(ss.str().find(coordinate::kResult), std::string::npos);
  const kernel::KernelReport r = coordinate::check(ss.str());
  for (const Finding& f : r.findings) {
    if (f.check == "layout-op") {
      EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
    }
  }
  const Finding f = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.composition", coordinate::kA, coordinate::kB, coordinate::kResult)),
                                            "cute.composition");
  EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
  EXPECT_EQ(f.detail["coordinate_modes"], 4);
}

// Planted: the result's 8@3 made 4@3: index 4 (i3 = 1) is (0,0,0,4) in the IR, (0,0,0,8) by hand;
// its 8@1 made 8@2: index 1 (i0 = 1) is (0,0,8,0) in the IR, (0,8,0,0) by hand.
TEST(CuteDslCoordinate, AChangedBasisStrideIsAViolationNamingBothCoordinates) {
  const Finding scaled = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.composition", coordinate::kA, coordinate::kB, "((2,1),(2,8)):((8@1,0),(1@3,4@3))")),
                             "cute.composition");
  EXPECT_EQ(scaled.outcome, Outcome::Violation);
  EXPECT_EQ(scaled.rule, &rule::kCuteDslLayoutOp);
  EXPECT_EQ(scaled.detail["index"], 4);
  EXPECT_NE(scaled.message.find("(IR (0,0,0,4), reference (0,0,0,8))"), std::string::npos) << scaled.message;
  const Finding moved = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.composition", coordinate::kA, coordinate::kB, "((2,1),(2,8)):((8@2,0),(1@3,8@3))")),
                             "cute.composition");
  EXPECT_EQ(moved.outcome, Outcome::Violation);
  EXPECT_EQ(moved.detail["index"], 1);
  EXPECT_NE(moved.message.find("(IR (0,0,8,0), reference (0,8,0,0))"), std::string::npos) << moved.message;
}

// coalesce merges modes of one basis where extent x stride meets the next stride: (2,4):(1@0,2@0)
// is 8:1@0; (2,4):(1@0,1@1) keeps both (different coordinates); claiming 8:1@0 for it differs at
// index 2, (2,0) in the IR where the reference has (0,1).
TEST(CuteDslCoordinate, CoalesceMergesOnlyWithinOneCoordinate) {
  EXPECT_EQ(coordinate::op_finding(coordinate::check(coordinate::one_op("cute.coalesce", "(2,4):(1@0,2@0)", "", "8:1@0")), "cute.coalesce").outcome, Outcome::Ok);
  EXPECT_EQ(coordinate::op_finding(coordinate::check(coordinate::one_op("cute.coalesce", "(2,4):(1@0,1@1)", "", "(2,4):(1@0,1@1)")), "cute.coalesce").outcome,
            Outcome::Ok);
  const Finding f = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.coalesce", "(2,4):(1@0,1@1)", "", "8:1@0")), "cute.coalesce");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["index"], 2);
  EXPECT_NE(f.message.find("(IR (2,0), reference (0,1))"), std::string::npos) << f.message;
}

// B reaching past A's 4 points: 4:1@1 o 8:1. Inside A's domain (i < 4) the coordinate is (0, i);
// past it the result is D15's convention. An IR answer (4,2):(1@1,0) that differs only at i >= 4
// is undecided, never a violation; one that differs inside ((4,2):(2@1,4@1) at i = 1) is one.
TEST(CuteDslCoordinate, ADifferencePastAsDomainIsUndecided) {
  const Finding past = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.composition", "4:1@1", "8:1", "(4,2):(1@1,0)")), "cute.composition");
  EXPECT_EQ(past.outcome, Outcome::Undecided) << past.message;
  EXPECT_EQ(past.detail["past_domain"], true);
  const Finding inside = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.composition", "4:1@1", "8:1", "(4,2):(2@1,4@1)")), "cute.composition");
  EXPECT_EQ(inside.outcome, Outcome::Violation) << inside.message;
  EXPECT_EQ(inside.detail["index"], 1);
}

// What §2.2 does not read, skipped saying why: an op whose algebra does more than scale A's strides
// (right_inverse of a coordinate layout), a plain stride beside basis strides (CuTe's meaning of
// an integer in a coordinate tuple is not modelled), a nested basis `1@0@1`.
TEST(CuteDslCoordinate, WhatItDoesNotReadIsSkippedSayingWhy) {
  const Finding inv = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.right_inverse", "(2,4):(1@0,1@1)", "", "8:1")), "cute.right_inverse");
  EXPECT_EQ(inv.outcome, Outcome::Skipped);
  EXPECT_NE(inv.message.find("only scales"), std::string::npos) << inv.message;
  const Finding mixed = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.coalesce", "(2,4):(1@0,2)", "", "(2,4):(1@0,2)")), "cute.coalesce");
  EXPECT_EQ(mixed.outcome, Outcome::Skipped);
  EXPECT_NE(mixed.message.find("a plain stride 2"), std::string::npos) << mixed.message;
  const Finding nested = coordinate::op_finding(coordinate::check(coordinate::one_op("cute.coalesce", "(2,4):(1@0@1,2@0)", "", "(2,4):(1@0@1,2@0)")), "cute.coalesce");
  EXPECT_EQ(nested.outcome, Outcome::Skipped);
}
