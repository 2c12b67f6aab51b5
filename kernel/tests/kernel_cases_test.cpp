// The committed cases of docs/kernels/ (spec/KERNEL.md), each outcome derived by hand below from
// the layouts in the file, never read back from the checker. Notation: A's tile element (m, k)
// is tile index m + BM * k; a K-major stage stores it at offset BK * m + k before the swizzle.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/kernel/views.hpp"
#include "release_only.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::kernel {
namespace {

Json read_case(const std::string& name) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/" + name + ".json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

KernelReport run(const Json& j) { return check_pipeline(read_pipeline(j)); }
KernelReport run_case(const std::string& name) { return run(read_case(name)); }

// The passing SM80 configuration. cp.async: thread t writes row t/4, k = 8 (t % 4) .. + 7 of a
// 32x32 copy tile, repeated 4 times along M: each element once. Banks, g2s: a quarter-warp
// (8 threads) writes rows 2i, 2i+1, whose 16-byte chunks 4 (m % 2) + c (c = t % 4) are the eight
// chunks of one 128-byte line, permuted by the xor with m / 2: one wavefront each. ldmatrix x4
// (derived addresses): source thread 8j + r reads row r + 8 (j % 2), k = 8 (j / 2) .. + 7 of a
// 16x16 block; a phase is 8 rows at one chunk, swizzled to 8 distinct chunks: conflict-free.
// C: 2x2 warps, permutation 32x32, atom 16x8: 4 x 8 atoms a thread, 4 values each = 128 values,
// 128 threads x 128 = 128 x 128 elements. Footprint: 2 x 128 x 32 x 2 B = 16 KiB a stage, 3
// stages 48 KiB <= 164 KiB.
TEST(KernelCases, PassingSm80ConfigurationPasses) {
  const KernelReport r = run_case("sm80_f16_128x128x32");
  for (const Finding& f : r.findings) EXPECT_EQ(f.outcome, Outcome::Ok) << f.check << " " << f.subject << ": " << f.message;
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(finding(r, "coverage", "C mma").message, "128x128 tile covered exactly once (128 threads x 128 values)");
  const Finding& banks = finding(r, "banks", "A s2r (read)");
  // 4 warps x 8 ldmatrix (64 A values / 8) x 4 phases, one wavefront each.
  EXPECT_EQ(banks.detail["wavefronts"], 128);
  EXPECT_EQ(banks.detail["ideal"], 128);
  EXPECT_EQ(finding(r, "footprint", "smem").detail["total_bytes"], 3 * 16384);
  EXPECT_EQ(finding(r, "bounds", "K % 8 == 0").detail["verdict"], "PROVED");  // from K % 32 == 0
}

// Unswizzled (128,32):(32,1): an ldmatrix phase reads rows m0..m0+7 at one chunk c, bytes 64 m +
// 16 c, i.e. chunk 4 (m % 2) + c of a 128-byte line: two chunk positions for eight rows, so the
// banks of each serve four distinct words (rows 0, 2, 4, 6 -> threads 0, 2, 4, 6): 4-way, in
// every phase (128 phases, 512 wavefronts, ideal 128). The g2s writes stay conflict-free (rows 2i
// and 2i+1 fill one line).
TEST(KernelCases, UnswizzledReportsFourWayConflictsOnTheLdmatrixReads) {
  const KernelReport r = run_case("sm80_f16_unswizzled");
  EXPECT_EQ(r.exit_code(), 1);
  const Finding& a = finding(r, "banks", "A s2r (read)");
  EXPECT_EQ(a.outcome, Outcome::Violation);
  EXPECT_EQ(rule_of(a), "kernel-bank-conflict");
  EXPECT_EQ(a.detail["degree"], 4);
  EXPECT_EQ(a.detail["wavefronts"], 512);
  EXPECT_EQ(a.detail["ideal"], 128);
  EXPECT_EQ(a.detail["worst"]["bank"], 0);
  EXPECT_EQ(a.detail["worst"]["threads"], Json::array({0, 2, 4, 6}));
  EXPECT_EQ(finding(r, "banks", "B s2r (read)").detail["degree"], 4);  // B's rows n0..n0+7 alike
  EXPECT_EQ(finding(r, "banks", "A g2s (write)").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "agreement", "A s2r").outcome, Outcome::Ok);
}

