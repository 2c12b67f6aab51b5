#include "symbolic_refusals.hpp"

#include "symbolic_defined.hpp"

namespace tfspec::protocol {
namespace {

// `x` less the guard `g`: `x` itself where the two are disjoint, else the pieces
// `x and g1 ... g(k-1) and not gk` the solver does not prove empty.
std::vector<std::vector<SymPred>> less(BudgetedDecider& dec, const std::vector<SymPred>& x, const std::vector<SymPred>& g) {
  if (dec.satisfiable(joined(x, g)) == false) return {x};
  std::vector<std::vector<SymPred>> out;
  std::vector<SymPred> prefix = x;
  for (const auto& step : g) {
    std::vector<SymPred> piece = prefix;
    piece.push_back(negate(step));
    if (dec.satisfiable(piece) != false) out.push_back(std::move(piece));
    prefix.push_back(step);
  }
  return out;
}

}  // namespace

std::optional<std::vector<RefusalCase>> refusal_cases(BudgetedDecider& dec, const std::vector<std::vector<SymPred>>& answer_guards,
                                                      const std::vector<RefusingPath>& refusing) {
  std::vector<RefusalCase> out;
  for (const auto& [steps, why] : refusing) {
    std::vector<std::vector<SymPred>> region{defined_guard(dec, steps)};
    for (const auto& g : answer_guards) {
      std::vector<std::vector<SymPred>> next;
      for (const auto& x : region)
        for (auto& piece : less(dec, x, g)) next.push_back(std::move(piece));
      region = std::move(next);
      if (out.size() + region.size() > kMaxRefusalCases) return std::nullopt;
    }
    for (auto& x : region) {
      std::optional<Bindings> w = dec.instance(x);
      if (!w && dec.satisfiable(x) == false) continue;  // no instance reaches it (issue 46 item 1)
      out.push_back({std::move(x), why, std::move(w)});
    }
  }
  return out;
}

}  // namespace tfspec::protocol
