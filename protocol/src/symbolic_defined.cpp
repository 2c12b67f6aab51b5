#include "symbolic_defined.hpp"

namespace tfspec::protocol {
namespace {

void divisors_of(const ShapeDim& d, std::vector<ShapeDim>& out) {
  if (d->op == ExprNode::Op::Const || d->op == ExprNode::Op::Var) return;
  divisors_of(d->lhs, out);
  divisors_of(d->rhs, out);
  if ((d->op == ExprNode::Op::FloorDiv || d->op == ExprNode::Op::Mod) && !is_const(d->rhs)) out.push_back(d->rhs);
}

}  // namespace

std::vector<SymPred> undefined_divisors(Decider& dec, const std::vector<SymPred>& context, const SymPred& p) {
  std::vector<ShapeDim> divisors;
  divisors_of(p.lhs, divisors);
  divisors_of(p.rhs, divisors);
  std::vector<SymPred> out;
  std::vector<SymPred> seen = context;  // an earlier divisor's `!= 0` holds where a later one is read
  for (const auto& q : divisors) {
    const SymPred nonzero{q, SymRel::Ne, dim_const(0)};
    const std::string t = to_string(nonzero);
    bool listed = false;
    for (const auto& x : out) listed = listed || to_string(x) == t;
    if (listed || fold(nonzero) == true || dec.decide(seen, nonzero) == true) continue;
    out.push_back(nonzero);
    seen.push_back(nonzero);
  }
  return out;
}

std::vector<SymPred> defined_guard(Decider& dec, const std::vector<SymPred>& when) {
  std::vector<SymPred> out;
  for (const auto& g : when) {
    for (auto& q : undefined_divisors(dec, out, g)) out.push_back(std::move(q));
    out.push_back(g);
  }
  return out;
}

std::vector<SymPred> joined(std::vector<SymPred> a, const std::vector<SymPred>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string defined_text(const std::vector<SymPred>& first, const SymPred& p) {
  std::string s;
  for (const auto& q : first) s += to_string(q) + " and ";
  return s + to_string(p);
}

}  // namespace tfspec::protocol
