// The strategy pipeline shared by every goal (private to solver/).
#pragma once
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bitvector.hpp"
#include "tfspec/solver/encode.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {

class LowerBounds;

struct Counterexample {
  Json json;         // always carries "symbols"
  std::string text;  // one line: what fails, and where
};

// Exports one obligation (`--smt2`): its assertions, logic and a comment; empty when not asked.
using Smt2Export = std::function<void(const std::vector<z3::expr>&, const std::string& logic, const std::string& comment)>;

// A goal as the pipeline sees it. `negated` is the counterexample condition over the symbols and
// the goal's own auxiliary variables (coordinates, ...).
struct GoalSpec {
  std::string goal, clause;
  std::set<std::string> symbols;
  std::vector<z3::expr> wellformed;
  std::vector<std::string> wellformed_text;
  std::vector<ShapeDim> positive;  // the same conditions for exact instance checks: each >= 1
  std::vector<z3::expr> negated;
  std::string logic = "QF_NIA";
  // Structural argument: the method name when it proves the goal for all values. `lower`: the
  // symbols' lower bounds, for sign arguments without a solver (positivity.hpp).
  std::function<std::optional<std::string>(const std::vector<z3::expr>& base, Budget& budget, const LowerBounds& lower)> structural;
  // Decodes a model's witness and checks that witness itself (the two coordinates and their
  // offsets, ...), exactly: nullopt when it is not a counterexample (the solver and the reference
  // disagree: a tfspec bug). Throws SpecError when it cannot be evaluated (beyond 128 bits, a
  // layout too large for the reference): then the model is merely unusable.
  std::function<std::optional<Counterexample>(const z3::model&, const Bindings&)> replay;
  // Overflow goals: the obligation over 64-bit bit-vectors within the declared bounds.
  std::function<BitvectorOutcome(const Assumptions&, const Limits&, const Smt2Export& out)> bitvector;
  // Decides one concrete instance with the reference: nullopt when the goal holds there.
  // Throws SpecError when the instance cannot be decided (int64 overflow, enumeration limit).
  std::function<std::optional<Counterexample>(const Bindings&)> concrete;
};

ProveResult run_goal(Encoder& enc, GoalSpec& spec, const ProveOptions& o, Budget& budget);
// The verdict for a goal decided before the pipeline could run (e.g. the admissible walk's limit).
ProveResult unknown_result(const GoalSpec& spec, const std::string& reason);

// Helpers shared by the goal encodings.
z3::expr sum(z3::context& ctx, const std::vector<z3::expr>& xs);
z3::expr product(z3::context& ctx, const std::vector<z3::expr>& xs);
Json bindings_json(const Bindings& b);
// A concrete flat coordinate -> the colexicographic index of a concrete layout (D1).
int64_t colex_index(const std::vector<int64_t>& flat_coord, const Layout& concrete);
// Flat extents of a concrete layout.
std::vector<int64_t> flat_extents(const Layout& concrete);
std::vector<int64_t> flat_strides(const Layout& concrete);
// "at M=4, N=3: " for messages, or "" when there are no symbols.
std::string at(const Bindings& b);
// A shape leaf as an expression ("M", "M*2").
std::string leaf_text(const IntTuple& leaf);
// Adds "extent >= 1" for every symbolic extent of f to the goal's well-formedness conditions.
void extents_wellformed(GoalSpec& g, const FlatModes& f);
void positive_wellformed(GoalSpec& g, const z3::expr& term, const ShapeDim& dim);  // one "dim >= 1"
// A flat coordinate as a coordinate congruent with `shape` (for messages).
IntTuple unflatten_coord(const IntTuple& shape, const std::vector<int64_t>& flat);
// Exact (128-bit) values of a layout's flat extents and strides under b; SpecError("prove-undecided")
// when one is beyond 128 bits.
struct ExactModes {
  std::vector<__int128> shape, stride;
  bool fit_int64 = true;
};
ExactModes exact_modes(const Layout& l, const Bindings& b);
// A goal over two layouts: the symbols of both, every symbolic extent >= 1.
GoalSpec two_layout_goal(const std::string& goal, const std::string& clause, const Layout& a, const Layout& b,
                         const FlatModes& fa, const FlatModes& fb);

}  // namespace tfspec::solver
