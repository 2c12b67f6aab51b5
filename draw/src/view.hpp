// CuTe's rank-2 view of a layout, shared by the pictures (layout_draw.cpp) and the terminal
// print (layout_text.cpp): mode 0 down the rows, every other mode across the columns
// (colexicographic, D1), so cell (r, c) is domain index r + rows * c. A rank-1 layout is one
// column (CuTe appends a mode of size 1).
#pragma once
#include <cstdint>
#include <string>

#include "tfspec/reference/layout.hpp"

namespace tfspec::draw {

struct View {
  IntTuple shape;
  int64_t size = 1, rows = 1, cols = 1;
};

// SpecError("draw-too-large") past kMaxCells; needs-concrete on a symbolic shape.
View rank2_view(const LayoutBase& l);

// The domain point at index i: an integer, or () for the rank-0 domain of a composition of
// identities (§4: shape == ()).
IntTuple domain_point(const View& v, int64_t i);

// The coordinate of index i in words, e.g. "(1,0)".
std::string coord_words(const View& v, int64_t i);

}  // namespace tfspec::draw
