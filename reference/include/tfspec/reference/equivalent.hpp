// Equivalence of two layout objects of any kinds (issue 32; spec/ALGEBRA.md X2): the same
// function over the same domain, read through the flattening every kind has (the input index is
// colexicographic over the shape, §1 D1; a linear layout's value is its flattened out-dims).
#pragma once
#include <optional>
#include <string>

#include "tfspec/reference/layout.hpp"

namespace tfspec {

struct Equivalence {
  bool equal = false;
  std::string method;  // "bases" (both linear: basis by basis) or "enumeration" (every index)
  int64_t size_a = 0, size_b = 0;
  std::optional<int64_t> index;  // the first input index where the two differ
  int64_t value_a = 0, value_b = 0;
  std::string reason;  // why they differ when there is no index (the domain sizes)
  std::string note;    // a hint, e.g. that one side maps offsets to coordinates (use --inverse)
};

// Exact. Concrete layouts only (needs-concrete: `tfspec prove equivalent` decides symbolic
// ones); every kind but a linear pair is enumerated, up to kMaxEnumeration points
// (resource-limit beyond). With `inverse`, `a` is compared with the inverse of `b`, which must
// be a bijection from its domain onto [0, size) (equivalent-inverse otherwise).
Equivalence equivalent(const LayoutBase& a, const LayoutBase& b, bool inverse = false);

}  // namespace tfspec
