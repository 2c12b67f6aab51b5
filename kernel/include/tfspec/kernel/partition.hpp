// Who touches which element of a CTA tile: the tiled copies' and the tiled MMA's partitions
// (spec/KERNEL.md "Partitions"), computed from the description by enumeration.
#pragma once
#include <string>
#include <vector>

#include "tfspec/kernel/pipeline.hpp"

namespace tfspec::kernel {

// For every (thread, value), the tile element it names: index[t * values + v] = row + rows * col,
// or -1 where the value falls outside the tile (a copy tile that does not divide the CTA tile).
struct Partition {
  int64_t threads = 0, values = 0;
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> index;
  int64_t at(int64_t t, int64_t v) const { return index[static_cast<size_t>(t * values + v)]; }
};

// "(m=3, k=17)" for a tile element of operand A, B or C (the dims' letters: MK, NK, MN).
std::string element_name(char operand, int64_t index, int64_t rows);

// A tiled copy repeated over a rows x cols CTA tile: value v + V * (rr + RR * rc) is the copy's
// value v in its repeat (rr, rc). kernel-input when the copy's tile does not divide the CTA tile.
Partition copy_partition(const TiledCopy& c, int64_t rows, int64_t cols);

// The tiled MMA's partition of operand 'A' (BM x BK), 'B' (BN x BK) or 'C' (BM x BN), in CuTe's
// partition order: value frg + F * (r_p + R_p * r_q) for the atom's value frg and the thread's
// r_p-th and r_q-th atom along the two modes. kernel-input when the tiles do not divide.
Partition mma_partition(const Pipeline& p, char operand);

// CuTe's make_tiled_copy_A/B (spec/KERNEL.md "The tiled copy make_tiled_copy_A/B builds"): a tiled
// copy made from a tiled MMA has the MMA's thread-value layout of operand 'A' or 'B' (CuTe's
// get_layoutA_TV / get_layoutB_TV) as its own, over a tile of (tile_size P, tile_size K), P = M for
// A and N for B; the copy atom decides neither. tv(t + threads * v) = row + rows * col. Computed
// with the reference's layout algebra as CuTe defines it (logical_divide by the permutation,
// zipped_divide by the atom, the atom's TV composed in, the atoms' threads divided out, thread
// indices through the inverse of the MMA's thread layout); its refusals keep their rules, and
// kernel-input when the MMA's operand is not in registers.
struct MmaCopyLayout {
  Layout tv;
  int64_t rows = 0, cols = 0;
  int64_t threads() const { return product_int(tv.shape_ref()[0]); }
  int64_t values() const { return product_int(tv.shape_ref()[1]); }
};
MmaCopyLayout mma_copy_layout(const Mma& mma, char operand);

// The shared-memory offset of every element of one stage's (rows, BK) tile, and its inverse.
struct SmemMap {
  std::vector<int64_t> offset;      // tile index -> element offset
  std::vector<int64_t> element_at;  // element offset -> tile index, -1 where none
  int64_t cosize = 0;               // 1 + the largest offset
};
SmemMap smem_map(const Operand& o, int64_t rows, int64_t cols);

}  // namespace tfspec::kernel
