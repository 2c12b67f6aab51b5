// Common-factor cancellation in one-symbol divisibility facts (cancel.hpp).
#include "cancel.hpp"

#include <numeric>
#include <string>
#include <vector>

namespace tfspec::solver {
namespace cancel_poly {  // named, not anonymous: the unity build shares one unit between files

using Coef = __int128;
using Poly = std::vector<Coef>;  // coefficient of M^i at index i; no trailing zero (0 is empty)

constexpr Coef kMax = Coef{1} << 62;  // coefficients stay well inside int64 and their products in int128
constexpr size_t kMaxDegree = 8;

struct TooLarge {};

Coef checked(Coef v) {
  if (v > kMax || v < -kMax) throw TooLarge{};
  return v;
}

void trim(Poly& p) {
  while (!p.empty() && p.back() == 0) p.pop_back();
}

Poly add(const Poly& a, const Poly& b, Coef sign) {
  Poly r(std::max(a.size(), b.size()), 0);
  for (size_t i = 0; i < a.size(); ++i) r[i] = a[i];
  for (size_t i = 0; i < b.size(); ++i) r[i] = checked(r[i] + sign * b[i]);
  trim(r);
  return r;
}

Poly mul(const Poly& a, const Poly& b) {
  if (a.empty() || b.empty()) return {};
  if (a.size() + b.size() - 1 > kMaxDegree + 1) throw TooLarge{};
  Poly r(a.size() + b.size() - 1, 0);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) r[i + j] = checked(r[i + j] + checked(a[i] * b[j]));
  trim(r);
  return r;
}

// d as a polynomial in `var` (the only symbol it may name); nullopt where it divides or takes a
// remainder, or names another symbol.
std::optional<Poly> as_poly(const ShapeDim& d, std::string& var) {
  switch (d->op) {
    case ExprNode::Op::Const: {
      Poly p{checked(d->value)};
      trim(p);
      return p;
    }
    case ExprNode::Op::Var:
      if (!var.empty() && var != d->name) return std::nullopt;
      var = d->name;
      return Poly{0, 1};
    case ExprNode::Op::Add:
    case ExprNode::Op::Sub:
    case ExprNode::Op::Mul: {
      auto a = as_poly(d->lhs, var);
      if (!a) return std::nullopt;
      auto b = as_poly(d->rhs, var);
      if (!b) return std::nullopt;
      if (d->op == ExprNode::Op::Mul) return mul(*a, *b);
      return add(*a, *b, d->op == ExprNode::Op::Add ? 1 : -1);
    }
    default:
      return std::nullopt;
  }
}

Coef abs128(Coef v) { return v < 0 ? -v : v; }

Coef gcd128(Coef a, Coef b) {
  a = abs128(a), b = abs128(b);
  while (b != 0) {
    const Coef t = a % b;
    a = b, b = t;
  }
  return a;
}

// p divided by the gcd of its coefficients, leading coefficient positive.
Poly primitive(Poly p) {
  if (p.empty()) return p;
  Coef g = 0;
  for (Coef c : p) g = gcd128(g, c);
  if (p.back() < 0) g = -g;
  for (Coef& c : p) c /= g;
  return p;
}

// The pseudo-remainder of a by b (lead(b)^k * a mod b, exact over the integers).
Poly pseudo_remainder(Poly a, const Poly& b) {
  while (a.size() >= b.size() && !a.empty()) {
    const size_t shift = a.size() - b.size();
    const Coef la = a.back(), lb = b.back();
    for (Coef& c : a) c = checked(c * lb);
    for (size_t i = 0; i < b.size(); ++i) a[i + shift] = checked(a[i + shift] - checked(la * b[i]));
    trim(a);
    a = primitive(a);  // keeps the coefficients small; a remainder's content does not matter here
  }
  return a;
}

// The primitive greatest common divisor of a and b over the integers (primitive PRS).
Poly poly_gcd(Poly a, Poly b) {
  a = primitive(std::move(a));
  b = primitive(std::move(b));
  while (!b.empty()) {
    Poly r = pseudo_remainder(a, b);
    a = std::move(b);
    b = primitive(std::move(r));
  }
  return a;
}

// a / g where g divides a exactly (g primitive: the quotient has integer coefficients, Gauss);
// nullopt if it does not divide.
std::optional<Poly> exact_div(Poly a, const Poly& g) {
  if (g.empty() || a.size() < g.size()) return std::nullopt;
  Poly q(a.size() - g.size() + 1, 0);
  while (a.size() >= g.size() && !a.empty()) {
    const size_t shift = a.size() - g.size();
    if (a.back() % g.back() != 0) return std::nullopt;
    const Coef c = a.back() / g.back();
    q[shift] = c;
    for (size_t i = 0; i < g.size(); ++i) a[i + shift] = checked(a[i + shift] - checked(c * g[i]));
    trim(a);
  }
  if (!a.empty()) return std::nullopt;
  trim(q);
  return q;
}

ShapeDim to_dim(const Poly& p, const std::string& var) {
  ShapeDim r = sym(0), power = sym(1);
  const ShapeDim m = dim_var(var);
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != 0) r = sym_add(r, sym_mul(sym(static_cast<int64_t>(p[i])), power));
    power = sym_mul(power, m);
  }
  return r;
}

}  // namespace cancel_poly

std::optional<SymPred> cancelled(const SymPred& p) {
  using namespace cancel_poly;
  if (p.rel != SymRel::Eq && p.rel != SymRel::Ne) return std::nullopt;
  if (p.lhs->op != ExprNode::Op::Mod || const_value(p.rhs) != std::optional<int64_t>{0}) return std::nullopt;
  try {
    std::string var;
    auto x = as_poly(p.lhs->lhs, var);
    if (!x) return std::nullopt;
    auto y = as_poly(p.lhs->rhs, var);
    if (!y || y->size() < 2 || x->empty()) return std::nullopt;  // a constant divisor is linear already
    const Poly g = poly_gcd(*x, *y);
    if (g.size() < 2) return std::nullopt;  // no common factor of degree >= 1
    auto a = exact_div(*x, g), b = exact_div(*y, g);
    if (!a || !b) return std::nullopt;
    return SymPred{sym_mod(to_dim(*a, var), to_dim(*b, var)), p.rel, sym(0)};
  } catch (const TooLarge&) {
    return std::nullopt;
  }
}

}  // namespace tfspec::solver
