// Shard goals of `tfspec prove` (§6, §7, D3, D5, D8) over shard layouts with symbolic extents.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {

// One divisibility obligation: `divisor | extent`, named for the verdict (e.g. "Split(1) on mesh axis 0").
struct Division {
  ShapeDim extent, divisor;
  std::string label;
};
ProveResult prove_divisions(const std::vector<Division>& ds, const ProveOptions& o);  // §6, §7.1.1, D5
// §6 / D8: every Split mesh extent divides the global extent it binds.
std::vector<Division> split_divisions(const ShardLayout& sl);
// D5: every `N @ m.a` of a sugar canonicalizes (the axis extent divides N).
std::vector<Division> sugar_divisions(const Sugar& sugar, const Mesh& mesh);

// §7 every invariant of the shard model for all symbol values: the value-independent rules, Split
// divisibility and canonical extent (§6, §7.1.1), Split strides >= 0 (§7.1.2), and injectivity
// over (engine, offset) with Broadcast replicas allowed to alias and Partial ones never (§2, D3)
// under `storage` (default: rmem, per-instance engines, as the reference's check).
ProveResult prove_shard(const ShardLayout& sl, std::optional<Storage> storage, const ProveOptions& o);

}  // namespace tfspec::solver