// Sw<2,3,3> over 128-byte rows ((128,64):(64,1), BK = 64): the xor takes m % 4 into the chunk's
// low two bits, so the eight rows of an ldmatrix phase land on chunks c ^ (r % 4): four chunk
// positions, two rows each (rows 0 and 4 -> threads 0 and 4): 2-way. The g2s phase is one row's
// eight chunks, permuted: conflict-free.
TEST(KernelCases, Sw233ReportsTwoWayConflicts) {
  const KernelReport r = run_case("sm80_f16_sw233");
  EXPECT_EQ(r.exit_code(), 1);
  const Finding& a = finding(r, "banks", "A s2r (read)");
  EXPECT_EQ(rule_of(a), "kernel-bank-conflict");
  EXPECT_EQ(a.detail["degree"], 2);
  EXPECT_EQ(a.detail["worst"]["threads"], Json::array({0, 4}));
  EXPECT_EQ(finding(r, "banks", "A g2s (write)").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "coverage", "A g2s").outcome, Outcome::Ok);
}

// Over 64-byte rows (BK = 32) the same Sw<2,3,3> is conflict-free (CUTLASS's choice there): rows
// r = 0..7 of a phase sit at chunk (4 (r % 2) + c) ^ (r / 2), eight distinct chunks.
TEST(KernelCases, Sw233OverSixtyFourByteRowsIsConflictFree) {
  Json j = read_case("sm80_f16_128x128x32");
  j["A"]["smem"] = j["B"]["smem"] = "Sw<2,3,3> o 0 o (128,32):(32,1)";
  const KernelReport r = run(j);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(finding(r, "banks", "A s2r (read)").outcome, Outcome::Ok);
}

// TV ((4,(16,2)),8):((256,(1,0)),32) over the 32x32 copy tile: thread t = t0 + 4 (t1 + 16 t2)
// writes row t1, k = 8 t0 + v; t2 is ignored, so threads t and t + 64 write the same row. Thread
// order: thread 64 value 0 writes (m=0, k=0), written first by thread 0 value 0. Rows 16..31 of
// each 32-row repeat are never written: 4 x 16 x 32 = 2048 elements, the first (m=16, k=0).
TEST(KernelCases, DoubleCoverNamesTheElementAndBothWriters) {
  const KernelReport r = run_case("sm80_f16_double_cover");
  EXPECT_EQ(r.exit_code(), 1);
  const Finding& f = finding(r, "coverage", "A g2s");
  EXPECT_EQ(rule_of(f), "kernel-coverage");
  EXPECT_EQ(f.detail["duplicate"]["thread"], 64);
  EXPECT_EQ(f.detail["duplicate"]["value"], 0);
  EXPECT_EQ(f.detail["duplicate"]["element"], Json::array({0, 0}));
  EXPECT_EQ(f.detail["duplicate"]["first_thread"], 0);
  EXPECT_EQ(f.detail["duplicate"]["first_value"], 0);
  EXPECT_EQ(f.detail["missing"], 2048);
  EXPECT_EQ(f.detail["first_missing"], Json::array({16, 0}));
  EXPECT_EQ(finding(r, "coverage", "B g2s").outcome, Outcome::Ok);
}

// SM75_U16x8_LDSM_T on the K-major A. Its dst (in elements) ((4,8),(2,4)):((16,1),(8,64)) puts
// thread t0 + 4 t1's value e + 2 j at position 16 t0 + t1 + 8 e + 64 j. The tiled copy derived
// from the MMA (make_tiled_copy_A) makes source thread 8j + r address (m = u + 8 (j % 2),
// k = r + 8 (j / 2)) for u = 0..7: eight values down a column, 32 elements apart, so the width
// check fails at thread 0 value 1. The hardware reads 8 contiguous offsets from each first
// address: source thread r (j = 0) reads (m=0, k = r .. r+7). Threads 0..3 receive only the first
// values (u = 0) and agree; thread 4 (t0 = 0, t1 = 1) value 0 is position 1 = source thread 0
// value 1, i.e. (m=0, k=1), where the MMA expects (m = t1 = 1, k = 0): the transpose.
TEST(KernelCases, TransposedLdmatrixDisagreesWithTheMma) {
  const KernelReport r = run_case("sm80_f16_ldmatrix_trans");
  EXPECT_EQ(r.exit_code(), 1);
  const Finding& f = finding(r, "agreement", "A s2r");
  EXPECT_EQ(rule_of(f), "kernel-agreement");
  EXPECT_EQ(f.detail["thread"], 4);
  EXPECT_EQ(f.detail["value"], 0);
  EXPECT_EQ(f.detail["received"], Json::array({0, 1}));
  EXPECT_EQ(f.detail["expected"], Json::array({1, 0}));
  const Finding& w = finding(r, "width", "A s2r (read)");
  EXPECT_EQ(rule_of(w), "kernel-vector-width");
  EXPECT_EQ(w.detail["thread"], 0);
  EXPECT_EQ(w.detail["value"], 1);
  EXPECT_EQ(finding(r, "agreement", "B s2r").outcome, Outcome::Ok);
}

