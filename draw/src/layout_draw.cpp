// Layout pictures: the rank-2 offset view (§2-§3), both stages of a ComposedLayout (§4), the TV
// view, and the check picture with the offending cells marked (§2).
#include <algorithm>
#include <map>

#include "picture.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"
#include "view.hpp"

namespace tfspec::draw {
namespace {

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
  cell.value = value;
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
        s1.at(r, c) = Cell{{{"out", "#ffffff"}}, words + ": " + e.what(), Mark::OutOfDomain, {}, {}};
        s2.at(r, c) = s1.at(r, c);
        continue;
      }
      try {
        set_value(s2.at(r, c), l.apply(x), words);  // §4 as the reference defines it
      } catch (const SpecError& e) {
        if (e.rule() != rule::kCoordInDomain.id) throw;
        s2.at(r, c) = Cell{{{"out", "#ffffff"}}, words + " -> " + std::to_string(mid) + ": " + e.what(), Mark::OutOfDomain, {}, {}};
      }
    }
  return {s1, s2};
}

std::string kind_name(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return "layout";
    case LayoutKind::Composed: return "composed layout";
    case LayoutKind::Shard: return "shard layout (intra-engine offsets; `tfspec shard draw` shows owners)";
    case LayoutKind::Swizzle: return "swizzle";
    case LayoutKind::Linear: return "linear layout (X2; the flattened input index and value)";
  }
  return "layout";
}

// Past kLabelledCells a grid drops its labels (picture.hpp), so a colour per offset that tells
// neighbours apart says nothing: the offsets take a colour scale from the smallest to the
// largest instead, and the legend shows it (nine steps, the ends included).
void use_colour_scale(Picture& p) {
  std::optional<int64_t> lo, hi;
  for (const auto& g : p.grids)
    for (const auto& c : g.cells)
      if (c.value) {
        lo = std::min(lo.value_or(*c.value), *c.value);
        hi = std::max(hi.value_or(*c.value), *c.value);
      }
  if (!lo) return;
  for (auto& g : p.grids)
    for (auto& c : g.cells)
      if (c.value) c.stripes[0].fill = colour_scale(*c.value, *lo, *hi);
  constexpr int kSteps = 8;
  for (int k = 0; k <= kSteps; ++k) {
    const int64_t o = *lo + static_cast<int64_t>(static_cast<__int128>(*hi - *lo) * k / kSteps);
    if (!p.legend.empty() && p.legend.back().text == "offset " + std::to_string(o)) continue;
    p.legend.push_back({colour_scale(o, *lo, *hi), "offset " + std::to_string(o)});
  }
  p.notes.push_back(std::to_string(p.grids.front().rows * p.grids.front().cols) + " cells: labels dropped past " + std::to_string(kLabelledCells) +
                    "; colour = offset on the scale of the legend; rows and columns numbered every " + std::to_string(kGroup));
}

Picture layout_picture(const LayoutBase& l) {
  const View v = rank2_view(l);
  Picture p;
  p.title = kind_name(l) + " " + to_string(l);
  p.grids = layout_grids(l, v);
  if (!labelled(p.grids.front())) use_colour_scale(p);
  for (const auto& g : p.grids)
    for (const auto& c : g.cells)
      if (c.mark == Mark::OutOfDomain) {
        p.notes.push_back("cells marked `out`: the intermediate value lies outside the inner layout's domain (§4)");
        return p;
      }
  return p;
}

// Marks every cell of the final grid whose offset another cell shares (§2 layout-injective): all
// of them, as the shard check picture marks every aliased element, not only the check's witness
// pair; the tooltip names the others (the first three, then how many more). Returns the count.
int64_t mark_collisions(Grid& g, const View& v) {
  std::map<int64_t, std::vector<int64_t>> at;  // offset -> the domain indices holding it
  for (int64_t i = 0; i < v.size; ++i)
    if (const auto& value = g.at(i % v.rows, i / v.rows).value) at[*value].push_back(i);
  int64_t marked = 0;
  const std::string rule_words = std::string(rule::kLayoutInjective.id) + " " + std::string(rule::kLayoutInjective.clause);
  for (const auto& [offset, holders] : at) {
    if (holders.size() < 2) continue;
    for (int64_t i : holders) {
      std::string others;
      size_t listed = 0;
      for (size_t k = 0; k < holders.size() && listed < 3; ++k)
        if (holders[k] != i) others += (listed++ ? ", " : "") + coord_words(v, holders[k]);
      if (holders.size() - 1 > listed) others += " and " + std::to_string(holders.size() - 1 - listed) + " more";
      Cell& cell = g.at(i % v.rows, i / v.rows);
      cell.mark = Mark::Collision;
      cell.title += " (collides with " + others + ": " + rule_words + ")";
      ++marked;
    }
  }
  return marked;
}

}  // namespace

std::string layout_svg(const LayoutBase& l) { return to_svg(layout_picture(l)); }

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
  bool collides = false;
  for (const auto& d : report.violations) {
    p.notes.push_back("violation: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")"));
    collides |= d.rule == rule::kLayoutInjective.id;
  }
  if (collides) {
    const int64_t n = mark_collisions(p.grids.back(), v);
    if (n) p.notes.push_back("marked: " + std::to_string(n) + " cells whose offset another cell shares");
  }
  for (const auto& d : report.undecided)
    p.notes.push_back("undecided: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")"));
  const size_t n = report.violations.size();
  p.title = "check " + to_string(l) + ": " + (raised ? "input error" : n ? std::to_string(n) + " violation(s)" : report.undecided.empty() ? "ok" : "undecided");
  return to_svg(p);
}

}  // namespace tfspec::draw
