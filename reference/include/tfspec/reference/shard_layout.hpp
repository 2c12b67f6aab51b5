// §6 ShardAttr and §7 ShardLayout, with the derived quantities of §7.1.1 / §7.1.2 / §8.
// Decisions (spec/SHARD.md): D2 regroup, D3 physical element and injectivity, D8 divisibility vs
// canonical form, D9 reductions, D10 per-mesh-axis attrs vs the per-layout-dim view.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/mesh.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec {

// ---- §6 ShardAttr
struct Split {
  int64_t axis;
  friend bool operator==(const Split&, const Split&) = default;
};
struct Broadcast {
  friend bool operator==(const Broadcast&, const Broadcast&) = default;
};
struct Dynamic {
  friend bool operator==(const Dynamic&, const Dynamic&) = default;
};
struct Partial {
  std::string reduction = "sum";  // D9: sum | max | min (checked by rule "partial-reduction")
  friend bool operator==(const Partial&, const Partial&) = default;
};
using ShardAttr = std::variant<Split, Broadcast, Dynamic, Partial>;

// Surface sugar (§6): S(i), P(), P("max"); B / D name Broadcast / Dynamic.
inline ShardAttr S(int64_t i) { return Split{i}; }
inline ShardAttr P(std::string reduction = "sum") { return Partial{std::move(reduction)}; }
inline ShardAttr B() { return Broadcast{}; }
inline ShardAttr D() { return Dynamic{}; }
bool is_valid_reduction(const std::string& r);  // D9
std::string to_string(const ShardAttr& a);      // S(1), B, D, P(), P("max")
ShardAttr parse_shard_attr(std::string_view text);

// ---- §7 ShardLayout
class ShardLayout final : public LayoutBase {
 public:
  // Checked construction: fails closed with the first violation of the analysis-stage rules
  // (spec/SHARD.md lists them), e.g. more than one stride per Split axis (§7.1.2).
  ShardLayout(LayoutPtr layout, std::vector<ShardAttr> attrs, Mesh mesh);
  // Unchecked construction, for check(): structurally sane objects that may violate rules.
  static ShardLayout unchecked(LayoutPtr layout, std::vector<ShardAttr> attrs, Mesh mesh);

  LayoutKind kind() const override { return LayoutKind::Shard; }
  IntTuple shape() const override { return layout_->shape(); }  // G, the global layout-domain shape
  // Intra-engine offset of a global layout-domain coordinate (§7.1.2: S[k] is the step on the
  // engine's storage). The engine itself comes from physical_element().
  int64_t apply(const IntTuple& coord) const override { return layout_->apply(coord); }

  const LayoutPtr& layout() const { return layout_; }
  const std::vector<ShardAttr>& attrs() const { return attrs_; }
  const Mesh& mesh() const { return mesh_; }

  friend bool operator==(const ShardLayout& a, const ShardLayout& b);

 private:
  struct Unchecked {};
  ShardLayout(LayoutPtr layout, std::vector<ShardAttr> attrs, Mesh mesh, Unchecked);
  LayoutPtr layout_;
  std::vector<ShardAttr> attrs_;
  Mesh mesh_;
};

// Storage levels (D3/D4): rmem < smem < gmem. Which mesh instances share an engine follows
// from the storage: rmem none, smem those in one CTA, gmem all.
enum class Storage { Rmem, Smem, Gmem };
Storage parse_storage(std::string_view s);
std::string to_string(Storage s);

// ---- derived quantities
// Flat G as concrete ints; fails closed (rule "shard-concrete") on symbolic / None extents.
std::vector<int64_t> flat_extents(const ShardLayout& sl);
// D10 per-layout-dim view: for each flat layout dim, the mesh axis that Splits it, or nullopt.
std::vector<std::optional<int>> split_binding(const ShardLayout& sl);
// D10: the same view written as attrs, Split(k) on bound dims and Broadcast elsewhere
// (the five-attr reading of §7.5).
std::vector<ShardAttr> layout_dim_view(const ShardLayout& sl);
// §7.1.1 local_shape: G[k] / mesh extent on Split-bound dims, G[k] otherwise (structure of G).
IntTuple local_shape(const ShardLayout& sl);
// §7.1.1 / §8 / D2: the flat G dims each logical dim of T.shape regroups into (row-major).
std::vector<std::vector<int>> regroup(const IntTuple& tensor_shape, const IntTuple& layout_shape);

// D3: engine of a mesh instance under a storage (rmem: its device; smem: its CTA; gmem: 0).
int64_t engine_of(const Mesh& mesh, const std::vector<int64_t>& mesh_coord, Storage storage);
struct PhysicalElement {
  int64_t engine;
  int64_t offset;
  friend bool operator==(const PhysicalElement&, const PhysicalElement&) = default;
};
// §7.1.2 / D3: the global layout coordinate that mesh instance `mesh_coord` holds at local
// coordinate `local` (flat), and its physical element.
std::vector<int64_t> global_coord(const ShardLayout& sl, const std::vector<int64_t>& mesh_coord,
                                  const std::vector<int64_t>& local);
PhysicalElement physical_element(const ShardLayout& sl, Storage storage, const std::vector<int64_t>& mesh_coord,
                                 const std::vector<int64_t>& local);

// Every coordinate of a flat concrete shape, row-major (last fastest).
std::vector<std::vector<int64_t>> row_major_coords(const std::vector<int64_t>& extents);
int64_t row_major_index(const std::vector<int64_t>& coord, const std::vector<int64_t>& extents);

// ---- the checks (all rules in one pass; spec/SHARD.md lists the ids)
struct ShardCheckOptions {
  bool final_stage = false;                     // pre-lowering: Dynamic and S None rejected
  std::optional<Storage> storage;               // enables the full D3 injectivity check
  std::optional<IntTuple> tensor_shape;         // enables size(G) == size(T.shape) and D2
};
CheckReport check_shard_layout(const ShardLayout& sl, const ShardCheckOptions& opts = {}, const std::string& path = "");
void validate_shard_layout(const ShardLayout& sl, const ShardCheckOptions& opts = {});

// ---- text and JSON (spec/SHARD.md)
//   shard(LAYOUT; ATTR,ATTR,...; MESH)      e.g. shard((2,4,3,32,4):None; S(0),S(1),S(3); x=2,y=4,t=32)
ShardLayout parse_shard_layout(std::string_view text);  // unchecked: check() reports violations
std::string to_string(const ShardLayout& sl);
Json shard_to_json(const ShardLayout& sl);
ShardLayout shard_from_json(const Json& j);  // unchecked
Json mesh_to_json(const Mesh& m);
Mesh mesh_from_json(const Json& j);

}  // namespace tfspec
