// Planted kernel bug 2 (cuda_kernels.cu, TFSPEC_KERNEL_MUTANT): the pair store drops the odd last offset.
// The kernel source on the emulated grid with this one bug, in its own namespace (test-only; never in tfspec).
#define TFSPEC_KERNEL_MUTANT 2
#define TFSPEC_KERNELS_NS mutant_pair_odd_last
#include "cuda_emu_kernels.cpp"
