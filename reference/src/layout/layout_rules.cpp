// Invariants of the pure layouts (§2 common contract, §3, §4), one check per catalogue rule.
#include "common/checks.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

using Out = std::vector<Diagnostic>;

// §1: a None (launch-provided) extent is legal. With one mode of more than one position and a
// non-zero stride the layout is injective whatever the extent; otherwise it depends on the value
// (undecided, never a violation). Symbolic extents are reported by layout-concrete.
void injective_for_any_extent(const Layout& L, const std::string& path, Out& out) {
  const auto shape = flat_leaves(L.shape_ref()), stride = flat_leaves(L.stride());
  int live = 0;
  bool zero_stride = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_sym()) return;
    if (shape[i].is_int() && shape[i].value() == 1) continue;
    ++live;
    zero_stride = zero_stride || stride[i].value() == 0;
  }
  if (live <= 1 && !zero_stride) return;
  out.emplace_back(rule::kInjectivityUndecided, "injectivity depends on the value of a None (launch-provided) extent", path);
}

// §2: injectivity decided exactly (a witness pair), or undecided beyond the enumeration limit
// (is_injective raises injectivity-undecided, a Limit rule: never reported as a violation).
void injective(const LayoutBase& l, const NoOptions&, const std::string& path, Out& out) {
  if (l.kind() == LayoutKind::Layout) {
    const auto& L = static_cast<const Layout&>(l);
    if (!L.materialized() || !is_concrete(L.stride())) return;  // other rules report it
    if (!is_concrete(L.shape_ref())) return injective_for_any_extent(L, path, out);
  }
  InjectivityResult r = is_injective(l);
  if (r.injective) return;
  out.emplace_back(rule::kLayoutInjective,
                   "distinct coordinates " + coord_to_string(r.witness->first) + " and " + coord_to_string(r.witness->second) +
                       " map to the same offset " + std::to_string(l.apply(r.witness->first)),
                   path);
}

// §7.1.2: a layout entering TensorType.layout has its strides.
void stride_materialized(const LayoutBase& l, const NoOptions&, const std::string& path, Out& out) {
  if (!static_cast<const Layout&>(l).materialized()) out.emplace_back(rule::kStrideMaterialized, "strides are un-materialized (None)", path + ".stride");
}

// §1: numbers where the checks need them (symbolic layouts are `tfspec prove`'s business).
void concrete(const LayoutBase& l, const NoOptions&, const std::string& path, Out& out) {
  const auto& L = static_cast<const Layout&>(l);
  for (const auto& leaf : flat_leaves(L.shape_ref()))
    if (leaf.is_sym()) {  // None is a legal extent (§1): only checks that need its value fail closed
      out.emplace_back(rule::kLayoutConcrete, "extent " + describe_leaf(leaf) + " is not concrete; prove properties with `tfspec prove`", path + ".shape");
      return;
    }
  if (!L.materialized()) return;
  for (const auto& leaf : flat_leaves(L.stride()))
    if (!leaf.is_int()) {
      out.emplace_back(rule::kLayoutConcrete, "stride " + describe_leaf(leaf) + " is not concrete", path + ".stride");
      return;
    }
}

constexpr Check<LayoutBase, NoOptions> kLayoutChecks[] = {
    {&rule::kStrideMaterialized, stride_materialized},
    {&rule::kLayoutConcrete, concrete},
    {&rule::kLayoutInjective, injective},
};
constexpr Check<LayoutBase, NoOptions> kComposedChecks[] = {
    {&rule::kLayoutInjective, injective},
};

std::vector<const RuleId*> rules_of(std::span<const Check<LayoutBase, NoOptions>> checks) {
  std::vector<const RuleId*> out;
  for (const auto& c : checks) out.push_back(c.rule);
  return out;
}

}  // namespace

CheckReport check_plain_layout(const LayoutBase& l, const std::string& path) {
  return run_checks<LayoutBase, NoOptions>(kLayoutChecks, l, NoOptions{}, path);
}
CheckReport check_composed_layout(const LayoutBase& l, const std::string& path) {
  return run_checks<LayoutBase, NoOptions>(kComposedChecks, l, NoOptions{}, path);
}
std::vector<const RuleId*> plain_layout_checked_rules() { return rules_of(kLayoutChecks); }
std::vector<const RuleId*> composed_layout_checked_rules() { return rules_of(kComposedChecks); }

}  // namespace tfspec
