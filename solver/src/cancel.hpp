// Common-factor cancellation in one-symbol divisibility facts (spec/ALGEBRA.md S5, issue 46 item 2).
//
// A case guard such as `(3*M*M-2*M-1) % (4*M-4) == 0` is nonlinear, and Z3 cannot use it: both
// sides share the factor M-1, and where the guard is defined (4*M-4 != 0, so M-1 != 0) it says
// exactly `(3*M+1) % 4 == 0`, a linear fact. `cancelled` returns that equivalent form of a context
// predicate, which the decider asserts beside the original (never in its place: the printed guard
// stays as the algorithm states it). Sound because for integers a, b, g with b*g != 0,
// a*g is a multiple of b*g iff a is a multiple of b.
#pragma once
#include <optional>

#include "tfspec/reference/symbolic.hpp"

namespace tfspec::solver {

// `X % Y == 0` (or `!= 0`) with X and Y polynomials in one symbol sharing a factor G of degree >= 1:
// `(X/G) % (Y/G) == 0` (or `!= 0`); nullopt for any other predicate, or where the coefficients
// leave int64 range.
std::optional<SymPred> cancelled(const SymPred& p);

}  // namespace tfspec::solver
