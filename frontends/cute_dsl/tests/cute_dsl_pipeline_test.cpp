// The kernel pipeline read from CuTe DSL IR (spec/CUTE_DSL.md §4) and kernel/'s checks on it: on the
// DSL's own dumps of our kernels and of CUTLASS's examples, and on planted faults. Every expected
// number is derived by hand in the test from the kernel's layouts and spec/SMEM.md's bank model
// (32 banks of 4 bytes; a 16-byte access is served 8 threads a phase, one wavefront when the 8
// threads' 4-word groups fall in distinct banks); the op lines are found in the fixture's text.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace {

const std::string kFixtures = std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/";

std::string fixture(const std::string& name) {
  std::ifstream in(kFixtures + name);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// Every occurrence of `from` replaced (a planted fault applies to each type that holds it).
std::string replaced_all(std::string text, const std::string& from, const std::string& to) {
  size_t n = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()), ++n) text.replace(at, from.size(), to);
  EXPECT_GT(n, 0u) << "the fixture no longer holds: " << from;
  return text;
}

// "line N" of the first line of `text` holding `needle` (the op a finding must name).
std::string line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return "line " + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

const Finding& find(const kernel::KernelReport& r, const std::string& check, const std::string& subject) {
  for (const Finding& f : r.findings)
    if (f.check == check && f.subject.rfind(subject, 0) == 0) return f;
  ADD_FAILURE() << "no " << check << " finding about " << subject;
  static const Finding none;
  return none;
}

kernel::KernelReport check(const std::string& text) { return cute_dsl::check_module(cute_dsl::read_cute_ir(text)); }

const std::string kOwn = "gemm_f16_64x64x32_atoms2x2.mlir";
const std::string kCutlass = "cutlass_tensorop_gemm_atoms2x2_a_k_b_n.mlir";

}  // namespace

// Our 64x64x32 GEMM (kernels.py): 2x2 atoms of the 32-thread 16x8x16 MMA = 128 threads; A and B are
// (64, 32) K-major tiles, one stage, Sw<3,3,3> over 8-row atoms of 32 f16 (tile_to_shape's result
// ((8,8),(32,1)):((32,256),(1,0))); ldmatrix x4 reads both; M, N, K are multiples of 64, 64, 32.
TEST(CuteDslPipeline, MapsOurGemmFromItsOps) {
  const cute_dsl::MappedPipeline mp = cute_dsl::map_pipeline(cute_dsl::read_cute_ir(fixture(kOwn)));
  ASSERT_TRUE(mp.pipeline) << (mp.unmapped.empty() ? "" : mp.unmapped[0]);
  const kernel::Pipeline& p = *mp.pipeline;
  EXPECT_EQ(p.threads, 128);
  EXPECT_EQ(std::vector<int64_t>({p.bm, p.bn, p.bk, p.stages}), std::vector<int64_t>({64, 64, 32, 1}));
  EXPECT_EQ(to_string(*p.a.smem), "Sw<3,3,3> o 0 o ((8,8),(32,1)):((32,256),(1,0))");
  ASSERT_TRUE(p.a.s2r);
  EXPECT_EQ(p.a.s2r->name, "SM75_U32x4_LDSM_N");
  EXPECT_EQ(p.a.g2s.atom_bits, 128);
  EXPECT_FALSE(p.a.predicated);  // cute.copy(%arg5, src, dst): no predicate operand
  // A's global (?{div=64},?{div=32}):(?{i64 div=32},1) reads as (s0,s1):(s2,1).
  EXPECT_EQ(to_string(p.a.global), "(s0,s1):(s2,1)");
  EXPECT_NE(std::find(p.assume.begin(), p.assume.end(), "s0 % 64 == 0"), p.assume.end());
}

