#include "exact.hpp"

#include "tfspec/reference/error.hpp"

namespace tfspec::solver {
namespace {

Exact overflow() { return Exact{Exact::Status::Overflow, 0}; }

i128 floor_div128(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Exact eval_exact(const ShapeDim& d, const Bindings& b) {
  using Op = ExprNode::Op;
  switch (d->op) {
    case Op::Const: return Exact{Exact::Status::Ok, d->value};
    case Op::Var: {
      auto it = b.find(d->name);
      if (it == b.end()) fail(rule::kUnboundDim, "no value for " + d->name);
      return Exact{Exact::Status::Ok, it->second};
    }
    default: break;
  }
  Exact x = eval_exact(d->lhs, b);
  if (!x.ok()) return x;
  Exact y = eval_exact(d->rhs, b);
  if (!y.ok()) return y;
  i128 r = 0;
  switch (d->op) {
    case Op::Add:
      if (__builtin_add_overflow(x.value, y.value, &r)) return overflow();
      return Exact{Exact::Status::Ok, r};
    case Op::Sub:
      if (__builtin_sub_overflow(x.value, y.value, &r)) return overflow();
      return Exact{Exact::Status::Ok, r};
    case Op::Mul:
      if (__builtin_mul_overflow(x.value, y.value, &r)) return overflow();
      return Exact{Exact::Status::Ok, r};
    case Op::FloorDiv:
    case Op::Mod: {
      if (y.value == 0) return Exact{Exact::Status::DivByZero, 0};
      if (y.value == -1) {  // avoids the one overflowing quotient (INT128_MIN / -1)
        if (d->op == Op::Mod) return Exact{Exact::Status::Ok, 0};
        if (__builtin_sub_overflow(i128{0}, x.value, &r)) return overflow();
        return Exact{Exact::Status::Ok, r};
      }
      const i128 q = floor_div128(x.value, y.value);
      return Exact{Exact::Status::Ok, d->op == Op::FloorDiv ? q : x.value - q * y.value};
    }
    default: break;
  }
  fail(rule::kProveInternal, "unknown expression node");
}

bool fits_int64(i128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

std::string i128_string(i128 v) {
  const bool neg = v < 0;
  std::string s;
  do {
    const int digit = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  } while (v != 0);
  return neg ? "-" + s : s;
}

}  // namespace tfspec::solver
