// Host/device qualifiers and the few intrinsics the index core needs, so one header compiles
// with nvcc (both sides) and with a plain C++ compiler (host only).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TFSPEC_HD __host__ __device__ __forceinline__
#else
#define TFSPEC_HD inline
#endif

namespace tfspec::gpu {

TFSPEC_HD uint32_t umulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

TFSPEC_HD uint64_t umulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// int64 arithmetic that reports overflow instead of wrapping (used only by plans whose bounds
// do not prove the absence of overflow).
TFSPEC_HD bool mul_overflows(int64_t a, int64_t b, int64_t& r) {
  __int128 p = static_cast<__int128>(a) * b;
  r = static_cast<int64_t>(p);
  return p != static_cast<__int128>(r);
}
TFSPEC_HD bool add_overflows(int64_t a, int64_t b, int64_t& r) {
  __int128 s = static_cast<__int128>(a) + b;
  r = static_cast<int64_t>(s);
  return s != static_cast<__int128>(r);
}

}  // namespace tfspec::gpu