// The swizzle keeps every ldmatrix phase conflict-free: phase 0 reads rows 0..7 of 8x8 matrix 0,
// row r at element 32 r, Sw<3,3,3> XORs r's bits 1..3 into the 16-byte chunk, so row r's 4 words
// start at bank (16 r + 4 (r >> 1)) mod 32 = 0,16,4,20,8,24,12,28: eight distinct groups.
TEST(CuteDslPipeline, OurGemmPassesEveryCheckAtItsOps) {
  const std::string text = fixture(kOwn);
  const kernel::KernelReport r = check(text);
  EXPECT_EQ(r.exit_code(), 0);
  const Finding& banks = find(r, "banks", "A s2r");
  EXPECT_EQ(banks.outcome, Outcome::Ok);
  EXPECT_EQ(banks.loc, line_of(text, "cute.tiled.copy.partition_S(%13, %view,"));
  // 128 threads x 32 values / 8 per access = 512 accesses, 8 a phase: 64 one-wavefront phases.
  EXPECT_EQ(banks.detail["wavefronts"], 64);
  EXPECT_EQ(find(r, "agreement", "A s2r").outcome, Outcome::Ok);
  EXPECT_EQ(find(r, "coverage", "A g2s").outcome, Outcome::Ok);
  // Footprint: (64 x 32 + 64 x 32) f16 x 1 stage = 8192 B.
  EXPECT_EQ(find(r, "footprint", "smem").detail["total_bytes"], 8192);
  EXPECT_EQ(find(r, "bounds", "s0 % 64 == 0").outcome, Outcome::Ok);
}

// Planted: the swizzle removed. Row r then starts at bank 16 r mod 32: rows 0, 2, 4, 6 share banks
// 0..3 (and 1, 3, 5, 7 banks 16..19): each phase takes 4 wavefronts, 4 x 64 = 256 for 64.
TEST(CuteDslPipeline, RemovedSwizzleIsAFourWayConflictAtTheLdmatrix) {
  const std::string text = replaced_all(fixture(kOwn), "S<3,3,3> o 0 o ", "");
  const kernel::KernelReport r = check(text);
  const Finding& f = find(r, "banks", "A s2r");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kKernelBankConflict);
  EXPECT_EQ(f.detail["degree"], 4);
  EXPECT_EQ(f.detail["wavefronts"], 256);
  EXPECT_EQ(f.detail["worst"]["threads"], Json::array({0, 2, 4, 6}));
  EXPECT_EQ(f.loc, line_of(text, "cute.tiled.copy.partition_S(%13, %view,"));
  // The g2s writes stay conflict-free: a phase is 8 threads over rows 0 and 1 (4 chunks each),
  // words 0..15 and 16..31.
  EXPECT_EQ(find(r, "banks", "A g2s").outcome, Outcome::Ok);
  EXPECT_EQ(r.exit_code(), 1);
}

// Planted: the swizzle weakened to S<1,3,3>: only r's bit 1 flips chunk bit 0, row r starts at bank
// (16 r + 4 ((r >> 1) & 1)) mod 32 = 0,16,4,20,0,16,4,20: rows 0 and 4 collide, 2-way, 128 for 64.
TEST(CuteDslPipeline, WeakenedSwizzleIsATwoWayConflict) {
  const kernel::KernelReport r = check(replaced_all(fixture(kOwn), "S<3,3,3> o 0 o ", "S<1,3,3> o 0 o "));
  const Finding& f = find(r, "banks", "B s2r");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["degree"], 2);
  EXPECT_EQ(f.detail["wavefronts"], 128);
  EXPECT_EQ(f.detail["worst"]["threads"], Json::array({0, 4}));
}

// Planted: the g2s TV ((4,32),8):((256,1),32) made ((4,(16,2)),8):((256,(1,0)),32): thread
// t0 + 4 (t1 + 16 t2) writes row t1 whatever t2, so thread 64 (t2 = 1) rewrites thread 0's
// element (m=0, k=0), and rows 16..31 of each 32-row copy tile are never written.
TEST(CuteDslPipeline, ACopyCoveringARowTwiceIsACoverageFinding) {
  const std::string text = replaced_all(fixture(kOwn), "((4,32),8):((256,1),32)", "((4,(16,2)),8):((256,(1,0)),32)");
  const kernel::KernelReport r = check(text);
  const Finding& f = find(r, "coverage", "A g2s");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kKernelCoverage);
  EXPECT_NE(f.message.find("element (m=0, k=0) is written twice: by thread 0 value 0 and by thread 64 value 0"), std::string::npos) << f.message;
  EXPECT_EQ(f.loc, line_of(text, "cute.tiled.copy.partition_D(%arg5, %view,"));
}

