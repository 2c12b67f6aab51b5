// S1: the normal form of symbolic integers, predicates, and the executor's branch bookkeeping.
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec {
namespace {

using Op = ExprNode::Op;

// A monomial: its atoms' texts, sorted, with repetition (M*M is {"M","M"}).
using Monomial = std::vector<std::string>;

struct Poly {
  std::map<Monomial, int64_t> terms;  // no zero coefficients
  std::map<std::string, ShapeDim> atoms;
  std::optional<int64_t> constant() const {
    if (terms.empty()) return 0;
    if (terms.size() == 1 && terms.begin()->first.empty()) return terms.begin()->second;
    return std::nullopt;
  }
};

void add_term(Poly& p, const Monomial& m, int64_t c) {
  const int64_t v = checked_add(p.terms[m], c);
  if (v == 0) p.terms.erase(m);
  else p.terms[m] = v;
}

Poly poly_const(int64_t v) {
  Poly p;
  if (v != 0) p.terms[{}] = v;
  return p;
}

Poly poly_atom(const ShapeDim& a) {
  Poly p;
  const std::string key = to_string(a);
  p.atoms[key] = a;
  p.terms[{key}] = 1;
  return p;
}

Poly to_poly(const ShapeDim& d);
Poly multiply(const Poly& a, const Poly& b);

// A term v*m*(x % b) beside the term v*c*m*mb*(x // b), where b is the one-term c*mb, is one
// term v*m*x: b*(x // b) + x % b == x for every integer x and b != 0 (floor division), so the
// fold is exact wherever the original is defined (`3//M*M+3%M` is 3).
bool fold_quotient_and_remainder(Poly& p) {
  for (const auto& [mr, v] : p.terms)
    for (size_t i = 0; i < mr.size(); ++i) {
      const ShapeDim& r = p.atoms.at(mr[i]);
      if (r->op != ExprNode::Op::Mod) continue;
      const Poly b = to_poly(r->rhs);
      if (b.terms.size() != 1) continue;
      const auto& [mb, cb] = *b.terms.begin();
      const std::string q = to_string(dim_binary(ExprNode::Op::FloorDiv, r->lhs, r->rhs));
      if (!p.atoms.count(q)) continue;
      Monomial m = mr;
      m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
      Monomial mq = m;
      mq.insert(mq.end(), mb.begin(), mb.end());
      mq.push_back(q);
      std::sort(mq.begin(), mq.end());
      const auto it = p.terms.find(mq);
      if (it == p.terms.end() || it->second != checked_mul(v, cb)) continue;
      const Monomial remainder_term = mr;
      Poly x = to_poly(r->lhs), factor;
      factor.atoms = p.atoms;
      factor.terms[m] = v;
      p.terms.erase(mq);
      p.terms.erase(remainder_term);
      Poly sum = multiply(factor, x);
      for (const auto& [mm, c] : sum.terms) add_term(p, mm, c);
      p.atoms.insert(sum.atoms.begin(), sum.atoms.end());
      return true;
    }
  return false;
}

Poly combine(const Poly& a, const Poly& b, int64_t sign) {
  Poly r = a;
  r.atoms.insert(b.atoms.begin(), b.atoms.end());
  for (const auto& [m, c] : b.terms) add_term(r, m, checked_mul(sign, c));
  for (int n = 0; n < 64; ++n)  // each fold removes a term: a bound, not a limit reached in practice
    if (!fold_quotient_and_remainder(r)) break;
  return r;
}

// A normal form past this many terms stops at once with resource-limit (issue 37: expanding
// `(A+B+...+J)^16` would build millions of terms before any other bound looked at it); a printed
// expression has at most kMaxExprTerms literals anyway.
constexpr size_t kMaxPolyTerms = 4 * kMaxExprTerms;

Poly multiply(const Poly& a, const Poly& b) {
  if (a.terms.size() * b.terms.size() > kMaxPolyTerms * kMaxPolyTerms ||
      (a.terms.size() > 1 && b.terms.size() > 1 && a.terms.size() * b.terms.size() > 4 * kMaxPolyTerms))
    fail(rule::kResourceLimit, "a symbolic product of " + std::to_string(a.terms.size()) + " by " + std::to_string(b.terms.size()) +
                                   " terms: its normal form would pass " + std::to_string(kMaxPolyTerms) + " terms");
  Poly r;
  r.atoms = a.atoms;
  r.atoms.insert(b.atoms.begin(), b.atoms.end());
  for (const auto& [ma, ca] : a.terms)
    for (const auto& [mb, cb] : b.terms) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      add_term(r, m, checked_mul(ca, cb));
    }
  if (r.terms.size() > kMaxPolyTerms)
    fail(rule::kResourceLimit, "a symbolic normal form of " + std::to_string(r.terms.size()) + " terms (at most " + std::to_string(kMaxPolyTerms) + ")");
  return r;
}

bool before(const std::pair<const Monomial, int64_t>* x, const std::pair<const Monomial, int64_t>* y) {
  if (x->first.size() != y->first.size()) return x->first.size() > y->first.size();
  return x->first < y->first;
}

// Prints as c*a*b + ... with the highest degree first and the constant last; a negative
// coefficient becomes a subtraction.
ShapeDim to_dim(const Poly& p) {
  std::vector<const std::pair<const Monomial, int64_t>*> order;
  for (const auto& t : p.terms) order.push_back(&t);
  std::sort(order.begin(), order.end(), before);
  ShapeDim sum;
  for (const auto* t : order) {
    const int64_t c = t->second;
    const bool neg = sum && c < 0;
    ShapeDim term = t->first.empty() ? dim_const(neg ? checked_sub(0, c) : c) : nullptr;
    if (!t->first.empty()) {
      const bool leading_minus = !sum && c == -1;  // -M, not -1*M
      const int64_t mag = neg ? checked_sub(0, c) : leading_minus ? 1 : c;
      if (mag != 1) term = dim_const(mag);
      for (const auto& a : t->first) term = term ? dim_binary(Op::Mul, term, p.atoms.at(a)) : p.atoms.at(a);
      if (leading_minus) term = dim_binary(Op::Sub, dim_const(0), term);
    }
    sum = !sum ? term : dim_binary(neg ? Op::Sub : Op::Add, sum, term);
  }
  return sum ? sum : dim_const(0);
}

// Whether every coefficient is a multiple of c (then p // c and p % c fold exactly).
bool all_multiples(const Poly& p, int64_t c) {
  for (const auto& [m, v] : p.terms)
    if (v % c != 0) return false;
  return true;
}

Poly to_poly(const ShapeDim& d);
Poly div_or_mod(Op op, const ShapeDim& lhs, const ShapeDim& rhs);

// A divisor that is one monomial c*m, c >= 1, m a product of symbols (empty: a constant); a
// symbol is an extent >= 1 unless an assumption bounds it (S1-S5), so the divisor is >= 1.
std::optional<std::pair<Monomial, int64_t>> monomial_divisor(const Poly& b) {
  if (b.terms.size() != 1 || b.terms.begin()->second < 1) return std::nullopt;
  for (const auto& a : b.terms.begin()->first)
    if (b.atoms.at(a)->op != Op::Var) return std::nullopt;
  return *b.terms.begin();
}

// (b*q + r) // b == q + r // b and (b*q + r) % b == r % b for every integer b != 0 (floor
// division), so wherever the original is defined: the numerator's terms that are multiples of
// the monomial divisor (its symbols among theirs, the coefficient a multiple of c) come out.
std::optional<Poly> take_out_multiples(Op op, const Poly& a, const ShapeDim& rhs, const std::pair<Monomial, int64_t>& d) {
  Poly q, r;
  q.atoms = r.atoms = a.atoms;
  for (const auto& [m, v] : a.terms) {
    if (v % d.second != 0 || !std::includes(m.begin(), m.end(), d.first.begin(), d.first.end())) {
      add_term(r, m, v);
      continue;
    }
    Monomial qm;
    std::set_difference(m.begin(), m.end(), d.first.begin(), d.first.end(), std::back_inserter(qm));
    add_term(q, qm, v / d.second);
  }
  if (q.terms.empty()) return std::nullopt;
  const Poly rest = r.terms.empty() ? poly_const(0) : div_or_mod(op, to_dim(r), rhs);
  return op == Op::Mod ? rest : combine(q, rest, 1);
}

// a / b where b is one term c*m (m a monomial over the symbols) that divides every term of a:
// (c*m*p) // (c*m) == p and (c*m*p) % (c*m) == 0 wherever c*m != 0. The ops divide only by spans
// they have required to be >= 1 (an extent, a product of extents and strides), as for `// c` above.
std::optional<Poly> exact_quotient(const Poly& a, const Poly& b) {
  if (b.terms.size() != 1) return std::nullopt;
  const auto& [mb, cb] = *b.terms.begin();
  Poly r;
  r.atoms = a.atoms;
  for (const auto& [m, v] : a.terms) {
    if (v % cb != 0 || !std::includes(m.begin(), m.end(), mb.begin(), mb.end())) return std::nullopt;
    Monomial rest;
    std::set_difference(m.begin(), m.end(), mb.begin(), mb.end(), std::back_inserter(rest));
    add_term(r, rest, v / cb);
  }
  return r;
}

int64_t gcd64(int64_t x, int64_t y) {
  x = x < 0 ? -x : x;
  y = y < 0 ? -y : y;
  while (y != 0) {
    const int64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

// The factor every term of a and of b shares: the gcd of all coefficients (positive) and the
// symbols (atoms that are symbols, with multiplicity) common to every term. `(g*x) // (g*y) ==
// x // y` and `(g*x) % (g*y) == g*(x % y)` for g >= 1, and a symbol is an extent >= 1 (S1), so
// `M*N // (64*M)` is `N // 64`.
std::pair<Monomial, int64_t> common_factor(const Poly& a, const Poly& b) {
  std::optional<Monomial> common;
  int64_t g = 0;
  for (const Poly* p : {&a, &b})
    for (const auto& [m, c] : p->terms) {
      g = gcd64(g, c);
      Monomial vars;
      for (const auto& x : m)
        if (p->atoms.at(x)->op == Op::Var) vars.push_back(x);
      if (!common) {
        common = vars;
        continue;
      }
      Monomial both;
      std::set_intersection(common->begin(), common->end(), vars.begin(), vars.end(), std::back_inserter(both));
      common = both;
    }
  return {common.value_or(Monomial{}), g < 1 ? 1 : g};
}

Poly divide_out(const Poly& p, const std::pair<Monomial, int64_t>& f) {
  Poly r;
  r.atoms = p.atoms;
  for (const auto& [m, c] : p.terms) {
    Monomial rest;
    std::set_difference(m.begin(), m.end(), f.first.begin(), f.first.end(), std::back_inserter(rest));
    add_term(r, rest, c / f.second);
  }
  return r;
}

Poly div_or_mod(Op op, const ShapeDim& lhs, const ShapeDim& rhs) {
  Poly a = to_poly(lhs), b = to_poly(rhs);
  if (!a.terms.empty() && !b.terms.empty()) {
    const auto f = common_factor(a, b);
    if (f.second > 1 || !f.first.empty()) {
      Poly factor;
      factor.atoms = a.atoms;
      factor.terms[f.first] = f.second;
      const Poly r = div_or_mod(op, to_dim(divide_out(a, f)), to_dim(divide_out(b, f)));
      return op == Op::Mod ? multiply(factor, r) : r;
    }
  }
  const auto ca = a.constant(), cb = b.constant();
  if (cb && *cb == 0) fail(rule::kDivisionByZero, "symbolic expression divides by the constant 0");
  if (ca && cb) return poly_const(op == Op::FloorDiv ? floor_div(*ca, *cb) : floor_mod(*ca, *cb));
  if (cb && all_multiples(a, *cb)) {  // (c*p) // c == p and (c*p) % c == 0 for integer p
    if (op == Op::Mod) return poly_const(0);
    Poly r = a;
    for (auto& [m, v] : r.terms) v /= *cb;
    return r;
  }
  if (auto d = monomial_divisor(b))
    if (auto p = take_out_multiples(op, a, rhs, *d)) return *p;
  if (auto q = exact_quotient(a, b)) return op == Op::Mod ? poly_const(0) : *q;  // atoms other than symbols in b
  return poly_atom(dim_binary(op, to_dim(a), to_dim(b)));
}

Poly to_poly(const ShapeDim& d) {
  switch (d->op) {
    case Op::Const: return poly_const(d->value);
    case Op::Var: return poly_atom(d);
    case Op::Add: return combine(to_poly(d->lhs), to_poly(d->rhs), 1);
    case Op::Sub: return combine(to_poly(d->lhs), to_poly(d->rhs), -1);
    case Op::Mul: return multiply(to_poly(d->lhs), to_poly(d->rhs));
    case Op::FloorDiv:
    case Op::Mod: return div_or_mod(d->op, d->lhs, d->rhs);
  }
  fail(rule::in(rule::kInternal, "§1"), "unknown expression node");
}

}  // namespace

ShapeDim normalize(const ShapeDim& d) { return to_dim(to_poly(d)); }
ShapeDim sym_add(const ShapeDim& a, const ShapeDim& b) { return normalize(dim_binary(Op::Add, a, b)); }
ShapeDim sym_sub(const ShapeDim& a, const ShapeDim& b) { return normalize(dim_binary(Op::Sub, a, b)); }
ShapeDim sym_mul(const ShapeDim& a, const ShapeDim& b) { return normalize(dim_binary(Op::Mul, a, b)); }
ShapeDim sym_floordiv(const ShapeDim& a, const ShapeDim& b) { return normalize(dim_binary(Op::FloorDiv, a, b)); }
ShapeDim sym_mod(const ShapeDim& a, const ShapeDim& b) { return normalize(dim_binary(Op::Mod, a, b)); }

// ---------------------------------------------------------------- predicates
std::string to_string(SymRel r) {
  switch (r) {
    case SymRel::Eq: return "==";
    case SymRel::Ne: return "!=";
    case SymRel::Lt: return "<";
    case SymRel::Le: return "<=";
    case SymRel::Gt: return ">";
    case SymRel::Ge: return ">=";
  }
  return "?";
}

SymPred negate(const SymPred& p) {
  static constexpr SymRel kNot[] = {SymRel::Ne, SymRel::Eq, SymRel::Ge, SymRel::Gt, SymRel::Le, SymRel::Lt};
  return {p.lhs, kNot[static_cast<int>(p.rel)], p.rhs};
}

std::string to_string(const SymPred& p) { return to_string(p.lhs) + " " + to_string(p.rel) + " " + to_string(p.rhs); }

namespace {
bool compare(SymRel r, int64_t a, int64_t b) {
  switch (r) {
    case SymRel::Eq: return a == b;
    case SymRel::Ne: return a != b;
    case SymRel::Lt: return a < b;
    case SymRel::Le: return a <= b;
    case SymRel::Gt: return a > b;
    case SymRel::Ge: return a >= b;
  }
  return false;
}
}  // namespace

bool holds(const SymPred& p, const Bindings& b) {
  try {
    return compare(p.rel, evaluate(p.lhs, b), evaluate(p.rhs, b));
  } catch (const SpecError&) {
    return false;
  }
}

std::optional<bool> fold(const SymPred& p) {
  const auto diff = const_value(sym_sub(p.lhs, p.rhs));
  if (!diff) return std::nullopt;
  return compare(p.rel, *diff, 0);
}

// ---------------------------------------------------------------- interval bounds
namespace {
struct Range {
  std::optional<int64_t> lo, hi;  // nullopt: unbounded
};

std::optional<int64_t> opt(const std::function<int64_t()>& f) {
  try {
    return f();
  } catch (const SpecError&) {  // overflow: unbounded
    return std::nullopt;
  }
}

Range range(const ShapeDim& d, const std::map<std::string, int64_t>& lower) {
  switch (d->op) {
    case Op::Const: return {d->value, d->value};
    case Op::Var: {
      auto it = lower.find(d->name);
      return it == lower.end() ? Range{} : Range{it->second, std::nullopt};
    }
    default: break;
  }
  const Range a = range(d->lhs, lower), b = range(d->rhs, lower);
  auto both = [](const std::optional<int64_t>& x, const std::optional<int64_t>& y, auto f) -> std::optional<int64_t> {
    if (!x || !y) return std::nullopt;
    return opt([&] { return f(*x, *y); });
  };
  const auto cb = b.lo && b.hi && *b.lo == *b.hi ? b.lo : std::nullopt;
  switch (d->op) {
    case Op::Add: return {both(a.lo, b.lo, checked_add), both(a.hi, b.hi, checked_add)};
    case Op::Sub: return {both(a.lo, b.hi, checked_sub), both(a.hi, b.lo, checked_sub)};
    case Op::Mul:
      if (a.lo && *a.lo >= 0 && b.lo && *b.lo >= 0) return {both(a.lo, b.lo, checked_mul), both(a.hi, b.hi, checked_mul)};
      if (cb && *cb < 0 && a.lo) return {both(a.hi, cb, checked_mul), both(a.lo, cb, checked_mul)};
      return {};
    case Op::FloorDiv:
      if (cb && *cb > 0) return {both(a.lo, cb, floor_div), both(a.hi, cb, floor_div)};
      if (a.lo && *a.lo >= 0 && b.lo && *b.lo >= 1)  // 0 <= a // b <= a // lo(b)
        return {b.hi ? both(a.lo, b.hi, floor_div) : std::optional<int64_t>(0), both(a.hi, b.lo, floor_div)};
      return {};
    case Op::Mod:
      if (cb && *cb > 0) return {0, *cb - 1};
      if (a.lo && *a.lo >= 0 && b.lo && *b.lo >= 1) {  // 0 <= a % b <= a, and a % b == a below b
        if (a.hi && *a.hi < *b.lo) return a;
        return {0, a.hi};
      }
      return {};
    default: return {};
  }
}
}  // namespace

std::optional<bool> FoldingDecider::decide(const std::vector<SymPred>&, const SymPred& p) {
  if (auto f = fold(p)) return f;
  const Range r = range(sym_sub(p.lhs, p.rhs), lower_);
  const bool pos = r.lo && *r.lo > 0, neg = r.hi && *r.hi < 0, nonneg = r.lo && *r.lo >= 0, nonpos = r.hi && *r.hi <= 0;
  switch (p.rel) {
    case SymRel::Eq: return (pos || neg) ? std::optional<bool>(false) : nonneg && nonpos ? std::optional<bool>(true) : std::nullopt;
    case SymRel::Ne: return (pos || neg) ? std::optional<bool>(true) : nonneg && nonpos ? std::optional<bool>(false) : std::nullopt;
    case SymRel::Lt: return neg ? std::optional<bool>(true) : nonneg ? std::optional<bool>(false) : std::nullopt;
    case SymRel::Le: return nonpos ? std::optional<bool>(true) : pos ? std::optional<bool>(false) : std::nullopt;
    case SymRel::Gt: return pos ? std::optional<bool>(true) : nonpos ? std::optional<bool>(false) : std::nullopt;
    case SymRel::Ge: return nonneg ? std::optional<bool>(true) : neg ? std::optional<bool>(false) : std::nullopt;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- the executor
// The steps so far, but those the decider settled by constant folding (`2 >= 0`): they add
// nothing to a query but its length.
std::vector<SymPred> SymExec::path() const {
  std::vector<SymPred> v;
  for (const auto& s : steps_)
    if (!s.decided || !fold(s.pred)) v.push_back(s.pred);
  return v;
}

std::optional<bool> SymExec::choose(const SymPred& p) {
  const std::string text = to_string(p), negated = to_string(negate(p));
  for (const auto& s : steps_) {  // already taken on this path, as written
    const std::string t = to_string(s.pred);
    if (t == text) return true;
    if (t == negated) return false;
  }
  if (auto d = decider_.decide(path(), p)) return d;
  const size_t i = taken_.size();
  const bool way = i < prefix_.size() ? prefix_[i] : true;
  taken_.push_back(way);
  return std::nullopt;
}

namespace {
void divisors_of(const ShapeDim& d, std::vector<ShapeDim>& out) {
  if (d->op == Op::Const || d->op == Op::Var) return;
  divisors_of(d->lhs, out);
  divisors_of(d->rhs, out);
  if ((d->op == Op::FloorDiv || d->op == Op::Mod) && !is_const(d->rhs)) out.push_back(d->rhs);
}
}  // namespace

// Before a branch or an obligation reads p, every divisor in p is non-zero on the path (innermost
// first): an obligation of its own, so that an instance where one is 0 refuses on a path of its
// own instead of falling between p and its negation (neither holds there). The algebra divides
// only by extents and spans it has required >= 1, so the decider settles these without a fork.
void SymExec::require_defined(const SymPred& p) {
  std::vector<ShapeDim> divisors;
  divisors_of(p.lhs, divisors);
  divisors_of(p.rhs, divisors);
  for (const auto& q : divisors) {
    const SymPred nonzero{q, SymRel::Ne, dim_const(0)};
    const auto d = choose(nonzero);
    const bool way = d ? *d : taken_.back();
    steps_.push_back({way ? nonzero : negate(nonzero), d.has_value(), RuleRef(rule::kDivisionByZero)});
    if (!way) {
      refused_ = true;
      throw SpecError(rule::kDivisionByZero, "the symbolic form divides by " + to_string(q) + ", which is 0 here");
    }
  }
}

bool SymExec::branch(const SymPred& p) {
  require_defined(p);
  const auto d = choose(p);
  const bool way = d ? *d : taken_.back();
  steps_.push_back({way ? p : negate(p), d.has_value(), std::nullopt});
  return way;
}

void SymExec::require(const SymPred& p, RuleRef rule, const std::string& message) {
  require_defined(p);
  const auto d = choose(p);
  const bool way = d ? *d : taken_.back();
  steps_.push_back({way ? p : negate(p), d.has_value(), rule});
  if (way) return;
  refused_ = true;
  throw SpecError(rule, message + " (fails where " + to_string(negate(p)) + ")");
}

}  // namespace tfspec
