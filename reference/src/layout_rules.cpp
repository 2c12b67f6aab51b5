// Invariants of the pure layouts (§2 common contract, §3, §4), registered by id.
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec {
namespace {

void report_injectivity(const LayoutBase& l, const std::string& path, std::vector<Diagnostic>& out) {
  InjectivityResult r = is_injective(l);
  if (r.injective) return;
  std::string msg = "distinct coordinates " + coord_to_string(r.witness->first) + " and " +
                    coord_to_string(r.witness->second) + " map to the same offset " + std::to_string(l.apply(r.witness->first));
  out.push_back(Diagnostic{"layout-injective", "§2", msg, path});
}

}  // namespace

void register_layout_rules(RuleRegistry& reg) {
  reg.add(Rule{"stride-materialized", "§7.1.2", "a layout entering TensorType.layout has concrete strides", LayoutKind::Layout,
               [](const LayoutBase& l, const std::string& path, std::vector<Diagnostic>& out) {
                 if (!static_cast<const Layout&>(l).materialized())
                   out.push_back({"stride-materialized", "§7.1.2", "strides are un-materialized (None)", path + ".stride"});
               }});
  reg.add(Rule{"layout-concrete", "§1", "every extent and stride is a concrete integer (symbolic layouts: `tfspec prove`)",
               LayoutKind::Layout, [](const LayoutBase& l, const std::string& path, std::vector<Diagnostic>& out) {
                 const auto& L = static_cast<const Layout&>(l);
                 for (const auto& leaf : flat_leaves(L.shape_ref()))
                   if (!leaf.is_int()) {
                     out.push_back({"layout-concrete", "§1", "extent " + describe_leaf(leaf) + " is not concrete; prove properties with `tfspec prove`", path + ".shape"});
                     return;
                   }
                 if (!L.materialized()) return;
                 for (const auto& leaf : flat_leaves(L.stride()))
                   if (!leaf.is_int()) {
                     out.push_back({"layout-concrete", "§1", "stride " + describe_leaf(leaf) + " is not concrete", path + ".stride"});
                     return;
                   }
               }});
  reg.add(Rule{"layout-injective", "§2", "distinct domain coordinates map to distinct offsets", LayoutKind::Layout,
               [](const LayoutBase& l, const std::string& path, std::vector<Diagnostic>& out) {
                 const auto& L = static_cast<const Layout&>(l);
                 if (!L.materialized() || !is_concrete(L.shape_ref()) || !is_concrete(L.stride())) return;  // reported above
                 report_injectivity(l, path, out);
               }});
}

void register_composed_rules(RuleRegistry& reg) {
  reg.add(Rule{"layout-injective", "§2", "distinct domain coordinates map to distinct offsets", LayoutKind::Composed,
               [](const LayoutBase& l, const std::string& path, std::vector<Diagnostic>& out) { report_injectivity(l, path, out); }});
}

}  // namespace tfspec