// Planted: M and N stated multiples of 32 only (?{div=64} -> ?{div=32}): the unpredicated 64-row
// tiles need M % 64 == 0, which M = 32 breaks: refuted.
TEST(CuteDslPipeline, BoundsFollowTheDivisibilityTheIrStates) {
  const kernel::KernelReport r = check(replaced_all(fixture(kOwn), "\"(?{div=64},?{div=32}):(?{i64 div=32},1)\"", "\"(?{div=32},?{div=32}):(?{i64 div=32},1)\""));
  const Finding& f = find(r, "bounds", "s0 % 64 == 0");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kKernelBounds);
}

// CUTLASS's tensorop_gemm.py: 128x128x32, 4 stages, the swizzle on the smem pointer in bytes:
// A K-major S<2,4,3> (bytes) = Sw<2,3,3> on 2-byte elements, B N-major S<3,4,3> = Sw<3,3,3>;
// B is read by ldmatrix .trans; its copies take predicates (no extent condition).
TEST(CuteDslPipeline, CutlassTensorOpGemmByteSwizzles) {
  const std::string text = fixture(kCutlass);
  const cute_dsl::MappedPipeline mp = cute_dsl::map_pipeline(cute_dsl::read_cute_ir(text));
  ASSERT_TRUE(mp.pipeline) << (mp.unmapped.empty() ? "" : mp.unmapped[0]);
  const kernel::Pipeline& p = *mp.pipeline;
  EXPECT_EQ(std::vector<int64_t>({p.threads, p.bm, p.bn, p.bk, p.stages}), std::vector<int64_t>({128, 128, 128, 32, 4}));
  EXPECT_EQ(to_string(*p.a.smem), "Sw<2,3,3> o 0 o ((8,16),(32,1)):((32,256),(1,0))");
  EXPECT_EQ(to_string(*p.b.smem), "Sw<3,3,3> o 0 o ((64,2),(8,4)):((1,512),(64,1024))");
  EXPECT_EQ(p.b.s2r->name, "SM75_U16x8_LDSM_T");
  EXPECT_TRUE(p.a.predicated && p.b.predicated && p.epilogue_predicated);
  const kernel::KernelReport r = check(text);
  EXPECT_EQ(r.exit_code(), 0);
  // 4 stages x (128 x 32 + 128 x 32) x 2 B = 65536 B, the 65536:1 bytes the IR allocates.
  EXPECT_EQ(find(r, "footprint", "smem").detail["total_bytes"], 65536);
  EXPECT_EQ(find(r, "bounds", "A extents").outcome, Outcome::Ok);
}

// The byte swizzles removed: A's rows are 64 B apart as in ours (4-way); B is N-major, so an
// ldmatrix .trans phase reads 8 consecutive k rows of 64 f16 = 128 B = 32 words apart: all at
// bank 0, 8-way, 8 x 128 = 1024 wavefronts for 128.
TEST(CuteDslPipeline, CutlassWithoutItsByteSwizzleConflicts) {
  std::string text = replaced_all(fixture(kCutlass), ", S<2,4,3>,", ",");
  text = replaced_all(text, ", S<3,4,3>,", ",");
  const kernel::KernelReport r = check(text);
  const Finding& a = find(r, "banks", "A s2r"), &b = find(r, "banks", "B s2r");
  EXPECT_EQ(a.detail["degree"], 4);
  EXPECT_EQ(b.detail["degree"], 8);
  EXPECT_EQ(b.detail["wavefronts"], 1024);
  EXPECT_EQ(b.loc, line_of(text, "cute.tiled.copy.partition_S(%626, %view_197,"));
}

// Kernels that do not map to one GEMM pipeline are still checked op by op: flash attention (its
// output leaves through shared memory, no MMA partition of a global C). sgemm's padded stages and
// SIMT MMA map since (cute_dsl_sgemm_test.cpp).
TEST(CuteDslPipeline, UnmappedKernelsAreCheckedOpByOp) {
  for (const auto& [name, why] : {std::pair{"cutlass_flash_attention_v2.mlir", "no MMA partition of a global C"}}) {
    const kernel::KernelReport r = check(fixture(name));
    const Finding& f = find(r, "pipeline", "the kernel");
    EXPECT_EQ(f.outcome, Outcome::Skipped) << name;
    EXPECT_NE(f.message.find(why), std::string::npos) << f.message;
    EXPECT_EQ(find(r, "global", "!copy").outcome, Outcome::Ok) << name;
  }
}

