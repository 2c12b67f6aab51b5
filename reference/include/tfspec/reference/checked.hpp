// int64 arithmetic that never wraps: an overflow is a SpecError("int64-overflow"), never a wrong answer.
#pragma once
#include <cstdint>
#include <string>

#include "tfspec/reference/error.hpp"

namespace tfspec {

inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail(rule::kInt64Overflow, std::to_string(a) + " + " + std::to_string(b) + " overflows int64");
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    fail(rule::kInt64Overflow, std::to_string(a) + " - " + std::to_string(b) + " overflows int64");
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail(rule::kInt64Overflow, std::to_string(a) + " * " + std::to_string(b) + " overflows int64");
  return r;
}
// Python-style floor division and modulo (the sign of the result follows the divisor).
inline int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0) fail(rule::kDivisionByZero, "floor-division by zero");
  if (a == INT64_MIN && b == -1) fail(rule::kInt64Overflow, "INT64_MIN // -1 overflows int64");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t floor_mod(int64_t a, int64_t b) {
  if (b == 0) fail(rule::kDivisionByZero, "modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t ceil_div(int64_t a, int64_t b) { return checked_sub(0, floor_div(checked_sub(0, a), b)); }

}  // namespace tfspec
