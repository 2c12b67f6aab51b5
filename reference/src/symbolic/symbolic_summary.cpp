// S4 (spec/ALGEBRA.md): the paths of a symbolic operation read back as answers, case guards and
// conditions. A step of an answering path is a condition when its failure refuses: an obligation
// (`require`), or a branch whose other side refuses on every path below it; otherwise it
// separates two answers and is a case guard (`when`).
#include <algorithm>
#include <set>

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

// A predicate met twice on a path (an extent required by the argument and again by the result)
// is one condition: the first, with its rule.
template <class R>
void drop_repeated(SymAnswer<R>& a) {
  std::vector<SymCondition> kept;
  for (const auto& c : a.conditions)
    if (std::none_of(kept.begin(), kept.end(), [&](const SymCondition& k) { return to_string(k.pred) == to_string(c.pred); })) kept.push_back(c);
  a.conditions = std::move(kept);
}

template <class R>
SymSummary<R> summarize_impl(const std::vector<SymCase<R>>& cases) {
  SymSummary<R> s;
  for (const auto& c : cases) {
    if (c.result) {
      s.answers.push_back(answer_of(cases, c));
      drop_repeated(s.answers.back());
    } else {
      s.refusals.push_back(c);
    }
  }
  return s;
}

}  // namespace

SymSummary<Layout> summarize(const std::vector<SymCase<Layout>>& cases) { return summarize_impl(cases); }
SymSummary<ShapeDim> summarize(const std::vector<SymCase<ShapeDim>>& cases) { return summarize_impl(cases); }
SymSummary<IntTuple> summarize(const std::vector<SymCase<IntTuple>>& cases) { return summarize_impl(cases); }
SymSummary<SymSlice> summarize(const std::vector<SymCase<SymSlice>>& cases) { return summarize_impl(cases); }

}  // namespace tfspec

