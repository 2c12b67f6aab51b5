#include <iostream>

#include "commands.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::cli {

int report_error(const std::exception& e) {
  if (auto* s = dynamic_cast<const SpecError*>(&e)) {
    switch (s->kind()) {
      case RuleKind::Limit:  // the reference could not decide within its limits: not a refusal
        std::cerr << "undecided: " << s->what() << "\n";
        return kUnknown;
      case RuleKind::Internal:
        std::cerr << "error: " << s->what() << " (this is a tfspec bug)\n";
        return kInternal;
      default:
        std::cerr << "error: " << s->what() << "\n";
        return kInputError;
    }
  }
  if (dynamic_cast<const std::bad_alloc*>(&e)) {
    std::cerr << "error: [resource-limit -] out of memory\n";
    return kInputError;
  }
  std::cerr << "error: [internal -] " << e.what() << " (this is a tfspec bug)\n";
  return kInternal;
}

}  // namespace tfspec::cli
