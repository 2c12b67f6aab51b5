// Shard-model invariants (§6, §7.1.1, §7.1.2, §7.2; D3, D8, D9), one named rule each. The
// registry runs them with the analysis-stage defaults; check_shard_layout() with options (final
// stage, storage, logical shape). Rule ids and clauses are listed in spec/SHARD.md.
#include <map>
#include <set>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"
#include "common/checks.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "shard/shard_text_util.hpp"

namespace tfspec {
namespace {

using Out = std::vector<Diagnostic>;
using Opts = ShardCheckOptions;

std::string at_attr(const std::string& path, size_t a) { return path + ".attrs[" + std::to_string(a) + "]"; }

// Whether G and every mesh extent are static ints (rules needing numbers skip otherwise; the
// "shard-concrete" rule reports it once).
bool concrete(const ShardLayout& sl) {
  if (!is_concrete(sl.shape())) return false;
  for (const auto& e : sl.mesh().extents())
    if (!e.is_int()) return false;
  return true;
}

// Split attrs whose axis is in range, first binding wins: (mesh axis, layout dim).
std::vector<std::pair<int, int>> valid_splits(const ShardLayout& sl) {
  std::vector<std::pair<int, int>> out;
  std::set<int64_t> seen;
  const int64_t r = sl.domain_rank();
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (auto* s = std::get_if<Split>(&sl.attrs()[a]))
      if (s->axis >= 0 && s->axis < r && seen.insert(s->axis).second && static_cast<int>(a) < sl.mesh().rank())
        out.emplace_back(static_cast<int>(a), static_cast<int>(s->axis));
  return out;
}

bool structurally_valid(const ShardLayout& sl) {
  if (static_cast<int>(sl.attrs().size()) != sl.mesh().rank() || !concrete(sl)) return false;
  try {
    split_binding(sl);
    local_shape(sl);
  } catch (const SpecError&) {
    return false;
  }
  for (const auto& a : sl.attrs())
    if (auto* p = std::get_if<Partial>(&a); p && !is_valid_reduction(p->reduction)) return false;
  return true;
}

// Concrete flat strides of a plain Layout, or nullopt (un-materialized / symbolic / composed).
std::optional<std::vector<int64_t>> plain_strides(const ShardLayout& sl) {
  if (sl.layout()->kind() != LayoutKind::Layout) return std::nullopt;
  const auto& l = static_cast<const Layout&>(*sl.layout());
  if (!l.materialized() || !is_concrete(l.stride())) return std::nullopt;
  std::vector<int64_t> s;
  for (const auto& x : flat_leaves(l.stride())) s.push_back(x.value());
  return s;
}

bool any_unmaterialized(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return !static_cast<const Layout&>(l).materialized();
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      return (c.inner() && any_unmaterialized(*c.inner())) || (c.outer() && any_unmaterialized(*c.outer()));
    }
    case LayoutKind::Shard: return any_unmaterialized(*static_cast<const ShardLayout&>(l).layout());
    case LayoutKind::Swizzle: return false;
    case LayoutKind::Linear: return false;
  }
  return false;
}

// §7.2
void attrs_rank(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  if (static_cast<int>(sl.attrs().size()) != sl.mesh().rank())
    out.push_back({rule::kShardAttrsRank, std::to_string(sl.attrs().size()) + " attrs for a rank-" + std::to_string(sl.mesh().rank()) + " mesh", path + ".attrs"});
}

// §6: 0 <= axis < rank(flatten(G))
void split_axis_range(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  const int64_t r = sl.domain_rank();
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (auto* s = std::get_if<Split>(&sl.attrs()[a]); s && (s->axis < 0 || s->axis >= r))
      out.push_back({rule::kSplitAxisRange, "Split(" + std::to_string(s->axis) + ") outside [0, " + std::to_string(r) + ")", at_attr(path, a)});
}

