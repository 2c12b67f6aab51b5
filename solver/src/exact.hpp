// Exact evaluation of dim expressions for replays and instance checks (issue 9): 128-bit
// integers with checked arithmetic, so that an int64 overflow is a value to reason about (a
// fits-int64 counterexample, an assumption that holds) rather than an error. A value beyond
// 128 bits is reported as such, never wrapped. Private to solver/.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "tfspec/reference/shapedim.hpp"

namespace tfspec::solver {

using i128 = __int128;

struct Exact {
  enum class Status { Ok, Overflow, DivByZero } status = Status::Ok;
  i128 value = 0;
  bool ok() const { return status == Status::Ok; }
};

// The value of `d` under `b` (every symbol of d bound). Floor division and modulo follow the
// reference (the sign follows the divisor).
Exact eval_exact(const ShapeDim& d, const Bindings& b);
bool fits_int64(i128 v);
std::string i128_string(i128 v);

}  // namespace tfspec::solver