// The same atom is right for an M-major A (smem (128,32):(1,128), global (M,K):(1,M), copied
// eight m's a thread by (16,8):(1,16) x (8,1)): source thread 8j + r's eight values
// (m = u + 8 (j % 2), k = r + 8 (j / 2)) are now consecutive offsets starting at a multiple of 8,
// so what the hardware reads is what the MMA expects.
TEST(KernelCases, TransposedLdmatrixAgreesOnAnMMajorOperand) {
  Json j = read_case("sm80_f16_ldmatrix_trans");
  j["global"]["A"] = "(M,K):(1,M)";
  j["A"]["g2s"]["threads"] = "(16,8):(1,16)";
  j["A"]["g2s"]["values"] = "(8,1)";
  j["A"]["smem"] = "(128,32):(1,128)";
  const KernelReport r = run(j);
  EXPECT_EQ(finding(r, "agreement", "A s2r").outcome, Outcome::Ok) << finding(r, "agreement", "A s2r").message;
  EXPECT_EQ(finding(r, "width", "A s2r (read)").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "coverage", "A g2s").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "global", "A g2s (global)").outcome, Outcome::Ok);
  // Unswizzled, a phase's eight rows k = r + 8 (j / 2) sit 256 bytes apart: one bank group, 8-way.
  EXPECT_EQ(finding(r, "banks", "A s2r (read)").detail["degree"], 8);
}

// ldmatrix x2 (SM75_U32x2_LDSM_N; CuTe's bits ((16,2),128):((128,0),1) and (32,(32,2)):(32,(1,1024))
// over 16-bit elements) for B with the N permutation 16: each warp's B atom is 8 x 16, one x2.
// Source threads 16..31 repeat the addresses of 0..15 (ignored by the hardware); thread s < 16
// reads row n = s % 8, k = 8 (s / 8) .. + 7, and dst thread t gets (n = t / 4, k = 2 (t % 4) + e
// + 8 j), which is the MMA's B layout: agreement holds, 16 x2 per thread (64 values / 4).
TEST(KernelCases, LdmatrixX2WithRepeatedSourceThreadsAgrees) {
  Json j = read_case("sm80_f16_128x128x32");
  j["mma"]["permutation"] = Json::array({32, 16, 16});
  j["B"]["s2r"] = {{"name", "SM75_U32x2_LDSM_N"}, {"bits", 128}, {"src", "((16,2),8):((8,0),1)"}, {"dst", "(32,(2,2)):(2,(1,64))"}};
  const KernelReport r = run(j);
  const Finding& f = finding(r, "agreement", "B s2r");
  EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
  EXPECT_EQ(f.message, "every thread's 64 values arrive where the MMA expects them (16 SM75_U32x2_LDSM_N per thread)");
  // Banks: only source lanes 0..15 read (two 8-row phases per x2); 4 warps x 16 x2 x 2 phases,
  // one wavefront each (Sw<3,3,3> puts a phase's 8 rows on 8 distinct chunks) = 128. Counting the
  // repeated lanes 16..31 as reads gave 256.
  EXPECT_EQ(finding(r, "banks", "B s2r (read)").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "banks", "B s2r (read)").detail["wavefronts"], 128);
  EXPECT_EQ(finding(r, "banks", "B s2r (read)").detail["phases"], 128);
  EXPECT_EQ(r.exit_code(), 0);
}

