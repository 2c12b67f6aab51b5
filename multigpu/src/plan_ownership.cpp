// The reshard planner's view of a layout (spec/MULTIGPU.md): what each device holds, from the
// reference's §7.2 / D3 functions, and the small helpers every part of the planner shares.
#include <algorithm>

#include "plan_internal.hpp"

namespace tfspec::multigpu::planning {
std::vector<int64_t> mesh_extents(const Mesh& m) {
  std::vector<int64_t> e;
  for (int a = 0; a < m.rank(); ++a) e.push_back(m.extent(a));
  return e;
}

std::vector<int64_t> local_extents(const ShardLayout& sl) {
  std::vector<int64_t> out;
  for (const auto& x : flat_leaves(local_shape(sl))) out.push_back(x.value());
  return out;
}

std::vector<DeviceView> device_views(const ShardLayout& sl) {
  const auto g = flat_extents(sl);
  const auto loc = local_extents(sl);
  const auto mesh = mesh_extents(sl.mesh());
  std::vector<DeviceView> views;  // at most 2^20 pairs (the reference's bound) and within check_plan_limits
  const auto locals = row_major_coords(loc);
  for (const auto& m : row_major_coords(mesh)) {
    DeviceView v{sl.mesh().device_of(m), m, {}};
    for (const auto& c : locals) {
      PhysicalElement pe = physical_element(sl, Storage::Rmem, m, c);
      v.held.push_back({row_major_index(global_coord(sl, m, c), g), pe.offset});
    }
    views.push_back(std::move(v));
  }
  return views;
}

std::map<int64_t, int64_t> buffer_sizes(const std::vector<DeviceView>& views) {
  std::map<int64_t, int64_t> out;
  for (const auto& v : views) {
    int64_t n = 0;
    for (const auto& h : v.held) n = std::max(n, h.offset + 1);
    out[v.device] = n;
  }
  return out;
}

const std::string* partial_reduction(const Side& sl, int a) {
  if (auto* p = std::get_if<Partial>(&sl.attrs()[a])) return &p->reduction;
  return nullptr;
}

// Devices along mesh axis `a`, one group per coordinate of the other axes (row-major).
std::vector<std::vector<int64_t>> groups_along(const Mesh& mesh, int a) {
  auto ext = mesh_extents(mesh);
  const int64_t n = ext[a];
  ext[a] = 1;
  std::vector<std::vector<int64_t>> out;
  for (auto m : row_major_coords(ext)) {
    std::vector<int64_t> g;
    for (int64_t r = 0; r < n; ++r) {
      m[a] = r;
      g.push_back(mesh.device_of(m));
    }
    out.push_back(std::move(g));
  }
  return out;
}

int64_t contribution_key(const std::vector<int>& kept, const std::vector<int64_t>& mesh, const std::vector<int64_t>& coord) {
  int64_t k = 0;
  for (int a : kept) k = k * mesh[a] + coord[a];
  return k;
}

// Runs from (from, to) offset pairs, in the order given; consecutive pairs merge.
std::vector<Run> merge_runs(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::vector<Run> runs;
  for (auto [from, to] : pairs) {
    if (!runs.empty() && runs.back().from + runs.back().len == from && runs.back().to + runs.back().len == to) ++runs.back().len;
    else runs.push_back({from, to, 1});
  }
  return runs;
}
int64_t pair_count(const std::vector<DeviceView>& views) {
  int64_t n = 0;
  for (const auto& v : views) n += static_cast<int64_t>(v.held.size());
  return n;
}

}  // namespace tfspec::multigpu::planning
