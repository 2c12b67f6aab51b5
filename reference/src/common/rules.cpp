// Check outcomes: violation, undecided, or an input error that propagates.
#include "tfspec/reference/rules.hpp"

namespace tfspec {

void CheckReport::add(Diagnostic d) {
  (d.kind() == RuleKind::Limit ? undecided : violations).push_back(std::move(d));
}

void record_raised(const SpecError& e, const std::string& path, CheckReport& report) {
  RuleKind k = e.kind();
  if (k == RuleKind::Input || k == RuleKind::Internal) throw e;
  Diagnostic d = e.diagnostic();
  if (d.path.empty()) d.path = path;
  report.add(std::move(d));
}

void validate(const LayoutBase& l) {
  CheckReport r = check_layout(l);
  if (!r.violations.empty()) throw SpecError(r.violations.front());
  if (!r.undecided.empty()) throw SpecError(r.undecided.front());
}

}  // namespace tfspec
