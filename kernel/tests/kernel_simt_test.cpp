// A SIMT GEMM's pipeline (extension K1): padded stage strides, the one-thread universal copy as
// each thread's loads of its own MMA fragment, and the products of a one-value MMA atom
// (UniversalFMA). The description is CUTLASS's sgemm.py at its defaults, written out by hand from
// the example (128x128x8, 3 stages, 256 threads, f32, A and B K-major): smem (128,8):(1,132) with
// stages 1056 apart, g2s copy threads (32,8):(8,1) of one 32-bit value, 16x16 FMA atoms
// (16,16,1):(16,1,0) with M and N permuted by (16,4):(4,1), 128-bit loads of each fragment.
// Every expected figure is derived in the comments from those layouts and spec/SMEM.md's model
// (32 banks of 4 bytes; 32-bit accesses a whole warp a phase, 128-bit ones 8 threads a phase; a
// word several threads read is served once).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/atoms.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::kernel {
namespace {

Json operand() {
  return Json{{"g2s", {{"atom_bits", 32}, {"tv", "((8,32),1):((32,1),0)"}, {"tile", {32, 8}}}},
              {"smem", "(128,8):(1,132)"},
              {"stage_stride", 1056},
              {"s2r", {{"name", "UniversalCopy<uint128_t>"}, {"bits", 128}, {"src", "(1,4):(0,1)"}, {"dst", "(1,4):(0,1)"}}}};
}

Json sgemm() {
  return Json{{"name", "simt_sgemm"},
              {"arch", "sm80"},
              {"threads", 256},
              {"tile", {128, 128, 8}},
              {"stages", 3},
              {"bits", {{"A", 32}, {"B", 32}, {"C", 32}}},
              {"global", {{"A", "(M,K):(K,1)"}, {"B", "(N,K):(K,1)"}, {"C", "(M,N):(N,1)"}}},
              {"assume", {"M % 128 == 0", "N % 128 == 0", "K % 8 == 0"}},
              {"A", operand()},
              {"B", operand()},
              {"mma",
               {{"name", "UniversalFMA"},
                {"shape", {1, 1, 1}},
                {"threads", 1},
                {"A", "(1,1):(0,0)"},
                {"B", "(1,1):(0,0)"},
                {"C", "(1,1):(0,0)"},
                {"atoms", "(16,16,1):(16,1,0)"},
                {"permutation", {"(16,4):(4,1)", "(16,4):(4,1)", nullptr}}}}};
}

KernelReport run(const Json& j) { return check_pipeline(read_pipeline(j)); }

}  // namespace

// The atoms of kernel/atoms.hpp are the ones the description states (CuTe's MMA_Traits<UniversalFMA>:
// 1x1x1, one thread, (1,1) layouts; Copy_Traits<UniversalCopy<uint128_t>>: (1,128) bits, 4 f32).
TEST(KernelSimt, AtomsAreCutesUniversalOnes) {
  const Mma fma = universal_fma_atom();
  EXPECT_EQ(std::vector<int64_t>({fma.m, fma.n, fma.k, fma.atom_threads}), std::vector<int64_t>({1, 1, 1, 1}));
  EXPECT_EQ(fma.a->size(), 1);
  EXPECT_EQ((*fma.a)(0), 0);
  const auto copy = universal_copy_atom(128, 32);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->src.size(), 4);
  for (int64_t v = 0; v < 4; ++v) EXPECT_EQ(copy->dst(v), v);
  EXPECT_FALSE(universal_copy_atom(48, 32));
}

