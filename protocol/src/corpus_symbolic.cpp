// Symbolic answers in the judge (spec/corpus/README.md "Symbolic answers"). What is meaningful is
// compared, not how it is printed: a predicate or a symbolic integer by its normal form; the
// conditions and the cases in any order. A condition proved under the assumptions restricts
// nothing, so a reply may list more of them than the case; it may not add a required or refuted
// one (its answer would then be defined on fewer instances than the spec's).
#include "corpus_symbolic.hpp"

#include <algorithm>
#include <vector>

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec::protocol {
namespace {

std::optional<ShapeDim> parse_dim(const std::string& text) {
  try {
    const IntTuple t = parse_inttuple(text);
    if (!t.is_leaf() || t.is_none()) return std::nullopt;
    return normalize(t.as_dim());
  } catch (const SpecError&) {
    return std::nullopt;
  }
}

struct Pred {
  ShapeDim lhs, rhs;
  std::string rel;
};

std::optional<Pred> split_pred(const std::string& text) {
  const size_t at = text.find_first_of("<>=!");
  if (at == std::string::npos) return std::nullopt;
  const bool two = at + 1 < text.size() && text[at + 1] == '=';
  const std::string rel = text.substr(at, two ? 2 : 1);
  if (rel == "=" || rel == "!") return std::nullopt;
  auto l = parse_dim(text.substr(0, at)), r = parse_dim(text.substr(at + rel.size()));
  if (!l || !r) return std::nullopt;
  return Pred{*l, *r, rel};
}

const Json* member(const Json& j, const char* k) { return j.is_object() && j.contains(k) ? &j[k] : nullptr; }

std::string text_of(const Json* j) { return j && j->is_string() ? j->get<std::string>() : ""; }

// The expected predicate (a string, or an array of equivalent forms) names the actual one.
bool pred_matches(const Json& expected, const std::string& actual) {
  const auto a = normal_pred(actual);
  if (!a) return false;
  if (expected.is_array()) return std::any_of(expected.begin(), expected.end(), [&](const Json& x) { return pred_matches(x, actual); });
  return expected.is_string() && normal_pred(expected.get<std::string>()) == a;
}

bool rule_matches(const Json* expected, const Json& actual) {
  if (!expected) return true;
  const std::string r = text_of(member(actual, "rule"));
  if (expected->is_array()) return std::find(expected->begin(), expected->end(), Json(r)) != expected->end();
  return *expected == Json(r);
}

// A reply's counterexample is an instance where its predicate fails (any such instance is right).
bool counterexample_fails(const Json& c, std::string& why) {
  const Json* x = member(c, "counterexample");
  if (!x) return true;
  const auto p = split_pred(text_of(member(c, "predicate")));
  Bindings b;
  if (x->is_object())
    for (const auto& [k, v] : x->items())
      if (v.is_number_integer()) b[k] = v.get<int64_t>();
  if (!p || !x->is_object() || b.size() != x->size()) return why = "unreadable counterexample in " + c.dump(), false;
  try {
    const int64_t l = evaluate(p->lhs, b), r = evaluate(p->rhs, b);
    const bool holds = p->rel == "==" ? l == r : p->rel == "!=" ? l != r : p->rel == "<" ? l < r : p->rel == "<=" ? l <= r : p->rel == ">" ? l > r : l >= r;
    if (!holds) return true;
  } catch (const SpecError&) {
    return true;  // undefined there (a division by zero): the predicate does not hold
  }
  why = "the counterexample of " + c.dump() + " satisfies its predicate";
  return false;
}

bool one_condition(const Json& x, const Json& a, std::vector<bool>& used, std::string& why) {
  const std::string status = text_of(member(x, "status"));
  const Json* pred = member(x, "predicate");
  for (size_t i = 0; i < a.size(); ++i) {
    if (used[i] || !pred || !pred_matches(*pred, text_of(member(a[i], "predicate")))) continue;
    const std::string got = text_of(member(a[i], "status"));
    if (status == "proved" && got == "proved") return used[i] = true;
    if (status == "proved") return why = "condition " + a[i].dump() + " is " + got + ", expected proved", false;
    if (got != status || !rule_matches(member(x, "rule"), a[i])) continue;
    if (const Json* clause = member(x, "clause"); clause && *clause != a[i].value("clause", Json())) continue;
    return used[i] = true;
  }
  if (status == "proved") return true;  // a proved condition need not be listed
  why = "no condition like " + x.dump() + " in " + a.dump();
  return false;
}

bool same_conditions(const Json& e, const Json& a, std::string& why) {
  if (!e.is_array() || !a.is_array()) return why = "conditions " + a.dump() + ", expected " + e.dump(), false;
  std::vector<bool> used(a.size(), false);
  for (const auto& x : e)
    if (!one_condition(x, a, used, why)) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!counterexample_fails(a[i], why)) return false;
    if (!used[i] && text_of(member(a[i], "status")) != "proved")
      return why = "condition " + a[i].dump() + " is not in the case (only proved conditions may be added)", false;
  }
  return true;
}

