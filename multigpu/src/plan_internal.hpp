// The reshard planner's internals shared by its files (spec/MULTIGPU.md): the ownership of each
// side (what each device holds, from the reference's §7.2 / D3 functions), the slot tags, the run
// merging, and the two halves' entry points: a single plan (reshard_plan.cpp, the Planner: the
// recognized collectives, the grouped sends, the lower bound) and the staged search
// (plan_stages.cpp). plan_ownership.cpp holds the ownership helpers.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"

namespace tfspec::multigpu::planning {

struct Holding {
  int64_t element;  // logical row-major index (D2: row-major over flat G is logical order)
  int64_t offset;   // intra-engine offset (§7.1.2)
};
struct DeviceView {
  int64_t device;
  std::vector<int64_t> coord;  // mesh coordinate
  std::vector<Holding> held;   // in local row-major order
};

std::vector<int64_t> mesh_extents(const Mesh& m);
std::vector<int64_t> local_extents(const ShardLayout& sl);
std::vector<DeviceView> device_views(const ShardLayout& sl);
std::map<int64_t, int64_t> buffer_sizes(const std::vector<DeviceView>& views);
int64_t pair_count(const std::vector<DeviceView>& views);  // (device, element) pairs held

// One side of a reshard as the planner sees it: a mesh and its attrs (the ownership is in the
// DeviceViews beside it). A ShardLayout's, or an intermediate layout's of a staged plan.
struct Side {
  Mesh mesh_;
  std::vector<ShardAttr> attrs_;
  const Mesh& mesh() const { return mesh_; }
  const std::vector<ShardAttr>& attrs() const { return attrs_; }
};

const std::string* partial_reduction(const Side& sl, int a);
// Devices along mesh axis `a`, one group per coordinate of the other axes (row-major).
std::vector<std::vector<int64_t>> groups_along(const Mesh& mesh, int a);

// ---- the tags that say what a buffer slot holds: an element, and on the kept Partial axes
// (Partial in both SRC and DST with one reduction) which contribution.
using Tag = std::pair<int64_t, int64_t>;
int64_t contribution_key(const std::vector<int>& kept, const std::vector<int64_t>& mesh, const std::vector<int64_t>& coord);

// Runs from (from, to) offset pairs, in the order given; consecutive pairs merge.
std::vector<Run> merge_runs(const std::vector<std::pair<int64_t, int64_t>>& pairs);

// One stage of a staged plan, planned by the Planner (reshard_plan.cpp): nullopt when it ends in
// an intermediate layout (`into_dst` false) and leaves slots of it zero (a Mid buffer is written whole).
std::optional<Plan> plan_stage(const Side& from, const std::vector<DeviceView>& fv, const Side& to, const std::vector<DeviceView>& tv, int64_t elem_bytes,
                               bool into_dst);

// The staged search (plan_stages.cpp, issue 35; spec/MULTIGPU.md "Staged plans").
struct StagedPlan {
  bool applies = false;      // one mesh, 2 to 4 changed axes
  bool searched = false;     // and within the search's budget: `plan` is its cheapest plan
  int64_t edges = 0;         // the stages the search plans
  std::optional<Plan> plan;
};
StagedPlan plan_staged(const Side& src, const std::vector<DeviceView>& sv, const Side& dst, const std::vector<DeviceView>& dv, int64_t elements,
                       int64_t elem_bytes);

}  // namespace tfspec::multigpu::planning
