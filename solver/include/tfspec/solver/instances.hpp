// Concrete instances of a symbolic problem (spec/ALGEBRA.md S5, "Validation"): a deterministic
// pool of bindings that satisfy the assumptions, drawn from small values, boundary values and the
// constants the problem names (c-1, c, c+1 and multiples of c). The decider uses it to witness
// both sides of a branch without a solver call; the protocol replays every symbolic answer at
// these instances through the concrete reference before printing it.
#pragma once
#include <cstdint>
#include <set>
#include <vector>

#include "tfspec/reference/shapedim.hpp"
#include "tfspec/solver/assumptions.hpp"

namespace tfspec::solver {

// The integer constants named by the assumptions' relations (and any `extra`), >= 1.
std::set<int64_t> problem_constants(const Assumptions& a);
// The constants 1 .. 2^40 of an expression, added to `out`.
void constants_of(const ShapeDim& d, std::set<int64_t>& out);
// At most `cap` instances over a.symbols that satisfy every assumption, the same on every run.
std::vector<Bindings> sample_instances(const Assumptions& a, const std::set<int64_t>& constants, size_t cap = 1500);

}  // namespace tfspec::solver
