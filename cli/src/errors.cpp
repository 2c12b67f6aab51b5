#include <algorithm>
#include <iostream>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {
namespace {

// e.what() with the whole message: what() is a C string, cut at an embedded NUL (issue 19).
std::string full_text(const SpecError& e) { return "[" + e.rule() + " " + e.clause() + "] " + e.diagnostic().message; }

}  // namespace

namespace {
// Levenshtein distance with '-' and '_' as one character (op names accept both spellings).
size_t edit_distance(std::string_view a, std::string_view b) {
  auto norm = [](char c) { return c == '-' ? '_' : c; };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (norm(a[i - 1]) == norm(b[j - 1]) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;  // farther than this is no suggestion
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best.empty() ? "" : "; did you mean `" + best + "`?";
}

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
