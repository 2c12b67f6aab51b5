// S5 (spec/ALGEBRA.md): Z3 answers the symbolic algebra's branches under the assumptions.
#include "tfspec/solver/obligations.hpp"

#include "tfspec/solver/instances.hpp"

namespace tfspec::solver {

Z3Decider::Z3Decider(const std::vector<std::string>& assume, const std::set<std::string>& symbols, unsigned query_ms, unsigned rlimit,
                     const std::set<int64_t>& constants)
    : assumptions_(make_assumptions(assume, symbols)), query_ms_(query_ms), rlimit_(rlimit) {
  std::set<int64_t> c = problem_constants(assumptions_);
  c.insert(constants.begin(), constants.end());
  pool_ = sample_instances(assumptions_, c);
  watchdog_ = std::make_unique<Budget>(ctx_, 24u * 3600u * 1000u);
  for (const auto& r : assumptions_.relations) base_.push_back(enc_.relation(r));
  for (const auto& s : assumptions_.symbols) enc_.symbol(s);
}

z3::expr Z3Decider::encode(const SymPred& p) {
  static constexpr Rel kRel[] = {Rel::Eq, Rel::Ne, Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge};
  return enc_.relation({p.lhs, kRel[static_cast<int>(p.rel)], p.rhs});
}

namespace {
// The divisors of d that are not constants, innermost first (each `x // q` and `x % q`).
void divisors_of(const ShapeDim& d, std::vector<ShapeDim>& out) {
  if (d->op == ExprNode::Op::Const || d->op == ExprNode::Op::Var) return;
  divisors_of(d->lhs, out);
  divisors_of(d->rhs, out);
  if ((d->op == ExprNode::Op::FloorDiv || d->op == ExprNode::Op::Mod) && !is_const(d->rhs)) out.push_back(d->rhs);
}
}  // namespace

// Only the query's own terms are assumed defined (their divisors non-zero): the encoder's
// definedness list grows with every term any earlier query met, and asserting it here let one
// path's divisor (`M//8 != 0`, i.e. M >= 8) decide the branches of every later path (issue 37).
QueryOutcome Z3Decider::query(const std::vector<SymPred>& context, const z3::expr& extra, const std::vector<SymPred>& own) {
  std::vector<z3::expr> a = base_;
  std::vector<ShapeDim> divisors;
  for (const auto& p : context) {
    a.push_back(encode(p));
    divisors_of(p.lhs, divisors);
    divisors_of(p.rhs, divisors);
  }
  for (const auto& p : own) {
    divisors_of(p.lhs, divisors);
    divisors_of(p.rhs, divisors);
  }
  a.push_back(extra);
  for (const auto& d : divisors) a.push_back(enc_.dim(d) != 0);
  ++queries_;
  Limits limits;
  limits.timeout_ms = query_ms_;  // a last guard only: the rlimit decides, the same on any machine
  limits.rlimit = rlimit_;
  limits.budget = watchdog_.get();
  limits.default_solver = true;  // Z3 can ignore both limits in one nonlinear step (TOOLING-NOTES)
  return check(ctx_, a, limits, "ALL", "", "");
}

std::optional<bool> Z3Decider::decide(const std::vector<SymPred>& path, const SymPred& p) {
  if (auto f = fold(p)) return f;
  std::string key = to_string(p);  // the same question on the same path: one answer (paths share prefixes)
  for (const auto& q : path) key += " & " + to_string(q);
  if (auto it = decided_.find(key); it != decided_.end()) return it->second;
  // An instance of the pool on each side: both are possible, no solver call (most forks end here).
  bool can_hold = false, can_fail = false;
  const SymPred not_p = negate(p);
  for (size_t i : survivors(path)) {
    if (holds(p, pool_[i])) can_hold = true;
    else if (holds(not_p, pool_[i])) can_fail = true;
    if (can_hold && can_fail) break;
  }
  std::optional<bool> d;  // nullopt: both sides possible, or unknown: the executor forks (sound either way)
  if (!(can_hold && can_fail)) {
    const z3::expr e = encode(p);
    if (!can_fail && query(path, !e, {p}).result == z3::unsat) d = true;
    else if (!can_hold && query(path, e, {p}).result == z3::unsat) d = false;
  }
  decided_.emplace(std::move(key), d);
  return d;
}

// The pool's instances where every predicate of `path` holds; paths are explored depth first,
// so the filter of the longest prefix already met is kept and extended.
const std::vector<size_t>& Z3Decider::survivors(const std::vector<SymPred>& path) {
  if (filters_.empty()) {
    std::vector<size_t> all(pool_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    filters_.push_back({"", std::move(all)});
  }
  size_t k = 0;  // path[0..k) matches filters_[1..k]
  while (k < path.size() && k + 1 < filters_.size() && filters_[k + 1].first == to_string(path[k])) ++k;
  filters_.resize(k + 1);
  for (; k < path.size(); ++k) {
    std::vector<size_t> next;
    for (size_t i : filters_.back().second)
      if (holds(path[k], pool_[i])) next.push_back(i);
    filters_.push_back({to_string(path[k]), std::move(next)});
  }
  return filters_.back().second;
}

std::optional<Bindings> Z3Decider::model_bindings(const z3::model& m) {
  Bindings b;
  for (const auto& [name, e] : enc_.symbols()) {
    auto v = model_int(m, e);
    if (!v) return std::nullopt;
    b[name] = *v;
  }
  return b;
}

Classified Z3Decider::classify(const std::vector<SymPred>& context, const SymPred& p) {
  const z3::expr e = encode(p);
  const QueryOutcome fails = query(context, !e, {p});
  if (fails.result == z3::unsat) return {"proved", std::nullopt};
  std::optional<Bindings> cex = fails.model ? model_bindings(*fails.model) : std::nullopt;
  if (query(context, e, {p}).result == z3::unsat) return {"refuted", cex};
  return {"required", cex};
}

std::optional<Bindings> Z3Decider::instance(const std::vector<SymPred>& context) {
  const QueryOutcome q = query(context, ctx_.bool_val(true), {});
  return q.model ? model_bindings(*q.model) : std::nullopt;
}

}  // namespace tfspec::solver
