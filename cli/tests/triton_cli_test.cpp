// `tfspec kernel check --from triton KERNEL.ttgir` end to end (spec/TRITON.md): exit codes as for
// every kernel check, the JSON findings carry `loc`, Triton's metadata.shared is read from the
// KERNEL.json beside the TTGIR, a text that is not a TTGIR is exit 3 with its rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

const std::string kFixtures = std::string(TFSPEC_SOURCE_DIR) + "/frontends/triton/tests/fixtures/";

TEST(KernelCheckFromTriton, ExitCodesJsonAndLocations) {
  auto ok = run_tfspec("kernel check --from triton " + kFixtures + "transpose_64_w4.sm80.ttgir --json");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  // The convert of kernels.py line 62 (the store of the transposed tile) goes through shared
  // memory; Triton's metadata.shared (8192, in the .json beside it) is the 64 x 64 halves' tile.
  EXPECT_NE(ok.out.find("\"loc\":\"kernels.py:62:5\""), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("\"class\":\"shared\""), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("\"declared_bytes\":8192"), std::string::npos) << ok.out;
  // Every finding carries `loc`: an op's, or the kernel's own (the tt.func's line, kernels.py:57:1)
  // for the whole-kernel footprint; none is left out.
  size_t findings = 0, locs = 0;
  for (size_t at = ok.out.find("\"check\":"); at != std::string::npos; at = ok.out.find("\"check\":", at + 1)) ++findings;
  for (size_t at = ok.out.find("\"loc\":"); at != std::string::npos; at = ok.out.find("\"loc\":", at + 1)) ++locs;
  EXPECT_GT(findings, 0u);
  EXPECT_EQ(locs, findings) << ok.out;  // no violations here: every "check" is a finding's
  EXPECT_NE(ok.out.find("\"loc\":\"kernels.py:57:1\""), std::string::npos) << ok.out;
  auto small = run_tfspec("kernel check --from triton " + kFixtures + "matmul_fp16_128x128x32_w4_s3.sm80.ttgir --smem-limit 16KiB");
  EXPECT_EQ(small.rc, 1) << small.out;  // 32768 B of buffers > 16 KiB
  EXPECT_NE(small.out.find("kernel-smem-footprint"), std::string::npos) << small.out;
  const std::string bad = ::testing::TempDir() + "/not_ttgir.ttgir";
  std::ofstream(bad) << "define void @f() {\n}\n";
  auto refused = run_tfspec("kernel check --from triton " + bad);
  EXPECT_EQ(refused.rc, 3) << refused.out;
  EXPECT_NE(refused.out.find("triton-input"), std::string::npos) << refused.out;
  auto other = run_tfspec("kernel check --from cute " + bad);
  EXPECT_EQ(other.rc, 3) << other.out;
}

// A KERNEL.json beside the TTGIR that is not Triton's metadata (no integer "shared", or not JSON)
// is said so on stderr: the footprint is then compared with the limit only, never silently.
TEST(KernelCheckFromTriton, MetadataThatDoesNotReadIsSaid) {
  const std::string dir = ::testing::TempDir() + "/meta_warn";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kFixtures + "softmax_1024_w4.sm80.ttgir", dir + "/k.ttgir", std::filesystem::copy_options::overwrite_existing);
  for (const char* meta : {"{\"shared\": \"16\"}", "not json"}) {
    std::ofstream(dir + "/k.json") << meta;
    auto r = run_tfspec("kernel check --from triton " + dir + "/k.ttgir");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("is not Triton's metadata"), std::string::npos) << meta << ": " << r.out;
  }
  std::ofstream(dir + "/k.json") << "{\"shared\": 16}";
  auto good = run_tfspec("kernel check --from triton " + dir + "/k.ttgir");
  EXPECT_EQ(good.out.find("is not Triton's metadata"), std::string::npos) << good.out;
}

}  // namespace
