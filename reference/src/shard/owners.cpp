// Owners: each device's logical elements, from global_coord (§7.2) and the row-major regroup (D2).
#include "tfspec/reference/owners.hpp"

#include <algorithm>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec {

namespace {

std::vector<int64_t> concrete(const IntTuple& t) {
  std::vector<int64_t> v;
  for (const auto& x : flat_leaves(t)) v.push_back(x.value());
  return v;
}

}  // namespace

std::vector<DeviceHolding> owners(const ShardLayout& sl, const IntTuple& tensor_shape) {
  ShardCheckOptions opts;
  opts.tensor_shape = tensor_shape;
  validate_shard_layout(sl, opts);
  bool replica = false, partial = false;
  for (int a = 0; a < sl.mesh().rank(); ++a) {
    const ShardAttr& attr = sl.attrs()[a];
    if (std::holds_alternative<Dynamic>(attr))
      fail(rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is Dynamic: its owners are not decided until it is resolved (§6)");
    replica |= std::holds_alternative<Broadcast>(attr) && sl.mesh().extent(a) > 1;
    partial |= std::holds_alternative<Partial>(attr);
  }
  const std::vector<int64_t> g = flat_extents(sl), local = concrete(local_shape(sl));
  std::vector<int64_t> mesh;
  for (int a = 0; a < sl.mesh().rank(); ++a) mesh.push_back(sl.mesh().extent(a));
  if (checked_mul(sl.mesh().size(), product_int(local_shape(sl))) > (int64_t{1} << 20))
    fail(rule::kResourceLimit, "owners enumerates more than 2^20 (device, element) pairs");
  const auto locals = row_major_coords(local);
  std::vector<DeviceHolding> out;
  for (const auto& mc : row_major_coords(mesh)) {
    DeviceHolding h{sl.mesh().device_of(mc), mc, {}, replica, partial};
    // D2: G refines T.shape row-major, so the row-major index over flat G is T's linear index.
    for (const auto& c : locals) h.elements.push_back(row_major_index(global_coord(sl, mc, c), g));
    std::sort(h.elements.begin(), h.elements.end());
    out.push_back(std::move(h));
  }
  std::sort(out.begin(), out.end(), [](const DeviceHolding& x, const DeviceHolding& y) { return x.device < y.device; });
  return out;
}

}  // namespace tfspec
