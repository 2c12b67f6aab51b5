// The CuTe algebra on a linear layout (issue 44 item 10; docs/linear-layouts.md "The CuTe
// algebra"): read through its CuTe form (to_cute, the same flattened function) where that is a
// layout the op takes, else refused with linear-not-cute naming the op. Expected values by hand.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

std::string out_of(const std::string& args) {
  const auto r = run_tfspec(args);
  EXPECT_EQ(r.rc, 0) << args << "\n" << r.out;
  return r.out;
}

TEST(LinearAlgebraCli, OpsReadALinearLayoutThroughItsCuteForm) {
  // Bases 1, 2, 4 of one in-dim: the identity on [0, 8), 8:1.
  EXPECT_EQ(out_of("layout coalesce 'linear[x=[(1),(2),(4)] -> y=8]'"), "8:1\n");
  // 4:1 with cotarget 8: CuTe's complement 2:4.
  EXPECT_EQ(out_of("layout complement 'linear[x=[(1),(2)] -> y=8]' 8"), "2:4\n");
  // One mode per in-dim: a -> 4:1, b -> 2:8, so mode 1 is 2:8.
  EXPECT_EQ(out_of("layout mode 'linear[a=[(1),(2)], b=[(8)] -> y=16]' 1"), "2:8\n");
  // A = (4,2):(2,1) after B = 4:1 (the linear tiler): A(i) = 2i for i < 4, so 4:2.
  EXPECT_EQ(out_of("layout composition '(4,2):(2,1)' 'linear[x=[(1),(2)] -> y=4]'"), "4:2\n");
  // ... and as A: (x -> x) on [0, 8) after 4:2 is 4:2.
  EXPECT_EQ(out_of("layout composition 'linear[x=[(1),(2),(4)] -> y=8]' '4:2'"), "4:2\n");
}

// TV (32,32):(1,32) written as a linear layout (thread bits 1..16, value bits 32..512) through the
// padded (32,32):(33,1): offset 33 t + v, bank (t + v) % 32, distinct over t (x2-banks-padded):
// conflict-free, 32 wavefronts.
TEST(LinearAlgebraCli, BanksTakesALinearThreadValueLayout) {
  const auto r = run_tfspec("layout banks 'linear[t=[(1),(2),(4),(8),(16)], v=[(32),(64),(128),(256),(512)] -> i=1024]' '(32,32):(33,1)' --elem-bytes 4");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("wavefronts 32, ideal 32: conflict-free"), std::string::npos) << r.out;
}

// Sw<3,4,3> as a linear layout (x3-swizzle-343-eval): its CuTe form is Sw<3,4,3> o 0 o 1024:1, a
// ComposedLayout; coalesce takes a plain Layout, so it refuses, naming the op and the kind.
TEST(LinearAlgebraCli, AnOpThatTakesNoSwizzleRefusesNamingTheOpAndTheKind) {
  const auto r = run_tfspec("layout coalesce 'linear[offset=[(1),(2),(4),(8),(16),(32),(64),(144),(288),(576)] -> offset=1024]'");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("[linear-not-cute §2] coalesce takes a plain Layout as `layout`; the linear layout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Sw<3,4,3> o 0 o 1024:1"), std::string::npos) << r.out;
  // An op that takes a swizzled layout answers with one: logical_divide by 2:1 (X1: the outer's).
  const auto d = run_tfspec("layout logical_divide 'linear[offset=[(1),(2),(4),(8),(16),(32),(64),(144),(288),(576)] -> offset=1024]' 2:1");
  EXPECT_EQ(d.rc, 0) << d.out;
  EXPECT_NE(d.out.find("Sw<3,4,3> o 0 o (2,512):(1,2)"), std::string::npos) << d.out;
}

}  // namespace
