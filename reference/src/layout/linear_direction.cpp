// X2 (spec/ALGEBRA.md, "Direction"): which way a linear layout reads as a shared-memory layout.
#include <algorithm>
#include <iterator>

#include "tfspec/reference/linear.hpp"

namespace tfspec {

// In-dims of size 1 map nothing (no bases): they never change the direction (Triton prints
// ` - block is a size 1 dimension` for a layout of one CTA).
LinearDirection direction(const LinearLayout& l) {
  for (const LinearInDim& d : l.ins())
    if (d.name == "offset" && !d.bases.empty()) return LinearDirection::FromOffset;
  return LinearDirection::ToValue;
}

LinearLayout as_tile_to_offset(const LinearLayout& l, std::string& said) {
  if (direction(l) == LinearDirection::ToValue) {
    said = "smem is read as tile index -> offset (a linear layout with no in-dim `offset` with bits maps its input to its value)";
    return l;
  }
  std::vector<LinearInDim> ins;
  std::copy_if(l.ins().begin(), l.ins().end(), std::back_inserter(ins), [](const LinearInDim& d) { return !d.bases.empty(); });
  said = "smem is Triton's form (in-dim `offset`: offset -> coordinates); read through its inverse, tile index -> offset";
  if (ins.size() > 1) {
    std::string others;
    for (const LinearInDim& d : ins)
      if (d.name != "offset") others += (others.empty() ? "`" : ", `") + d.name + "`";
    said += "; the input is the flattened index of in-dims with bits, so " + others + " take offset bits as X2 flattens them";
  }
  return invert(LinearLayout(std::move(ins), l.outs()));
}

}  // namespace tfspec
