// §7.1.1 / D5 canonicalization of the surface sugar `(N @ m.a, ...)`, and §7.4 / §7.1.2 / D4
// Reshard typeinfer (stride materialization by the direction rule).
#pragma once
#include <optional>
#include <string_view>

#include "tfspec/reference/shard_layout.hpp"

namespace tfspec {

// One sugar entry: extent N, optionally placed on a mesh axis (`N @ m.a`).
struct SugarEntry {
  IntTuple extent;
  std::optional<int> mesh_axis;
};
struct Sugar {
  std::vector<SugarEntry> entries;
  std::vector<std::pair<int, ShardAttr>> overrides;  // `where a=P("max")`: attrs of unplaced axes
};

// Text:  (ENTRY, ENTRY, ...) [where AXIS=ATTR, ...] [on MESH]
//   ENTRY = N | N @ m.NAME | N @ m.axes[i];  ATTR = B | D | P() | P("max") | P(min) ...
// The mesh comes from `on MESH` or from the `mesh` argument (one of them, not both).
struct ParsedSugar {
  Sugar sugar;
  Mesh mesh;
};
ParsedSugar parse_sugar(std::string_view text, const std::optional<Mesh>& mesh);
bool looks_like_sugar(std::string_view text);  // contains '@' or starts with '(' and is not shard(...)

// §7.1.1 / D5: N == extent -> Split; extent | N -> (extent @ m.a, N / extent) (mesh factor outer);
// otherwise SpecError("sugar-divides"). Omitted mesh axes are Broadcast (§6). Emits S None (§7.1.2).
ShardLayout canonicalize(const Sugar& sugar, const Mesh& mesh);

// Any accepted shard-layout input: sugar text, `shard(...)` text, or JSON (object, or a string
// holding either text form). Sugar is canonicalized; the other forms are kept as given (verbose
// strides kept verbatim). The result is unchecked.
ShardLayout read_shard_layout(const Json& j, const std::optional<Mesh>& mesh = std::nullopt);

// §7.1.2 / D4 materialization forms over a canonical shard layout.
IntTuple per_instance_strides(const ShardLayout& sl);  // 0 on Split dims, C order over local_shape
IntTuple shared_strides(const ShardLayout& sl);        // C order over G
// D4 direction rule: toward a lower storage level the per-instance form, toward a higher level
// the shared form; at the same level rmem takes the per-instance form, smem/gmem the shared one.
bool per_instance_direction(Storage src, Storage dst);

// §7.4 TensorType as far as Reshard needs it.
struct TensorType {
  IntTuple shape;
  LayoutPtr layout;  // a ShardLayout for a distributed tensor
  Storage storage;
};
// §7.4 / §7.1.2 / D4 Reshard typeinfer: shape kept; un-materialized strides materialized by the
// direction rule for (src.storage, dst_storage); given strides kept verbatim. The result is
// checked (size, regroup, D3 injectivity under dst_storage) and has no reachable S None.
TensorType reshard_typeinfer(const TensorType& src, const ShardLayout& dst, Storage dst_storage);

}  // namespace tfspec
