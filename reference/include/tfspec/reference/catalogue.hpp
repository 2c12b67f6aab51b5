// The rule catalogue (rules.def): every rule id tfspec reports, with its clause, kind and a
// one-line summary. Code names a rule by its constant (`rule::kSplitAxisUnique`), never by a
// string literal, so an id is spelled exactly once.
#pragma once
#include <span>
#include <string_view>

namespace tfspec {

// What a rule id means when it is reported. A check has three outcomes, never two: an Invariant
// or Refusal found is a *violation*, a Limit is *undecided*, an Input rule is an *input error*.
enum class RuleKind { Invariant, Refusal, Input, Limit, Internal };

struct RuleId {
  std::string_view id;
  std::string_view clause;
  RuleKind kind;
  std::string_view summary;
};

// A rule as cited at one place: the catalogue's clause, or the clause of the construct at hand for
// rules that apply to several (a JSON type error in a Mesh cites §5, in a ShardAttr §6).
struct RuleRef {
  const RuleId* rule;
  std::string_view clause;
  constexpr RuleRef(const RuleId& r) : rule(&r), clause(r.clause) {}  // NOLINT: implicit on purpose
  constexpr RuleRef(const RuleId& r, std::string_view c) : rule(&r), clause(c) {}
};

namespace rule {
#define RULE(name, id, clause, kind, summary) inline constexpr RuleId name{id, clause, RuleKind::kind, summary};
#include "tfspec/reference/rules.def"
#undef RULE

// The same rule, cited at the clause of the construct it is reported for.
constexpr RuleRef in(const RuleId& r, std::string_view clause) { return RuleRef(r, clause); }
}  // namespace rule

std::span<const RuleId> catalogue();
// The declared rule with this id, or nullptr.
const RuleId* find_rule(std::string_view id);
// The kind of a reported id; ids not in the catalogue count as Internal (a tfspec bug).
RuleKind rule_kind(std::string_view id);
std::string_view to_string(RuleKind k);

}  // namespace tfspec
