// S4 (spec/ALGEBRA.md): the paths of a symbolic operation read back as answers, case guards and
// conditions. A step of an answering path is a condition when its failure refuses: an obligation
// (`require`), or a branch whose other side refuses on every path below it; otherwise it
// separates two answers and is a case guard (`when`).
#include <algorithm>

#include "tfspec/reference/symbolic_algebra.hpp"

namespace tfspec {
namespace {

template <class R>
std::vector<std::string> guard_keys(const SymCase<R>& c) {
  std::vector<std::string> k;
  for (const auto& p : c.guard()) k.push_back(to_string(p));
  return k;
}

// The paths that share the first k undecided steps of `keys` and take step k the other way.
template <class R>
std::vector<const SymCase<R>*> other_side(const std::vector<SymCase<R>>& cases, const std::vector<std::string>& keys, size_t k,
                                          const std::string& negated) {
  std::vector<const SymCase<R>*> v;
  for (const auto& c : cases) {
    const auto g = guard_keys(c);
    if (g.size() > k && std::equal(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(k), g.begin()) && g[k] == negated) v.push_back(&c);
  }
  return v;
}

template <class R>
SymAnswer<R> answer_of(const std::vector<SymCase<R>>& cases, const SymCase<R>& c) {
  SymAnswer<R> a{{}, *c.result, {}};
  const auto keys = guard_keys(c);
  size_t k = 0;
  // A step the decider settled was settled under the path before it: under the case's guard
  // alone only while no condition precedes it (after one, it holds where that one holds, and is
  // classified under the guard like any other condition; issue 37).
  bool after_condition = false;
  for (const auto& s : c.steps) {
    if (s.decided) {
      if (s.rule && !fold(s.pred)) a.conditions.push_back({std::string(s.rule->rule->id), std::string(s.rule->clause), s.pred, !after_condition});
      continue;
    }
    const size_t at = k++;
    if (s.rule) {
      a.conditions.push_back({std::string(s.rule->rule->id), std::string(s.rule->clause), s.pred, false});
      after_condition = true;
      continue;
    }
    const auto others = other_side(cases, keys, at, to_string(negate(s.pred)));
    const bool refuses = !others.empty() && std::all_of(others.begin(), others.end(), [](const SymCase<R>* o) { return o->refusal.has_value(); });
    if (refuses) {
      a.conditions.push_back({others.front()->refusal->rule, others.front()->refusal->clause, s.pred, false});
      after_condition = true;
    } else
      a.when.push_back(s.pred);
  }
  return a;
}

template <class R>
SymSummary<R> summarize_impl(const std::vector<SymCase<R>>& cases) {
  SymSummary<R> s;
  for (const auto& c : cases) {
    if (c.result) s.answers.push_back(answer_of(cases, c));
    else s.refusals.push_back(c);
  }
  return s;
}

}  // namespace

SymSummary<Layout> summarize(const std::vector<SymCase<Layout>>& cases) { return summarize_impl(cases); }
SymSummary<ShapeDim> summarize(const std::vector<SymCase<ShapeDim>>& cases) { return summarize_impl(cases); }
SymSummary<IntTuple> summarize(const std::vector<SymCase<IntTuple>>& cases) { return summarize_impl(cases); }
SymSummary<SymSlice> summarize(const std::vector<SymCase<SymSlice>>& cases) { return summarize_impl(cases); }

}  // namespace tfspec
