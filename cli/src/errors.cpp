#include <iostream>

#include "commands.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {
namespace {

// e.what() with the whole message: what() is a C string, cut at an embedded NUL (issue 19).
std::string full_text(const SpecError& e) { return "[" + e.rule() + " " + e.clause() + "] " + e.diagnostic().message; }

}  // namespace

int report_error(const std::exception& e) {
  if (auto* s = dynamic_cast<const SpecError*>(&e)) {
    switch (s->kind()) {
      case RuleKind::Limit:  // the reference could not decide within its limits: not a refusal
        std::cerr << "undecided: " << full_text(*s) << "\n";
        return kUnknown;
      case RuleKind::Internal:
        std::cerr << "error: " << full_text(*s) << " (this is a tfspec bug)\n";
        return kInternal;
      default:
        std::cerr << "error: " << full_text(*s) << "\n";
        return kInputError;
    }
  }
  if (dynamic_cast<const std::bad_alloc*>(&e))  // the declared Limit, as a planner's own bound reports it
    return report_error(SpecError(rule::kResourceLimit, "out of memory"));
  std::cerr << "error: [internal -] " << e.what() << " (this is a tfspec bug)\n";
  return kInternal;
}

}  // namespace tfspec::cli
