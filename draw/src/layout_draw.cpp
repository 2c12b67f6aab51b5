// Layout pictures: the rank-2 offset view (§2-§3), both stages of a ComposedLayout (§4), the TV
// view, and the check picture with the offending cells marked (§2).
#include <map>

#include "picture.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::draw {
namespace {

// CuTe's rank-2 view: mode 0 down the rows, every other mode across the columns (colexicographic,
// D1), so cell (r, c) is domain index r + rows * c. A rank-1 layout is one column.
struct View {
  IntTuple shape;
  int64_t size = 1, rows = 1, cols = 1;
};

View rank2_view(const LayoutBase& l) {
  View v;
  v.shape = l.shape();
  v.size = product_int(v.shape, "draw");
  require_drawable(v.size, "the layout " + to_string(l));
  v.rows = v.shape.is_tuple() && v.shape.len() >= 2 ? product_int(v.shape[0], "draw") : v.size;
  v.cols = v.rows == 0 ? 0 : v.size / v.rows;
  return v;
}

// The domain point at index i: an integer, or () for the rank-0 domain of a composition of
// identities (§4: shape == ()).
IntTuple domain_point(const View& v, int64_t i) { return v.shape.is_tuple() && v.shape.len() == 0 ? IntTuple() : IntTuple(i); }

std::string coord_words(const View& v, int64_t i) {
  if (v.shape.is_tuple() && v.shape.len() == 0) return "()";
  return coord_to_string(idx2crd(i, v.shape));
}

Grid empty_grid(const View& v, std::string kind, std::string caption) {
  Grid g;
  g.kind = std::move(kind);
  g.caption = std::move(caption);
  g.rows = v.rows;
  g.cols = v.cols;
  g.cells.resize(static_cast<size_t>(v.rows * v.cols));
  return g;
}

void set_value(Cell& cell, int64_t value, const std::string& coord) {
  cell.stripes = {{std::to_string(value), palette(value)}};
  cell.title = coord + " -> " + std::to_string(value);
}

// The grids of a layout: one (its offsets), or the two stages of a ComposedLayout (§4). A point
// whose intermediate value lies outside the inner layout's domain is marked, not fatal.
std::vector<Grid> layout_grids(const LayoutBase& l, const View& v) {
  if (l.kind() != LayoutKind::Composed) {
    Grid g = empty_grid(v, "offsets", "L(r + " + std::to_string(v.rows) + "*c)");
    for (int64_t r = 0; r < v.rows; ++r)
      for (int64_t c = 0; c < v.cols; ++c) {
        const int64_t i = r + v.rows * c;
        set_value(g.at(r, c), l.apply(domain_point(v, i)), coord_words(v, i));
      }
    return {g};
  }
  const auto& cl = static_cast<const ComposedLayout&>(l);
  const std::string outer = cl.outer() ? to_string(*cl.outer()) : "None", inner = cl.inner() ? to_string(*cl.inner()) : "None";
  require_drawable(2 * v.size, "both stages of " + to_string(l));
  Grid s1 = empty_grid(v, "stage1", "stage 1: offset + outer(c) = " + std::to_string(cl.offset()) + " + " + outer + "(c)");
  Grid s2 = empty_grid(v, "stage2", "stage 2: inner(offset + outer(c)), inner = " + inner);
  for (int64_t r = 0; r < v.rows; ++r)
    for (int64_t c = 0; c < v.cols; ++c) {
      const int64_t i = r + v.rows * c;
      const IntTuple x = domain_point(v, i);
      const std::string words = coord_words(v, i);
      int64_t mid = 0;
      try {
        mid = checked_add(cl.offset(), apply_or_identity(cl.outer(), x));
        set_value(s1.at(r, c), mid, words);
      } catch (const SpecError& e) {
        if (e.rule() != rule::kCoordInDomain.id) throw;
        s1.at(r, c) = Cell{{{"out", "#ffffff"}}, words + ": " + e.what(), Mark::OutOfDomain, {}};
        s2.at(r, c) = s1.at(r, c);
        continue;
      }
      try {
        set_value(s2.at(r, c), l.apply(x), words);  // §4 as the reference defines it
      } catch (const SpecError& e) {
        if (e.rule() != rule::kCoordInDomain.id) throw;
        s2.at(r, c) = Cell{{{"out", "#ffffff"}}, words + " -> " + std::to_string(mid) + ": " + e.what(), Mark::OutOfDomain, {}};
      }
    }
  return {s1, s2};
}

std::string kind_name(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return "layout";
    case LayoutKind::Composed: return "composed layout";
    case LayoutKind::Shard: return "shard layout (intra-engine offsets; `tfspec shard draw` shows owners)";
  }
  return "layout";
}