// CUTLASS's tensorop_gemm builds its staged smem with tile_to_shape of a rank-2 atom to a rank-3
// shape; CuTe pads the atom with a 1:0 mode. The DSL's own answer (in its full dump) is the
// expected value; a stage stride changed to 2048 (the stages would overlap) must be caught.
TEST(CuteDslValidate, TileToShapePadsALowerRankBlock) {
  const std::string op =
      "%r = cute.tile_to_shape(%a, %s, %o) : (!cute.layout<\"(8,32):(32,1)\">, !cute.shape<\"(128,32,4)\">, !cute.int_tuple<\"(0,1,2)\">) -> "
      "!cute.layout<\"((8,16),(32,1),(1,4)):((32,256),(1,0),(0,4096))\">\n";
  const kernel::KernelReport good = check(op);
  EXPECT_EQ(find(good, "layout-op", "cute.tile_to_shape").outcome, Outcome::Ok);
  const kernel::KernelReport bad = check(replaced_all(op, "(0,4096)", "(0,2048)"));
  EXPECT_EQ(find(bad, "layout-op", "cute.tile_to_shape").outcome, Outcome::Violation);
}

// spec/CUTE_DSL.md §5: the IR's ldmatrix tiled copies are make_tiled_copy_A/B of the tiled MMA.
// By hand for our 64x64x32 GEMM (2x2 atoms (2,2,1):(1,2,0), permutation [32;32;16]): thread
// t = t0 + 4 t1 + 32 (wm + 2 wn). A: the 16x8x16 atom's A TV ((4,8),(2,2,2)):((32,1),(16,8,128))
// gives value (f0,f1,f2) the element m = t1 + 8 f1 + 16 wm, k = 2 t0 + f0 + 8 f2 of the 32x16 tile
// (index m + 32 k): ((4,8,2,2),(2,2,2)):((64,1,16,0),(32,8,256)). B: the atom's B TV
// ((4,8),(2,2)):((16,1),(8,64)) over (8,16) gives n = t1 + 8 (wn + 2 r) (N's 32 = 4 atoms, wn
// the thread's, r the value's repeat), k = 2 t0 + f0 + 8 f1: ((4,8,2,2),((2,2),2)):((64,1,0,8),
// ((32,256),16)) over 32x16. The IR's strings (with CuTe's (1,1) / (2,1) rest modes) are these.
TEST(CuteDslPipeline, IrS2rTiledCopiesAreTheMmasMakeTiledCopy) {
  const std::string text = fixture(kOwn);
  const kernel::KernelReport r = check(text);
  EXPECT_EQ(r.exit_code(), 0);
  const std::pair<const char*, const char*> hand[] = {{"A s2r tiled", "((4,8,2,2),(2,2,2)):((64,1,16,0),(32,8,256))"},
                                                      {"B s2r tiled", "((4,8,2,2),((2,2),2)):((64,1,0,8),((32,256),16))"}};
  for (const auto& [subject, layout] : hand) {
    const Finding& f = find(r, "agreement", subject);
    EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
    EXPECT_EQ(f.detail["mma_tile"], Json::array({32, 16}));
    const Layout got = parse_layout(f.detail["mma_tv"].get<std::string>()), want = parse_layout(layout);
    ASSERT_EQ(got.size(), want.size()) << subject;
    for (int64_t i = 0; i < want.size(); ++i) ASSERT_EQ(got(i), want(i)) << subject << " index " << i;
  }
  EXPECT_EQ(find(r, "agreement", "A s2r tiled").loc, line_of(text, "cute.tiled.copy.partition_S(%13, %view,"));
  EXPECT_EQ(find(r, "agreement", "B s2r tiled").loc, line_of(text, "cute.tiled.copy.partition_S(%17, %view_38,"));
  // The other fixtures that map: each copy agrees (CUTLASS's ldmatrix x4 and x4 .trans included).
  for (const std::string& name : {std::string("gemm_f16_128x128x32_atoms4x2.mlir"), kCutlass, std::string("cutlass_tensorop_gemm_atoms4x2_a_m_b_k.mlir")}) {
    const kernel::KernelReport other = check(fixture(name));
    EXPECT_EQ(find(other, "agreement", "A s2r tiled").outcome, Outcome::Ok) << name;
    EXPECT_EQ(find(other, "agreement", "B s2r tiled").outcome, Outcome::Ok) << name;
  }
}

const std::string kOwnATv = "((4,8,2,2),((2,2,2),(1,1))):((64,1,16,0),((32,8,256),(0,0)))";

