// CUTLASS's SIMT GEMM (examples/python/CuTeDSL/cute/ampere/kernel/dense_gemm/sgemm.py, SGemm() at
// its defaults: 128x128x8, 3 stages, 256 threads, f32, A and B K-major; fixture cutlass_sgemm.mlir)
// mapped to spec/KERNEL.md's pipeline (spec/CUTE_DSL.md §4): padded stages, the universal FMA's
// tiled MMA and each thread's 128-bit loads of its own fragment. Every expected figure is derived
// in the comments from the layouts the fixture states and spec/SMEM.md's bank model (32 banks of
// 4 bytes; 32-bit accesses are served a whole warp a phase, 128-bit ones 8 threads a phase; a word
// several threads of a phase read is served once). The layouts, read off the fixture:
//   smem A and B: (128,8,3):(1,132,1056): element (m, k) of stage s at m + 132 k + 1056 s;
//   g2s copy: TV ((8,32),1):((32,1),0) over [32:1;8:1], 32-bit cp.async: thread t = t0 + 8 t1
//     writes tile index 32 t0 + t1, i.e. (m = t1, k = t0) = (t / 8, t % 8), repeated 4 times
//     along M (m + 32 r);
//   tiled MMA: universal_fma 1x1x1, atoms (16,16,1):(16,1,0) (thread t = 16 wm + wn), permutation
//     M and N (16,4):(4,1): along M, block b = wm + 16 r (r = 0..7) lands at 4 (b % 16) +
//     (b / 16) % 4 + 64 (b / 64) = 4 wm + (r % 4) + 64 (r / 4); N likewise with wn;
//   s2r: cute.copy of universal_copy<f32, 128 b> from the MMA's partition: 4 fragment values a load.
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
namespace sgemm {

const std::string kText = [] {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/cutlass_sgemm.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}();

// The fixture with every occurrence of `from` replaced (a planted fault in each type holding it).
std::string planted(const std::string& from, const std::string& to) {
  std::string text = kText;
  size_t n = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()), ++n) text.replace(at, from.size(), to);
  EXPECT_GT(n, 0u) << "the fixture no longer holds: " << from;
  return text;
}

