// CUTLASS's Hopper GEMM (examples/python/CuTeDSL/cute/hopper/kernel/dense_gemm/dense_gemm.py,
// compiled for sm_90a by fixtures/regen.py) through the op-by-op checks of spec/CUTE_DSL.md §6:
// the target read off the atoms, wgmma's shared-memory operands against the canonical GMMA
// atoms, the shared-memory footprint. Expected values are derived by hand in each test.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace {

const std::string kDir = std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/";
const std::string kHopper = "cutlass_hopper_dense_gemm_128x128.mlir";

std::string text_of(const std::string& name) {
  std::ifstream in(kDir + name);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

std::string swapped(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the fixture no longer holds: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

kernel::KernelReport report(const std::string& text) { return cute_dsl::check_module(cute_dsl::read_cute_ir(text)); }

const Finding* find(const kernel::KernelReport& r, const std::string& check, const std::string& subject) {
  for (const Finding& f : r.findings)
    if (f.check == check && f.subject == subject) return &f;
  return nullptr;
}

// The A and B views: 128 rows (M or N) x 64 K f16 per stage, 7 stages, `S<3,4,3>` on the pointer.
const std::string kView = "S<3,4,3>, \"((8,16),(64,1),(1,7)):((64,512),(1,0),(0,8192))\"";

}  // namespace

// The atoms name the target: `cute_nvgpu.sm90.mma<...>` and `tma_load<sm_90, ...>` (sm90); the
// Ampere GEMMs' `sm80.mma<` (sm80); the elementwise add names none (sm80, said to be assumed).
TEST(CuteDslSm90, TheTargetIsTheOneTheAtomsName) {
  EXPECT_EQ(report(text_of(kHopper)).arch, "sm90");
  EXPECT_EQ(report(text_of("gemm_f16_64x64x32_atoms2x2.mlir")).arch, "sm80");
  const kernel::KernelReport add = report(text_of("elementwise_add_f16.mlir"));
  EXPECT_EQ(add.arch, "sm80");
  ASSERT_NE(find(add, "reader", "the IR"), nullptr);
  EXPECT_NE(find(add, "reader", "the IR")->message.find("assumed"), std::string::npos);
}

// Hand derivation: S<3,4,3> on byte addresses of 2-byte elements is Sw<3,3,3> on element offsets:
// offset bits 3-5 (the 16-byte chunk) XOR bits 6-8. The stage tile ((8,16),(64,1)):((64,512),(1,0))
// puts row m at (m % 8) * 64 + (m / 8) * 512 and k at +k: each 8-row group is 8 rows of 64
// contiguous K elements (128 bytes) at a 512-element (1024-byte) aligned start, swizzled by the
// row (bits 6-8 = m % 8): wgmma's K-major 128-byte swizzled atom, 8 x 64 elements, tiled down M.
TEST(CuteDslSm90, WgmmaReadsBothOperandsAsKMajor128ByteAtoms) {
  const kernel::KernelReport r = report(text_of(kHopper));
  for (const char* who : {"A mma (smem)", "B mma (smem)"}) {
    const Finding* f = find(r, "agreement", who);
    ASSERT_NE(f, nullptr) << who;
    EXPECT_EQ(f->outcome, Outcome::Ok) << f->message;
    EXPECT_EQ(f->detail["atom_bytes"], 128) << who;
    EXPECT_EQ(f->detail["major"], "k") << who;
    EXPECT_EQ(f->detail["tile"], Json::array({128, 64})) << who;
    EXPECT_EQ(f->detail["stages"], 7) << who;
    EXPECT_FALSE(f->loc.empty());
  }
}

// Planted: the MMA declares A MN-major (`ab_major = (mn, k)`) over the same K-major tile: the
// descriptor would walk the tile the other way, a violation at A's partition; B still agrees.
TEST(CuteDslSm90, AnOperandLaidOutAgainstItsDeclaredMajorIsAViolation) {
  const kernel::KernelReport r = report(swapped(text_of(kHopper), "ab_major = (k, k)", "ab_major = (mn, k)"));
  const Finding* a = find(r, "agreement", "A mma (smem)");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->outcome, Outcome::Violation);
  ASSERT_NE(a->rule, nullptr);
  EXPECT_EQ(std::string(a->rule->id), "kernel-gmma-layout");
  EXPECT_NE(a->message.find("ab_major mn"), std::string::npos) << a->message;
  ASSERT_NE(find(r, "agreement", "B mma (smem)"), nullptr);
  EXPECT_EQ(find(r, "agreement", "B mma (smem)")->outcome, Outcome::Ok);
}