// Planted: A's ldmatrix copy TV with wm's stride 16 made 8. Thread 32 (t0 = t1 = 0, wm = 1) value
// 0 then reads index 8 = (m=8, k=0) where the MMA's A fragment holds (m=16, k=0); every pair of
// the 64 threads with wm = 1 is off by 8 rows: 64 x 8 = 512 of 1024. kernel/'s own agreement
// check derives the delivery from the atom and still passes: only the IR's copy is wrong.
TEST(CuteDslPipeline, AnS2rTvChangedByOneStrideIsAViolationAtItsOp) {
  const std::string text = replaced_all(fixture(kOwn), kOwnATv, "((4,8,2,2),((2,2,2),(1,1))):((64,1,8,0),((32,8,256),(0,0)))");
  const kernel::KernelReport r = check(text);
  const Finding& f = find(r, "agreement", "A s2r tiled");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  ASSERT_EQ(f.rule, &rule::kKernelS2rLayout);
  EXPECT_EQ(f.rule->id, std::string("kernel-s2r-layout"));
  EXPECT_EQ(f.loc, line_of(text, "cute.tiled.copy.partition_S(%13, %view,"));
  EXPECT_EQ(f.detail["thread"], 32);
  EXPECT_EQ(f.detail["value"], 0);
  EXPECT_EQ(f.detail["stated"], Json::array({8, 0}));
  EXPECT_EQ(f.detail["expected"], Json::array({16, 0}));
  EXPECT_EQ(f.detail["disagreeing"], 512);
  EXPECT_NE(f.message.find("!copy_ldsm_4 (TV ((4,8,2,2),((2,2,2),(1,1))):((64,1,8,0)"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("thread 32 value 0 reads (m=8, k=0) where the MMA's A fragment holds (m=16, k=0)"), std::string::npos) << f.message;
  const auto kernels_own = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& x) { return x.check == "agreement" && x.subject == "A s2r"; });
  ASSERT_NE(kernels_own, r.findings.end());
  EXPECT_EQ(kernels_own->outcome, Outcome::Ok);  // kernel/'s, derived from the atom
  EXPECT_EQ(find(r, "agreement", "B s2r tiled").outcome, Outcome::Ok);
  EXPECT_EQ(r.exit_code(), 1);
}

// Planted: A's tiler [32:1;16:1] made [16:1;32:1]. The TV's index i now means (i mod 16, i / 16):
// thread 0 value 0 is index 0 in both, value 1 (f0 = 1, stride 32) is (m=0, k=2) where the MMA
// holds (m=0, k=1).
TEST(CuteDslPipeline, AnS2rTilerChangedIsAViolationAtItsOp) {
  const std::string text = replaced_all(fixture(kOwn), kOwnATv + "\">, tiler_mn = <\"[32:1;16:1]\">", kOwnATv + "\">, tiler_mn = <\"[16:1;32:1]\">");
  const kernel::KernelReport r = check(text);
  const Finding& f = find(r, "agreement", "A s2r tiled");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kKernelS2rLayout);
  EXPECT_EQ(f.loc, line_of(text, "cute.tiled.copy.partition_S(%13, %view,"));
  EXPECT_EQ(f.detail["thread"], 0);
  EXPECT_EQ(f.detail["value"], 1);
  EXPECT_EQ(f.detail["stated"], Json::array({0, 2}));
  EXPECT_EQ(f.detail["expected"], Json::array({0, 1}));
  EXPECT_EQ(f.detail["ir_tiler"], "[16:1;32:1]");
}

