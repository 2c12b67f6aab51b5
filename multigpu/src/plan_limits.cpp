// The planner's limit (spec/MULTIGPU.md "Size"): the plan's size estimated from the meshes and
// the local shapes, before the planner enumerates anything. A plan past it is refused with resource-limit instead of exhausting memory (issue 19: a 1024x1024
// device mesh took 7.5 GB, and a bad_alloc there terminated the process).
#include <algorithm>
#include <limits>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu {
namespace {

// Bytes per unit, measured on the worst pattern of each (peak RSS of `reshard-plan --json`, with
// a margin): a device in one step (its group entry, send / recv places, a local copy, as plan and
// JSON) ~1.2 KB on a 4-axis all-reduce of one element per device; a (device, element) pair
// (views, the reference's checks, the planner's maps) ~110 B on an identity of 2^20 elements; an
// unmerged run ~240 B on a strided all-reduce; a transfer ~950 B on an all-to-all.
constexpr int64_t kDeviceStepBytes = 1536, kPairBytes = 192, kCopyBytes = 256, kTransferBytes = 1024;
constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

int64_t sat_mul(int64_t a, int64_t b) { return a != 0 && b > kSaturated / a ? kSaturated : a * b; }
int64_t sat_add(int64_t a, int64_t b) { return a > kSaturated - b ? kSaturated : a + b; }

// Instances times the local shape's size; symbolic or None leaves cannot be counted (the
// materialized layouts have none, and the reference's checks report them).
int64_t pairs_of(const ShardLayout& sl) {
  int64_t n = sl.mesh().size();
  for (const auto& x : flat_leaves(local_shape(sl))) n = sat_mul(n, std::max<int64_t>(x.value(), 0));
  return n;
}

int64_t partial_axes(const ShardLayout& sl) {
  return std::count_if(sl.attrs().begin(), sl.attrs().end(), [](const ShardAttr& a) { return std::holds_alternative<Partial>(a); });
}

}  // namespace

PlanEstimate estimate_plan(const ShardLayout& src, const ShardLayout& dst) {
  PlanEstimate e;
  e.devices = std::max(src.mesh().size(), dst.mesh().size());
  e.src_pairs = pairs_of(src);
  e.dst_pairs = pairs_of(dst);
  const int64_t partials = partial_axes(src);
  e.collectives = src.mesh().rank() + partials + 1;
  e.copies = sat_add(sat_mul(2 * partials + 1, e.src_pairs), sat_mul(2, e.dst_pairs));
  e.transfers = std::min(e.dst_pairs, sat_mul(e.devices, e.devices));
  e.bytes = sat_mul(sat_mul(e.devices, e.collectives + 2), kDeviceStepBytes);
  e.bytes = sat_add(e.bytes, sat_mul(sat_add(e.src_pairs, e.dst_pairs), kPairBytes));
  e.bytes = sat_add(e.bytes, sat_mul(e.copies, kCopyBytes));
  e.bytes = sat_add(e.bytes, sat_mul(e.transfers, kTransferBytes));
  return e;
}

void check_plan_limits(const ShardLayout& src, const ShardLayout& dst) {
  PlanEstimate e;
  try {
    e = estimate_plan(src, dst);
  } catch (const SpecError&) {
    return;  // not countable: the reference's checks that follow say why
  }
  if (e.bytes > kMaxPlanBytes)
    fail(rule::kResourceLimit, "the plan for " + std::to_string(e.devices) + " devices (" + std::to_string(e.src_pairs) + " SRC and " +
                                   std::to_string(e.dst_pairs) + " DST (device, element) pairs, up to " + std::to_string(e.transfers) +
                                   " transfers) is estimated at " + std::to_string(e.bytes >> 20) + " MiB, more than the planner's limit of " +
                                   std::to_string(kMaxPlanBytes >> 20) + " MiB");
}

}  // namespace tfspec::multigpu