// An epilogue that stores straight from the accumulators ("source": "accumulators"). The tiled
// MMA's C partition as one TV layout over the 128x128 tile (index m + 128 n): thread t0 + 4 t1 +
// 32 (wm + 2 wn) holds m = t1 + 8 v1 + 16 (wm + 2 rm), n = 2 t0 + v0 + 8 (wn + 2 rn), so the
// strides are t0 256, t1 1, wm 16, wn 1024; v0 128, v1 8, rm 32, rn 2048; 32-bit stores (v0's
// two consecutive n). That agrees. The case file's (16,8) x (1,8) epilogue does not: its thread 0
// stores (m=0, n=0..7), and its value 2, (m=0, n=2), is thread 1's (t0 = 1).
TEST(KernelCases, AnEpilogueFromTheAccumulatorsStoresOnlyWhatEachThreadHolds) {
  Json j = read_case("sm80_f16_128x128x32");
  j["epilogue"] = {{"source", "accumulators"}, {"atom_bits", 32}, {"tile", Json::array({128, 128})},
                   {"tv", "(((4,8),(2,2)),((2,2),4,8)):(((256,1),(16,1024)),((128,8),32,2048))"}};
  const KernelReport good = run(j);
  EXPECT_EQ(finding(good, "agreement", "C epilogue").outcome, Outcome::Ok) << finding(good, "agreement", "C epilogue").message;
  EXPECT_EQ(finding(good, "coverage", "C epilogue").outcome, Outcome::Ok);
  EXPECT_EQ(finding(good, "global", "C epilogue (global)").outcome, Outcome::Ok);
  EXPECT_EQ(good.exit_code(), 0);
  Json staged = read_case("sm80_f16_128x128x32");
  staged["epilogue"]["source"] = "accumulators";
  const KernelReport bad = run(staged);
  const Finding& f = finding(bad, "agreement", "C epilogue");
  EXPECT_EQ(rule_of(f), "kernel-agreement");
  EXPECT_EQ(f.detail["thread"], 0);
  EXPECT_EQ(f.detail["value"], 2);
  EXPECT_EQ(f.detail["element"], Json::array({0, 2}));
}

// The atoms as CuTe's traits write them, in bits ("units": "bits"): LDSM_N x4's src
// (32,128):(128,1) and dst (32,(32,4)):(32,(1,1024)) read in 16-bit elements are the element
// layouts of the case file, so the answer is the same.
TEST(KernelCases, AtomLayoutsInBitsReadAsTheirElements) {
  Json j = read_case("sm80_f16_128x128x32");
  for (const char* op : {"A", "B"})
    j[op]["s2r"] = {{"name", "SM75_U32x4_LDSM_N"}, {"bits", 128}, {"units", "bits"}, {"src", "(32,128):(128,1)"}, {"dst", "(32,(32,4)):(32,(1,1024))"}};
  const KernelReport r = run(j);
  EXPECT_EQ(r.exit_code(), 0) << to_text(r);
  EXPECT_EQ(finding(r, "agreement", "A s2r").outcome, Outcome::Ok);
  // A bit layout whose 16-bit runs straddle elements is refused.
  j["A"]["s2r"]["dst"] = "(32,(32,4)):(32,(1,1032))";
  EXPECT_THROW(run(j), SpecError);
}

// Only M % 64 == 0 is assumed: the unpredicated A and C tiles need M % 128 == 0, which the
// assumptions do not imply (M = 64 is allowed); the prover refutes it with a replayed
// counterexample, a multiple of 64 that is not one of 128.
TEST(KernelCases, MNotAMultipleOfBmNamesTheRequiredCondition) {
  const KernelReport r = run_case("sm80_f16_m_not_multiple");
  EXPECT_EQ(r.exit_code(), 1);
  const Finding& f = finding(r, "bounds", "M % 128 == 0");
  EXPECT_EQ(rule_of(f), "kernel-bounds");
  EXPECT_EQ(f.detail["verdict"], "REFUTED");
  const Json& m = f.detail["counterexample"]["symbols"]["M"];
  ASSERT_TRUE(m.is_number_integer()) << f.detail.dump();
  EXPECT_EQ(m.get<int64_t>() % 64, 0);
  EXPECT_NE(m.get<int64_t>() % 128, 0);
  EXPECT_EQ(finding(r, "bounds", "N % 128 == 0").outcome, Outcome::Ok);
}

