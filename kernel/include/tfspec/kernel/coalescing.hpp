// The global-memory sector model (spec/TRITON.md §3.4, spec/CUTE_DSL.md §3): one warp access
// instruction touches 32-byte sectors; the ideal is the fewest sectors that hold the bytes it
// moves. Shared by the Triton frontend's global loads (layout_global.cpp) and the CuTe DSL
// frontend's tiled copies (copy_coalescing), so the two report the same law.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "tfspec/reference/layout.hpp"

namespace tfspec::kernel {

struct SectorCount {
  int64_t sectors = 0, ideal = 0;
};

// One warp access: each element's (row, first byte). A sector is 32 aligned bytes of one row;
// elements of rows whose distance is unknown (row ids differ) never share one. The ideal is
// ceil(distinct elements x elem_bytes / 32). Rows shorter than a sector (`row_bytes` < 32, the
// tensor's whole extent along its contiguous dim; 0: unknown or long) cannot share one, so the
// ideal is then ceil(bytes / row_bytes): one sector a row (spec/TRITON.md §3.4).
SectorCount sectors_of(const std::vector<std::pair<int64_t, int64_t>>& row_and_byte, int64_t elem_bytes, int64_t row_bytes = 0);

// A tiled copy over a global tile: tv maps (thread t, value v), index t + T v, to a tile index
// row + tile_rows * col; `global` (rank 2 at least, concrete) maps (row, col) to an element
// offset. Every warp (32 consecutive threads) and every access (`vector` consecutive values):
// the worst ratio of sectors to the ideal, first such warp and access. Here the ideal counts from
// the warp's lowest byte: ceil((that byte mod 32 + bytes moved) / 32) (a warp whose contiguous
// bytes start mid-sector cannot do with fewer).
struct CopyCoalescing {
  int64_t sectors = 0, ideal = 0, warp = 0, access = 0;
};
CopyCoalescing copy_coalescing(const Layout& tv, int64_t tile_rows, const Layout& global, int64_t vector, int64_t elem_bytes);

}  // namespace tfspec::kernel