Picture layout_picture(const LayoutBase& l) {
  const View v = rank2_view(l);
  Picture p;
  p.title = kind_name(l) + " " + to_string(l);
  p.grids = layout_grids(l, v);
  for (const auto& g : p.grids)
    for (const auto& c : g.cells)
      if (c.mark == Mark::OutOfDomain) {
        p.notes.push_back("cells marked `out`: the intermediate value lies outside the inner layout's domain (§4)");
        return p;
      }
  return p;
}

}  // namespace

std::string layout_svg(const LayoutBase& l) { return to_svg(layout_picture(l)); }

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
  int64_t rows = 1, cols = top + 1;
  std::string tile_text = "(1," + std::to_string(cols) + ")";
  if (tile) {
    tile_text = to_string(*tile);
    const int64_t n = product_int(*tile, "draw");
    rows = tile->is_tuple() && tile->len() >= 2 ? product_int((*tile)[0], "draw") : n;
    cols = n / rows;
  }
  require_drawable(rows * cols, "the tile " + tile_text);
  Grid g;
  g.kind = "tv";
  g.caption = "tile " + tile_text + ": offset o at (o % " + std::to_string(rows) + ", o / " + std::to_string(rows) + "), T = thread, V = value";
  g.rows = rows;
  g.cols = cols;
  g.cells.resize(static_cast<size_t>(rows * cols));
  for (int64_t v = 0; v < values; ++v)
    for (int64_t t = 0; t < threads; ++t) {
      const int64_t o = offset[static_cast<size_t>(t + threads * v)];
      const std::string tv = "T" + std::to_string(t) + "V" + std::to_string(v);
      if (o < 0 || o >= rows * cols)
        fail(rule::kDrawTvModes, tv + " maps to offset " + std::to_string(o) + ", outside the tile " + tile_text + " of " + std::to_string(rows * cols) + " offsets");
      Cell& cell = g.at(o % rows, o / rows);
      cell.stripes.push_back({tv, palette(t)});
      cell.title += (cell.title.empty() ? "offset " + std::to_string(o) + ": " : ", ") + tv;
      if (cell.stripes.size() > 1) cell.mark = Mark::Collision;
    }
  Picture p;
  p.title = "TV layout " + to_string(l) + " (" + std::to_string(threads) + " threads x " + std::to_string(values) + " values)";
  p.grids = {g};
  for (const auto& c : p.grids[0].cells)
    if (c.mark == Mark::Collision) {
      p.notes.push_back("marked cells: two (thread, value) pairs share an offset (§2)");
      break;
    }
  return to_svg(p);
}

std::string check_svg(const LayoutBase& l) {
  Picture p = layout_picture(l);
  const View v = rank2_view(l);
  CheckReport report;
  bool raised = false;
  try {
    report = check_layout(l, "layout");
  } catch (const SpecError& e) {  // an input error the check cannot get past (shown, and still drawn)
    p.notes.push_back(std::string("error: ") + e.what());
    raised = true;
  }
  for (const auto& d : report.violations) {
    p.notes.push_back("violation: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")"));
    if (d.rule != rule::kLayoutInjective.id) continue;
    const InjectivityResult r = is_injective(l);  // the witness pair the check reported
    if (!r.witness) continue;
    for (const IntTuple* w : {&r.witness->first, &r.witness->second}) {
      const int64_t i = w->is_tuple() && w->len() == 0 ? 0 : crd2idx(*w, v.shape);
      Cell& cell = p.grids.back().at(i % v.rows, i / v.rows);
      cell.mark = Mark::Collision;
      cell.title += " (collides: layout-injective §2)";
    }
  }
  for (const auto& d : report.undecided)
    p.notes.push_back("undecided: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")"));
  const size_t n = report.violations.size();
  p.title = "check " + to_string(l) + ": " + (raised ? "input error" : n ? std::to_string(n) + " violation(s)" : report.undecided.empty() ? "ok" : "undecided");
  return to_svg(p);
}

}  // namespace tfspec::draw
