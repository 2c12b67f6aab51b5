// The invariant checks (§2: enforcement by visitor dispatch on the node type). Every rule is
// declared once in the catalogue (catalogue.hpp / rules.def); a check names it by constant and
// reports *all* violations, not just the first. A check has three outcomes, never two:
//   violation  the object breaks the rule                              (CLI exit 1)
//   undecided  the reference could not decide within its limits        (CLI exit 2; not a violation)
//   input error the object cannot be checked at all (malformed)        (thrown as SpecError, exit 3)
#pragma once
#include <span>
#include <string>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

struct CheckReport {
  std::vector<Diagnostic> violations;
  std::vector<Diagnostic> undecided;
  bool ok() const { return violations.empty() && undecided.empty(); }
  // Files a diagnostic by its rule's kind: Limit rules are undecided, the others violations.
  void add(Diagnostic d);
};

// One rule's check over objects of type Obj with the options its construct takes.
template <class Obj, class Opts>
struct Check {
  const RuleId* rule;
  void (*run)(const Obj&, const Opts&, const std::string& path, std::vector<Diagnostic>& out);
};

// What a check raised instead of returning: a Limit is undecided, an Invariant or Refusal a
// violation; an Input or Internal error is not an outcome of the check and propagates.
void record_raised(const SpecError& e, const std::string& path, CheckReport& report);

template <class Obj, class Opts>
CheckReport run_checks(std::span<const Check<Obj, Opts>> checks, const Obj& obj, const Opts& opts, const std::string& path) {
  CheckReport report;
  for (const auto& c : checks) {
    std::vector<Diagnostic> out;
    try {
      c.run(obj, opts, path, out);
    } catch (const SpecError& e) {
      record_raised(e, path, report);
    }
    for (auto& d : out) report.add(std::move(d));
  }
  return report;
}

// The TensorType.layout gate (§2) for any kind (closed dispatch on LayoutKind, any_layout.cpp).
CheckReport check_layout(const LayoutBase& l, const std::string& path = "");
// Fails closed with the first violation, else the first undecided (SpecError carrying its rule).
void validate(const LayoutBase& l);

// The rules check_layout runs for a kind (what `tfspec layout rules` / `shard rules` list).
std::vector<const RuleId*> checked_rules(LayoutKind kind);

}  // namespace tfspec
