// Small integer helpers the kernel checks share.
#pragma once

#include <cstdint>

namespace tfspec::kernel {

// The least n with 2^n >= x (for a power of two, its exponent).
inline int log2_exact(int64_t x) {
  int n = 0;
  while ((int64_t{1} << n) < x) ++n;
  return n;
}

}  // namespace tfspec::kernel
