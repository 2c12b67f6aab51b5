#include "bitvector.hpp"

#include "tfspec/reference/error.hpp"

namespace tfspec::solver {

z3::expr BvEncoder::symbol(const std::string& name) {
  auto it = symbols_.find(name);
  if (it != symbols_.end()) return it->second;
  z3::expr e = ctx_.bv_const((name + "!bv").c_str(), 64);
  symbols_.emplace(name, e);
  return e;
}

z3::expr BvEncoder::add(const z3::expr& a, const z3::expr& b) {
  overflow.push_back(!z3::bvadd_no_overflow(a, b, true) || !z3::bvadd_no_underflow(a, b));
  return a + b;
}

z3::expr BvEncoder::sub(const z3::expr& a, const z3::expr& b) {
  overflow.push_back(!z3::bvsub_no_overflow(a, b) || !z3::bvsub_no_underflow(a, b, true));
  return a - b;
}

// Portable form: the 128-bit product must be the sign extension of its low 64 bits.
z3::expr BvEncoder::mul(const z3::expr& a, const z3::expr& b) {
  if (portable_) {
    z3::expr wide = z3::sext(a, 64) * z3::sext(b, 64);
    overflow.push_back(wide != z3::sext(wide.extract(63, 0), 64));
  } else {
    overflow.push_back(!z3::bvmul_no_overflow(a, b, true) || !z3::bvmul_no_underflow(a, b));
  }
  return a * b;
}

z3::expr BvEncoder::dim(const ShapeDim& d) {
  using Op = ExprNode::Op;
  switch (d->op) {
    case Op::Const: return val(d->value);
    case Op::Var: return symbol(d->name);
    default: break;
  }
  z3::expr a = dim(d->lhs), b = dim(d->rhs);
  switch (d->op) {
    case Op::Add: return add(a, b);
    case Op::Sub: return sub(a, b);
    case Op::Mul: return mul(a, b);
    case Op::FloorDiv: {
      definedness.push_back(b != val(0));
      overflow.push_back(a == val(INT64_MIN) && b == val(-1));
      z3::expr q = a / b, r = z3::srem(a, b);  // signed, truncating
      return z3::ite(r != val(0) && ((r < val(0)) != (b < val(0))), q - val(1), q);
    }
    case Op::Mod:  // bvsmod: the sign follows the divisor, as the reference's floor_mod
      definedness.push_back(b != val(0));
      return z3::smod(a, b);
    default: break;
  }
  fail(rule::in(rule::kProveInternal, "§1"), "unknown expression node");
}

z3::expr BvEncoder::leaf(const IntTuple& leaf) {
  if (leaf.is_int()) return val(leaf.value());
  if (leaf.is_sym()) return dim(leaf.dim());
  fail(rule::kNeedsConcrete, "a launch-provided extent (None) has no value to reason about");
}

z3::expr BvEncoder::relation(const Relation& r) {
  z3::expr a = dim(r.lhs), b = dim(r.rhs);
  return apply_relation(r.op, a, b);  // z3++ compares bit-vectors signed
}

}  // namespace tfspec::solver
