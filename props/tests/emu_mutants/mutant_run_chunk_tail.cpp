// Planted kernel bug 1 (cuda_kernels.cu, TFSPEC_KERNEL_MUTANT): run_chunk's last chunk of a run one element long.
// The kernel source on the emulated grid with this one bug, in its own namespace (test-only; never in tfspec).
#define TFSPEC_KERNEL_MUTANT 1
#define TFSPEC_KERNELS_NS mutant_run_chunk_tail
#include "cuda_emu_kernels.cpp"
