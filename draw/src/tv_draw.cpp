// The TV view of a layout whose two modes are (thread, value) (CuTe's print_latex_tv reads a TV
// layout the same way: (t, v) -> a position of an (M, N) tile, m = position % M, D1).
#include <algorithm>

#include "picture.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::draw {
namespace {

struct Tile {
  int64_t rows = 1, cols = 1;
  std::string text;
};

// The tile the offsets are drawn in: the one given, else the most nearly square one that holds
// exactly the offsets' span n = max offset + 1: rows the smallest divisor of n with rows^2 >= n
// (so rows >= cols). 64 offsets draw as 8 x 8, 32 as 8 x 4, 6 as 3 x 2, a prime n as one column.
Tile tv_tile(const std::optional<IntTuple>& given, int64_t top) {
  Tile t;
  if (given) {
    t.text = to_string(*given);
    const int64_t n = product_int(*given, "draw");
    t.rows = given->is_tuple() && given->len() >= 2 ? product_int((*given)[0], "draw") : n;
    t.cols = t.rows == 0 ? 0 : n / t.rows;
    require_drawable(checked_mul(t.rows, t.cols), "the tile " + t.text);
    return t;
  }
  const int64_t n = top + 1;
  require_drawable(n, "the TV layout's offsets");
  t.rows = n;
  for (int64_t r = 1; r < n; ++r)
    if (r * r >= n && n % r == 0) {
      t.rows = r;
      break;
    }
  t.cols = n / t.rows;
  t.text = "(" + std::to_string(t.rows) + "," + std::to_string(t.cols) + ")";
  return t;
}

// Past kLabelledCells the cells lose their T{t}V{v} labels: the legend names the threads'
// colours instead (the first 32; the palette repeats its hues only after 360).
void thread_legend(Picture& p, int64_t threads) {
  constexpr int64_t kListed = 32;
  for (int64_t t = 0; t < std::min(threads, kListed); ++t) p.legend.push_back({palette(t), "T" + std::to_string(t)});
  p.notes.push_back(std::to_string(p.grids[0].rows * p.grids[0].cols) + " cells: labels dropped past " + std::to_string(kLabelledCells) +
                    "; colour = thread" + (threads > kListed ? " (legend: the first " + std::to_string(kListed) + ")" : std::string()) +
                    "; rows and columns numbered every " + std::to_string(kGroup));
}

}  // namespace

std::string tv_svg(const LayoutBase& l, const std::optional<IntTuple>& tile) {
  const IntTuple shape = l.shape();
  if (!shape.is_tuple() || shape.len() != 2)
    fail(rule::kDrawTvModes, "the TV view needs two modes (thread, value); " + to_string(l) + " has " + std::to_string(rank(shape)));
  const int64_t threads = product_int(shape[0], "draw"), values = product_int(shape[1], "draw");
  require_drawable(checked_mul(threads, values), "the TV layout " + to_string(l));
  std::vector<int64_t> offset(static_cast<size_t>(threads * values));
  int64_t top = 0;
  for (int64_t i = 0; i < threads * values; ++i) {
    offset[static_cast<size_t>(i)] = l.apply(IntTuple(i));  // i = t + threads * v (D1)
    top = std::max(top, offset[static_cast<size_t>(i)]);
  }
  const Tile tl = tv_tile(tile, top);
  Grid g;
  g.kind = "tv";
  g.caption = "tile " + tl.text + ": offset o at (o % " + std::to_string(tl.rows) + ", o / " + std::to_string(tl.rows) + "), T = thread, V = value";
  g.rows = tl.rows;
  g.cols = tl.cols;
  g.cells.resize(static_cast<size_t>(tl.rows * tl.cols));
  for (int64_t v = 0; v < values; ++v)
    for (int64_t t = 0; t < threads; ++t) {
      const int64_t o = offset[static_cast<size_t>(t + threads * v)];
      const std::string tv = "T" + std::to_string(t) + "V" + std::to_string(v);
      if (o < 0 || o >= tl.rows * tl.cols)
        fail(rule::kDrawTvModes, tv + " maps to offset " + std::to_string(o) + ", outside the tile " + tl.text + " of " + std::to_string(tl.rows * tl.cols) + " offsets");
      Cell& cell = g.at(o % tl.rows, o / tl.rows);
      cell.stripes.push_back({tv, palette(t)});
      cell.title += (cell.title.empty() ? "offset " + std::to_string(o) + ": " : ", ") + tv;
      if (cell.stripes.size() > 1) cell.mark = Mark::Collision;
    }
  Picture p;
  p.title = "TV layout " + to_string(l) + " (" + std::to_string(threads) + " threads x " + std::to_string(values) + " values)";
  p.grids = {g};
  if (!labelled(p.grids[0])) thread_legend(p, threads);
  for (const auto& c : p.grids[0].cells)
    if (c.mark == Mark::Collision) {
      p.notes.push_back("marked cells: two (thread, value) pairs share an offset (§2)");
      break;
    }
  return to_svg(p);
}

}  // namespace tfspec::draw