// Planted on the 128x128x32 GEMM (atoms (4,2,1), A's tile 64x16, B's 32x16): A's copy made with
// B's TV and tiler (tiled against the wrong operand). Values 0 and 1 coincide ((0,0), then k + 1
// in both); value 2 is B's f1 (stride 256 in 32x16: k = 8), where A's f1 is m + 8: (m=0, k=8)
// read where the MMA holds (m=8, k=0). A's copy made for the 64x64 GEMM's 2x2 atoms instead (the
// wrong atom layout) has 128 threads where the MMA has 256.
TEST(CuteDslPipeline, AnS2rCopyTiledForAnotherOperandOrAtomLayoutIsAViolation) {
  const std::string name = "gemm_f16_128x128x32_atoms4x2.mlir";
  const std::string a = "((4,8,4,2),((2,2,2),(1,1))):((128,1,16,0),((64,8,512),(0,0)))\">, tiler_mn = <\"[64:1;16:1]\">";
  const std::string b = "((4,8,4,2),((2,2),(2,1))):((64,1,0,8),((32,256),(16,0)))\">, tiler_mn = <\"[32:1;16:1]\">";
  const kernel::KernelReport wrong_operand = check(replaced_all(fixture(name), a, b));
  const Finding& f = find(wrong_operand, "agreement", "A s2r tiled");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["thread"], 0);
  EXPECT_EQ(f.detail["value"], 2);
  EXPECT_EQ(f.detail["stated"], Json::array({0, 8}));
  EXPECT_EQ(f.detail["expected"], Json::array({8, 0}));
  const kernel::KernelReport wrong_atoms = check(replaced_all(fixture(name), a, kOwnATv + "\">, tiler_mn = <\"[32:1;16:1]\">"));
  const Finding& g = find(wrong_atoms, "agreement", "A s2r tiled");
  EXPECT_EQ(g.outcome, Outcome::Violation);
  EXPECT_NE(g.message.find("is 128 threads x 8 values; make_tiled_copy_A of the tiled MMA"), std::string::npos) << g.message;
  EXPECT_NE(g.message.find("is 256 x 8"), std::string::npos) << g.message;
}

// A TV the reader cannot hold as a static layout is not compared, and says so (never ok).
TEST(CuteDslPipeline, ADynamicS2rTvIsUndecided) {
  const kernel::KernelReport r = check(replaced_all(fixture(kOwn), kOwnATv, "((4,8,2,2),((2,2,2),(1,1))):((64,1,16,0),((32,8,?{div=8}),(0,0)))"));
  const Finding& f = find(r, "agreement", "A s2r tiled");
  EXPECT_EQ(f.outcome, Outcome::Undecided);
  EXPECT_NE(f.message.find("is not a static layout"), std::string::npos) << f.message;
  EXPECT_EQ(r.exit_code(), 2);
}

// CUTLASS's epilogue stages C through shared memory: each thread stores its accumulators (the
// MMA's C partition of the staging view, `cute.copy` of universal_copy<f16, 32 b> from registers)
// and the 128-bit `universal_copy` tiled copy reads the view back for the global store. The view
// S<3,3,4> o 0 o ((8,16),(128,1)):((128,1024),(1,0)) is the 128x128 tile row-major (m at 128 m),
// swizzled in elements. By hand, the r2s phase of warp 0's first store: thread t0 + 4 t1 stores
// (m = t1, n = 2 t0, 2 t0 + 1) at offset 128 t1 + 2 t0; Sw<3,3,4> XORs m's bits (offset bits 7..9)
// into bits 3..5, adding 8 t1: word 68 t1 + t0, bank 4 t1 + t0: 32 distinct banks, one wavefront;
// 128 threads x 128 values / 2 per store = 8192 stores, 32 a phase: 256 wavefronts, the ideal.
// The read: TV ((16,8),8):((64,1),8) over [8:1;128:1] gives thread a + 16 b row b, columns
// 8a..8a+7, so 8 consecutive threads read 128 contiguous bytes of one row (the XOR permutes
// 16-byte chunks within a row): 2048 reads, 8 a phase: 256 wavefronts, the ideal.
TEST(CuteDslPipeline, CutlassEpilogueStagingBufferIsChecked) {
  const std::string text = fixture(kCutlass);
  const cute_dsl::MappedPipeline mp = cute_dsl::map_pipeline(cute_dsl::read_cute_ir(text));
  ASSERT_TRUE(mp.pipeline && mp.pipeline->epilogue_smem);
  EXPECT_EQ(to_string(*mp.pipeline->epilogue_smem), "Sw<3,3,4> o 0 o ((8,16),(128,1)):((128,1024),(1,0))");
  EXPECT_EQ(mp.pipeline->r2s_bits, 32);
  const kernel::KernelReport r = check(text);
  const Finding& r2s = find(r, "banks", "C r2s");
  EXPECT_EQ(r2s.outcome, Outcome::Ok);
  EXPECT_EQ(r2s.detail["wavefronts"], 256);
  EXPECT_EQ(r2s.loc, line_of(text, "cute.copy(%atom_1697, %div_1689, %div_1694)"));
  const Finding& s2g = find(r, "banks", "C s2g");
  EXPECT_EQ(s2g.outcome, Outcome::Ok);
  EXPECT_EQ(s2g.detail["wavefronts"], 256);
  EXPECT_EQ(s2g.loc, line_of(text, "cute.tiled.copy.partition_S(%arg10, %view_203,"));
  EXPECT_EQ(r.exit_code(), 0);
}

