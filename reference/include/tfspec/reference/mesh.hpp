// §5 Topology, Mesh and MeshAxis: the compile-time device domain (never an IR value).
// Decisions (spec/SHARD.md): D6 topology_domain is the product of num_devices; D7 a constant
// slice records its sub-box as ComposedLayout(None, origin offset, Layout(kept extents, strides));
// D12 the default mesh layout is row-major (the last mesh axis is the fastest device index).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

// §5 a device-domain description; num_devices == nullopt is a launch-provided (dynamic) extent.
struct Topology {
  std::string name;
  std::optional<int64_t> num_devices;
  friend bool operator==(const Topology&, const Topology&) = default;
};

// The surface-name resolver (§5: make_mesh / the parser's topology namespace): `warp(4)`,
// `thread(32)`, `cta(None)` or a bare `cta` (launch-provided). Any other text is an error.
Topology resolve_topology(std::string_view text);

class Mesh;

// One entry of a constant slice `mesh[...]` (§5, D7): a fixed index (the axis is dropped), `_`
// (kept whole) or a range `begin:end` (kept, narrowed).
struct MeshIndex {
  enum Kind { Fixed, All, Range } kind;
  int64_t begin = 0;
  int64_t end = 0;
};
// Text `(1, _, 0:2)`; symbolic entries are refused ("mesh-static-index").
std::vector<MeshIndex> parse_mesh_index(std::string_view text);

// §5 single-axis view used by static evaluation: `mesh.x` / `mesh.axes[i]`.
struct MeshAxis {
  const Mesh* mesh;
  int index;
  int64_t size;
};

class Mesh {
 public:
  // §5 constructor: topologies must be non-empty; layout a Layout or ComposedLayout with concrete
  // strides; names, when given, one per flat mesh axis and unique. Fails closed (SpecError).
  Mesh(std::vector<Topology> topologies, LayoutPtr layout, std::optional<std::vector<std::string>> names = std::nullopt);

  const Topology& topology() const { return topologies_.front(); }  // §5: topologies[0]
  const std::vector<Topology>& topologies() const { return topologies_; }
  const LayoutPtr& layout() const { return layout_; }
  const std::optional<std::vector<std::string>>& names() const { return names_; }
  bool is_slice() const { return layout_->kind() == LayoutKind::Composed; }

  IntTuple shape() const { return layout_->shape(); }
  int rank() const;                      // number of mesh axes: rank(flatten(shape))
  std::vector<IntTuple> extents() const;  // flat, may hold symbolic / None leaves

  std::optional<int64_t> topology_domain() const;  // §5, D6

  // Static extent of mesh axis a; fails closed ("mesh-extent-static", §1/§5) on symbolic/None.
  int64_t extent(int a) const;
  MeshAxis axis(std::string_view name) const;  // mesh.x
  MeshAxis axes(int i) const;                  // mesh.axes[i]
  int64_t size() const;                        // number of mesh instances (static)

  // §5 / D7 constant slice `mesh[crd]`: crd a tuple with one entry per mesh axis, each a static
  // int (the axis is dropped) or None (`_`, kept). Symbolic entries are rejected.
  Mesh operator[](const IntTuple& crd) const;
  Mesh slice(const std::vector<MeshIndex>& index) const;  // ints, `_` and ranges

  // Device index of a mesh coordinate (the mesh layout's value).
  int64_t device_of(const std::vector<int64_t>& mesh_coord) const;

  friend bool operator==(const Mesh& a, const Mesh& b);

 private:
  std::vector<Topology> topologies_;
  LayoutPtr layout_;
  std::optional<std::vector<std::string>> names_;
};

// make_mesh: the surface resolver. Topology names are resolved first (resolve_topology); the
// layout is row-major over the extents (D12).
Mesh make_mesh(const std::vector<std::string>& topology_names, const IntTuple& extents,
               std::optional<std::vector<std::string>> names = std::nullopt);
// Row-major compact strides for a flat list of extents (C order, D1/D12).
IntTuple row_major_strides(const std::vector<int64_t>& extents);

// Text form (spec/SHARD.md "Mesh text"):  [TOPO*TOPO... |] AXIS,AXIS,... [| LAYOUT]
//   TOPO = name(n) | name(None) | name;  AXIS = name=extent | extent;  LAYOUT overrides the
//   default row-major layout (any Layout / ComposedLayout text).
// Without topologies, a single Topology "device" with num_devices = the mesh size is assumed.
Mesh parse_mesh(std::string_view text);
std::string to_string(const Mesh& m);

}  // namespace tfspec
