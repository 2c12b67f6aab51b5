// S5 (spec/ALGEBRA.md): Z3 answers the symbolic algebra's branches under the assumptions.
#include "tfspec/solver/obligations.hpp"

namespace tfspec::solver {

Z3Decider::Z3Decider(const std::vector<std::string>& assume, const std::set<std::string>& symbols, unsigned query_ms)
    : assumptions_(make_assumptions(assume, symbols)), query_ms_(query_ms) {
  for (const auto& r : assumptions_.relations) base_.push_back(enc_.relation(r));
  for (const auto& s : assumptions_.symbols) enc_.symbol(s);
}

z3::expr Z3Decider::encode(const SymPred& p) {
  static constexpr Rel kRel[] = {Rel::Eq, Rel::Ne, Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge};
  return enc_.relation({p.lhs, kRel[static_cast<int>(p.rel)], p.rhs});
}

QueryOutcome Z3Decider::query(const std::vector<SymPred>& context, const z3::expr& extra) {
  std::vector<z3::expr> a = base_;
  for (const auto& p : context) a.push_back(encode(p));
  a.push_back(extra);
  for (const auto& d : enc_.definedness()) a.push_back(d);
  ++queries_;
  Limits limits;
  limits.timeout_ms = query_ms_;
  return check(ctx_, a, limits, "ALL", "", "");
}

std::optional<bool> Z3Decider::decide(const std::vector<SymPred>& path, const SymPred& p) {
  if (auto f = fold(p)) return f;
  const z3::expr e = encode(p);
  if (query(path, !e).result == z3::unsat) return true;
  if (query(path, e).result == z3::unsat) return false;
  return std::nullopt;  // both sides possible, or unknown: the executor forks (sound either way)
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
  const QueryOutcome fails = query(context, !e);
  if (fails.result == z3::unsat) return {"proved", std::nullopt};
  std::optional<Bindings> cex = fails.model ? model_bindings(*fails.model) : std::nullopt;
  if (query(context, e).result == z3::unsat) return {"refuted", cex};
  return {"required", cex};
}

std::optional<Bindings> Z3Decider::instance(const std::vector<SymPred>& context) {
  const QueryOutcome q = query(context, ctx_.bool_val(true));
  return q.model ? model_bindings(*q.model) : std::nullopt;
}

}  // namespace tfspec::solver
