#include "symbolic_validate.hpp"

#include <optional>

#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::protocol {
namespace {

std::string at(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}

[[noreturn]] void bug(const std::string& what, const Bindings& b) {
  fail(rule::kInternal, "the symbolic answer disagrees with the concrete reference at " + at(b) + ": " + what +
                            " (a tfspec bug: nothing was printed; please report the command)");
}

std::string guard_text(const CheckedCase& c) {
  std::string g;
  for (const auto& p : c.when) g += (g.empty() ? "" : " and ") + to_string(p);
  return g.empty() ? "(otherwise)" : g;
}

// A condition at an instance as `holds` reads it (a division by 0 reads false), except that a
// value past int64 is rethrown (a Limit): such an instance says nothing (S9), and the reference
// may still answer there (raked_product at M = 1024, N = 16: 2*M^5*N^3 = 2^63 in a condition).
bool condition_holds(const SymPred& p, const Bindings& b) {
  int64_t l = 0, r = 0;
  try {
    l = evaluate(p.lhs, b);
    r = evaluate(p.rhs, b);
  } catch (const SpecError& e) {
    if (e.kind() == RuleKind::Limit) throw;
    return false;
  }
  return holds(SymPred{dim_const(l), p.rel, dim_const(r)}, {});
}

bool all_hold(const std::vector<SymPred>& ps, const Bindings& b) {
  for (const auto& p : ps)
    if (!condition_holds(p, b)) return false;
  return true;
}

// The cases whose guard holds at `b`; nullopt where a guard's value passes int64 there.
std::optional<std::vector<size_t>> matching_cases(const std::vector<CheckedCase>& cases, const Bindings& b) {
  std::vector<size_t> matching;
  try {
    for (size_t k = 0; k < cases.size(); ++k)
      if (all_hold(cases[k].when, b)) matching.push_back(k);
  } catch (const SpecError& e) {
    if (e.kind() != RuleKind::Limit) throw;
    return std::nullopt;
  }
  return matching;
}

// One instance against the case whose guard holds there.
void check_case(const CheckedCase& c, size_t k, bool sufficient, const Bindings& b, const ConcreteAnswer& ref,
                const std::function<std::string(size_t, const Bindings&, const Json&)>& differs, ValidationStats& stats) {
  const CheckedCondition* failed = nullptr;
  for (const auto& cond : c.conditions) {
    const bool ok = condition_holds(cond.pred, b);
    if (!ok && cond.status == "proved") bug("the condition " + to_string(cond.pred) + " is marked proved in the case when " + guard_text(c) + " but fails", b);
    if (ok && cond.status == "refuted") bug("the condition " + to_string(cond.pred) + " is marked refuted in the case when " + guard_text(c) + " but holds", b);
    if (!ok && !failed) failed = &cond;
  }
  if (failed) {
    if (!ref.refused && !sufficient) bug("the condition " + to_string(failed->pred) + " fails, so the case when " + guard_text(c) + " refuses, but the reference answers " + ref.text, b);
    ++(ref.refused ? stats.refusals : stats.past);
    return;
  }
  if (ref.refused) bug("every condition of the case when " + guard_text(c) + " holds, but the reference refuses [" + ref.rule + "]", b);
  const std::string d = differs(k, b, ref.result);
  if (!d.empty()) bug("the case when " + guard_text(c) + " gives " + c.text + ", which " + d + "; the reference answers " + ref.text, b);
  ++stats.compared;
}

}  // namespace

ValidationStats validate_cases(const std::vector<CheckedCase>& cases, bool sufficient, bool total, const std::vector<Bindings>& instances,
                               const std::function<ConcreteAnswer(const Bindings&)>& concrete,
                               const std::function<std::string(size_t, const Bindings&, const Json&)>& differs) {
  ValidationStats stats;
  for (const auto& b : instances) {
    const auto found = matching_cases(cases, b);
    if (!found) continue;  // a guard passes int64 there: the instance says nothing (S9)
    const std::vector<size_t>& matching = *found;
    if (matching.size() > 1)
      bug("the guards of two cases hold together (when " + guard_text(cases[matching[0]]) + "; when " + guard_text(cases[matching[1]]) + ")", b);
    const ConcreteAnswer ref = concrete(b);
    if (ref.limit) continue;
    ++stats.instances;
    if (matching.empty() && total) bug("no case's guard holds (the cases are meant to cover every instance)", b);
    if (matching.empty() || cases[matching[0]].refused) {
      if (!ref.refused && !sufficient) bug("no answer case's guard holds, but the reference answers " + ref.text, b);
      if (!ref.refused && !matching.empty()) stats.past_walk.emplace(matching[0], PastWalk{b, ref.text});
      ++(ref.refused ? stats.refusals : stats.past);
      continue;
    }
    try {
      check_case(cases[matching[0]], matching[0], sufficient, b, ref, differs, stats);
    } catch (const SpecError& e) {
      if (e.kind() != RuleKind::Limit) throw;  // the instance overflows int64 in the symbolic form: it says nothing
    }
  }
  return stats;
}

std::string layout_differs(const Layout& symbolic, const Bindings& b, const Json& reference) {
  const Layout mine(bind_symbols(symbolic.shape_ref(), b), bind_symbols(symbolic.stride(), b));
  const Layout ref = layout_from_json(reference);
  const std::string mine_text = "is " + to_string(mine) + " there";
  if (mine.size() != ref.size()) return mine_text + " (size " + std::to_string(mine.size()) + ", not " + std::to_string(ref.size()) + ")";
  if (mine.rank() != ref.rank()) return mine_text + " (rank " + std::to_string(mine.rank()) + ", not " + std::to_string(ref.rank()) + ")";
  for (int m = 0; m < mine.rank() && mine.rank() > 1; ++m)
    if (mine.mode(m).size() != ref.mode(m).size()) return mine_text + " (mode " + std::to_string(m) + " has another size)";
  const int64_t n = ref.size();
  const int64_t points = n <= 512 ? n : 256;
  for (int64_t j = 0; j < points; ++j) {
    const int64_t i = n <= 512 ? j : static_cast<int64_t>(static_cast<__int128>(j) * (n - 1) / (points - 1));
    if (mine(i) != ref(i)) return mine_text + " (L(" + std::to_string(i) + ") is " + std::to_string(mine(i)) + ", not " + std::to_string(ref(i)) + ")";
  }
  return "";
}

std::string dim_differs(const ShapeDim& symbolic, const Bindings& b, const Json& reference) {
  const int64_t mine = evaluate(symbolic, b);
  const IntTuple ref = inttuple_from_json(reference);
  if (ref.is_int() && ref.value() == mine) return "";
  return "is " + std::to_string(mine) + " there";
}

std::string inttuple_differs(const IntTuple& symbolic, const Bindings& b, const Json& reference) {
  const IntTuple mine = bind_symbols(symbolic, b);
  const IntTuple ref = inttuple_from_json(reference);
  if (to_string(mine) == to_string(ref)) return "";
  return "is " + to_string(mine) + " there";
}

}  // namespace tfspec::protocol
