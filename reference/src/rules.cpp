// The invariant registry and the §2 TensorType.layout gate.
#include "tfspec/reference/rules.hpp"

namespace tfspec {

RuleRegistry& RuleRegistry::instance() {
  static RuleRegistry* r = [] {
    auto* reg = new RuleRegistry();
    register_layout_rules(*reg);
    register_composed_rules(*reg);
    register_shard_rules(*reg);
    return reg;
  }();
  return *r;
}

void RuleRegistry::add(Rule r) { rules_.push_back(std::move(r)); }

std::vector<Diagnostic> RuleRegistry::check(const LayoutBase& l, const std::string& path) const {
  std::vector<Diagnostic> out;
  for (const auto& r : rules_) {
    if (r.applies_to != l.kind()) continue;
    try {
      r.check(l, path, out);
    } catch (const SpecError& e) {
      Diagnostic d = e.diagnostic();
      if (d.path.empty()) d.path = path;
      out.push_back(d);
    }
  }
  return out;
}

std::vector<Diagnostic> check_layout(const LayoutBase& l, const std::string& path) {
  return RuleRegistry::instance().check(l, path);
}

void validate(const LayoutBase& l) {
  auto d = check_layout(l);
  if (!d.empty()) throw SpecError(d.front());
}

}  // namespace tfspec