// ---------------------------------------------------------------- one formula where one is right
// S4b (spec/ALGEBRA.md): two cases whose guards differ only in one step taken both ways, and
// whose results agree under each other's guard (mode by mode: equal extents, and equal strides
// unless the extent is 1), are one case under the shared guard, printed in the form that holds on
// both (the general one). A guard `M == c` is substituted into its case's result.
namespace tfspec {
namespace {

std::optional<bool> decided(Decider& d, const std::vector<SymPred>& guard, const SymPred& p) {
  if (auto f = fold(p)) return f;
  return d.decide(guard, p);
}

bool dims_equal(Decider& d, const std::vector<SymPred>& g, const ShapeDim& a, const ShapeDim& b) {
  return to_string(a) == to_string(b) || decided(d, g, {a, SymRel::Eq, b}) == true;
}

bool tuples_equal(Decider& d, const std::vector<SymPred>& g, const IntTuple& a, const IntTuple& b) {
  if (a.is_tuple() != b.is_tuple()) return false;
  if (a.is_tuple()) {
    if (a.len() != b.len()) return false;
    for (size_t i = 0; i < a.len(); ++i)
      if (!tuples_equal(d, g, a[i], b[i])) return false;
    return true;
  }
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  return dims_equal(d, g, normalize(a.as_dim()), normalize(b.as_dim()));
}

// Equal as functions, mode by mode: a mode of extent 1 contributes only offset 0.
bool modes_equal(Decider& d, const std::vector<SymPred>& g, const IntTuple& sa, const IntTuple& da, const IntTuple& sb, const IntTuple& db) {
  if (sa.is_tuple() != sb.is_tuple()) return false;
  if (sa.is_tuple()) {
    if (sa.len() != sb.len() || !da.is_tuple() || !db.is_tuple() || da.len() != sa.len() || db.len() != sb.len()) return false;
    for (size_t i = 0; i < sa.len(); ++i)
      if (!modes_equal(d, g, sa[i], da[i], sb[i], db[i])) return false;
    return true;
  }
  if (!tuples_equal(d, g, sa, sb)) return false;
  if (tuples_equal(d, g, da, db)) return true;
  return !sa.is_none() && dims_equal(d, g, normalize(sa.as_dim()), dim_const(1));
}

bool same_under(Decider& d, const std::vector<SymPred>& g, const Layout& a, const Layout& b) {
  return modes_equal(d, g, a.shape_ref(), a.stride(), b.shape_ref(), b.stride());
}
bool same_under(Decider& d, const std::vector<SymPred>& g, const ShapeDim& a, const ShapeDim& b) { return dims_equal(d, g, a, b); }
bool same_under(Decider& d, const std::vector<SymPred>& g, const IntTuple& a, const IntTuple& b) { return tuples_equal(d, g, a, b); }
bool same_under(Decider& d, const std::vector<SymPred>& g, const SymSlice& a, const SymSlice& b) {
  return dims_equal(d, g, a.offset, b.offset) && same_under(d, g, a.layout, b.layout);
}

ShapeDim substitute(const ShapeDim& e, const std::string& name, int64_t v) {
  switch (e->op) {
    case ExprNode::Op::Const: return e;
    case ExprNode::Op::Var: return e->name == name ? dim_const(v) : e;
    default: return dim_binary(e->op, substitute(e->lhs, name, v), substitute(e->rhs, name, v));
  }
}
IntTuple substitute(const IntTuple& t, const std::string& name, int64_t v) {
  if (t.is_tuple()) {
    std::vector<IntTuple> c;
    for (const auto& x : t.children()) c.push_back(substitute(x, name, v));
    return IntTuple::tuple(std::move(c));
  }
  if (!t.is_sym()) return t;
  const ShapeDim d = normalize(substitute(t.as_dim(), name, v));
  return const_value(d) ? IntTuple(*const_value(d)) : IntTuple::sym(d);
}
Layout substitute(const Layout& l, const std::string& n, int64_t v) { return Layout(substitute(l.shape_ref(), n, v), substitute(l.stride(), n, v)); }
ShapeDim substitute_result(const ShapeDim& d, const std::string& n, int64_t v) { return normalize(substitute(d, n, v)); }
IntTuple substitute_result(const IntTuple& t, const std::string& n, int64_t v) { return substitute(t, n, v); }
Layout substitute_result(const Layout& l, const std::string& n, int64_t v) { return substitute(l, n, v); }
SymSlice substitute_result(const SymSlice& s, const std::string& n, int64_t v) {
  return {substitute(s.layout, n, v), normalize(substitute(s.offset, n, v))};
}

// `s == c` read off a guard `lhs == rhs` whose difference is `±(s - c)` for one symbol s.
std::optional<std::pair<std::string, int64_t>> pinned(const SymPred& p) {
  if (p.rel != SymRel::Eq) return std::nullopt;
  try {
    const ShapeDim diff = sym_sub(p.lhs, p.rhs);
    std::set<std::string> vars;
    collect_vars(diff, vars);
    if (vars.size() != 1) return std::nullopt;
    const std::string s = *vars.begin();
    const auto at1 = const_value(normalize(substitute(diff, s, 1)));
    if (!at1) return std::nullopt;
    for (int64_t sign : {1, -1}) {  // diff == sign*(s - v): at s = 1 it is sign*(1 - v)
      const int64_t v = 1 - sign * *at1;
      if (const_value(sym_sub(diff, sym_mul(dim_const(sign), sym_sub(dim_var(s), dim_const(v))))) == 0) return std::pair{s, v};
    }
  } catch (const SpecError&) {  // an expression the substitution cannot fold (it divides by 0): not a pin
  }
  return std::nullopt;
}

// Every condition of one case is one of the other's, or holds wherever the other answers (under
// its guard and its conditions): then the merged case, which has the conditions of both, answers
// exactly where each of the two did.
template <class R>
bool covers(Decider& d, const SymAnswer<R>& from, const SymAnswer<R>& to) {
  std::vector<SymPred> answers = to.when;
  for (const auto& c : to.conditions) answers.push_back(c.pred);
  for (const auto& c : from.conditions) {
    const std::string t = to_string(c.pred);
    const bool listed = std::any_of(to.conditions.begin(), to.conditions.end(), [&](const SymCondition& x) { return to_string(x.pred) == t; });
    if (!listed && decided(d, answers, c.pred) != true) return false;
  }
  return true;
}

template <class R>
std::optional<SymAnswer<R>> merged(Decider& d, const SymAnswer<R>& a, const SymAnswer<R>& b) {
  if (a.when.size() != b.when.size()) return std::nullopt;
  size_t differ = a.when.size();
  for (size_t i = 0; i < a.when.size(); ++i) {
    if (to_string(a.when[i]) == to_string(b.when[i])) continue;
    if (differ != a.when.size() || to_string(negate(a.when[i])) != to_string(b.when[i])) return std::nullopt;
    differ = i;
  }
  if (differ == a.when.size() || !covers(d, a, b) || !covers(d, b, a)) return std::nullopt;
  const SymAnswer<R>* general = same_under(d, b.when, a.result, b.result) ? &a : same_under(d, a.when, b.result, a.result) ? &b : nullptr;
  if (!general) return std::nullopt;
  SymAnswer<R> m{a.when, general->result, {}};
  m.when.erase(m.when.begin() + static_cast<std::ptrdiff_t>(differ));
  for (const auto* side : {&a, &b})
    for (const auto& c : side->conditions)
      if (std::none_of(m.conditions.begin(), m.conditions.end(), [&](const SymCondition& x) { return to_string(x.pred) == to_string(c.pred); }))
        m.conditions.push_back({c.rule, c.clause, c.pred, false});  // classified again under the wider guard
  return m;
}

template <class R>
void simplify_impl(SymSummary<R>& s, Decider& d) {
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < s.answers.size() && !again; ++i)
      for (size_t j = i + 1; j < s.answers.size() && !again; ++j)
        if (auto m = merged(d, s.answers[i], s.answers[j])) {
          s.answers[i] = std::move(*m);
          s.answers.erase(s.answers.begin() + static_cast<std::ptrdiff_t>(j));
          again = true;
        }
  }
  for (auto& a : s.answers)
    for (const auto& g : a.when)
      if (auto p = pinned(g)) a.result = substitute_result(a.result, p->first, p->second);
}

}  // namespace

void simplify(SymSummary<Layout>& s, Decider& d) { simplify_impl(s, d); }
void simplify(SymSummary<ShapeDim>& s, Decider& d) { simplify_impl(s, d); }
void simplify(SymSummary<IntTuple>& s, Decider& d) { simplify_impl(s, d); }
void simplify(SymSummary<SymSlice>& s, Decider& d) { simplify_impl(s, d); }

}  // namespace tfspec
