// Planted kernel-only bugs (issue 23): each a build of the kernel source (cuda_kernels.cu) with one
// bug, run on the emulated grid. A fixed-seed `cuda-emu` fuzz run must catch each within 30 s and
// shrink it to a small case; the correct kernels and the host backend agree on that case, and the
// host backend passes the same cases (it never runs kernel code: only the emulation finds these).
#include <gtest/gtest.h>

#include <iostream>

#include "kernel_backend.hpp"
#include "tfspec/props/fuzz.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::gpu::cuda {
namespace mutant_run_chunk_tail {
const KernelApi& api();
}
namespace mutant_pair_odd_last {
const KernelApi& api();
}
namespace mutant_grid_stride {
const KernelApi& api();
}
}  // namespace tfspec::gpu::cuda

namespace tfspec::props {
namespace {

struct KernelMutant {
  const char* name;
  const char* op;
  const gpu::cuda::KernelApi& (*api)();
  int64_t max_size;   // the shrunk case's size at most
  size_t max_modes;   // offsets: its layout's flat modes at most
};
void PrintTo(const KernelMutant& m, std::ostream* os) { *os << m.name; }

class KernelMutants : public testing::TestWithParam<KernelMutant> {};

TEST_P(KernelMutants, CaughtOnTheEmulatedGridWithin30SecondsAndShrunkNotByTheHostBackend) {
  const KernelMutant& m = GetParam();
  auto mutant = gpu::make_kernel_backend(m.api(), "cuda-emu", gpu::EmuOptions{});
  FuzzOptions o;
  o.seconds = 30;
  o.seed = 1;
  o.op = m.op;
  FuzzResult r = run_fuzz(*mutant, o);
  ASSERT_TRUE(r.disagreement) << m.name << " survived " << r.cases << " cases in " << r.seconds << " s";
  EXPECT_LT(r.seconds, 30.0);
  const FuzzCase c = parse_fuzz_case(r.case_text);
  EXPECT_LE(fuzz_case_size(c), m.max_size) << r.case_text;
  if (c.op != "reshard") {
    EXPECT_LE(flat_leaves(parse_any_layout(c.layout)->shape()).size(), m.max_modes) << r.case_text;
  }
  std::cout << "[ " << m.name << " ] caught after " << r.cases_before_failure << " cases in " << r.seconds << " s, " << r.shrink_steps
            << " shrink steps: " << r.case_text << "\n  reference " << describe(r.reference) << "\n  mutant    " << describe(r.backend)
            << "\n";
  // The shrunk case replays to the disagreement; the correct kernels and the host backend agree.
  auto host = gpu::make_host_backend(1);
  EXPECT_EQ(check_fuzz_case(c, *mutant).verdict, Verdict::Disagree);
  EXPECT_EQ(check_fuzz_case(c, *gpu::make_cuda_emu_backend()).verdict, Verdict::Agree);
  EXPECT_EQ(check_fuzz_case(c, *host).verdict, Verdict::Agree);
  // The host backend passes the very cases of the run that caught the mutant (the cases depend
  // on the seed only, never on a backend's answers).
  o.max_cases = r.cases_before_failure;
  FuzzResult h = run_fuzz(*host, o);
  EXPECT_FALSE(h.disagreement) << h.case_text;
  EXPECT_EQ(h.cases, r.cases_before_failure);
}

// Without the grid-stride stand-in the emulated grid runs the device's grid, one pair per thread
// below 2^27 threads: the same fixed-seed cases then never make the loop iterate, and the mutant
// survives. The stand-in is what catches it.
TEST(KernelMutantsControl, TheGridStrideStepSurvivesOnTheDevicesGridAtFuzzSizes) {
  gpu::EmuOptions exact;
  exact.small_grids = false;
  auto mutant = gpu::make_kernel_backend(gpu::cuda::mutant_grid_stride::api(), "cuda-emu", exact);
  FuzzOptions o;
  o.seconds = 30;
  o.seed = 1;
  o.op = "offsets";
  o.max_cases = 1000;
  FuzzResult r = run_fuzz(*mutant, o);
  EXPECT_FALSE(r.disagreement) << r.case_text;
  EXPECT_EQ(r.cases, 1000);
  EXPECT_GT(r.per_op["offsets"].max_size, 2 * 256) << "no case launched more than one block";
}

std::string mutant_name(const testing::TestParamInfo<KernelMutant>& i) {
  static const char* const names[] = {"RunChunkTail", "PairOddLast", "GridStride"};
  return names[i.index];
}

// Hand derivations of the shrunk sizes: the odd last offset goes missing at any odd size (1); a
// run's last chunk cut to one element needs a run of 2..7 elements beyond a multiple of 8 (a few
// runs). The grid-stride step needs a launch that the emulated grid runs on fewer blocks than it
// asked for: at least 2, 3 or 4 blocks (the threshold drawn for the operation, cuda_emu.cpp) of
// 256 threads storing pairs of offsets, so more than 512, 1024 or 1536 elements; the shrinker
// stops at a local minimum above that (RapidCheck shrinks greedily: 1200 elements in 7 modes at
// seed 1, whose threshold is 3 blocks), so the bound is 2048 elements.
INSTANTIATE_TEST_SUITE_P(
    Emulated, KernelMutants,
    testing::Values(KernelMutant{"run_chunk's last chunk one element long", "reshard", &gpu::cuda::mutant_run_chunk_tail::api, 48, 0},
                    KernelMutant{"the odd last offset of the pair store dropped", "offsets", &gpu::cuda::mutant_pair_odd_last::api, 1, 2},
                    KernelMutant{"the grid-stride step one block too long", "offsets", &gpu::cuda::mutant_grid_stride::api, 2048, 8}),
    mutant_name);

}  // namespace
}  // namespace tfspec::props
