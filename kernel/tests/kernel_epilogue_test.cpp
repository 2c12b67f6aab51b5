// The epilogue through a shared-memory staging buffer (spec/KERNEL.md, extension K1): the
// register-to-shared stores of the accumulator fragments and the epilogue copy's reads, checked
// for width, banks and aliasing. Expected values derived by hand below.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::kernel {
namespace {

Json sm80_case() {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/sm80_f16_128x128x32.json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

// The epilogue through a staging buffer (extension K1). The 16x8x16 C fragment: thread
// t0 + 4 t1 holds (m = t1 (+8), n = 2 t0 + {0,1}) of each atom, values 0 and 1 adjacent along n:
// 32-bit stores (a whole warp a phase). Row-major (128,128):(128,1): thread (t0, t1)'s word is
// (128 m + 2 t0) / 2 = 64 m + t0, bank t0: the eight t1 (rows) of one t0 share a bank, 8-way
// (bank 0: threads 0, 4, ..., 28). Sw<3,3,4> xors m % 8 (offset bits 7..9) into offset bits 3..5,
// i.e. word bits 2..4: bank t0 + 4 (t1 % 8), all 32 distinct: conflict-free. The epilogue's
// 128-bit reads (8 threads a row, 8 halves each) stay one 128-byte row a phase under both
// (the swizzle permutes chunks within a row): conflict-free.
TEST(KernelEpilogue, StagingBufferStoresAreCheckedForBanks) {
  Json j = sm80_case();
  j["epilogue"]["smem"] = "(128,128):(128,1)";
  j["epilogue"]["r2s_bits"] = 32;
  const KernelReport plain = check_pipeline(read_pipeline(j));
  const Finding& w = finding(plain, "banks", "C r2s (write)");
  EXPECT_EQ(rule_of(w), "kernel-bank-conflict");
  EXPECT_EQ(w.detail["degree"], 8);
  EXPECT_EQ(w.detail["access_bits"], 32);
  EXPECT_EQ(w.detail["worst"]["threads"], Json::array({0, 4, 8, 12, 16, 20, 24, 28}));
  EXPECT_EQ(finding(plain, "width", "C r2s (write)").detail["bits"], 32);
  EXPECT_EQ(finding(plain, "banks", "C s2g (read)").outcome, Outcome::Ok);
  j["epilogue"]["smem"] = "Sw<3,3,4> o 0 o (128,128):(128,1)";
  const KernelReport swizzled = check_pipeline(read_pipeline(j));
  EXPECT_EQ(swizzled.exit_code(), 0) << to_text(swizzled);
  EXPECT_EQ(finding(swizzled, "banks", "C r2s (write)").detail["degree"], 1);
  EXPECT_EQ(finding(swizzled, "banks", "C s2g (read)").outcome, Outcome::Ok);
}

// 64-bit stores would need values 0..3 of a thread contiguous, but values 2 and 3 are 8 rows
// down (m + 8): width violation at thread 0 value 2. A staging buffer that maps two elements to
// one offset is a coverage violation; r2s_bits without a buffer is input.
TEST(KernelEpilogue, StagingBufferWidthAndAliasing) {
  Json j = sm80_case();
  j["epilogue"]["smem"] = "(128,128):(128,1)";
  j["epilogue"]["r2s_bits"] = 64;
  const KernelReport wide = check_pipeline(read_pipeline(j));
  const Finding& w = finding(wide, "width", "C r2s (write)");
  EXPECT_EQ(rule_of(w), "kernel-vector-width");
  EXPECT_EQ(w.detail["thread"], 0);
  j["epilogue"]["r2s_bits"] = 32;
  j["epilogue"]["smem"] = "(128,128):(64,1)";
  EXPECT_EQ(rule_of(finding(check_pipeline(read_pipeline(j)), "coverage", "C smem")), "kernel-coverage");
  j["epilogue"].erase("smem");
  try {
    read_pipeline(j);
    ADD_FAILURE() << "accepted r2s_bits without a buffer";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.diagnostic().path, "epilogue.r2s_bits");
  }
}

}  // namespace
}  // namespace tfspec::kernel
