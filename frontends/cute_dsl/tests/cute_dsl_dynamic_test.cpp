// §2.1 of spec/CUTE_DSL.md: layout ops whose operands carry `?{div=N}` values validated on the
// reference's symbolic algebra (each such value N*s, s >= 1). Expected outcomes derived by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace {

std::vector<Finding> layout_ops(const std::string& ir) {
  std::vector<Finding> out;
  for (const Finding& f : cute_dsl::check_module(cute_dsl::read_cute_ir(ir)).findings)
    if (f.check == "layout-op") out.push_back(f);
  return out;
}

std::string one_op(const std::string& op, const std::string& operands, const std::string& result) {
  return "%r = cute." + op + " : (" + operands + ") -> !cute.layout<\"" + result + "\">\n";
}

std::string gemm() {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/gemm_f16_128x128x32_atoms4x2.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kDynamicInverse = "!cute.layout<\"((2,2),2,8):((1,?{i64 div=1024}),?{i64 div=8192},16)\">) -> !cute.layout<\"2:1\">";

}  // namespace

// right_inverse(((2,2),2,8):((1,1024a),8192b,16)), a, b >= 1: by stride, 1 (extent 2) comes first;
// the next mode would need stride 2, and the others are 16, 1024a, 8192b: the inverse is 2:1 for
// every a, b. The fixture's op says 2:1: ok, and no dynamic op is left unchecked.
TEST(CuteDslDynamic, TheGemmsDynamicRightInverseHoldsForEveryMultiple) {
  const std::string ir = gemm();
  ASSERT_NE(ir.find(kDynamicInverse), std::string::npos);
  int dynamic_ok = 0;
  for (const Finding& f : layout_ops(ir)) {
    EXPECT_NE(f.subject, "dynamic layout ops") << f.message;
    if (f.subject == "cute.right_inverse" && f.message.find("?{i64 div=1024}") != std::string::npos) {
      EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
      ++dynamic_ok;
    }
  }
  EXPECT_GE(dynamic_ok, 1);
  // Planted: the result type 4:1 (size 4 where the inverse has 2 points) is a violation at that op.
  std::string bad = ir;
  bad.replace(bad.find(kDynamicInverse), kDynamicInverse.size(),
              "!cute.layout<\"((2,2),2,8):((1,?{i64 div=1024}),?{i64 div=8192},16)\">) -> !cute.layout<\"4:1\">");
  int violations = 0;
  for (const Finding& f : layout_ops(bad)) violations += f.outcome == Outcome::Violation && f.subject == "cute.right_inverse";
  EXPECT_EQ(violations, 1);
}

// (8,16s):(1,8) o 4:2 reads A at 0, 2, 4, 6, all inside its first mode (extent 8): 4:2 for every s.
TEST(CuteDslDynamic, ACompositionWithADynamicExtent) {
  const std::string a = "!cute.layout<\"(8,?{div=16}):(1,8)\">, !cute.layout<\"4:2\">";
  std::vector<Finding> f = layout_ops(one_op("composition(%a, %b)", a, "4:2"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].outcome, Outcome::Ok) << f[0].message;
  f = layout_ops(one_op("composition(%a, %b)", a, "4:3"));  // 3 != 2 at index 1
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].outcome, Outcome::Violation) << f[0].message;
  EXPECT_EQ(f[0].rule->id, std::string("cute-dsl-layout-op"));
}

// coalesce((2,4s):(1,2)) = 8s:1 (2*1 = 2: the modes merge). The IR's `?{div=8}` holds 8s (a
// multiple of 8 for every s); `?{div=16}` claims more than s >= 1 gives (s = 1: 8): undecided, not
// a violation (s even would do); a stride 2 where the answer has 1 is a violation.
TEST(CuteDslDynamic, ADynamicResultIsCheckedByItsDivisibility) {
  const std::string a = "!cute.layout<\"(2,?{div=4}):(1,2)\">";
  const auto outcome = [&](const std::string& r) {
    const std::vector<Finding> f = layout_ops(one_op("coalesce(%a)", a, r));
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? Outcome::Skipped : f[0].outcome;
  };
  EXPECT_EQ(outcome("?{div=8}:1"), Outcome::Ok);
  EXPECT_EQ(outcome("?{div=16}:1"), Outcome::Undecided);
  EXPECT_EQ(outcome("?{div=8}:2"), Outcome::Violation);
}

