// The hardware atoms a compiler's IR names by kind (ldmatrix, the SM80 16x8x16 MMA, the SIMT FMA and
// the one-thread universal copy), as the layouts
// of spec/KERNEL.md "The atoms' layouts" (spec/kernel-atoms.json, checked against CuTe's traits):
// what a frontend (frontends/cute_dsl) hands to a Pipeline instead of a hand-written description.
#pragma once
#include <optional>

#include "tfspec/kernel/pipeline.hpp"

namespace tfspec::kernel {

// ldmatrix .x1/.x2/.x4 (num_matrices 1, 2, 4), plain or transposed, over 16-bit elements
// (SM75_U32xN_LDSM_N, SM75_U16x{2N}_LDSM_T); none for another count or element width.
std::optional<CopyAtom> ldmatrix_atom(int64_t num_matrices, bool transposed, int64_t elem_bits);

// The SM80 warp MMA 16x8x16 over 16-bit A and B (f16 or bf16; any accumulator: C's thread-value
// layout is the same for f16 and f32); one atom (atoms (1,1,1), no permutation). None otherwise.
std::optional<Mma> sm80_mma_atom(int64_t m, int64_t n, int64_t k, int64_t ab_bits);

// CuTe's UniversalFMA (a SIMT multiply-add, MMA_Traits<UniversalFMA>): shape 1x1x1, one thread,
// A, B and C each one value, `(1,1):(0,0)` (CuTe's Layout<Shape<_1,_1>>); one atom. A tiled MMA of
// it (CUTLASS's sgemm: 16x16 atoms) gives each thread whole rows and columns of the C tile, which
// check_agreement's `C mma (m,n,k)` finding follows product by product.
Mma universal_fma_atom();

// CuTe's UniversalCopy<uintN_t> as a shared-to-register copy: one thread moves `bits` (a multiple
// of elem_bits) of consecutive elements into consecutive registers, src = dst = `(1,V):(0,1)` with
// V = bits / elem_bits (Copy_Traits<UniversalCopy>'s (1, bits) layouts, in elements). Each thread
// reads its own MMA fragment, V values an access (the SIMT GEMM's 128-bit loads of 4 f32). None
// when bits is not a whole number of elements.
std::optional<CopyAtom> universal_copy_atom(int64_t bits, int64_t elem_bits);

}  // namespace tfspec::kernel
