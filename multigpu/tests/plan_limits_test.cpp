// The planner's limits (spec/MULTIGPU.md "Size"; issue 19 item 4): the plan's size is estimated
// from the meshes and the local shapes before anything is enumerated, and refused past 1 GiB with
// resource-limit; each layout holds at most 2^20 (device, element) pairs, past which the
// reference's own check refuses it with injectivity-undecided. Expected values are derived by
// hand below from the estimate's formula in spec/MULTIGPU.md.
#include <gtest/gtest.h>

#include <chrono>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"

#include "../../reference/tests/test_support.hpp"
#include "release_only.hpp"  // TFSPEC_ASAN

namespace tfspec::multigpu {
namespace {

using tfspec::testing::error_id;  // the rule id a statement fails with, or "(no error)"

ShardLayout layout(const std::string& text) { return read_shard_layout(Json(text)); }

// The transpose of (E @ m.x, E @ m.y) on x=E,y=E: every device holds one element in both.
struct Transpose {
  ShardLayout src, dst;
};
Transpose transpose(int64_t e) {
  const std::string n = std::to_string(e), mesh = " on x=" + n + ",y=" + n;
  return {layout("(" + n + " @ m.x, " + n + " @ m.y)" + mesh), layout("(" + n + " @ m.y, " + n + " @ m.x)" + mesh)};
}

}  // namespace

// The case: 1024 x 1024 = 2^20 devices, one element each in SRC and DST. By the formula:
// collectives <= 2 mesh axes + 0 Partial + 1 = 3; copies <= (2*0 + 1) * 2^20 + 2 * 2^20 = 3 * 2^20;
// transfers <= min(2^20, 2^40) = 2^20; bytes = 2^20 * (5 * 1536 + 2 * 192 + 3 * 256 + 1024)
// = 2^20 * 9856, i.e. 9856 MiB, past 1 GiB. It took 7.5 GB and 45 s, and under a 3 GB limit the
// bad_alloc terminated the process; now it is refused before anything is enumerated.
TEST(PlanLimits, TheTransposeOnA1024By1024MeshIsRefusedUpFront) {
  const Transpose t = transpose(1024);
  const PlanEstimate e = estimate_plan(t.src, t.dst);
  EXPECT_EQ(e.devices, int64_t{1} << 20);
  EXPECT_EQ(e.src_pairs, int64_t{1} << 20);
  EXPECT_EQ(e.dst_pairs, int64_t{1} << 20);
  EXPECT_EQ(e.collectives, 3);
  EXPECT_EQ(e.copies, int64_t{3} << 20);
  EXPECT_EQ(e.transfers, int64_t{1} << 20);
  EXPECT_EQ(e.bytes, int64_t{9856} << 20);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_id([&] { plan_reshard(t.src, t.dst, {1024, 1024}); }), "resource-limit");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0) << "the refusal enumerated";
}

// The 1 GiB boundary on (2 @ m.x, Y @ m.y) on x=2,y=Y to itself: 2Y devices, one element each;
// the bound does not depend on the attrs changing, so as above each device costs 9856 B.
// 2^30 / 9856 = 108,942.4: Y = 54,471 (108,942 devices, 1,073,732,352 B) is within the limit,
// Y = 54,472 (108,944 devices, 1,073,752,064 B) past it.
TEST(PlanLimits, TheEstimateBoundaryIsOneGibibyte) {
  auto on = [](int64_t y) {
    const ShardLayout sl = layout("(2 @ m.x, " + std::to_string(y) + " @ m.y) on x=2,y=" + std::to_string(y));
    return std::pair{sl, sl};
  };
  const auto in = on(54471), out = on(54472);  // pairs, not structured bindings: clang 14 cannot capture one
  EXPECT_EQ(estimate_plan(in.first, in.second).bytes, int64_t{1073732352});
  EXPECT_EQ(error_id([&] { check_plan_limits(in.first, in.second); }), "(no error)");
  EXPECT_EQ(estimate_plan(out.first, out.second).bytes, int64_t{1073752064});
  EXPECT_EQ(error_id([&] { check_plan_limits(out.first, out.second); }), "resource-limit");
}

// The pair cap at its boundary: SRC Broadcast over x=64 of 16,384 elements places exactly
// 64 * 16,384 = 2^20 pairs and is planned (DST splits it: local copies only, no bytes moved).
// 16,448 = 64 * 257 elements place 2^20 + 4,096: the estimate passes (64 * 4 * 1536 +
// (1,052,672 + 16,448) * 192 + (1,052,672 + 2 * 16,448) * 256 + min(16,448, 64^2) * 1024
// = 487,763,968 B < 1 GiB) and the reference refuses the layout when it is materialized.
// (Several seconds: the reference walks the 2^20 pairs of the planned case more than once. Under
// ASan+UBSan that walk alone took 138 s of CI's budget, so the sanitizer build checks the refusal
// side only and says so; the release build checks both sides.)
TEST(PlanLimits, ThePairCapIsTheReferences2To20) {
  const ShardLayout over = layout("(16448) on x=64"), split = layout("(16448 @ m.x) on x=64");
  EXPECT_EQ(estimate_plan(over, split).bytes, int64_t{487763968});
  EXPECT_EQ(error_id([&] { plan_reshard(over, split, {16448}); }), "injectivity-undecided");
#if defined(TFSPEC_ASAN)
  GTEST_SKIP() << "the accepted side (exactly 2^20 pairs planned) runs in the release build: "
                  "under ASan its walk takes over two minutes";
#else
  const Plan p = plan_reshard(layout("(16384) on x=64"), layout("(16384 @ m.x) on x=64"), {16384});
  EXPECT_EQ(p.pattern, "local");
  EXPECT_EQ(p.total_bytes(), 0);
  EXPECT_EQ(p.devices.size(), 64u);
#endif
}

}  // namespace tfspec::multigpu
