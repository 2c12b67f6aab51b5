#include "positivity.hpp"

#include <algorithm>
#include <functional>

namespace tfspec::solver {
namespace {

bool numeral_nonneg(const z3::expr& e) { return e.get_decimal_string(0).rfind('-', 0) != 0; }

// One monomial of a sum-of-monomials normal form: a numeral, a shifted symbol, a power of one,
// or a product of those. Anything else (div, mod, ite, an unbounded symbol) is not shown >= 0.
bool monomial_nonneg(const z3::expr& m, const std::vector<unsigned>& shifted) {
  auto var_ok = [&](const z3::expr& v) {
    return v.is_const() && std::find(shifted.begin(), shifted.end(), v.id()) != shifted.end();
  };
  if (m.is_numeral()) return numeral_nonneg(m);
  if (var_ok(m)) return true;
  if (!m.is_app()) return false;
  const Z3_decl_kind k = m.decl().decl_kind();
  if (k == Z3_OP_POWER) return var_ok(m.arg(0)) && m.arg(1).is_numeral();
  if (k != Z3_OP_MUL) return false;
  for (unsigned i = 0; i < m.num_args(); ++i) {
    const z3::expr a = m.arg(i);
    if (a.is_numeral() ? !numeral_nonneg(a) : !monomial_nonneg(a, shifted)) return false;
  }
  return true;
}

// `X >= e`, `X > e`, `e <= X`, `e < X` with X a symbol that e does not mention: X's lower bound
// e (+1 when strict), as a term. Constant bounds are the assumptions' `bounds`.
std::map<std::string, ShapeDim> expression_bounds(const Assumptions& as) {
  std::map<std::string, ShapeDim> out;
  for (const auto& r : as.relations) {
    for (bool flip : {false, true}) {
      const ShapeDim& x = flip ? r.rhs : r.lhs;
      const ShapeDim& e = flip ? r.lhs : r.rhs;
      const Rel ge = flip ? Rel::Le : Rel::Ge, gt = flip ? Rel::Lt : Rel::Gt;
      if (x->op != ExprNode::Op::Var || e->op == ExprNode::Op::Const || (r.op != ge && r.op != gt)) continue;
      std::set<std::string> vars;
      collect_vars(e, vars);
      if (vars.count(x->name) || out.count(x->name)) continue;
      out[x->name] = r.op == gt ? dim_binary(ExprNode::Op::Add, e, dim_const(1)) : e;
    }
  }
  return out;
}

}  // namespace

// Each symbol X becomes lo_X + X (X >= 0 from then on) for a constant lower bound, or e_X + X
// for an expression bound e_X (itself shifted, in dependency order; a cycle keeps the constant).
LowerBounds::LowerBounds(Encoder& enc, const Assumptions& as, const GoalSpec& spec)
    : ctx_(enc.ctx()), from_(enc.ctx()), to_(enc.ctx()) {
  std::map<std::string, int64_t> lo;
  for (const auto& [name, term] : enc.symbols()) {
    if (auto it = as.bounds.find(name); it != as.bounds.end() && it->second.lo) lo[name] = *it->second.lo;
    for (const auto& d : spec.positive)  // the symbol is an extent: it exists only as >= 1
      if (d->op == ExprNode::Op::Var && d->name == name) lo[name] = std::max<int64_t>(lo.count(name) ? lo[name] : 1, 1);
  }
  const auto exprs = expression_bounds(as);
  std::map<std::string, std::optional<z3::expr>> done;  // nullopt: in progress (a cycle)
  std::function<std::optional<z3::expr>(const std::string&)> shifted = [&](const std::string& name) -> std::optional<z3::expr> {
    if (auto it = done.find(name); it != done.end()) return it->second;
    done.emplace(name, std::nullopt);
    const z3::expr x = enc.symbol(name);
    std::optional<z3::expr> r;
    if (auto it = exprs.find(name); it != exprs.end()) {
      std::set<std::string> vars;
      collect_vars(it->second, vars);
      z3::expr_vector f(ctx_), t(ctx_);
      bool ok = true;
      for (const auto& v : vars) {
        auto s = shifted(v);
        if (!s) ok = false;
        else f.push_back(enc.symbol(v)), t.push_back(*s);
      }
      if (ok) r = enc.dim(it->second).substitute(f, t) + x;
    }
    if (!r && lo.count(name)) r = x + ctx_.int_val(lo[name]);
    done[name] = r;
    return r;
  };
  std::set<std::string> mentioned;  // by an expression bound
  for (const auto& [name, e] : exprs) collect_vars(e, mentioned);
  for (const auto& d : spec.positive)
    if (d->op == ExprNode::Op::FloorDiv && d->lhs->op == ExprNode::Op::Var && const_value(d->rhs).value_or(0) >= 1)
      positive_quotients_.emplace(enc.symbol(d->lhs->name).id(), *const_value(d->rhs));
  for (const auto& [name, term] : enc.symbols()) {
    auto s = shifted(name);
    if (!s) continue;
    if (!exprs.count(name) && !mentioned.count(name) && lo.count(name)) plain_[term.id()] = lo[name];
    from_.push_back(term);
    to_.push_back(*s);
    shifted_.push_back(term.id());
    names_.push_back(name);
  }
}

std::optional<Bindings> LowerBounds::point(int64_t above) const {
  z3::expr_vector vals(ctx_);
  for (unsigned i = 0; i < from_.size(); ++i) vals.push_back(ctx_.int_val(above));
  Bindings b;
  for (unsigned i = 0; i < from_.size(); ++i) {
    int64_t v = 0;
    z3::expr x = to_[i];
    if (!x.substitute(from_, vals).simplify().is_numeral_i64(v)) return std::nullopt;
    b[names_[i]] = v;
  }
  return b;
}

z3::expr LowerBounds::quotients(const z3::expr& p, std::vector<unsigned>& shifted) const {
  z3::expr q = p.simplify();  // the encoding's ite(128 > 0, M div 128, ...) becomes (div M 128)
  std::vector<z3::expr> atoms;
  std::function<void(const z3::expr&)> walk = [&](const z3::expr& e) {
    if (!e.is_app()) return;
    if (e.decl().decl_kind() == Z3_OP_IDIV && e.arg(0).is_const() && plain_.count(e.arg(0).id()) && e.arg(1).is_numeral())
      atoms.push_back(e);
    for (unsigned i = 0; i < e.num_args(); ++i) walk(e.arg(i));
  };
  walk(q);
  z3::expr_vector af(ctx_), at(ctx_), xf(ctx_), xt(ctx_);
  std::set<unsigned> done;
  for (const auto& a : atoms) {
    int64_t c = 0;
    const z3::expr x = a.arg(0);
    if (!a.arg(1).is_numeral_i64(c) || c < 1 || !done.insert(x.id()).second) continue;  // one divisor per symbol
    const int64_t lo = plain_.at(x.id());
    int64_t dlo = lo >= 0 ? lo / c : -((-lo + c - 1) / c);  // floor(lo / c)
    if (positive_quotients_.count({x.id(), c})) dlo = std::max<int64_t>(dlo, 1);
    const std::string tag = std::to_string(x.id()) + "!" + std::to_string(c);
    const z3::expr d = ctx_.int_const(("quot!" + tag).c_str()), r = ctx_.int_const(("rem!" + tag).c_str());
    af.push_back(a);
    at.push_back(d + ctx_.int_val(dlo));
    xf.push_back(x);
    xt.push_back((d + ctx_.int_val(dlo)) * ctx_.int_val(c) + r);
    shifted.push_back(d.id());
    shifted.push_back(r.id());
  }
  return af.empty() ? q : q.substitute(af, at).substitute(xf, xt);
}

bool LowerBounds::nonneg(const z3::expr& p) const {
  z3::params som(ctx_);
  som.set("som", true);
  std::vector<unsigned> vars = shifted_;
  z3::expr q = quotients(p, vars);
  q = q.substitute(from_, to_).simplify(som);
  if (q.is_app() && q.decl().decl_kind() == Z3_OP_ADD) {
    for (unsigned i = 0; i < q.num_args(); ++i)
      if (!monomial_nonneg(q.arg(i), vars)) return false;
    return true;
  }
  return monomial_nonneg(q, vars);
}

// Every shifted X at `above`: the symbols at their lower bounds plus `above`.
std::optional<int64_t> LowerBounds::sample(const z3::expr& p, int64_t above) const {
  z3::expr_vector vals(ctx_);
  for (unsigned i = 0; i < from_.size(); ++i) vals.push_back(ctx_.int_val(above));
  int64_t v = 0;
  z3::expr q = p;
  if (!q.substitute(from_, to_).substitute(from_, vals).simplify().is_numeral_i64(v)) return std::nullopt;
  return v;
}

}  // namespace tfspec::solver
