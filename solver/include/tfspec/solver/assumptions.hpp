// User assumptions for `tfspec prove` (`--assume "M % 128 == 0"`, `--assume "1 <= M <= 65536"`):
// comparison chains over symbolic dims (§1 ShapeDim expressions). Default: every symbol that no
// assumption gives a lower bound is >= 1 (a dim is a positive extent). Bounds of the form
// `c <= M`, `M < c`, `M == c` are extracted per symbol for the bounded strategies.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tfspec/reference/shapedim.hpp"

namespace tfspec::solver {

enum class Rel { Eq, Ne, Lt, Le, Gt, Ge };

// `a op b` for integers (bool) and for Z3 terms over Int or bit-vectors (a z3::expr).
template <class T>
auto apply_relation(Rel op, const T& a, const T& b) {
  switch (op) {
    case Rel::Ne: return a != b;
    case Rel::Lt: return a < b;
    case Rel::Le: return a <= b;
    case Rel::Gt: return a > b;
    case Rel::Ge: return a >= b;
    case Rel::Eq: break;
  }
  return a == b;
}

struct Relation {
  ShapeDim lhs;
  Rel op;
  ShapeDim rhs;
};

struct SymbolBounds {
  std::optional<int64_t> lo, hi;  // inclusive
};

struct Assumptions {
  std::vector<std::string> texts;  // as printed in verdicts (user's, then the defaults added)
  std::vector<Relation> relations;
  std::map<std::string, SymbolBounds> bounds;
  std::set<std::string> symbols;  // every symbol named by an assumption or the goal
  size_t unread = 0;              // texts left unread because `expired` said so (then incomplete)
};

// Parses one assumption (a chain `e1 op e2 [op e3 ...]`); SpecError("prove-assumption-syntax").
std::vector<Relation> parse_assumption(const std::string& text);
// The assumptions for a goal over `goal_symbols`, with the default lower bound added.
// `expired` (the verdict's time limit) is polled before each text: reading stops there, with
// `unread` set, so that however many assumptions a caller passes the limit holds (issue 19).
Assumptions make_assumptions(const std::vector<std::string>& texts, const std::set<std::string>& goal_symbols,
                             const std::function<bool()>& expired = {});
// Whether every relation holds under the bindings (false where one is undefined, e.g. `% 0`).
bool holds(const Assumptions& a, const Bindings& b);
std::string to_string(Rel r);

}  // namespace tfspec::solver
