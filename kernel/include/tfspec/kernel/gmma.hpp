// wgmma's canonical shared-memory atoms (spec/KERNEL.md, check 2): the layouts a wgmma descriptor
// can express are tilings of one of these. An atom is 8 "rows" of W bytes (W = 16: interleaved,
// no swizzle; 32, 64, 128: swizzled) along the operand's major mode; the swizzle xors bits 7..9
// of the byte address into bits 4..6, as many as W needs (CuTe's Sw<log2(W/16),4,3> on bytes,
// Sw<log2(W/16), 4 - log2(E), 3> on the offsets of E-byte elements), and the atom starts at a
// multiple of its 8 W bytes. kernel/tests/cute/ compares these with CuTe's GMMA atoms.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/swizzle.hpp"

namespace tfspec::kernel {

enum class GmmaMajor { K, MN };

struct GmmaAtom {
  GmmaMajor major = GmmaMajor::K;
  int64_t atom_bytes = 128;  // W: 16, 32, 64 or 128
  int64_t elem_bytes = 2;    // 1, 2, 4 or 8
  GmmaAtom(GmmaMajor m, int64_t atom_bytes, int64_t elem_bytes);
  int64_t width() const { return atom_bytes / elem_bytes; }  // elements along the major mode
  // The atom's extent in the tile's (MN, K) order: K-major 8 x width, MN-major width x 8.
  int64_t mn_extent() const { return major == GmmaMajor::K ? 8 : width(); }
  int64_t k_extent() const { return major == GmmaMajor::K ? width() : 8; }
  int64_t size() const { return 8 * width(); }
  // Element (mn, k)'s offset in elements from the atom's aligned start.
  int64_t operator()(int64_t mn, int64_t k) const;
  std::string name() const;  // "MN-major 128-byte swizzled"

 private:
  Swizzle swizzle_;
};

// The widest canonical atom (K-major first, then MN-major; 128 bytes down to 16) whose tiling of the
// (rows x bk) tile, tile index mn + rows * k, puts every element at `offset[index]`; without one,
// the first mismatch of the first atom tried (element -1: no atom fits the tile's extents).
struct GmmaMatch {
  std::optional<GmmaAtom> atom;
  int64_t element = -1, offset = 0, expected = 0;
};
GmmaMatch match_gmma_atom(const std::vector<int64_t>& offset, int64_t rows, int64_t bk, int64_t elem_bytes);

}  // namespace tfspec::kernel