std::string line_of(const std::string& needle) {
  const size_t at = kText.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return "line " + std::to_string(1 + std::count(kText.begin(), kText.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

kernel::KernelReport check(const std::string& text) { return cute_dsl::check_module(cute_dsl::read_cute_ir(text)); }

const Finding& find(const kernel::KernelReport& r, const std::string& check, const std::string& subject) {
  for (const Finding& f : r.findings)
    if (f.check == check && f.subject == subject) return f;
  ADD_FAILURE() << "no " << check << " finding about " << subject;
  static const Finding none;
  return none;
}

const std::string kPerm = "[(16,4):(4,1);(16,4):(4,1);_]";

}  // namespace sgemm
}  // namespace

// What the mapping reads: 256 threads (1-thread atom x 16 x 16), tile 128x128x8 from the views'
// extents, 3 stages 1056 apart (the one-stage tile (128,8):(1,132) has cosize 1 + 127 + 7 x 132 =
// 1052), the FMA atom with the IR's atom layout and M, N permutations (K's `_`: the identity),
// 128-bit universal copies as the s2r atom, predicated g2s copies and C stores.
TEST(CuteDslSgemm, MapsThePaddedStagesAndTheSimtMma) {
  const cute_dsl::MappedPipeline mp = cute_dsl::map_pipeline(cute_dsl::read_cute_ir(sgemm::kText));
  ASSERT_TRUE(mp.pipeline) << (mp.unmapped.empty() ? "" : mp.unmapped[0]);
  const kernel::Pipeline& p = *mp.pipeline;
  EXPECT_EQ(p.threads, 256);
  EXPECT_EQ(std::vector<int64_t>({p.bm, p.bn, p.bk, p.stages}), std::vector<int64_t>({128, 128, 8, 3}));
  EXPECT_EQ(to_string(*p.a.smem), "(128,8):(1,132)");
  EXPECT_EQ(p.a.stage_stride, std::optional<int64_t>(1056));
  EXPECT_EQ(p.b.stage_stride, std::optional<int64_t>(1056));
  EXPECT_EQ(std::vector<int64_t>({p.mma.m, p.mma.n, p.mma.k, p.mma.atom_threads}), std::vector<int64_t>({1, 1, 1, 1}));
  EXPECT_EQ(to_string(p.mma.atoms), "(16,16,1):(16,1,0)");
  ASSERT_TRUE(p.mma.perm[0] && p.mma.perm[1]);
  EXPECT_EQ(to_string(*p.mma.perm[0]), "(16,4):(4,1)");
  EXPECT_FALSE(p.mma.perm[2]);
  ASSERT_TRUE(p.a.s2r);
  EXPECT_EQ(p.a.s2r->name, "UniversalCopy<uint128_t>");
  EXPECT_EQ(p.a.g2s.atom_bits, 32);
  EXPECT_TRUE(p.a.predicated && p.b.predicated && p.epilogue_from_accumulators && p.epilogue_predicated);
}

// Every check passes, with these figures:
// - g2s writes: thread t at t / 8 + 132 (t % 8), bank (t / 8 + 4 (t % 8)) mod 32: over a warp
//   (t / 8 = 0..3, t % 8 = 0..7) 32 distinct banks, one wavefront a warp access; 8 warps x 4
//   accesses (the repeats along M) = 32 = the ideal, in each stage (1056 = 33 x 32: the stages
//   shift every bank alike).
// - the FMA threads' reads: thread (wm, wn)'s first load is A(4 wm .. 4 wm + 3, k), 16 contiguous
//   bytes (128-bit); a phase is 8 threads of one wm (all the same 16 bytes: one wavefront) and,
//   for B, wn = 8 h .. 8 h + 7 reading 128 contiguous bytes (one wavefront). 8 warps x 16 loads
//   (64 values / 4) x 4 phases = 512 wavefronts each, the ideal.
// - C: each thread holds 8 x 8 elements (r_m, r_n), 256 x 64 = 128 x 128, each once; the
//   products 128 x 128 x 8 = 131072, each once.
// - footprint: 2 x 1056 + 1052 = 3164 elements a buffer (the IR's own cute.cosize of the staged
//   layout, 3164), x 4 B = 12656 B (its alloca of 12656 i8); A and B 25312 B.
TEST(CuteDslSgemm, PassesEveryCheckAtItsOps) {
  const kernel::KernelReport r = sgemm::check(sgemm::kText);
  EXPECT_EQ(r.exit_code(), 0) << kernel::to_text(r);
  const Finding& writes = sgemm::find(r, "banks", "A g2s (write)");
  EXPECT_EQ(writes.outcome, Outcome::Ok);
  EXPECT_EQ(writes.detail["wavefronts"], 32);
  EXPECT_EQ(writes.loc, sgemm::line_of("%dst_partitioned = cute.tiled.copy.partition_D"));
  for (const char* op : {"A s2r (read)", "B s2r (read)"}) {
    EXPECT_EQ(sgemm::find(r, "width", op).detail["bits"], 128) << op;
    EXPECT_EQ(sgemm::find(r, "banks", op).outcome, Outcome::Ok) << op;
    EXPECT_EQ(sgemm::find(r, "banks", op).detail["wavefronts"], 512) << op;
  }
  EXPECT_EQ(sgemm::find(r, "banks", "A s2r (read)").loc, sgemm::line_of("cute.copy(%atom_585, %div_577"));
  EXPECT_EQ(sgemm::find(r, "banks", "B s2r (read)").loc, sgemm::line_of("cute.copy(%atom_630, %div_622"));
  EXPECT_EQ(sgemm::find(r, "agreement", "A s2r").outcome, Outcome::Ok);
  EXPECT_EQ(sgemm::find(r, "coverage", "A g2s").outcome, Outcome::Ok);
  EXPECT_EQ(sgemm::find(r, "coverage", "C mma").loc, sgemm::line_of("%ptn_C = cute.tiled.mma.partition C"));
  EXPECT_NE(sgemm::find(r, "coverage", "C mma").message.find("256 threads x 64 values"), std::string::npos);
  EXPECT_EQ(sgemm::find(r, "agreement", "C mma (m,n,k)").detail["products"], 131072);
  EXPECT_EQ(sgemm::find(r, "bounds", "C extents").outcome, Outcome::Ok);  // the stores are predicated
  const Finding& fp = sgemm::find(r, "footprint", "smem");
  EXPECT_EQ(fp.detail["total_bytes"], 25312);
  EXPECT_EQ(fp.detail["A_buffer_bytes"], 12656);
  EXPECT_NE(sgemm::kText.find("!cute.int_tuple<\"3164\">"), std::string::npos);
  EXPECT_NE(sgemm::kText.find("!memref_smem_i8 = !cute.memref<i8, smem, align<16>, \"12656:1\">"), std::string::npos);
}

// Planted: the padding removed, rows 128 apart, stages 1024 (= the cosize now). Thread t writes
// t / 8 + 128 (t % 8): bank t / 8, so threads 0..7 share bank 0 at offsets 0, 128, ..., 896, eight
// distinct words: 8 wavefronts for an ideal of 1 (32 words), 8-way, 8 x 32 = 256 for 32. The FMA
// reads stay conflict-free: an A phase still reads one 16-byte word group, a B phase 128
// contiguous bytes (the padding only moves rows, and a phase reads within a row).
TEST(CuteDslSgemm, RemovedPaddingIsAnEightWayConflictAtTheG2sWrites) {
  const kernel::KernelReport r = sgemm::check(sgemm::planted("(128,8,3):(1,132,1056)", "(128,8,3):(1,128,1024)"));
  for (const char* op : {"A g2s (write)", "B g2s (write)"}) {
    const Finding& f = sgemm::find(r, "banks", op);
    EXPECT_EQ(f.outcome, Outcome::Violation) << op;
    EXPECT_EQ(f.rule, &rule::kKernelBankConflict) << op;
    EXPECT_EQ(f.detail["degree"], 8) << op;
    EXPECT_EQ(f.detail["wavefronts"], 256) << op;
    EXPECT_EQ(f.detail["ideal"], 32) << op;
    EXPECT_EQ(f.detail["worst"]["threads"], Json::array({0, 1, 2, 3, 4, 5, 6, 7})) << op;
    EXPECT_EQ(f.detail["worst"]["offsets"], Json::array({0, 128, 256, 384, 512, 640, 768, 896})) << op;
  }
  EXPECT_EQ(sgemm::find(r, "banks", "A s2r (read)").outcome, Outcome::Ok);
  EXPECT_EQ(sgemm::find(r, "banks", "B s2r (read)").outcome, Outcome::Ok);
  EXPECT_EQ(sgemm::find(r, "footprint", "smem").detail["total_bytes"], 2 * 3 * 1024 * 4);
  EXPECT_EQ(r.exit_code(), 1);
}

// Planted: N's permutation (16,4):(4,1) made (2,8,4):(32,4,1) (still one-to-one onto 64: n =
// 32 (wn % 2) + 4 (wn / 2) + (r % 4)). A B phase's 8 threads wn = 0..7 load n = 0, 32, 4, 36, 8,
// 40, 12, 44: floats 0..15 and 32..47, banks 0..15 twice: 2 wavefronts for an ideal of 1 in every
// phase, 1024 for 512; the first worst is bank 0, threads 0 (offset 0) and 1 (offset 32). C is
// still covered once, every product once, and A's loads are untouched.
TEST(CuteDslSgemm, AnInterleavingPermutationIsATwoWayConflictAtTheFmaReads) {
  const kernel::KernelReport r = sgemm::check(sgemm::planted(sgemm::kPerm, "[(16,4):(4,1);(2,8,4):(32,4,1);_]"));
  const Finding& f = sgemm::find(r, "banks", "B s2r (read)");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["degree"], 2);
  EXPECT_EQ(f.detail["wavefronts"], 1024);
  EXPECT_EQ(f.detail["worst"]["threads"], Json::array({0, 1}));
  EXPECT_EQ(f.detail["worst"]["offsets"], Json::array({0, 32}));
  EXPECT_EQ(f.loc, sgemm::line_of("cute.copy(%atom_630, %div_622"));
  EXPECT_EQ(sgemm::find(r, "banks", "A s2r (read)").outcome, Outcome::Ok);
  EXPECT_EQ(sgemm::find(r, "coverage", "C mma").outcome, Outcome::Ok);
  EXPECT_EQ(sgemm::find(r, "agreement", "C mma (m,n,k)").outcome, Outcome::Ok);
}

