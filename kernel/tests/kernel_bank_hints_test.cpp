// Bank-conflict findings name the offsets the colliding threads access and a swizzle the bank
// model confirms removes the conflict; the epilogue's staging buffer has no stages, so its
// findings name none (issue 44 item 13). Expected values derived by hand below.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/check.hpp"

namespace tfspec::kernel {
namespace {

Json read_case(const std::string& name) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/" + name + ".json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

// Unswizzled (128,32):(32,1) (as KernelCases.UnswizzledReports...): the worst phase's threads 0,
// 2, 4, 6 read rows 0, 2, 4, 6 at chunk 0: element offsets 32 m = 0, 64, 128, 192. The hint: a
// phase reads rows m0..m0+7 at chunk c, 16-byte slot 4 (m % 2) + c of a 128-byte line. B = 1
// flips one bit of c: at most 4 distinct slots (2-way). B = 2 with M <= 2 flips a bit inside the
// 8-element vector (bit 2 or below; rows vary every bit from 3 up), so the vectors break. B = 2,
// M = 3, S = 2 xors m % 4 into c: rows 0 and 4 meet (2-way). S = 3 xors (m / 2) % 4: slots
// 4 (m % 2) + (c ^ (m / 2 % 4)), eight distinct: Sw<2,3,3>, the first one tried that works; the
// stages sit 4096 elements (8 KiB, a multiple of 128 bytes) apart, so each stage agrees.
TEST(KernelBankHints, AConflictNamesTheOffsetsAndTheSwizzleThatRemovesIt) {
  const KernelReport r = check_pipeline(read_pipeline(read_case("sm80_f16_unswizzled")));
  const Finding& a = finding(r, "banks", "A s2r (read)");
  EXPECT_EQ(a.detail["worst"]["offsets"], Json::array({0, 64, 128, 192}));
  EXPECT_NE(a.message.find("to threads 0, 2, 4, 6 at element offsets 0, 64, 128, 192"), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("hint: Sw<2,3,3> o 0 o (128,32):(32,1) makes these accesses conflict-free"), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("stage 0, "), std::string::npos) << a.message;  // A's buffer has stages
  // Taking the hint: the reads are conflict-free.
  Json j = read_case("sm80_f16_unswizzled");
  j["A"]["smem"] = "Sw<2,3,3> o 0 o (128,32):(32,1)";
  EXPECT_EQ(finding(check_pipeline(read_pipeline(j)), "banks", "A s2r (read)").outcome, Outcome::Ok);
}

// The staging buffer (KernelEpilogue.StagingBufferStoresAreCheckedForBanks): row-major
// (128,128):(128,1) with 32-bit stores, 8-way at bank 0, threads 0, 4, ..., 28 = (t0 0, t1 0..7):
// rows 0..7 at column 0, element offsets 128 t1. No stage in the message or the detail. The hint
// is checked by taking it: the stores are then conflict-free.
TEST(KernelBankHints, TheEpilogueStagingBufferNamesNoStageAndItsHintHolds) {
  Json j = read_case("sm80_f16_128x128x32");
  j["epilogue"]["smem"] = "(128,128):(128,1)";
  j["epilogue"]["r2s_bits"] = 32;
  const KernelReport plain = check_pipeline(read_pipeline(j));
  const Finding& w = finding(plain, "banks", "C r2s (write)");
  ASSERT_EQ(w.outcome, Outcome::Violation) << w.message;
  EXPECT_EQ(w.message.find("stage"), std::string::npos) << w.message;
  EXPECT_FALSE(w.detail.contains("stage"));
  EXPECT_EQ(w.detail["worst"]["offsets"], Json::array({0, 128, 256, 384, 512, 640, 768, 896}));
  std::smatch m;
  const std::string msg = w.message;
  ASSERT_TRUE(std::regex_search(msg, m, std::regex("hint: (Sw<[0-9],[0-9],[0-9]>) o 0 o \\(128,128\\):\\(128,1\\)"))) << msg;
  j["epilogue"]["smem"] = m[1].str() + " o 0 o (128,128):(128,1)";
  const KernelReport taken = check_pipeline(read_pipeline(j));
  EXPECT_EQ(finding(taken, "banks", "C r2s (write)").outcome, Outcome::Ok) << to_text(taken);
}

}  // namespace
}  // namespace tfspec::kernel
