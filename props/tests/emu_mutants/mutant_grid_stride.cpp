// Planted kernel bug 3 (cuda_kernels.cu, TFSPEC_KERNEL_MUTANT): the grid-stride step one block too long.
// The kernel source on the emulated grid with this one bug, in its own namespace (test-only; never in tfspec).
#define TFSPEC_KERNEL_MUTANT 3
#define TFSPEC_KERNELS_NS mutant_grid_stride
#include "cuda_emu_kernels.cpp"