// A case's guards: the same predicates, in any order.
bool same_guards(const Json& e, const Json& a) {
  if (!e.is_array() || !a.is_array() || e.size() != a.size()) return false;
  std::vector<bool> used(a.size(), false);
  for (const auto& x : e) {
    bool found = false;
    for (size_t i = 0; i < a.size() && !found; ++i)
      if (!used[i] && a[i].is_string() && pred_matches(x, a[i].get<std::string>())) used[i] = found = true;
    if (!found) return false;
  }
  return true;
}

// A result is an integer, a tuple of them (idx2crd) or an object: symbolic leaves by normal form (S1).
bool same_result(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (e.is_string() && a.is_string()) {
    const auto x = normal_dim(e.get<std::string>());
    if (x && x == normal_dim(a.get<std::string>())) return true;
  }
  if (e.is_array() && a.is_array() && e.size() == a.size()) {
    for (size_t i = 0; i < e.size(); ++i)
      if (!same_result(e[i], a[i], mode, why)) return why = "[" + std::to_string(i) + "]: " + why, false;
    return true;
  }
  return same_value(e, a, mode, why);
}

bool same_case(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (const Json* w = member(e, "when"); w && !same_guards(*w, a.value("when", Json()))) return why = "guards differ", false;
  if (const Json* r = member(e, "result"); r && !same_result(*r, a.value("result", Json()), mode, why)) return false;
  if (const Json* c = member(e, "conditions"); c && !same_conditions(*c, a.value("conditions", Json()), why)) return false;
  return true;
}

bool same_cases(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (!e.is_array() || !a.is_array() || e.size() != a.size()) return why = "cases " + a.dump() + ", expected " + e.dump(), false;
  std::vector<bool> used(a.size(), false);
  for (const auto& x : e) {
    bool found = false;
    std::string last;
    for (size_t i = 0; i < a.size() && !found; ++i)
      if (!used[i] && same_case(x, a[i], mode, last)) used[i] = found = true;
    if (!found) return why = "no case like " + x.dump() + " in " + a.dump() + (last.empty() ? "" : " (" + last + ")"), false;
  }
  return true;
}

}  // namespace

std::optional<std::string> normal_dim(const std::string& text) {
  const auto d = parse_dim(text);
  return d ? std::optional<std::string>(to_string(*d)) : std::nullopt;
}

// A predicate's normal form, or nullopt where it has none within the normal form's limits (an
// adapter's `(A+...+J)^16` stops at the term limit as resource-limit: no match, never a hang).
std::optional<std::string> normal_pred(const std::string& text) {
  try {
    const auto p = split_pred(text);
    if (!p) return std::nullopt;
    const ShapeDim one = dim_const(1);
    if (p->rel == "<") return to_string(normalize(sym_sub(sym_sub(p->rhs, p->lhs), one))) + " >= 0";
    if (p->rel == "<=") return to_string(normalize(sym_sub(p->rhs, p->lhs))) + " >= 0";
    if (p->rel == ">") return to_string(normalize(sym_sub(sym_sub(p->lhs, p->rhs), one))) + " >= 0";
    if (p->rel == ">=") return to_string(normalize(sym_sub(p->lhs, p->rhs))) + " >= 0";
    const std::string d = to_string(normalize(sym_sub(p->lhs, p->rhs))), n = to_string(normalize(sym_sub(p->rhs, p->lhs)));
    return std::min(d, n) + " " + p->rel + " 0";
  } catch (const SpecError&) {
    return std::nullopt;
  }
}

bool is_symbolic_answer(const Json& e) { return e.is_object() && (e.contains("cases") || e.contains("conditions")); }

bool same_symbolic_answer(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (!a.is_object()) return why = a.dump() + ", expected a symbolic answer like " + e.dump(), false;
  for (const auto& [k, v] : e.items()) {
    if (!a.contains(k)) return why = "no \"" + k + "\" in " + a.dump(), false;
    const bool same = k == "cases" ? same_cases(v, a[k], mode, why)
                      : k == "conditions" ? same_conditions(v, a[k], why)
                      : k == "result" ? same_result(v, a[k], mode, why)
                                      : same_value(v, a[k], mode, why);
    if (!same) return why = "\"" + k + "\": " + why, false;
  }
  return true;
}

}  // namespace tfspec::protocol
