// `layout banks` names the offsets the colliding threads access and a swizzle the bank model
// confirms removes the conflict; `kernel check --smem-limit` names the user's own text when it
// is too large (issue 44 item 13).
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

// Thread t reads column v of row t: offset 32 t + v (x2-banks-row-major-32-way), so the worst
// phase (access 0) has threads 0, 1, 2, ... at offsets 0, 32, 64, ..., all in bank 0. A swizzle
// must give the 32 threads 32 distinct banks: B = 5 bits (B <= 4 separates at most 16), and
// Sw<5,0,5> xors the row (bits 5..9) into bits 0..4 (x2-banks-sw505): the first one tried.
TEST(BankHintsCli, TheWorstPhaseNamesOffsetsAndACheckedSwizzle) {
  const auto r = run_tfspec("layout banks '(32,32):(1,32)' '(32,32):(32,1)' --elem-bytes 4");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("threads 0 (offset 0, word 0), 1 (offset 32, word 32), 2 (offset 64, word 64)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hint: Sw<5,0,5> o 0 o (32,32):(32,1) is conflict-free (32 wavefronts, checked by this model)"), std::string::npos) << r.out;
  const auto j = run_tfspec("layout banks '(32,32):(1,32)' '(32,32):(32,1)' --elem-bytes 4 --json");
  EXPECT_NE(j.out.find("\"swizzle\":\"Sw<5,0,5>\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("{\"offset\":32,\"thread\":1,\"word\":32}"), std::string::npos) << j.out;
  // Taking the hint: conflict-free (exit 0).
  EXPECT_EQ(run_tfspec("layout banks '(32,32):(1,32)' 'Sw<5,0,5> o 0 o (32,32):(32,1)' --elem-bytes 4").rc, 0);
}

// 2147483648 KiB is 2^41 bytes, past the 2^40 limit: refused naming what was typed, as usage.
TEST(BankHintsCli, AnOversizedSmemLimitNamesTheUsersText) {
  const auto r = run_tfspec(std::string("kernel check ") + TFSPEC_SOURCE_DIR + "/docs/kernels/sm80_f16_128x128x32.json --smem-limit 2147483648KiB");
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("[usage"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'2147483648KiB'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("protocol"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("got 2199023255552"), std::string::npos) << r.out;  // the bytes the user never typed, alone
}

}  // namespace
