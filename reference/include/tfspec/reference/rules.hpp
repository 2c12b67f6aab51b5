// The invariant registry (§2: enforcement by visitor dispatch on the node type). Each rule has a
// stable id and the clause it enforces; check() returns every violation, not just the first.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

struct Rule {
  std::string id;
  std::string clause;
  std::string summary;
  LayoutKind applies_to;
  // Appends diagnostics for violations; `path` prefixes diagnostic paths.
  std::function<void(const LayoutBase&, const std::string& path, std::vector<Diagnostic>&)> check;
};

class RuleRegistry {
 public:
  static RuleRegistry& instance();
  void add(Rule r);
  const std::vector<Rule>& rules() const { return rules_; }
  // All violations of every rule registered for l's kind (recursing into sub-layouts is the
  // business of the rules themselves, through check_layout below).
  std::vector<Diagnostic> check(const LayoutBase& l, const std::string& path = "") const;

 private:
  std::vector<Rule> rules_;
};

// The TensorType.layout gate (§2): all violations; empty means the layout may enter.
std::vector<Diagnostic> check_layout(const LayoutBase& l, const std::string& path = "");
// Fails closed with the first violation (SpecError carrying its rule id).
void validate(const LayoutBase& l);

// Registration hooks called once by RuleRegistry::instance() (one per construct file).
void register_layout_rules(RuleRegistry& r);
void register_composed_rules(RuleRegistry& r);
void register_shard_rules(RuleRegistry& r);  // shard model (§5-§7)

}  // namespace tfspec