// Planted: the swizzle removed from A's view. Row m's 64 elements then sit (m % 8) * 64 apart:
// rows 128 bytes apart, which no canonical atom has (the unswizzled one packs its 8 rows of 16
// bytes contiguously, 8 elements apart): not a canonical GMMA layout, undecided as kernel/ says.
TEST(CuteDslSm90, AnUnswizzledOperandIsNoCanonicalGmmaLayout) {
  const std::string text = text_of(kHopper);
  const std::string alias = "!memref_smem_f16 = !cute.memref<f16, smem, align<1024>, " + kView + ">";
  const kernel::KernelReport r = report(swapped(text, alias, "!memref_smem_f16 = !cute.memref<f16, smem, align<1024>, \"((8,16),(64,1),(1,7)):((64,512),(1,0),(0,8192))\">"));
  for (const char* who : {"A mma (smem)", "B mma (smem)"}) {  // both partitions read this one alias
    const Finding* f = find(r, "agreement", who);
    ASSERT_NE(f, nullptr) << who;
    EXPECT_EQ(f->outcome, Outcome::Undecided) << f->message;
    ASSERT_NE(f->rule, nullptr);
    EXPECT_EQ(std::string(f->rule->id), "kernel-gmma-layout");
  }
}

// The footprint: the kernel's one shared allocation is `230400:1` bytes: the pipeline's barriers
// (112 B, padded to the 1024-byte aligned sA), sA and sB of 7 stages x 128 x 64 x 2 B = 114688 B
// each: 1024 + 2 x 114688 = 230400 <= sm90's 228 KiB (233472 B). Planted: 240000 B does not fit.
TEST(CuteDslSm90, TheFootprintIsTheAllocationAgainstSm90sLimit) {
  const std::string text = text_of(kHopper);
  const kernel::KernelReport r = report(text);
  const Finding* f = find(r, "footprint", "shared memory");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->outcome, Outcome::Ok) << f->message;
  EXPECT_EQ(f->detail["bytes"], 1024 + 2 * 7 * 128 * 64 * 2);
  EXPECT_EQ(f->detail["limit"], 228 * 1024);
  const kernel::KernelReport big = report(swapped(text, "\"230400:1\"", "\"240000:1\""));
  const Finding* g = find(big, "footprint", "shared memory");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outcome, Outcome::Violation);
  ASSERT_NE(g->rule, nullptr);
  EXPECT_EQ(std::string(g->rule->id), "kernel-smem-footprint");
}

// The TMA loads (spec/CUTE_DSL.md §6): the atom's `tma_gbasis = (64,128,1):(1@1,1@0,1@2)` is a box
// of 64 along the tensor's mode 1 (K, TMA's innermost dimension, so K is contiguous) by 128 along
// mode 0 (rows): a 128x64 box, the whole 128x64 stage tile, 128 bytes along K, the 128B mode's
// span (the view's S<3,4,3>). The tile is where that mode writes: rows 128 bytes apart in 8-row
// groups 1024 bytes apart, each 16-byte chunk XORed with its row's low three bits.
TEST(CuteDslSm90, TheTmaBoxesFillEachStageWhereTheModeWrites) {
  const kernel::KernelReport r = report(text_of(kHopper));
  for (const char* who : {"A g2s", "B g2s"}) {
    const Finding* box = find(r, "coverage", who);
    ASSERT_NE(box, nullptr) << who;
    EXPECT_EQ(box->outcome, Outcome::Ok) << box->message;
    EXPECT_EQ(box->detail["box"], Json::array({128, 64}));
    EXPECT_EQ(box->detail["boxes"], 1);
    EXPECT_EQ(box->detail["inner_bytes"], 128);
    const Finding* place = find(r, "agreement", std::string(who) + " (tma)");
    ASSERT_NE(place, nullptr) << who;
    EXPECT_EQ(place->outcome, Outcome::Ok) << place->message;
    EXPECT_EQ(place->detail["span_bytes"], 128);
  }
}