// §6: a layout axis is bound by at most one mesh axis
void split_axis_unique(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  std::map<int64_t, size_t> first;
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (auto* s = std::get_if<Split>(&sl.attrs()[a]))
      if (auto [it, fresh] = first.emplace(s->axis, a); !fresh)
        out.push_back({rule::kSplitAxisUnique, "layout axis " + std::to_string(s->axis) + " is Split by mesh axes " + std::to_string(it->second) + " and " + std::to_string(a), at_attr(path, a)});
}

// §6 / D9
void partial_reduction(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (auto* p = std::get_if<Partial>(&sl.attrs()[a]); p && !is_valid_reduction(p->reduction))
      out.push_back({rule::kPartialReduction, "Partial reduction '" + p->reduction + "' is not sum, max or min", at_attr(path, a)});
}

// §1: the numbers the shard rules need are static
void shard_concrete(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  for (const auto& leaf : flat_leaves(sl.shape()))
    if (!leaf.is_int()) {
      out.push_back({rule::kShardConcrete, "layout extent " + describe_leaf(leaf) + " is not a static int (symbolic: `tfspec prove`)", path + ".layout.shape"});
      break;
    }
  for (const auto& e : sl.mesh().extents())
    if (!e.is_int()) {
      out.push_back({rule::kShardConcrete, "mesh extent " + describe_leaf(e) + " is not a static int", path + ".mesh"});
      break;
    }
  if (concrete(sl)) {  // sizes must be representable: an overflow is reported, never wrapped
    product_int(sl.shape());
    sl.mesh().size();
  }
}

// §6 / D8: the mesh extent divides the global extent it splits
void split_divides(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  if (!concrete(sl)) return;
  auto g = flat_extents(sl);
  for (auto [a, k] : valid_splits(sl))
    if (g[k] % sl.mesh().extent(a) != 0)
      out.push_back({rule::kSplitDivides, "mesh axis " + std::to_string(a) + " (extent " + std::to_string(sl.mesh().extent(a)) + ") does not divide layout extent " + std::to_string(g[k]) + " of dim " + std::to_string(k), at_attr(path, a)});
}

// §7.1.1: canonical form G[k] == mesh extent on every Split-bound dim
void split_extent_canonical(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  if (!concrete(sl)) return;
  auto g = flat_extents(sl);
  for (auto [a, k] : valid_splits(sl)) {
    int64_t e = sl.mesh().extent(a);
    if (g[k] != e && g[k] % e == 0)
      out.push_back({rule::kSplitExtentCanonical, "layout dim " + std::to_string(k) + " has extent " + std::to_string(g[k]) + " but its mesh axis " + std::to_string(a) + " has " + std::to_string(e) + "; canonicalize as (" + std::to_string(e) + " @ m, " + std::to_string(g[k] / e) + ")", path + ".layout.shape"});
  }
}

// §7.1.2: S[k] in {0} ∪ ℤ>0 on Split-bound dims
void split_stride_nonneg(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  auto s = plain_strides(sl);
  if (!s) return;
  for (auto [a, k] : valid_splits(sl))
    if ((*s)[k] < 0)
      out.push_back({rule::kSplitStrideNonneg, "Split-bound dim " + std::to_string(k) + " has stride " + std::to_string((*s)[k]), path + ".layout.stride"});
}

// §7.1.2: a Split dim has one stride; a layout whose step along it varies (cyclic /
// interleaved, possible under a ComposedLayout) is rejected.
void split_single_stride(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  if (sl.layout()->kind() == LayoutKind::Layout || !concrete(sl) || any_unmaterialized(*sl.layout())) return;
  auto g = flat_extents(sl);
  auto points = row_major_coords(g);
  for (auto [a, k] : valid_splits(sl)) {
    std::optional<int64_t> step;
    for (const auto& p : points) {
      if (p[k] + 1 >= g[k]) continue;
      auto q = p;
      ++q[k];
      int64_t d = checked_sub(sl.layout()->apply(shard_text::coord_in(q, sl.shape())), sl.layout()->apply(shard_text::coord_in(p, sl.shape())));
      if (step && *step != d) {
        out.push_back({rule::kSplitSingleStride, "Split-bound dim " + std::to_string(k) + " steps by both " + std::to_string(*step) + " and " + std::to_string(d) + " (cyclic / interleaved)", path + ".layout"});
        break;
      }
      step = d;
    }
  }
}

