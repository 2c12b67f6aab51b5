// The shared-memory layout as spec/SMEM.md's model reads it (tile index -> element offset), one
// reading for every caller (banks, vector_width, their picture, kernel check's smem layouts).
#include "tfspec/reference/smem.hpp"

#include "tfspec/reference/linear.hpp"

namespace tfspec {

// X2 "Direction" (spec/ALGEBRA.md): a linear layout through as_tile_to_offset.
LayoutPtr smem_tile_to_offset(LayoutPtr smem, std::string& said) {
  if (smem->kind() != LayoutKind::Linear) return smem;
  return std::make_shared<LinearLayout>(as_tile_to_offset(static_cast<const LinearLayout&>(*smem), said));
}

}  // namespace tfspec