// Planted: the permutations removed (`_`: the identity over the 16 atoms). Thread (wm, wn) then
// holds m = wm + 16 r: its values 0 and 1 are rows 0 and 16 (offsets 0 and 16 for thread 0), so a
// 128-bit load of 4 consecutive values is no vector (width violation at the load), and a load of 4
// consecutive floats from value 0's address would bring rows 1..3 where the MMA expects rows 16,
// 32, 48: 3 of each 4 values, 48 of 64 a thread, 12288 of 256 x 64 slots (agreement).
TEST(CuteDslSgemm, RemovedPermutationsBreakThe128BitLoads) {
  const kernel::KernelReport r = sgemm::check(sgemm::planted(sgemm::kPerm, "[_;_;_]"));
  const Finding& w = sgemm::find(r, "width", "A s2r (read)");
  EXPECT_EQ(w.outcome, Outcome::Violation);
  EXPECT_EQ(w.rule, &rule::kKernelVectorWidth);
  EXPECT_EQ(w.detail["thread"], 0);
  EXPECT_EQ(w.detail["value"], 1);
  EXPECT_EQ(w.detail["bits"], 32);
  const Finding& a = sgemm::find(r, "agreement", "A s2r");
  EXPECT_EQ(a.outcome, Outcome::Violation);
  EXPECT_EQ(a.detail["disagreeing"], 12288);
  EXPECT_EQ(a.detail["expected"], Json::array({16, 0}));
  EXPECT_EQ(a.detail["received"], Json::array({1, 0}));
}

