// Sign arguments without a solver for the linear fragment (issue 20, spec/PROVE.md "structural"):
// a polynomial p over symbols that are bounded from below (X >= lo_X) is >= 0 for every such
// value when p(lo + Y), expanded, has no negative coefficient (each Y = X - lo is >= 0).
// Sufficient, not necessary; exact arithmetic (Z3's bignum numerals). Private to solver/.
#pragma once
#include <z3++.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine.hpp"

namespace tfspec::solver {

// The lower bound of each symbol: an expression bound (`L >= M*N`, `S > K`) where one applies,
// else the assumptions' constant one (a default >= 1 included), raised to 1 for a symbol that is
// itself an extent of the goal (it exists only as an extent >= 1). A quotient X // c (c >= 1 a
// constant, X such a symbol with a constant bound) becomes a variable D: X = c*D + R with
// D >= floor(lo_X / c) (>= 1 where X // c is an extent) and R = X % c >= 0, so that
// `M - 128*(M//128)` is R >= 0 (the strides of a derived layout, `((128,M//128),...):((1,128),...)`).
class LowerBounds {
 public:
  LowerBounds(Encoder& enc, const Assumptions& as, const GoalSpec& spec);
  // p >= 0 wherever every symbol is at least its lower bound (false: not shown).
  bool nonneg(const z3::expr& p) const;
  // p at every symbol = lower bound + `above` (the order of strides at a generic point).
  std::optional<int64_t> sample(const z3::expr& p, int64_t above) const;
  // The symbol values where every shifted symbol is `above` (each symbol its lower bound plus
  // `above`, an expression bound evaluated there), when they fit int64: an instance that
  // satisfies every lower bound however the bounds chain (the overflow probes use it).
  std::optional<Bindings> point(int64_t above) const;

 private:
  z3::context& ctx_;
  z3::expr_vector from_, to_;
  std::vector<unsigned> shifted_;  // ids of the symbols' terms, each >= 0 after the shift
  std::vector<std::string> names_;
  // Symbols with a constant lower bound that no expression bound mentions (term id -> bound),
  // and the quotients X // c that are extents of the goal (>= 1).
  std::map<unsigned, int64_t> plain_;
  std::set<std::pair<unsigned, int64_t>> positive_quotients_;
  z3::expr quotients(const z3::expr& p, std::vector<unsigned>& shifted) const;
};

}  // namespace tfspec::solver
