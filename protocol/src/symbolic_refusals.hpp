// A total answer (issue 46 item 4, spec/ALGEBRA.md S4d): the printed cases cover every instance
// of the assumptions. Where the op refuses outside every answer case's guard, that region is a
// case of its own, `when ...: refused [rule §clause]`, so a reader never infers a refusal from a
// gap between guards. Private to ops_symbolic.cpp.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symbolic_budget.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec::protocol {

struct RefusalCase {
  std::vector<SymPred> when;
  Diagnostic refusal;
  std::optional<Bindings> witness;  // nullopt: `reachable: undecided`
};

// A refusing path: its steps taken (the undecided ones, in order) and its refusal.
using RefusingPath = std::pair<std::vector<SymPred>, Diagnostic>;

// Each refusing path's region less every answer case's guard, split into disjoint conjunctions
// (X less `a1 and ... and an` is the union of `X and a1 ... a(k-1) and not ak`); a piece the
// solver proves empty is dropped, every other one is a case with its witness. The paths cover
// every instance and the answer guards are disjoint, so the answer cases and these cover every
// instance once. At most kMaxRefusalCases pieces; nullopt past it (the answer says so).
inline constexpr size_t kMaxRefusalCases = 64;
std::optional<std::vector<RefusalCase>> refusal_cases(BudgetedDecider& dec, const std::vector<std::vector<SymPred>>& answer_guards,
                                                      const std::vector<RefusingPath>& refusing);

}  // namespace tfspec::protocol
