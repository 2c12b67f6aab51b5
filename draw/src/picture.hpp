// The picture model every drawing builds (grids of cells, a legend, notes) and its SVG writer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/draw/draw.hpp"

namespace tfspec::draw {

// One owner / value of a cell; a cell with several stripes stacks them (Broadcast replicas).
struct Stripe {
  std::string label;
  std::string fill;  // #rrggbb
};

// What a check or a stage found wrong at a cell.
// Collision: shares its offset / (engine, offset) with another (§2, D3); OutOfDomain: a value
// outside the inner layout's domain (§4); Mismatch: Broadcast replicas hold different values
// (§6); Missing: an owner's engine or offset is not in the engines given (§7).
// Offending: a cell a kernel check names (spec/KERNEL.md: a disagreeing slot, a conflicting access).
enum class Mark { None, Collision, OutOfDomain, Mismatch, Missing, Offending };

struct Cell {
  std::vector<Stripe> stripes;
  std::string title;    // the tooltip: everything about the cell in words
  Mark mark = Mark::None;
  std::string partial;  // non-empty: the owners hold Partial contributions (e.g. "sum over y")
  std::optional<int64_t> value;  // the offset a layout picture's cell shows (its colour scale, its collisions)
};

// rows x cols cells, row-major.
struct Grid {
  std::string kind;     // offsets | stage1 | stage2 | tv | owners | moves (the data-kind attribute)
  std::string caption;
  int64_t rows = 0, cols = 0;
  std::vector<Cell> cells;
  Cell& at(int64_t r, int64_t c) { return cells[static_cast<size_t>(r * cols + c)]; }
};

struct LegendEntry {
  std::string fill;
  std::string text;
};

struct Picture {
  std::string title;
  std::vector<Grid> grids;  // drawn one below the other
  std::vector<LegendEntry> legend;
  std::vector<std::string> notes;  // lines under the grids (diagnostics, counts)
};

// SpecError("draw-too-large") when a picture would hold more than kMaxCells cells.
void require_drawable(int64_t cells, const std::string& what);

// A grid of at most kLabelledCells cells is drawn with a text label and a tooltip per cell;
// a larger one (up to kMaxCells) as small coloured squares, every kGroup-th row and column
// numbered and a line between groups, so that 128 x 128 stays near 1 MB (docs/pictures.md, "Large layouts").
inline constexpr int kGroup = 8;
inline bool labelled(const Grid& g) { return g.rows * g.cols <= kLabelledCells; }

// A colour scale for values in [lo, hi] (viridis-like: dark blue, teal, green, yellow), for the
// unlabelled grids where the colour alone must say which offset is which.
std::string colour_scale(int64_t v, int64_t lo, int64_t hi);
std::string to_svg(const Picture& p);

}  // namespace tfspec::draw
