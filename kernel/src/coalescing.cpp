// The sector model of coalescing.hpp (spec/CUTE_DSL.md §3, spec/TRITON.md §3.4).
#include "tfspec/kernel/coalescing.hpp"

#include <algorithm>
#include <set>

namespace tfspec::kernel {

SectorCount sectors_of(const std::vector<std::pair<int64_t, int64_t>>& row_and_byte, int64_t elem_bytes, int64_t row_bytes) {
  std::set<std::pair<int64_t, int64_t>> sectors, elements;
  for (const auto& [row, byte] : row_and_byte) {
    elements.insert({row, byte});
    for (int64_t b = byte; b < byte + elem_bytes; b += 32) sectors.insert({row, b / 32});  // an element wider than a sector spans several
    sectors.insert({row, (byte + elem_bytes - 1) / 32});
  }
  const int64_t per_sector = row_bytes > 0 && row_bytes < 32 ? row_bytes : 32;
  return {static_cast<int64_t>(sectors.size()), (static_cast<int64_t>(elements.size()) * elem_bytes + per_sector - 1) / per_sector};
}

CopyCoalescing copy_coalescing(const Layout& tv, int64_t tile_rows, const Layout& global, int64_t vector, int64_t elem_bytes) {
  const int64_t threads = product_int(tv.mode(0).shape_ref()), values = product_int(tv.mode(1).shape_ref());
  const Layout gm = global.mode(0), gk = global.mode(1);
  CopyCoalescing worst;
  for (int64_t warp = 0; warp * 32 < threads; ++warp)
    for (int64_t a = 0; a * vector < values; ++a) {
      std::vector<std::pair<int64_t, int64_t>> bytes;
      for (int64_t t = warp * 32; t < std::min(threads, warp * 32 + 32); ++t)
        for (int64_t v = a * vector; v < std::min(values, a * vector + vector); ++v) {
          const int64_t idx = tv(t + threads * v);
          bytes.push_back({0, (gm(idx % tile_rows) + gk(idx / tile_rows)) * elem_bytes});
        }
      SectorCount c = sectors_of(bytes, elem_bytes);
      // The ideal from where the warp's access starts: 512 contiguous bytes from byte 16 of a
      // sector span 17 sectors, and no placement of the same bytes from there does better (the
      // tile's global offsets are exact here; the Triton path keeps sectors_of's ceil(bytes / 32)).
      std::set<int64_t> starts;
      for (const auto& rb : bytes) starts.insert(rb.second);
      const int64_t lead = ((*starts.begin() % 32) + 32) % 32;
      c.ideal = (lead + static_cast<int64_t>(starts.size()) * elem_bytes + 31) / 32;
      if (worst.ideal == 0 || c.sectors * worst.ideal > worst.sectors * c.ideal) worst = {c.sectors, c.ideal, warp, a};
    }
  return worst;
}

}  // namespace tfspec::kernel