// Thread t = 16 wm + wn (the atom layout (16,16,1):(16,1,0)). Along M, block b = wm + 16 r (r =
// 0..7) maps through the permutation (16,4):(4,1) to 4 (b % 16) + (b / 16) % 4 and 64 (b / 64):
// m = 4 wm + (r % 4) + 64 (r / 4); likewise n = 4 wn + ... So each thread holds an 8x8 block of C
// (64 values), every element once: 256 x 64 = 128 x 128. Its A values r + 8 k are A(m, k).
// Products: 256 threads x 8 x 8 x 8 = 131072 = 128 x 128 x 8, each (m, n, k) once.
// g2s writes: thread t writes A(m = t / 8, k = t % 8) at m + 132 k: bank (t / 8 + 4 (t % 8)) mod 32,
// which over a warp (t / 8 in 0..3, t % 8 in 0..7) is 32 distinct banks: one wavefront per warp
// access, 8 warps x 4 accesses (the 32x8 copy tile repeated 4 times along M) = 32.
// FMA reads (128-bit): a phase is 8 threads of one wm, all reading A's same 16 bytes (one
// wavefront), and 8 consecutive wn reading B's 4 wn .. 4 wn + 3 (128 contiguous bytes, one
// wavefront). 8 warps x 16 accesses (64 values / 4) x 4 phases = 512 for A and for B.
// Footprint: a stage's tile reaches 127 + 7 x 132 = 1051 (cosize 1052); the stages start 1056
// apart, so each buffer is 2 x 1056 + 1052 = 3164 elements = 12656 B (3 x 1056 x 4 = 12672 B
// would count the last stage's 4 padding elements, which nothing uses); both 25312 B. Per stage
// 2 x 1056 x 4 = 8448 B.
TEST(KernelSimt, SgemmWithPaddedStagesPassesEveryCheck) {
  const KernelReport r = run(sgemm());
  EXPECT_EQ(r.exit_code(), 0) << to_text(r);
  EXPECT_EQ(finding(r, "coverage", "C mma").outcome, Outcome::Ok);
  EXPECT_NE(finding(r, "coverage", "C mma").message.find("256 threads x 64 values"), std::string::npos);
  const Finding& products = finding(r, "agreement", "C mma (m,n,k)");
  EXPECT_EQ(products.outcome, Outcome::Ok);
  EXPECT_EQ(products.detail["products"], 131072);
  EXPECT_EQ(finding(r, "agreement", "A s2r").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "banks", "A g2s (write)").detail["wavefronts"], 32);
  EXPECT_EQ(finding(r, "banks", "A g2s (write)").detail["ideal"], 32);
  EXPECT_EQ(finding(r, "width", "A s2r (read)").detail["bits"], 128);
  EXPECT_EQ(finding(r, "banks", "A s2r (read)").detail["wavefronts"], 512);
  EXPECT_EQ(finding(r, "banks", "B s2r (read)").detail["wavefronts"], 512);
  const Finding& fp = finding(r, "footprint", "smem");
  EXPECT_EQ(fp.detail["total_bytes"], 25312);
  EXPECT_EQ(fp.detail["A_buffer_bytes"], 12656);
  EXPECT_EQ(fp.detail["stage_bytes"], 8448);
}

// Without a stated stride the stages are packed, one cosize (1052) apart: 3 x 1052 x 4 = 12624 B
// a buffer, 25248 B; 1052 is a multiple of the 4-element vector, so the loads stay aligned.
TEST(KernelSimt, StagesArePackedWithoutAStride) {
  Json j = sgemm();
  j["A"].erase("stage_stride");
  j["B"].erase("stage_stride");
  const KernelReport r = run(j);
  EXPECT_EQ(r.exit_code(), 0) << to_text(r);
  EXPECT_EQ(finding(r, "footprint", "smem").detail["total_bytes"], 25248);
}

// Stages 1000 apart overlap the 1052-element tile: stage 1's (m=0, k=0) lands at 1000, stage 0's
// element there is m + 132 k = 1000, k = 7, m = 76.
TEST(KernelSimt, OverlappingStagesAreACoverageViolation) {
  Json j = sgemm();
  j["A"]["stage_stride"] = 1000;
  const KernelReport r = run(j);
  const Finding& f = finding(r, "coverage", "A smem");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(rule_of(f), "kernel-coverage");
  EXPECT_EQ(f.detail["offset"], 1000);
  EXPECT_EQ(f.detail["element"], Json::array({0, 0}));
  EXPECT_EQ(f.detail["other_element"], Json::array({76, 7}));
  EXPECT_EQ(f.detail["stage"], 1);
  // A zero stride puts every stage on stage 0: (m=0, k=0) of stage 1 on itself.
  j["A"]["stage_stride"] = 0;
  EXPECT_EQ(finding(run(j), "coverage", "A smem").detail["other_element"], Json::array({0, 0}));
}

// Stages 1054 apart: 1054 = 4 x 263 + 2, so stage 1's 128-bit loads start 8 bytes off their
// alignment (the 32-bit g2s writes do not care).
TEST(KernelSimt, AStageStrideOffTheVectorIsAWidthViolation) {
  Json j = sgemm();
  j["A"]["stage_stride"] = 1054;
  const KernelReport r = run(j);
  const Finding& f = finding(r, "width", "A s2r (read)");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(rule_of(f), "kernel-vector-width");
  EXPECT_EQ(f.detail["stage_stride"], 1054);
  EXPECT_EQ(finding(r, "width", "A g2s (write)").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "width", "B s2r (read)").outcome, Outcome::Ok);
}