// Planted: the g2s copy's thread mode (8,32):(1...) split so threads 128..255 repeat 0..127:
// ((8,(16,2)),1):((32,(1,0)),0) gives thread t0 + 8 (i + 16 j) the tile index 32 t0 + i. Thread 128
// (t0 = 0, i = 0, j = 1) writes (m=0, k=0), as thread 0 does; rows 16..31 of each 32-row copy
// tile are never written: 4 x 16 x 8 = 512 elements, the first (m=16, k=0).
TEST(CuteDslSgemm, ACopyCoveringRowsTwiceIsACoverageViolation) {
  const kernel::KernelReport r = sgemm::check(sgemm::planted("((8,32),1):((32,1),0)", "((8,(16,2)),1):((32,(1,0)),0)"));
  const Finding& f = sgemm::find(r, "coverage", "A g2s");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kKernelCoverage);
  EXPECT_EQ(f.detail["duplicate"]["thread"], 128);
  EXPECT_EQ(f.detail["duplicate"]["first_thread"], 0);
  EXPECT_EQ(f.detail["missing"], 512);
  EXPECT_EQ(f.detail["first_missing"], Json::array({16, 0}));
  EXPECT_EQ(f.loc, sgemm::line_of("%dst_partitioned = cute.tiled.copy.partition_D"));
}