// §7.1.2: `()` is a concrete rank-0 stride, never the None sentinel. The Layout constructor
// keeps `()` for rank-0 shapes only; the shard decoders report "stride-empty-not-none" when
// input writes `()` / `[]` for a non-empty shape.
void stride_empty_not_none(const ShardLayout& sl, const Opts&, const std::string& path, Out& out) {
  if (sl.layout()->kind() != LayoutKind::Layout) return;
  const auto& l = static_cast<const Layout&>(*sl.layout());
  if (l.materialized() && l.stride().is_tuple() && l.stride().len() == 0 && !(l.shape_ref().is_tuple() && l.shape_ref().len() == 0))
    out.push_back({rule::kStrideEmptyNotNone, "stride () on a non-empty shape", path + ".layout.stride"});
}

// §7.1.1: size(G) == size(T.shape), and the D2 regroup
void size_match(const ShardLayout& sl, const Opts& o, const std::string& path, Out& out) {
  if (!o.tensor_shape || !is_concrete(sl.shape()) || !is_concrete(*o.tensor_shape)) return;
  int64_t g = product_int(sl.shape()), t = product_int(*o.tensor_shape);
  if (g != t)
    out.push_back({rule::kShardSizeMatch, "size(G) = " + std::to_string(g) + " but size(T.shape) = " + std::to_string(t), path + ".layout.shape"});
}
void regroup_rule(const ShardLayout& sl, const Opts& o, const std::string& path, Out& out) {
  if (!o.tensor_shape || !is_concrete(sl.shape()) || !is_concrete(*o.tensor_shape)) return;
  if (product_int(sl.shape()) != product_int(*o.tensor_shape)) return;  // reported above
  try {
    regroup(*o.tensor_shape, sl.shape());
  } catch (const SpecError& e) {
    Diagnostic d = e.diagnostic();
    d.path = path + ".layout.shape";
    out.push_back(std::move(d));
  }
}