// A one-value atom whose A layout disagrees with its C layout: 2x2x1, 4 threads, thread
// i = i0 + 2 i1 holds C(m = i0, n = i1) (C ((2,2),1):((1,2),0)) and B(n = i1) but A(m = i1)
// (A ((2,2),1):((0,1),0)). Thread 0 multiplies A(0,0) B(0,0) into C(0,0), right; thread 1 holds
// C(1,0) but A(0,0): the first wrong product.
TEST(KernelSimt, AOneValueAtomPairingTheWrongRowsIsAnAgreementViolation) {
  Json j = sgemm();
  j["threads"] = 4;
  j["tile"] = {2, 2, 1};
  j["stages"] = 1;
  for (const char* op : {"A", "B"}) {
    j[op] = Json{{"g2s", {{"atom_bits", 32}, {"tv", "(2,1):(1,0)"}, {"tile", {2, 1}}}},
                 {"smem", "(2,1):(1,2)"},
                 {"s2r", {{"name", "UniversalCopy<uint32_t>"}, {"bits", 32}, {"src", "(1,1):(0,1)"}, {"dst", "(1,1):(0,1)"}}}};
  }
  j["mma"] = Json{{"shape", {2, 2, 1}}, {"threads", 4}, {"A", "((2,2),1):((0,1),0)"}, {"B", "((2,2),1):((0,1),0)"}, {"C", "((2,2),1):((1,2),0)"}};
  const KernelReport r = run(j);
  const Finding& f = finding(r, "agreement", "C mma (m,n,k)");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(rule_of(f), "kernel-agreement");
  EXPECT_EQ(f.detail["thread"], 1);
  EXPECT_EQ(f.detail["A"], Json::array({0, 0}));
  EXPECT_EQ(f.detail["C"], Json::array({1, 0}));
  // With A ((2,2),1):((1,0),0) (thread i holds A(i0, 0)) every product is right and once.
  j["mma"]["A"] = "((2,2),1):((1,0),0)";
  EXPECT_EQ(finding(run(j), "agreement", "C mma (m,n,k)").outcome, Outcome::Ok);
}

// Tiny one-value atoms over a 1x1x1 or 2x1x1 tile (one f32 element per operand row): two threads
// that both hold C(0,0), A(0,0) and B(0,0) compute the product (0,0,0) twice (thread 0, then 1);
// one thread of a 2x1x1 atom holding only row 0 leaves (m=1, n=0, k=0) never computed.
TEST(KernelSimt, AProductComputedTwiceOrNeverIsAnAgreementViolation) {
  Json j = sgemm();
  j["stages"] = 1;
  const auto tiny = [&](int64_t rows) {
    for (const char* op : {"A", "B"}) {
      const int64_t r = std::string(op) == "A" ? rows : 1;
      j[op] = Json{{"g2s", {{"atom_bits", 32}, {"tv", "(1," + std::to_string(r) + "):(0,1)"}, {"tile", {r, 1}}}},  // one thread, r values
                   {"smem", "(" + std::to_string(r) + ",1):(1,1)"},
                   {"s2r", {{"name", "UniversalCopy<uint32_t>"}, {"bits", 32}, {"src", "(1,1):(0,1)"}, {"dst", "(1,1):(0,1)"}}}};
    }
  };
  tiny(1);
  j["threads"] = 2;
  j["tile"] = {1, 1, 1};
  j["mma"] = Json{{"shape", {1, 1, 1}}, {"threads", 2}, {"A", "(2,1):(0,0)"}, {"B", "(2,1):(0,0)"}, {"C", "(2,1):(0,0)"}};
  const KernelReport twice = run(j);
  const Finding& f = finding(twice, "agreement", "C mma (m,n,k)");
  EXPECT_EQ(f.outcome, Outcome::Violation);
  EXPECT_EQ(f.detail["first_thread"], 0);
  EXPECT_EQ(f.detail["thread"], 1);
  EXPECT_EQ(f.detail["product"], Json::array({0, 0, 0}));
  tiny(2);
  j["threads"] = 1;
  j["tile"] = {2, 1, 1};
  j["mma"] = Json{{"shape", {2, 1, 1}}, {"threads", 1}, {"A", "(1,1):(0,0)"}, {"B", "(1,1):(0,0)"}, {"C", "(1,1):(0,0)"}};
  const KernelReport never = run(j);
  const Finding& g = finding(never, "agreement", "C mma (m,n,k)");
  EXPECT_EQ(g.outcome, Outcome::Violation);
  EXPECT_EQ(g.detail["missing"], 1);
  EXPECT_EQ(g.detail["first_missing"], Json::array({1, 0, 0}));
  EXPECT_EQ(finding(never, "coverage", "C mma").outcome, Outcome::Violation);  // C(1,0) is held by no thread either
}

// Atoms whose operands hold several values a thread (SM80's 16x8x16) pair them in hardware: no
// product finding (the s2r agreement covers their fragments).
TEST(KernelSimt, SeveralValueAtomsHaveNoProductFinding) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/sm80_f16_128x128x32.json");
  std::stringstream text;
  text << in.rdbuf();
  const KernelReport r = check_pipeline(read_pipeline_text(text.str()));
  for (const Finding& f : r.findings) EXPECT_NE(f.subject, "C mma (m,n,k)");
  EXPECT_EQ(r.exit_code(), 0);
}

}  // namespace tfspec::kernel