// Planted: stages 1000 apart, inside the 1052-element tile. Stage 1's (m=0, k=0) is at 1000, where
// stage 0 keeps m + 132 k = 1000: k = 7, m = 76. Footprint (2 x 1000 + 1052) x 4 = 12208 B a buffer.
TEST(CuteDslSgemm, OverlappingStagesAreACoverageViolation) {
  const kernel::KernelReport r = sgemm::check(sgemm::planted("(128,8,3):(1,132,1056)", "(128,8,3):(1,132,1000)"));
  const Finding& f = sgemm::find(r, "coverage", "A smem");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["offset"], 1000);
  EXPECT_EQ(f.detail["other_element"], Json::array({76, 7}));
  EXPECT_EQ(sgemm::find(r, "footprint", "smem").detail["A_buffer_bytes"], 12208);
}

// Planted: stages 1054 apart (1054 = 4 x 263 + 2): stage 1's 128-bit loads start 8 bytes off their
// 16-byte alignment; the 32-bit g2s writes are unaffected.
TEST(CuteDslSgemm, AStageStrideOffTheLoadsVectorIsAWidthViolation) {
  const kernel::KernelReport r = sgemm::check(sgemm::planted("(128,8,3):(1,132,1056)", "(128,8,3):(1,132,1054)"));
  const Finding& f = sgemm::find(r, "width", "A s2r (read)");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["stage_stride"], 1054);
  EXPECT_EQ(sgemm::find(r, "width", "A g2s (write)").outcome, Outcome::Ok);
}

// The same example with A M-major and B N-major (fixture cutlass_sgemm_a_m_b_n.mlir, m and n
// multiples of 16): the example pads only a K-major operand, so the smem is (128,8,3):(1,128,1024),
// stages at the cosize (no stage stride), and its copy is 128-bit cp.async with TV (256,4):(4,1)
// over [128:1;8:1]: thread t's values 4 t + v, (m, k) = (4 (t % 32) + v, t / 32). A phase (8
// threads) writes 128 contiguous bytes of one k: conflict-free, one wavefront; 8 warps x 1 access
// (4 values, the copy tile is the CTA tile) x 4 phases = 32. The global side: 128-bit accesses
// along M, aligned where the K stride is a multiple of 4, proved from its `?{i64 div=16}`. The
// FMA side is the K-major fixture's (512 wavefronts a load side). Footprint 2 x 3 x 1024 x 4.
TEST(CuteDslSgemm, TheMMajorVariantNeedsNoPadding) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/cutlass_sgemm_a_m_b_n.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  const cute_dsl::MappedPipeline mp = cute_dsl::map_pipeline(cute_dsl::read_cute_ir(ss.str()));
  ASSERT_TRUE(mp.pipeline) << (mp.unmapped.empty() ? "" : mp.unmapped[0]);
  EXPECT_FALSE(mp.pipeline->a.stage_stride);
  EXPECT_EQ(mp.pipeline->a.g2s.atom_bits, 128);
  const kernel::KernelReport r = sgemm::check(ss.str());
  EXPECT_EQ(r.exit_code(), 0) << kernel::to_text(r);
  for (const char* op : {"A g2s (write)", "B g2s (write)"}) {
    EXPECT_EQ(sgemm::find(r, "width", op).detail["bits"], 128) << op;
    EXPECT_EQ(sgemm::find(r, "banks", op).detail["wavefronts"], 32) << op;
  }
  EXPECT_EQ(sgemm::find(r, "banks", "A s2r (read)").detail["wavefronts"], 512);
  EXPECT_EQ(sgemm::find(r, "footprint", "smem").detail["total_bytes"], 2 * 3 * 1024 * 4);
  int proved = 0;
  for (const Finding& f : r.findings) proved += f.check == "bounds" && f.message.find("128-bit alignment") != std::string::npos && f.outcome == Outcome::Ok ? 1 : 0;
  EXPECT_EQ(proved, 2);
}

