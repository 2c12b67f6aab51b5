// `tfspec kernel check --from cute-dsl DUMP.mlir` end to end (spec/CUTE_DSL.md): exit 0 on the
// DSL's own GEMM, 1 on the GEMM whose copy threads walk M (kernel-coalescing), 3 on a text that is
// no CuTe DSL dump (cute-dsl-input), 1 on an ldmatrix tiled copy whose TV is not the MMA's
// (kernel-s2r-layout); the JSON findings carry check, outcome, loc and message.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

const std::string kFixtures = std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/";

TEST(KernelCheckFromCuteDsl, ExitCodesAndJsonFields) {
  auto ok = run_tfspec("kernel check --from cute-dsl " + kFixtures + "gemm_f16_64x64x32_atoms2x2.mlir --json");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  // The A copy's partition_S is line 100 of the dump (the fixture's own text).
  EXPECT_NE(ok.out.find("\"check\":\"global\""), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("\"loc\":\"line 100\""), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("\"outcome\":\"ok\""), std::string::npos) << ok.out;
  auto bad = run_tfspec("kernel check --from cute-dsl " + kFixtures + "gemm_f16_128x128x32_atoms4x2_threads_walk_m.mlir");
  EXPECT_EQ(bad.rc, 1) << bad.out;
  EXPECT_NE(bad.out.find("kernel-coalescing"), std::string::npos) << bad.out;
  const std::string junk = ::testing::TempDir() + "/not_cute.mlir";
  std::ofstream(junk) << "module {\n}\n";
  auto refused = run_tfspec("kernel check --from cute-dsl " + junk);
  EXPECT_EQ(refused.rc, 3) << refused.out;
  EXPECT_NE(refused.out.find("cute-dsl-input"), std::string::npos) << refused.out;
}

// spec/CUTE_DSL.md §5: A's ldmatrix copy with the M-atom stride 16 made 8 (line 166 is its
// partition_S in the fixture); thread 32 value 0 reads (m=8, k=0) where the MMA holds (m=16, k=0).
TEST(KernelCheckFromCuteDsl, AnS2rTiledCopyThatIsNotTheMmasIsAViolation) {
  std::ifstream in(kFixtures + "gemm_f16_64x64x32_atoms2x2.mlir");
  std::stringstream text;
  text << in.rdbuf();
  std::string dump = text.str();
  const std::string from = "((64,1,16,0),((32,8,256),(0,0)))";
  ASSERT_NE(dump.find(from), std::string::npos);
  dump.replace(dump.find(from), from.size(), "((64,1,8,0),((32,8,256),(0,0)))");
  const std::string planted = ::testing::TempDir() + "/s2r_planted.mlir";
  std::ofstream(planted) << dump;
  auto r = run_tfspec("kernel check --from cute-dsl " + planted + " --json");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("\"rule\":\"kernel-s2r-layout\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"loc\":\"line 166\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thread 32 value 0 reads (m=8, k=0) where the MMA's A fragment holds (m=16, k=0)"), std::string::npos) << r.out;
}

}  // namespace
