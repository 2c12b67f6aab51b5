// `tfspec kernel check --from cute-dsl DUMP.mlir` end to end (spec/CUTE_DSL.md): exit 0 on the
// DSL's own GEMM, 1 on the GEMM whose copy threads walk M (kernel-coalescing), 3 on a text that is
// no CuTe DSL dump (cute-dsl-input); the JSON findings carry check, outcome, loc and message.
#include <gtest/gtest.h>

#include <fstream>

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

}  // namespace
