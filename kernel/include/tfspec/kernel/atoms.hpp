// The hardware atoms a compiler's IR names by kind (ldmatrix, the SM80 16x8x16 MMA), as the layouts
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

}  // namespace tfspec::kernel