// spec/CUTE_DSL.md §5.1: the IR's partition of each view, (1,(4,2),8,3):(0,(1,64),132,1056), is
// kernel/'s: thread (wm, wn)'s value r + 8 k (r = r0 + 4 r1) is A(4 wm + r0 + 64 r1, k), at
// r0 + 64 r1 + 132 k from its value 0, and the stage mode 1056 apart. Planted in the partition's
// type only: its 64 made 32 (value 4, r1 = 1, at 32 where the MMA's A(64, 0) is 64 on); its stage
// stride made 1000.
TEST(CuteDslSgemm, TheIrsMmaPartitionsAreKernelsAtEveryThreadAndValue) {
  const kernel::KernelReport r = sgemm::check(sgemm::kText);
  const Finding& a = sgemm::find(r, "agreement", "A mma partition");
  EXPECT_EQ(a.outcome, Outcome::Ok) << a.message;
  EXPECT_EQ(a.loc, sgemm::line_of("%ptn_A = cute.tiled.mma.partition A"));
  EXPECT_EQ(sgemm::find(r, "agreement", "B mma partition").outcome, Outcome::Ok);
  const std::string alias = "!memref_smem_f32_4 = !cute.memref<f32, smem, align<16>, \"(1,(4,2),8,3):(0,(1,64),132,1056)\">";
  const kernel::KernelReport moved = sgemm::check(sgemm::planted(alias, "!memref_smem_f32_4 = !cute.memref<f32, smem, align<16>, \"(1,(4,2),8,3):(0,(1,32),132,1056)\">"));
  const Finding& m = sgemm::find(moved, "agreement", "A mma partition");
  EXPECT_EQ(m.outcome, Outcome::Violation);
  EXPECT_EQ(m.rule, &rule::kCuteDslLayoutOp);
  EXPECT_EQ(m.detail["thread"], 0);
  EXPECT_EQ(m.detail["value"], 4);
  EXPECT_EQ(m.detail["ir_offset"], 32);
  EXPECT_EQ(m.detail["offset"], 64);
  const kernel::KernelReport staged = sgemm::check(sgemm::planted(alias, "!memref_smem_f32_4 = !cute.memref<f32, smem, align<16>, \"(1,(4,2),8,3):(0,(1,64),132,1000)\">"));
  EXPECT_EQ(sgemm::find(staged, "agreement", "B mma partition").outcome, Outcome::Violation);
}

// §5.1 on C's identity tensor (128,128):(1@0,1@1): the IR's partition (1,(4,2),(4,2)):(0,(1@0,64@0),
// (1@1,64@1)) gives value r_m + 8 r_n (r = r0 + 4 r1) the coordinate (r0 + 64 r1, ...) from the
// thread's first, kernel/'s C partition (m = 4 wm + r0 + 64 r1, n likewise). Planted: N's 64@1 made
// 32@1: value 32 (r_n = 4, r1 = 1) at (0,32) where the MMA's C is (0,64) on.
TEST(CuteDslSgemm, TheIrsPartitionOfCsCoordinatesIsKernels) {
  const kernel::KernelReport r = sgemm::check(sgemm::kText);
  const Finding& c = sgemm::find(r, "agreement", "C mma partition");
  EXPECT_EQ(c.outcome, Outcome::Ok) << c.message;
  EXPECT_EQ(c.loc, sgemm::line_of("%ptn_C_452 = cute.tiled.mma.partition C"));
  const kernel::KernelReport bad = sgemm::check(sgemm::planted("(0,(1@0,64@0),(1@1,64@1))", "(0,(1@0,64@0),(1@1,32@1))"));
  const Finding& f = sgemm::find(bad, "agreement", "C mma partition");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.rule, &rule::kCuteDslLayoutOp);
  EXPECT_EQ(f.detail["thread"], 0);
  EXPECT_EQ(f.detail["value"], 32);
  EXPECT_EQ(f.detail["ir_coordinate"], Json::array({0, 32}));
  EXPECT_EQ(f.detail["coordinate"], Json::array({0, 64}));
}
