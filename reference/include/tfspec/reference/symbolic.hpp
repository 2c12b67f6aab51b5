// Symbolic integers for the layout algebra on symbolic shapes (spec/ALGEBRA.md "S1"): a normal
// form for ShapeDim expressions, predicates over them, and symbolic execution with path
// conditions. An algorithm of the algebra runs over ShapeDims; every branch on a value asks a
// Decider (constant folding here; the solver implements one with Z3 under the user's
// assumptions). A decided branch is taken; an undecided one forks, so one operation yields a
// guarded list of cases, each either a result or a refusal with its rule. No Z3 here.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/shapedim.hpp"

namespace tfspec {

// ---- normal form (S1): a polynomial with integer coefficients over atoms; an atom is a symbol,
// or `p // q` / `p % q` of normal forms that do not fold. Equal polynomials print identically;
// terms are ordered by degree (highest first), then by their text; the constant comes last.
ShapeDim normalize(const ShapeDim& d);
ShapeDim sym_add(const ShapeDim& a, const ShapeDim& b);
ShapeDim sym_sub(const ShapeDim& a, const ShapeDim& b);
ShapeDim sym_mul(const ShapeDim& a, const ShapeDim& b);
ShapeDim sym_floordiv(const ShapeDim& a, const ShapeDim& b);
ShapeDim sym_mod(const ShapeDim& a, const ShapeDim& b);
inline ShapeDim sym(int64_t v) { return dim_const(v); }

enum class SymRel { Eq, Ne, Lt, Le, Gt, Ge };

// `lhs rel rhs`, kept as built so that it prints as the algorithm states it (`M % 128 == 0`).
struct SymPred {
  ShapeDim lhs;
  SymRel rel;
  ShapeDim rhs;
};
SymPred negate(const SymPred& p);
std::string to_string(const SymPred& p);
std::string to_string(SymRel r);
// Whether p holds under the bindings (false where it is undefined, e.g. `% 0`).
bool holds(const SymPred& p, const Bindings& b);
// Constant truth value after normalization of lhs - rhs, if it has one.
std::optional<bool> fold(const SymPred& p);

// Decides a predicate under the path taken so far (and whatever the implementation assumes):
// true when implied, false when its negation is, nullopt when neither is known.
class Decider {
 public:
  virtual ~Decider() = default;
  virtual std::optional<bool> decide(const std::vector<SymPred>& path, const SymPred& p) = 0;
};
// Constant folding, plus interval bounds from per-symbol lower bounds (`M >= 1` for an extent):
// decides what holds for every value of the symbols above their bounds. No solver.
class FoldingDecider : public Decider {
 public:
  FoldingDecider() = default;
  explicit FoldingDecider(std::map<std::string, int64_t> lower) : lower_(std::move(lower)) {}
  std::optional<bool> decide(const std::vector<SymPred>&, const SymPred& p) override;

 private:
  std::map<std::string, int64_t> lower_;
};

// One branch met on a path: the predicate as it went (negated where the false side was taken).
struct SymStep {
  SymPred pred;
  bool decided = false;           // by the decider: not part of the case's guard
  std::optional<RuleRef> rule;    // set for an obligation (a `require`): its failure refuses
};

// One path of the symbolic execution: the undecided steps are its guard.
template <class R>
struct SymCase {
  std::vector<SymStep> steps;
  std::optional<R> result;             // the op's answer on this path
  std::optional<Diagnostic> refusal;   // or its refusal
  std::vector<SymPred> guard() const {
    std::vector<SymPred> g;
    for (const auto& s : steps)
      if (!s.decided) g.push_back(s.pred);
    return g;
  }
};

// The executor an algorithm branches through (one run = one path).
class SymExec {
 public:
  SymExec(Decider& d, std::vector<bool> prefix) : decider_(d), prefix_(std::move(prefix)) {}
  // A structural branch: which way the algorithm goes.
  bool branch(const SymPred& p);
  // An obligation: p must hold, else the op refuses with `rule` (SpecError thrown).
  void require(const SymPred& p, RuleRef rule, const std::string& message);
  const std::vector<SymStep>& steps() const { return steps_; }
  const std::vector<bool>& forks() const { return taken_; }  // decisions at undecided steps
  size_t prefix_size() const { return prefix_.size(); }
  // Whether a `require` failed on this path: its error refuses the path whatever the rule's kind
  // (slice's coord-in-domain is an input error, and on a symbolic path it is a condition).
  bool refused() const { return refused_; }

 private:
  std::optional<bool> choose(const SymPred& p);
  void require_defined(const SymPred& p);
  std::vector<SymPred> path() const;
  Decider& decider_;
  std::vector<bool> prefix_;
  std::vector<bool> taken_;
  std::vector<SymStep> steps_;
  bool refused_ = false;
};

// Most paths one operation explores; past it the op fails with `resource-limit`.
inline constexpr int kSymbolicCaseLimit = 64;
// The protocol's ops (tfspec layout, serve, prove --of) explore up to this many paths and count
// kSymbolicCaseLimit against the answer's cases once its paths are merged (issue 46 item 5: a
// rank-3 tiler without assumptions takes 65 to 256 paths that merge into one formula).
inline constexpr int kSymbolicPathLimit = 1024;

// Runs `body` over every path (depth first, true side first). A SpecError thrown on a path is
// that path's refusal; an error of kind Input (e.g. an expression too large) propagates unless a
// `require` raised it.
template <class R>
std::vector<SymCase<R>> explore(Decider& d, const std::function<R(SymExec&)>& body, int limit = kSymbolicCaseLimit,
                                const std::string& unit = "cases") {
  std::vector<SymCase<R>> cases;
  std::vector<std::vector<bool>> pending{{}};
  while (!pending.empty()) {
    if (static_cast<int>(cases.size()) >= limit)
      fail(rule::kResourceLimit, "the symbolic operation splits into more than " + std::to_string(limit) + " " + unit +
                                          "; add assumptions that decide its branches (e.g. lower bounds on the extents)");
    SymExec ex(d, pending.back());
    pending.pop_back();
    SymCase<R> c;
    try {
      c.result = body(ex);
    } catch (const SpecError& e) {
      if (e.kind() != RuleKind::Refusal && !ex.refused()) throw;
      c.refusal = e.diagnostic();
    }
    c.steps = ex.steps();
    // every undecided step past the prefix was taken `true`: its `false` side is still to run
    const auto& f = ex.forks();
    for (size_t i = f.size(); i-- > ex.prefix_size();) {
      std::vector<bool> next(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(i));
      next.push_back(false);
      pending.push_back(std::move(next));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace tfspec
