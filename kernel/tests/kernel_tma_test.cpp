// TMA loads (spec/KERNEL.md "TMA loads", extension K1): the box fits, the shared-memory layout is
// where the tensor map's swizzle mode writes each element, no per-thread bank number. Expected
// values derived by hand below; the mode <-> swizzle table is also checked against CuTe's
// get_tma_swizzle_bits by kernel/tests/cute/ (optional).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/tma.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::kernel {
namespace {

Json tma_case() {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/sm90_wgmma_tma.json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

KernelReport run(const Json& j) { return check_pipeline(read_pipeline(j)); }

// The mode's swizzle: 128B xors byte-address bits 7..9 into 4..6 (Sw<3,4,3>), 64B bits 7..8 into
// 4..5 (Sw<2,4,3>), 32B bit 7 into 4 (Sw<1,4,3>); over 2-byte elements every bit one lower.
TEST(KernelTma, ModesAreTheByteSwizzles) {
  EXPECT_EQ(to_string(tma_byte_swizzle(128)), "Sw<3,4,3>");
  EXPECT_EQ(to_string(tma_byte_swizzle(64)), "Sw<2,4,3>");
  EXPECT_EQ(to_string(tma_byte_swizzle(32)), "Sw<1,4,3>");
  EXPECT_EQ(to_string(tma_element_swizzle(128, 2)), "Sw<3,3,3>");
  EXPECT_EQ(to_string(tma_element_swizzle(64, 4)), "Sw<2,2,3>");
  EXPECT_EQ(tma_byte_swizzle(0)(0x3ff), 0x3ff);  // none: the identity
}

// sm90_wgmma_tma: A and B by TMA, 128B mode, box 128 x 64 (rows x K). K is the stride-1 mode of
// (M,K):(K,1), so the inner extent is 64 halves = 128 bytes, within the 128B span; one box tiles
// the 128x64 tile. The box lands dense, row r's element c at 64 r + c, swizzled Sw<3,3,3> from
// offset 0: exactly Sw<3,3,3> o 0 o (128,64):(64,1). Banks: not applicable. The global side: K's
// stride must be a multiple of 16 bytes, K % 8 == 0 (from K % 64); no M % 128 for A's sake (TMA
// zero-fills out-of-range rows), but C's unpredicated epilogue still needs it.
TEST(KernelTma, TmaCaseFitsAndMatchesTheMode) {
  const KernelReport r = run(tma_case());
  EXPECT_EQ(r.exit_code(), 0) << to_text(r);
  const Finding& box = finding(r, "coverage", "A g2s");
  EXPECT_EQ(box.outcome, Outcome::Ok);
  EXPECT_EQ(box.detail["boxes"], 1);
  EXPECT_EQ(box.detail["inner_bytes"], 128);
  const Finding& place = finding(r, "agreement", "A g2s (tma)");
  EXPECT_EQ(place.outcome, Outcome::Ok);
  EXPECT_EQ(place.detail["swizzle"], "Sw<3,3,3>");
  EXPECT_EQ(place.detail["period_bytes"], 1024);
  const Finding& banks = finding(r, "banks", "B g2s (write)");
  EXPECT_EQ(banks.detail["applicable"], false);
  EXPECT_NE(banks.message.find("not applicable"), std::string::npos);
  EXPECT_EQ(finding(r, "bounds", "K % 8 == 0").outcome, Outcome::Ok);
  EXPECT_EQ(finding(r, "bounds", "M % 128 == 0").detail["needed_by"], "the unpredicated C tiles (BM = 128)");
  EXPECT_EQ(finding(r, "agreement", "A mma (smem)").detail["atom_bytes"], 128);
}

// The 64B mode with a 128-byte inner extent: the box is wider than the span (kernel-tma-box), and
// the placement is not checked. With a 128 x 32 box (64 bytes) it fits, and the placement differs
// at the second row: element (m=1, k=0) is at Sw<3,3,3>(64) = 64 ^ 8 = 72 in the layout, but the
// 64B mode writes it at dense offset 32 (row 1 of a 32-wide box), Sw<2,3,3>(32) = 32.
TEST(KernelTma, SwizzleModeMustMatchTheLayout) {
  Json j = tma_case();
  j["A"]["g2s"]["tma"]["swizzle"] = "64B";
  const KernelReport wide = run(j);
  const Finding& box = finding(wide, "coverage", "A g2s");
  EXPECT_EQ(rule_of(box), "kernel-tma-box");
  EXPECT_EQ(box.detail["inner_bytes"], 128);
  EXPECT_EQ(finding(wide, "agreement", "A g2s (tma)").outcome, Outcome::Skipped);
  j["A"]["g2s"]["tma"]["box"] = Json::array({128, 32});
  const KernelReport narrow = run(j);
  EXPECT_EQ(finding(narrow, "coverage", "A g2s").outcome, Outcome::Ok);
  const Finding& f = finding(narrow, "agreement", "A g2s (tma)");
  EXPECT_EQ(rule_of(f), "kernel-tma-swizzle");
  EXPECT_EQ(f.detail["element"], Json::array({1, 0}));
  EXPECT_EQ(f.detail["offset"], 72);
  EXPECT_EQ(f.detail["expected"], 32);
  EXPECT_EQ(narrow.exit_code(), 1);
}

// A 48-wide box does not tile BK = 64; a 512-row box is over the tensor map's 256; an N-major
// layout without a stride-1 mode has no innermost dimension. A misspelt mode is input (exit 3).
TEST(KernelTma, BoxMustFit) {
  Json j = tma_case();
  j["A"]["g2s"]["tma"]["box"] = Json::array({128, 48});
  EXPECT_NE(finding(run(j), "coverage", "A g2s").message.find("does not tile the 128x64 tile"), std::string::npos);
  j["A"]["g2s"]["tma"]["box"] = Json::array({512, 64});
  EXPECT_EQ(rule_of(finding(run(j), "coverage", "A g2s")), "kernel-tma-box");
  j["A"]["g2s"]["tma"]["box"] = Json::array({128, 64});
  j["global"]["A"] = "(M,K):(2*K,2)";
  EXPECT_NE(finding(run(j), "coverage", "A g2s").message.find("neither mode"), std::string::npos);
  j = tma_case();
  j["A"]["g2s"]["tma"]["swizzle"] = "128";
  try {
    run(j);
    ADD_FAILURE() << "accepted a bad mode";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.diagnostic().rule, "kernel-input");
    EXPECT_EQ(e.diagnostic().path, "A.g2s.tma.swizzle");
  }
}

}  // namespace
}  // namespace tfspec::kernel
