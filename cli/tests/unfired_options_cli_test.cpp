// Options that would silently do nothing are usage errors, said at once (issue 44 item 14): an
// empty --draw (no pictures, exit 0 before), reshard-run's --seed -1 (read as 2^64-1 before; fuzz
// and conform refuse it). TFSPEC_MPI_FAULT values that cannot fire: cli/tests/mpi.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

const std::string kPipeline = std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/sm80_f16_128x128x32.json";

TEST(UnfiredOptionsCli, AnEmptyDrawIsRefused) {
  auto kernel = run_tfspec("kernel check '" + kPipeline + "' --draw ''");
  EXPECT_EQ(kernel.rc, 3) << kernel.out;
  EXPECT_NE(kernel.out.find("--draw: must not be empty: --draw names the directory the pictures go into"), std::string::npos) << kernel.out;
  // The same pipeline without --draw passes (exit 0): the refusal is the empty value's alone.
  EXPECT_EQ(run_tfspec("kernel check '" + kPipeline + "'").rc, 0);
  auto layout = run_tfspec("layout check '(4,2):(1,4)' --draw ''");
  EXPECT_EQ(layout.rc, 3) << layout.out;
  EXPECT_NE(layout.out.find("--draw: must not be empty"), std::string::npos) << layout.out;
  auto shard = run_tfspec("shard check 'shard((2):(1); B; x=2)' --draw ''");
  EXPECT_EQ(shard.rc, 3) << shard.out;
  EXPECT_NE(shard.out.find("--draw: must not be empty"), std::string::npos) << shard.out;
}

// The option is read before MPI starts, so this holds in a build without MPI too.
TEST(UnfiredOptionsCli, ReshardRunRefusesANegativeSeed) {
  for (const char* bad : {"-1", "18446744073709551616", "x"}) {
    auto r = run_tfspec(std::string("reshard-run '(8 @ m.x, 2) on x=4' '(8, 2) on x=4' '(8,2)' --seed ") + bad);
    EXPECT_EQ(r.rc, 3) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--seed: must be an integer from 0 to 2^64-1, not '" + std::string(bad) + "'"), std::string::npos) << r.out;
  }
}

}  // namespace
