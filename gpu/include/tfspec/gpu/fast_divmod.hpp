// Division by a run-time constant with one multiply-high and one shift (the round-up method of
// CUTLASS's FastDivmod; Granlund & Montgomery 1994). For a divisor d >= 2 with l = ceil(log2 d)
// and an N-bit dividend n < 2^N, the multiplier m = ceil(2^(N+l) / d) fits in N+1 bits' worth
// of one word and q = floor(n*m / 2^(N+l)) == n / d exactly. N is 31 (32-bit plans) or 63.
#pragma once
#include <cstdint>

#include "tfspec/gpu/hd.hpp"

namespace tfspec::gpu {

struct FastDivmod32 {
  uint32_t divisor = 1;
  uint32_t multiplier = 0;
  uint32_t shift = 0;  // l - 1

  // Requires n < 2^31.
  TFSPEC_HD void divmod(uint32_t n, uint32_t& q, uint32_t& r) const {
    q = divisor == 1 ? n : (umulhi32(n, multiplier) >> shift);
    r = n - q * divisor;
  }
};

struct FastDivmod64 {
  uint64_t divisor = 1;
  uint64_t multiplier = 0;
  uint32_t shift = 0;  // l - 1

  // Requires n < 2^63.
  TFSPEC_HD void divmod(uint64_t n, uint64_t& q, uint64_t& r) const {
    q = divisor == 1 ? n : (umulhi64(n, multiplier) >> shift);
    r = n - q * divisor;
  }
};

// ceil(log2 d) for d >= 1.
inline uint32_t ceil_log2(uint64_t d) {
  uint32_t l = 0;
  while ((uint64_t{1} << l) < d && l < 63) ++l;
  return l;
}

// Host-side constants; d in [1, 2^31] / [1, 2^63].
inline FastDivmod32 make_fast_divmod32(uint32_t d) {
  FastDivmod32 f;
  f.divisor = d;
  if (d < 2) return f;
  const uint32_t l = ceil_log2(d);
  f.multiplier = static_cast<uint32_t>(((uint64_t{1} << (31 + l)) + d - 1) / d);
  f.shift = l - 1;
  return f;
}
inline FastDivmod64 make_fast_divmod64(uint64_t d) {
  FastDivmod64 f;
  f.divisor = d;
  if (d < 2) return f;
  const uint32_t l = ceil_log2(d);
  using u128 = unsigned __int128;
  f.multiplier = static_cast<uint64_t>(((u128{1} << (63 + l)) + d - 1) / d);
  f.shift = l - 1;
  return f;
}

}  // namespace tfspec::gpu