// Planted: the staging buffer's swizzle removed. Thread t0 + 4 t1's first store then sits at word
// 64 t1 + t0, bank t0: the eight threads of one t0 (0, 4, ..., 28) share a bank, 8-way, 2048
// wavefronts for 256; the reads stay conflict-free (a row's 128 bytes are contiguous either way).
TEST(CuteDslPipeline, CutlassStagingBufferWithoutItsSwizzleConflicts) {
  const std::string text = replaced_all(fixture(kCutlass), "S<3,3,4> o 0 o ", "");
  const kernel::KernelReport r = check(text);
  const Finding& f = find(r, "banks", "C r2s");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kKernelBankConflict);
  EXPECT_EQ(f.detail["degree"], 8);
  EXPECT_EQ(f.detail["wavefronts"], 2048);
  EXPECT_EQ(f.detail["worst"]["threads"], Json::array({0, 4, 8, 12, 16, 20, 24, 28}));
  EXPECT_EQ(f.loc, line_of(text, "cute.copy(%atom_1697, %div_1689, %div_1694)"));
  EXPECT_EQ(find(r, "banks", "C s2g").outcome, Outcome::Ok);
}

// A signature `(T1, T2, T3)` with no result (cute.copy) is read as three operand types.
TEST(CuteDslReader, AParenthesizedSignatureWithoutAResultIsItsOperandTypes) {
  const cute_dsl::Module m = cute_dsl::read_cute_ir(
      "cute.copy(%a, %b, %c) : (!cute_nvgpu.atom.universal_copy<f16, 32 b>, !cute.memref<f16, rmem, align<4>, \"2:1\">, !cute.memref<f16, smem, align<4>, \"2:1\">)\n");
  ASSERT_EQ(m.ops.size(), 1u);
  ASSERT_EQ(m.ops[0].operand_types.size(), 3u);
  EXPECT_EQ(m.ops[0].operand_types[1].space, "rmem");
  EXPECT_EQ(m.ops[0].operand_types[2].space, "smem");
  EXPECT_TRUE(m.ops[0].result_types.empty());
}

// Found by cute_dsl_kernel_sweep: tensorop_gemm at a 256x32x64 tile, atoms (1,4,1), 5 stages maps,
// but kernel/ refuses it (the permutation's 64 columns pass BN = 32), and kernel/'s footprint went
// with it: 5 x (256 x 64 + 32 x 64) x 2 B = 184320 B past sm80's 167936 B, unreported. Now the
// allocations are checked op by op there (§6). Planted on CUTLASS's 128x128 GEMM: the permutation's
// N made 256 (> BN = 128: kernel/ refuses); its one 65536:1 i8 allocation is 65536 B <= 167936 B
// (ok); grown to 200000:1, 200000 B > 167936 B (kernel-smem-footprint).
TEST(CuteDslPipeline, APipelineKernelRefusesStillHasItsFootprintChecked) {
  const std::string refused = replaced_all(fixture(kCutlass), "permutation_MNK = <\"[32:1;32:1;16:1]\">", "permutation_MNK = <\"[32:1;256:1;16:1]\">");
  const kernel::KernelReport r = check(refused);
  bool said = false;
  for (const Finding& f : r.findings) said |= f.check == "pipeline" && f.message.find("kernel/ does not check it") != std::string::npos;
  EXPECT_TRUE(said);
  const Finding& ok = find(r, "footprint", "shared memory");
  EXPECT_EQ(ok.outcome, Outcome::Ok) << ok.message;
  EXPECT_NE(ok.message.find("65536 B"), std::string::npos) << ok.message;
  const kernel::KernelReport grown = check(replaced_all(refused, "!cute.memref<i8, smem, align<16>, \"65536:1\">", "!cute.memref<i8, smem, align<16>, \"200000:1\">"));
  const Finding& over = find(grown, "footprint", "shared memory");  // the report outlives the reference
  EXPECT_EQ(over.outcome, Outcome::Violation) << over.message;
  EXPECT_EQ(over.rule, &rule::kKernelSmemFootprint);
}