// §6: Dynamic must be resolved before lowering
void dynamic_unresolved(const ShardLayout& sl, const Opts& o, const std::string& path, Out& out) {
  if (!o.final_stage) return;
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (std::holds_alternative<Dynamic>(sl.attrs()[a]))
      out.push_back({rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is still Dynamic at the final check", at_attr(path, a)});
}

// §7.1.2: after Reshard typeinfer no reachable S is None
void stride_materialized_final(const ShardLayout& sl, const Opts& o, const std::string& path, Out& out) {
  if (o.final_stage && any_unmaterialized(*sl.layout()))
    out.push_back({rule::kShardStrideMaterialized, "strides are still un-materialized (None) at the final check", path + ".layout.stride"});
}

// §2 / D3: the first aliasing (engine, offset), if any. Broadcast replicas of one layout
// coordinate may share a physical element; Partial contributions never.
std::optional<Diagnostic> first_alias(const ShardLayout& sl, const Opts& o, const std::string& path) {
  if (!structurally_valid(sl) || any_unmaterialized(*sl.layout())) return std::nullopt;
  const Storage storage = o.storage.value_or(Storage::Rmem);  // unknown storage: per-instance engines
  std::vector<int64_t> mext, loc;
  for (int a = 0; a < sl.mesh().rank(); ++a) mext.push_back(sl.mesh().extent(a));
  for (const auto& x : flat_leaves(local_shape(sl))) loc.push_back(x.value());
  if (checked_mul(sl.mesh().size(), product_int(local_shape(sl))) > (int64_t{1} << 20))
    fail(rule::kInjectivityUndecided, "too many (instance, element) pairs to enumerate");
  struct Holder {
    std::vector<int64_t> g, m;
  };
  std::map<std::pair<int64_t, int64_t>, Holder> seen;
  const auto locals = row_major_coords(loc);
  for (const auto& m : row_major_coords(mext)) {
    const int64_t engine = engine_of(sl.mesh(), m, storage);
    for (const auto& c : locals) {
      auto g = global_coord(sl, m, c);
      int64_t off = sl.layout()->apply(shard_text::coord_in(g, sl.shape()));
      auto [it, fresh] = seen.emplace(std::pair{engine, off}, Holder{g, m});
      if (fresh) continue;
      const Holder& h = it->second;
      std::string where = "engine " + std::to_string(engine) + " offset " + std::to_string(off) + " under " + to_string(storage);
      if (h.g != g)
        return Diagnostic{rule::kShardInjective, "distinct layout coordinates " + to_string(shard_text::coord_in(h.g, flatten(sl.shape()))) + " and " + to_string(shard_text::coord_in(g, flatten(sl.shape()))) + " share " + where, path};
      for (size_t a = 0; a < m.size(); ++a)
        if (m[a] != h.m[a] && std::holds_alternative<Partial>(sl.attrs()[a]))
          return Diagnostic{rule::kPartialAliased, "Partial contributions of mesh axis " + std::to_string(a) + " alias at " + where + "; they would overwrite each other", at_attr(path, a)};
    }
  }
  return std::nullopt;
}
void injective(const ShardLayout& sl, const Opts& o, const std::string& path, Out& out) {
  if (auto d = first_alias(sl, o, path); d && d->rule == rule::kShardInjective.id) out.push_back(*d);
}
void partial_not_aliased(const ShardLayout& sl, const Opts& o, const std::string& path, Out& out) {
  try {
    if (auto d = first_alias(sl, o, path); d && d->rule == rule::kPartialAliased.id) out.push_back(*d);
  } catch (const SpecError& e) {
    if (e.rule() != rule::kInjectivityUndecided.id) throw;  // the same walk as shard-injective: reported there, once
  }
}

// Every shard rule, in the order validate_shard_layout applies them (cheap rules first).
constexpr Check<ShardLayout, Opts> kShardChecks[] = {
    {&rule::kShardAttrsRank, attrs_rank},
    {&rule::kSplitAxisRange, split_axis_range},
    {&rule::kSplitAxisUnique, split_axis_unique},
    {&rule::kPartialReduction, partial_reduction},
    {&rule::kShardConcrete, shard_concrete},
    {&rule::kSplitDivides, split_divides},
    {&rule::kSplitExtentCanonical, split_extent_canonical},
    {&rule::kSplitStrideNonneg, split_stride_nonneg},
    {&rule::kSplitSingleStride, split_single_stride},
    {&rule::kStrideEmptyNotNone, stride_empty_not_none},
    {&rule::kShardSizeMatch, size_match},
    {&rule::kShardRegroup, regroup_rule},
    {&rule::kDynamicUnresolved, dynamic_unresolved},
    {&rule::kShardStrideMaterialized, stride_materialized_final},
    {&rule::kShardInjective, injective},
    {&rule::kPartialAliased, partial_not_aliased},
};


}  // namespace

CheckReport check_shard_layout(const ShardLayout& sl, const ShardCheckOptions& opts, const std::string& path) {
  return run_checks<ShardLayout, Opts>(kShardChecks, sl, opts, path);
}

std::vector<const RuleId*> shard_checked_rules() {
  std::vector<const RuleId*> out;
  for (const auto& c : kShardChecks) out.push_back(c.rule);
  return out;
}

// Fails closed with the first violation, else the first undecided, stopping at the first
// violation: the cheap rules (sizes, regroup) come before the D3 enumeration, which then never
// runs for a layout already refused.
void validate_shard_layout(const ShardLayout& sl, const ShardCheckOptions& opts) {
  CheckReport report;
  for (const auto& c : kShardChecks) {
    Out out;
    try {
      c.run(sl, opts, "", out);
    } catch (const SpecError& e) {
      record_raised(e, "", report);
    }
    for (auto& d : out) report.add(std::move(d));
    if (!report.violations.empty()) throw SpecError(report.violations.front());
  }
  if (!report.undecided.empty()) throw SpecError(report.undecided.front());
}

}  // namespace tfspec
