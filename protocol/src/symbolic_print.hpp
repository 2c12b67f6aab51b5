// How one case of a symbolic answer is printed (spec/PROTOCOL.md "Symbolic layouts"): its guard,
// its conditions each classified under the guard and the assumptions (S5, issue 46 item 2) and
// defined where it is read (item 3), its witness (item 1); a refusal case (item 4). The text and
// the JSON say the same. Private to ops_symbolic.cpp.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symbolic_budget.hpp"
#include "symbolic_refusals.hpp"
#include "symbolic_validate.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"

namespace tfspec::protocol {

// ALGEBRA.md S5: whether a proved condition holds for every value of the symbols >= 1 under the
// case's guard, whatever the assumptions (then it is counted in one line, listed by --json).
class Everywhere {
 public:
  // `dec`: the op's decider, whose wall-clock guard bounds this classification too (issue 46 item 5).
  Everywhere(const std::set<std::string>& symbols, BudgetedDecider& dec);
  bool holds(const std::vector<SymPred>& when, const SymPred& p);

 private:
  BudgetedDecider& dec_;
  std::set<std::string> symbols_;
  FoldingDecider folding_;
  std::optional<solver::Z3Decider> bare_z3_;
};

struct PrintedCase {
  std::string text;  // `when ...:` (where headed), the result, the condition lines
  Json json;         // {"when", "result", "conditions", "witness"} or, refused, {"when", "refused", ...}
};

// What one instance does under the concrete reference, for a counterexample's note.
using Replay = std::function<std::string(const Bindings&)>;

// An answer case: its conditions classified (counterexamples appended to `found`), `checked`
// filled for the validation.
PrintedCase print_answer(BudgetedDecider& dec, Everywhere& ev, const std::vector<SymPred>& when, const std::vector<SymCondition>& conditions,
                         const std::string& result_text, const Json& result_json, const std::optional<Bindings>& witness, bool headed,
                         const Replay& replay, CheckedCase& checked, std::vector<Bindings>& found);
PrintedCase print_refusal(const RefusalCase& r);

std::string guard_text(const std::vector<SymPred>& when);
Json guard_json(const std::vector<SymPred>& when);

}  // namespace tfspec::protocol