// SM90: the 128-byte-swizzled K-major atom for 16-bit types, Sw<3,4,3> over bytes = Sw<3,3,3>
// over 2-byte elements, on (8,64):(64,1), stacked along M: (128,64):(64,1). A g2s phase (8
// threads) writes one row's eight chunks c, stored at c ^ (m % 8): conflict-free. The wgmma C
// layout ((4,8,4),(2,2,16)):((128,1,16),(64,8,512)) over 64x128, two atoms along M: 256 threads x
// 64 values = 128 x 128 once. Footprint 2 x 128 x 64 x 2 B = 32 KiB a stage, 4 stages 128 KiB
// <= 228 KiB; A and B are read by the MMA from shared memory.
TEST(KernelCases, Sm90WgmmaChecksCoverageBanksAndFootprint) {
  const KernelReport r = run_case("sm90_wgmma_128b");
  EXPECT_EQ(r.exit_code(), 0) << to_text(r);
  EXPECT_EQ(finding(r, "coverage", "C mma").message, "128x128 tile covered exactly once (256 threads x 64 values)");
  EXPECT_EQ(finding(r, "banks", "A g2s (write)").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "footprint", "smem").detail["total_bytes"], 4 * 32768);
  EXPECT_EQ(finding(r, "footprint", "smem").detail["limit_bytes"], 228 * 1024);
  // The descriptor's view: every 8-row group g starts at 512 g (= Sw<3,3,3>(512 g), aligned to
  // the 1024-byte atom) and holds Sw<3,3,3>(64 r + c): the K-major 128-byte atoms, stride 512.
  EXPECT_EQ(finding(r, "agreement", "A mma (smem)").detail["atom_bytes"], 128);
  EXPECT_EQ(finding(r, "agreement", "B mma (smem)").detail["atom_bytes"], 128);
  // Seven stages (224 KiB) fit; eight (256 KiB) do not.
  Json j = read_case("sm90_wgmma_128b");
  j["stages"] = 8;
  const KernelReport big = run(j);
  EXPECT_EQ(rule_of(finding(big, "footprint", "smem")), "kernel-smem-footprint");
}

// Interleaved (unswizzled) K-major core matrices: 8 rows x 8 halves contiguous (64 elements),
// the next along K 64 elements on, the next 8 rows 512 on: ((8,16),(8,8)):((8,512),(1,64)).
// A plain row-major (128,64):(64,1) is neither that (row 1 of the first core matrix is 64
// elements on, not 8) nor swizzled, nor an MN-major canonical layout (whose atoms keep M
// contiguous: element (m=1, k=0) is 64 elements on, not 1): wgmma's reading is undecided (exit 2), not ok.
TEST(KernelCases, WgmmaOperandsMustBeCanonicalLayouts) {
  Json j = read_case("sm90_wgmma_128b");
  j["A"]["smem"] = "((8,16),(8,8)):((8,512),(1,64))";
  const KernelReport inter = run(j);
  EXPECT_EQ(finding(inter, "agreement", "A mma (smem)").detail["atom_bytes"], 16);
  j["A"]["smem"] = "(128,64):(64,1)";
  const KernelReport plain = run(j);
  const Finding& f = finding(plain, "agreement", "A mma (smem)");
  EXPECT_EQ(f.outcome, Outcome::Undecided);
  EXPECT_EQ(rule_of(f), "kernel-gmma-layout");
  EXPECT_EQ(plain.exit_code(), 2);
}

TEST(KernelCases, ThreeStagePipelineIsCheckedUnderASecond) {
  TFSPEC_RELEASE_BUILD_ONLY("a time limit measures the release build (ASan costs several times as much)");
  const auto start = std::chrono::steady_clock::now();
  const KernelReport r = run_case("sm80_f16_128x128x32");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_LT(s, 1.0);
}

