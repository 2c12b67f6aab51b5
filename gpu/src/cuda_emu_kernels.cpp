// The kernel source (cuda_kernels.cu), compiled by the host compiler for the emulated grid
// (issue 23): no kernel body is copied; cuda_emu.hpp stands in for the CUDA runtime.
// The kernels say `#pragma unroll 1` for nvcc: built with -Wno-unknown-pragmas (gpu/CMakeLists.txt).
#define TFSPEC_CUDA_EMU 1
#ifndef TFSPEC_KERNELS_NS
#define TFSPEC_KERNELS_NS emulated
#endif
#include "cuda_kernels.cu"