// Planted: A's box walks M innermost (`(128,64,1):(1@0,1@1,1@2)`, the same 131072 bits): 128 f16
// along M are 256 bytes, more than the 128B mode's span: a `kernel-tma-box` violation.
TEST(CuteDslSm90, ATmaBoxAlongTheWrongModeIsAViolation) {
  const std::string text = text_of(kHopper);
  const std::string a_load = "tma_partition(%arg0, %coord_201, %lay_177, %grouped, %grouped_190) : (!cute_nvgpu.atom.non_exec_tiled_tma_load<sm_90, f16, copy_bits = 131072, tma_gbasis = <\"(64,128,1):(1@1,1@0,1@2)\">";
  std::string planted = a_load;
  planted.replace(planted.find("(64,128,1):(1@1,1@0,1@2)"), 24, "(128,64,1):(1@0,1@1,1@2)");
  const kernel::KernelReport r = report(swapped(text, a_load, planted));
  const Finding* a = find(r, "coverage", "A g2s");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->outcome, Outcome::Violation) << a->message;
  ASSERT_NE(a->rule, nullptr);
  EXPECT_EQ(std::string(a->rule->id), "kernel-tma-box");
  EXPECT_EQ(a->detail["inner_bytes"], 256);
  ASSERT_NE(find(r, "coverage", "B g2s"), nullptr);
  EXPECT_EQ(find(r, "coverage", "B g2s")->outcome, Outcome::Ok);
}

// Planted: the views' swizzle weakened to S<2,4,3> (the 64B mode): the box's 128 bytes along K
// exceed the 64-byte span (`kernel-tma-box`), and wgmma finds no canonical atom: the rows are
// 64 elements (128 bytes) but a 64-byte swizzle repeats every 32 elements (undecided).
TEST(CuteDslSm90, AWeakenedSwizzleBreaksTheTmaBoxAndTheGmmaAtom) {
  const std::string alias = "!memref_smem_f16 = !cute.memref<f16, smem, align<1024>, " + kView + ">";
  std::string weak = alias;
  weak.replace(weak.find("S<3,4,3>"), 8, "S<2,4,3>");
  const kernel::KernelReport r = report(swapped(text_of(kHopper), alias, weak));
  const Finding* box = find(r, "coverage", "A g2s");
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->outcome, Outcome::Violation) << box->message;
  EXPECT_EQ(box->detail["span_bytes"], 64);
  const Finding* mma = find(r, "agreement", "A mma (smem)");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->outcome, Outcome::Undecided) << mma->message;
}

// The host function of the full dump (not in the slimmed fixture) composes the TMA's coordinate
// layout, strides CuTe's basis vectors `1@0`: a map into coordinates, not offsets, which tfspec's
// notation does not read. Such an op is skipped saying so (as a static one is), never undecided,
// so a kernel with no other finding still checks ok (exit 0).
TEST(CuteDslSm90, ACoordinateLayoutOpIsSkippedNotUndecided) {
  const std::string op =
      "    %32 = cute.composition(%31, %tile) : (!cute.layout<\"(?{div=8},?{div=8},?):(1@0,1@1,1@2)\">, !cute.tile<\"[128:1;64:1]\">) -> "
      "!cute.layout<\"(128,64):(1@0,1@1)\">\n";
  const kernel::KernelReport r = report(text_of(kHopper) + op);
  const Finding* f = nullptr;
  for (const Finding& x : r.findings)
    if (x.check == "layout-op" && x.message.find("1@0") != std::string::npos) f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->outcome, Outcome::Skipped) << f->message;
  for (const Finding& x : r.findings) EXPECT_NE(x.outcome, Outcome::Undecided) << x.message;
}
