#include "tfspec/solver/assumptions.hpp"

#include <cctype>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

// e.what() with the whole message: what() is a C string, cut at an embedded NUL (issue 19).
std::string full_text(const SpecError& e) { return "[" + e.rule() + " " + e.clause() + "] " + e.diagnostic().message; }

[[noreturn]] void syntax(const std::string& text, const std::string& why) {
  fail(rule::kProveAssumptionSyntax, "assumption '" + text + "': " + why);
}

// Reads a comparison operator at text[i] (advancing i), or nullopt.
std::optional<Rel> read_op(const std::string& t, size_t& i) {
  auto two = [&](char a, char b) { return i + 1 < t.size() && t[i] == a && t[i + 1] == b; };
  if (two('=', '=')) return i += 2, Rel::Eq;
  if (two('!', '=')) return i += 2, Rel::Ne;
  if (two('<', '=')) return i += 2, Rel::Le;
  if (two('>', '=')) return i += 2, Rel::Ge;
  if (t[i] == '<') return i += 1, Rel::Lt;
  if (t[i] == '>') return i += 1, Rel::Gt;
  return std::nullopt;
}

void tighten(SymbolBounds& b, Rel op, int64_t c) {  // bound for `symbol op c`
  auto lo = [&](int64_t v) { b.lo = b.lo ? std::max(*b.lo, v) : v; };
  auto hi = [&](int64_t v) { b.hi = b.hi ? std::min(*b.hi, v) : v; };
  switch (op) {
    case Rel::Eq: lo(c), hi(c); break;
    case Rel::Le: hi(c); break;
    case Rel::Lt: if (c > INT64_MIN) hi(c - 1); break;
    case Rel::Ge: lo(c); break;
    case Rel::Gt: if (c < INT64_MAX) lo(c + 1); break;
    case Rel::Ne: break;
  }
}

Rel mirror(Rel r) {
  switch (r) {
    case Rel::Lt: return Rel::Gt;
    case Rel::Le: return Rel::Ge;
    case Rel::Gt: return Rel::Lt;
    case Rel::Ge: return Rel::Le;
    default: return r;
  }
}


}  // namespace

std::string to_string(Rel r) {
  switch (r) {
    case Rel::Eq: return "==";
    case Rel::Ne: return "!=";
    case Rel::Lt: return "<";
    case Rel::Le: return "<=";
    case Rel::Gt: return ">";
    case Rel::Ge: return ">=";
  }
  return "?";
}

std::vector<Relation> parse_assumption(const std::string& text) {
  std::vector<std::string> parts;
  std::vector<Rel> ops;
  std::string cur;
  for (size_t i = 0; i < text.size();) {
    if (auto op = read_op(text, i)) {
      parts.push_back(cur);
      ops.push_back(*op);
      cur.clear();
      continue;
    }
    if (text[i] == '=' || text[i] == '!') syntax(text, "expected ==, !=, <, <=, > or >=");
    cur += text[i++];
  }
  parts.push_back(cur);
  if (ops.empty()) syntax(text, "no comparison (==, !=, <, <=, >, >=)");
  std::vector<ShapeDim> dims;
  for (const auto& p : parts) {
    bool blank = true;
    for (char c : p) blank = blank && std::isspace(static_cast<unsigned char>(c));
    if (blank) syntax(text, "a comparison is missing an operand");
    try {
      dims.push_back(parse_dim(p));
    } catch (const SpecError& e) {
      syntax(text, full_text(e));
    }
  }
  std::vector<Relation> out;
  for (size_t k = 0; k < ops.size(); ++k) out.push_back({dims[k], ops[k], dims[k + 1]});
  return out;
}

Assumptions make_assumptions(const std::vector<std::string>& texts, const std::set<std::string>& goal_symbols,
                             const std::function<bool()>& expired) {
  Assumptions a;
  a.symbols = goal_symbols;
  for (const auto& t : texts) {
    if (expired && expired()) {
      a.unread = texts.size() - a.texts.size();
      return a;
    }
    for (auto& r : parse_assumption(t)) {
      collect_vars(r.lhs, a.symbols);
      collect_vars(r.rhs, a.symbols);
      a.relations.push_back(std::move(r));
    }
    a.texts.push_back(t);
  }
  for (const auto& r : a.relations) {
    auto lc = const_value(r.lhs), rc = const_value(r.rhs);
    if (r.lhs->op == ExprNode::Op::Var && rc) tighten(a.bounds[r.lhs->name], r.op, *rc);
    if (r.rhs->op == ExprNode::Op::Var && lc) tighten(a.bounds[r.rhs->name], mirror(r.op), *lc);
  }
  for (const auto& s : a.symbols) {  // the default: a dim is >= 1
    if (a.bounds[s].lo) continue;
    a.relations.push_back({dim_var(s), Rel::Ge, dim_const(1)});
    a.bounds[s].lo = 1;
    a.texts.push_back(s + " >= 1");
  }
  return a;
}

bool holds(const Assumptions& a, const Bindings& b) {
  for (const auto& r : a.relations) {
    try {
      if (!apply_relation(r.op, evaluate(r.lhs, b), evaluate(r.rhs, b))) return false;
    } catch (const SpecError&) {
      return false;
    }
  }
  return true;
}

}  // namespace tfspec::solver