// CUTLASS's tensorop_gemm.py with atoms (1,2,1) (64 threads) and A M-major composes
// A = ((8,1),(2,16),1):((1,0),(32s,1024),0) (s >= 1) with B = (8,16,2):(1,16,8). By hand, over A's
// shape (8,1,2,16,1) read colexicographically: B's 8:1 takes A's indices 0..7, offsets 0..7 (8:1);
// its 16:16 takes index 16j = coordinate (0,0,0,j,0), offset 1024j (16:1024); its 2:8 takes index 8
// = (0,0,1,0,0), offset 32s (2:32s). The result (8,16,2):(1,1024,32s) holds the IR's ?{div=32} for
// every s: ok. Folding alone kept a path no s takes (its answer 8 for 32s) and read a violation.
TEST(CuteDslDynamic, APathNoValueTakesIsDropped) {
  const std::string a = "!cute.layout<\"((8,1),(2,16),1):((1,0),(?{div=32},1024),0)\">, !cute.layout<\"(8,16,2):(1,16,8)\">";
  const auto outcome = [&](const std::string& r) {
    const std::vector<Finding> f = layout_ops(one_op("composition(%a, %b)", a, r));
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? Outcome::Skipped : f[0].outcome;
  };
  EXPECT_EQ(outcome("(8,16,2):(1,1024,?{div=32})"), Outcome::Ok);
  EXPECT_EQ(outcome("(8,16,2):(1,1024,?{div=64})"), Outcome::Undecided);  // 32s: a multiple of 64 for even s only
  EXPECT_EQ(outcome("(8,16,2):(1,512,?{div=32})"), Outcome::Violation);   // 512 where every s gives 1024
}

// The same kernel's coalesce((8,16,2):(1,1024,32s)): CuTe merges adjacent modes only where
// shape * stride equals the next stride for every value. 8*1 = 8 != 1024; 16*1024 = 16384 = 32s
// only at s = 512, so nothing merges and the DSL answers the operand itself. Reading the merge
// that s = 512 allows (8,32):(1,1024) as the reference's answer differed in structure (undecided);
// each mode coalesced alone gives (8,16,2):(1,1024,32s), the IR's type: ok. A stride changed in
// the result (512 for 1024) is still a violation; a result of another rank is compared with the
// full coalesce (ADynamicResultIsCheckedByItsDivisibility).
TEST(CuteDslDynamic, ACoalesceKeepingTheRankIsComparedModeByMode) {
  const std::string a = "!cute.layout<\"(8,16,2):(1,1024,?{div=32})\">";
  const auto outcome = [&](const std::string& r) {
    const std::vector<Finding> f = layout_ops(one_op("coalesce(%a)", a, r));
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? Outcome::Skipped : f[0].outcome;
  };
  EXPECT_EQ(outcome("(8,16,2):(1,1024,?{div=32})"), Outcome::Ok);
  EXPECT_EQ(outcome("(8,16,2):(1,512,?{div=32})"), Outcome::Violation);
}

// tensorop_gemm 256x128x64, atoms (1,1,1): coalesce((8,32,(2,2)):(1,1024,(16a,32b))) typed
// (8,32,2,2):(1,1024,?{div=16},?{div=32}). CuTe flattens to 8:1, 32:1024, 2:16a, 2:32b and merges
// a mode into the one before only where shape * stride == stride holds statically: 8*1 = 8 !=
// 1024, and the other two pairs hold a dynamic stride: nothing merges, rank 4, the IR's type: ok
// (16a a multiple of 16, 32b of 32). The full merge forks (32*1024 == 16a at a = 2048; 32a == 32b)
// and read as undecided. A static stride changed (1024 -> 512) is still a violation.
TEST(CuteDslDynamic, ACoalesceIsComparedWithCutesStaticMerge) {
  const std::string a = "!cute.layout<\"(8,32,(2,2)):(1,1024,(?{div=16},?{div=32}))\">";
  const auto outcome = [&](const std::string& r) {
    const std::vector<Finding> f = layout_ops(one_op("coalesce(%a)", a, r));
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? Outcome::Skipped : f[0].outcome;
  };
  EXPECT_EQ(outcome("(8,32,2,2):(1,1024,?{div=16},?{div=32})"), Outcome::Ok);
  EXPECT_EQ(outcome("(8,32,2,2):(1,512,?{div=16},?{div=32})"), Outcome::Violation);
  EXPECT_EQ(outcome("(8,32,2,2):(1,1024,?{div=32},?{div=32})"), Outcome::Undecided);  // 16a: a multiple of 32 for even a only
}