// An M-major A, (M,K):(1,M), under the K-major cp.async copy: each thread's eight values run along
// k, whose global stride is M, so no 128-bit access is contiguous.
TEST(KernelCases, CopyAlongAStridedModeIsNotContiguousInGlobalMemory) {
  Json j = read_case("sm80_f16_128x128x32");
  j["global"]["A"] = "(M,K):(1,M)";
  const KernelReport r = run(j);
  const Finding& f = finding(r, "global", "A g2s (global)");
  EXPECT_EQ(rule_of(f), "kernel-global-access");
  EXPECT_EQ(f.detail["mode"], 1);
  EXPECT_EQ(finding(r, "global", "B g2s (global)").outcome, Outcome::Ok);
}

// Assumptions no instance satisfies but no strategy can show so (spec/PROVE.md's example:
// M*X - N*Y == 1 with M and N even): every symbolic condition is proved only vacuously, which
// the prover reports as UNKNOWN, so the bounds are undecided (exit 2), never ok or violated.
TEST(KernelCases, ConditionsOverUnsatisfiableAssumptionsAreUndecided) {
  Json j = read_case("sm80_f16_128x128x32");
  j["assume"] = Json::array({"M*X - N*Y == 1", "M == 2*P", "N == 2*Q"});
  KernelOptions quick;
  quick.prove_timeout_ms = 500;  // each of the five conditions runs every strategy to its end
  const KernelReport r = check_pipeline(read_pipeline(j), quick);
  const Finding& f = finding(r, "bounds", "M % 128 == 0");
  EXPECT_EQ(f.outcome, Outcome::Undecided) << f.message;
  EXPECT_EQ(rule_of(f), "kernel-bounds-undecided");
  EXPECT_EQ(r.exit_code(), 2);
}

// The pictures' data (--draw): one view per partition; for the transposing ldmatrix, A's MMA
// view marks the slot the agreement check names first (thread 4 value 0 expects (m=1, k=0),
// tile index 1), and the g2s views are exclusive (each element once) while the MMA's A is not.
TEST(KernelViews, PicturesMarkWhatTheChecksName) {
  const Pipeline p = read_pipeline(read_case("sm80_f16_ldmatrix_trans"));
  const KernelReport r = check_pipeline(p);
  const std::vector<TileView> views = tile_views(p, r);
  std::vector<std::string> files;
  for (const TileView& v : views) files.push_back(v.file);
  EXPECT_EQ(files, (std::vector<std::string>{"A-g2s.svg", "A-mma.svg", "B-g2s.svg", "B-mma.svg", "C-mma.svg", "C-epilogue.svg"}));
  const TileView& a = views[1];
  EXPECT_FALSE(a.exclusive);
  EXPECT_NE(std::find(a.offending.begin(), a.offending.end(), 1), a.offending.end());
  EXPECT_TRUE(views[3].offending.empty());  // B agrees
  EXPECT_TRUE(views[0].exclusive);
}

// Malformed descriptions are input errors naming the JSON path.
TEST(KernelInput, ErrorsNameTheirPath) {
  Json j = read_case("sm80_f16_128x128x32");
  j["A"]["g2s"].erase("atom_bits");
  try {
    read_pipeline(j);
    FAIL() << "accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "kernel-input");
    EXPECT_EQ(e.diagnostic().path, "A.g2s.atom_bits");
  }
  Json misspelt = read_case("sm80_f16_128x128x32");
  misspelt["epilog"] = misspelt["epilogue"];  // would silently skip the epilogue's checks
  try {
    read_pipeline(misspelt);
    FAIL() << "accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "kernel-input");
    EXPECT_EQ(e.diagnostic().path, "epilog");
  }
  // A 4096 x 4096 A tile is 128 x 128 repeats of the 32x32 copy: 128 threads x 131072 values,
  // beyond the 2^22 pairs the check enumerates: a limit (undecided), not an answer.
  Json huge = read_case("sm80_f16_128x128x32");
  huge["tile"] = Json::array({4096, 128, 4096});
  try {
    check_pipeline(read_pipeline(huge));
    FAIL() << "checked";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "resource-limit");
  }
  // A thread layout that is not one-to-one cannot be inverted into a TV layout (give the TV).
  Json twice = read_case("sm80_f16_128x128x32");
  twice["A"]["g2s"]["threads"] = "(32,4):(2,1)";
  EXPECT_THROW(read_pipeline(twice), SpecError);
}

}  // namespace
}  // namespace tfspec::kernel
