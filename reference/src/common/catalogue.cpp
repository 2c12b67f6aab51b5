// The rule catalogue as a table (rules.def).
#include "tfspec/reference/catalogue.hpp"

#include <array>

namespace tfspec {
namespace {
constexpr std::array kCatalogue = {
#define RULE(name, id, clause, kind, summary) rule::name,
#include "tfspec/reference/rules.def"
#undef RULE
};
}  // namespace

std::span<const RuleId> catalogue() { return kCatalogue; }

const RuleId* find_rule(std::string_view id) {
  for (const auto& r : kCatalogue)
    if (r.id == id) return &r;
  return nullptr;
}

RuleKind rule_kind(std::string_view id) {
  const RuleId* r = find_rule(id);
  return r ? r->kind : RuleKind::Internal;
}

std::string_view to_string(RuleKind k) {
  switch (k) {
    case RuleKind::Invariant: return "invariant";
    case RuleKind::Refusal: return "refusal";
    case RuleKind::Input: return "input";
    case RuleKind::Limit: return "limit";
    case RuleKind::Internal: return "internal";
  }
  return "internal";
}

}  // namespace tfspec
