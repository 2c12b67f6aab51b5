// Conditions and guards defined where they are printed (issue 46 item 3, spec/ALGEBRA.md S4c):
// a printed predicate that divides by an expression which can be 0 at an instance of its case is
// preceded by that divisor's `q != 0`, innermost first, so that the printed text (read left to
// right, `and` stopping at the first false part) is false there, never undefined. The solver
// reads a predicate as "defined and true" (obligations.cpp) but takes a counterexample only where
// it is defined and false; symbolic_print.cpp classifies the printed conjunction itself
// (`classify_defined`), so an instance where a divisor is 0 is a counterexample of the printed
// text. Private to ops_symbolic.cpp.
#pragma once
#include <string>
#include <vector>

#include "tfspec/reference/symbolic.hpp"

namespace tfspec::protocol {

// `q != 0` for each divisor q of p (innermost first) that `dec` cannot show non-zero under `context`.
std::vector<SymPred> undefined_divisors(Decider& dec, const std::vector<SymPred>& context, const SymPred& p);

// A case guard with each step preceded by the `q != 0` its divisors need under the steps before it.
std::vector<SymPred> defined_guard(Decider& dec, const std::vector<SymPred>& when);

// a's predicates, then b's: a case guard extended by more steps.
std::vector<SymPred> joined(std::vector<SymPred> a, const std::vector<SymPred>& b);

// `q1 != 0 and q2 != 0 and p`: a condition as printed.
std::string defined_text(const std::vector<SymPred>& first, const SymPred& p);

}  // namespace tfspec::protocol
