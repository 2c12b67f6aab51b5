// A tile shared out among threads: the pictures of `kernel check --draw` (spec/KERNEL.md), drawn
// like the TV view (tv_draw.cpp) from a table the kernel checker computed.
#include <algorithm>

#include "picture.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::draw {
namespace {

void mark_cells(const TilePartition& p, Grid& g, Picture& pic) {
  int64_t twice = 0, never = 0, marked = 0;
  for (int64_t e = 0; e < p.rows * p.cols; ++e) {
    Cell& c = g.at(e % p.rows, e / p.rows);
    if (p.exclusive && c.stripes.size() > 1) c.mark = Mark::Collision, ++twice;
    if (p.exclusive && c.stripes.empty()) c.mark = Mark::Missing, ++never, c.stripes.push_back({"", "#ffffff"});
    if (c.stripes.empty()) c.stripes.push_back({"", "#ffffff"});
  }
  for (int64_t e : p.offending)
    if (e >= 0 && e < p.rows * p.cols && g.at(e % p.rows, e / p.rows).mark != Mark::Offending) g.at(e % p.rows, e / p.rows).mark = Mark::Offending, ++marked;
  if (twice) pic.notes.push_back(std::to_string(twice) + " cells written more than once (marked collision)");
  if (never) pic.notes.push_back(std::to_string(never) + " cells never written (marked missing)");
  if (marked) pic.notes.push_back(std::to_string(marked) + " cells named by a violation (marked offending)");
}

}  // namespace

std::string partition_svg(const TilePartition& p) {
  require_drawable(checked_mul(p.rows, p.cols), p.title);
  if (p.index.size() != static_cast<size_t>(checked_mul(p.threads, p.values)))
    fail(rule::kDrawTvModes, p.title + ": the table holds threads x values entries");
  Grid g;
  g.kind = "tv";
  g.caption = std::to_string(p.rows) + "x" + std::to_string(p.cols) + " tile: " + p.row_dim + " down, " + p.col_dim + " across; T = thread, V = value";
  g.rows = p.rows;
  g.cols = p.cols;
  g.cells.resize(static_cast<size_t>(p.rows * p.cols));
  for (int64_t t = 0; t < p.threads; ++t)
    for (int64_t v = 0; v < p.values; ++v) {
      const int64_t e = p.index[static_cast<size_t>(t * p.values + v)];
      if (e < 0 || e >= p.rows * p.cols) continue;
      Cell& cell = g.at(e % p.rows, e / p.rows);
      const std::string tv = "T" + std::to_string(t) + "V" + std::to_string(v);
      cell.stripes.push_back({tv, palette(t)});
      cell.title += (cell.title.empty() ? "(" + p.row_dim + "=" + std::to_string(e % p.rows) + ", " + p.col_dim + "=" + std::to_string(e / p.rows) + "): " : ", ") + tv;
    }
  Picture pic;
  pic.title = p.title;
  mark_cells(p, g, pic);
  pic.grids = {g};
  for (const std::string& n : p.notes) pic.notes.push_back(n);
  if (!labelled(pic.grids[0])) {
    for (int64_t t = 0; t < std::min<int64_t>(p.threads, 32); ++t) pic.legend.push_back({palette(t), "T" + std::to_string(t)});
    pic.notes.push_back("labels dropped past " + std::to_string(kLabelledCells) + " cells; colour = thread; rows and columns numbered every " + std::to_string(kGroup));
  }
  return to_svg(pic);
}

}  // namespace tfspec::draw
