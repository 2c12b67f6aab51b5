// The agreement of an operand the MMA reads from shared memory (wgmma's SS mode, spec/KERNEL.md):
// a wgmma descriptor can only express canonical layouts. K-major ones are built of atoms of 8
// rows x W bytes (W = 16, 32, 64 or 128: no swizzle, 32B, 64B, 128B), row r's byte b of an atom at
// swizzle(r * W + b), the swizzle xoring bits 7..9 of the byte address into bits 4..6 (as many as
// the width needs: Sw<log2(W/16), 4, 3> on bytes, Sw<log2(W/16), 4 - log2(E), 3> on E-byte
// elements); atoms 8 * W bytes apart or more, aligned to that, at one stride down the rows.
#include "s2r.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec::kernel {
namespace {

int log2_exact(int64_t x) {
  int n = 0;
  while ((int64_t{1} << n) < x) ++n;
  return n;
}

struct Mismatch {
  int64_t element = -1, offset = 0, expected = 0;
};

// The first element that breaks the K-major atoms of width `w` elements, or none.
std::optional<Mismatch> k_major_mismatch(const SmemMap& m, int64_t rows, int64_t bk, int64_t w, int64_t elem_bytes) {
  const int bits = log2_exact(w * elem_bytes / 16);
  const Swizzle sw(bits, 4 - log2_exact(elem_bytes), 3);
  const int64_t atom = 8 * w;
  std::optional<int64_t> row_stride;
  for (int64_t g = 0; g < rows / 8; ++g)
    for (int64_t h = 0; h < bk / w; ++h) {
      const int64_t base = m.offset[static_cast<size_t>(8 * g + rows * (w * h))];
      const int64_t aligned = base - base % atom;
      if (g > 0) {
        const int64_t above = m.offset[static_cast<size_t>(8 * (g - 1) + rows * (w * h))];
        const int64_t stride = aligned - (above - above % atom);
        if (row_stride && stride != *row_stride) return Mismatch{8 * g + rows * (w * h), base, above + *row_stride};
        row_stride = stride;
      }
      for (int64_t r = 0; r < 8; ++r)
        for (int64_t c = 0; c < w; ++c) {
          const int64_t e = (8 * g + r) + rows * (w * h + c);
          const int64_t want = aligned + sw(r * w + c);
          if (m.offset[static_cast<size_t>(e)] != want) return Mismatch{e, m.offset[static_cast<size_t>(e)], want};
        }
    }
  return std::nullopt;
}

}  // namespace

Finding gmma_layout(const Pipeline& p, const Operand& o) {
  const int64_t rows = o.name == 'A' ? p.bm : p.bn, elem_bytes = o.bits / 8;
  const SmemMap m = smem_map(o, rows, p.bk);
  Finding f{"agreement", std::string(1, o.name) + " mma (smem)", Outcome::Ok, nullptr, "", Json::object()};
  std::optional<Mismatch> widest;
  for (int64_t bytes : {128, 64, 32, 16}) {
    const int64_t w = bytes / elem_bytes;
    if (w < 1 || rows % 8 != 0 || p.bk % w != 0) continue;
    const std::optional<Mismatch> bad = k_major_mismatch(m, rows, p.bk, w, elem_bytes);
    if (!bad) {
      f.message = "matches wgmma's K-major " + (bytes == 16 ? std::string("interleaved (unswizzled)") : std::to_string(bytes) + "-byte swizzled") +
                  " atoms (8 x " + std::to_string(w) + " elements), as its descriptor requires";
      f.detail = {{"atom_bytes", bytes}};
      return f;
    }
    if (!widest) widest = bad;
  }
  f.outcome = Outcome::Undecided;
  f.rule = &rule::kKernelGmmaLayout;
  f.message = "not a K-major canonical GMMA layout";
  if (widest)
    f.message += " (with 128-byte atoms, " + element_name(o.name, widest->element, rows) + " is at offset " + std::to_string(widest->offset) + ", the atom puts it at " +
                 std::to_string(widest->expected) + ")";
  f.message += "; MN-major canonical layouts are not modelled, so wgmma's reading is undecided";
  return f;
}

}  // namespace tfspec::kernel
