// Imports from, and exports to, the sharding systems people run (spec/SHARD.md, "Owners and imports
// (extension)"): a JAX NamedSharding (mesh, PartitionSpec) and a PyTorch DTensor (DeviceMesh,
// placements), written as text so that neither library is needed. Each maps exactly onto a
// ShardLayout (§5-§7) or is refused with the rule that stops it; nothing is reinterpreted.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::protocol {

// A library's mesh: axis names and extents `x=2,y=4` (DTensor: names optional, `2,4`), and the
// device ids in the library's order (row-major over the axes, as `np.array(devices)` is laid
// out; empty: 0, 1, 2, ...). The result's mesh layout maps each coordinate to its device id
// (§5); an order that is not affine in the coordinate is refused (import-device-order).
Mesh import_mesh(std::string_view axes, const std::vector<int64_t>& devices, bool names_required);

// JAX: NamedSharding(mesh, PartitionSpec) on an array of `shape`. Spec text as Python writes it:
// `P("x", None)`, `P(("x","y"),)`, `PartitionSpec('x')`, `P(None, P.UNCONSTRAINED)`.
ShardLayout import_jax(const Mesh& mesh, std::string_view spec, const std::vector<int64_t>& shape);
// DTensor: placements, one per mesh dim: `Shard(0),Replicate()`, `[Shard(1), Partial("max")]`,
// `_StridedShard(0, split_factor=2)`.
ShardLayout import_dtensor(const Mesh& mesh, std::string_view placements, const std::vector<int64_t>& shape);

// The way back, where the library can express the layout (else import-not-expressible).
struct Exported {
  std::string mesh;                // `x=2,y=4`
  std::vector<int64_t> devices;    // device ids, row-major over the mesh axes
  std::string sharding;            // `P("x", None)` / `Shard(0),Replicate()`
};
Exported export_jax(const ShardLayout& sl, const std::vector<int64_t>& shape);
Exported export_dtensor(const ShardLayout& sl, const std::vector<int64_t>& shape);

// The per-device extent of each logical dim (JAX's shard_shape, DTensor's local shape).
std::vector<int64_t> logical_local_shape(const ShardLayout& sl, const std::vector<int64_t>& shape);

}  // namespace tfspec::protocol
