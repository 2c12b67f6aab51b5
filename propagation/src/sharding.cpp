// Per-mesh-axis states <-> ShardLayout (§6, §7.1.1, §8 / D2), sugar text and local shapes.
#include <algorithm>

#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

std::string axis_name(const Mesh& mesh, int a) {
  if (mesh.names()) return (*mesh.names())[a];
  return "axes[" + std::to_string(a) + "]";
}

std::string attr_text(const AxisState& s) {
  switch (s.kind) {
    case AxisState::Dyn: return "D";
    case AxisState::Bcast: return "B";
    case AxisState::Part: return s.reduction == "sum" ? "P()" : "P(\"" + s.reduction + "\")";
    case AxisState::Split: return "S(" + std::to_string(s.dim) + ")";
  }
  return "?";
}

// One dim's factors, outermost first: its extent and the mesh axis splitting it (-1: none).
struct DimFactor1 {
  int64_t extent;
  int axis;
};

// §7.1.1: the G factors of dim d. The split ranges [lo, lo*n) must nest into one chain of
// boundaries without another boundary strictly inside a split (else propagation-split-overlap).
std::vector<DimFactor1> dim_factors(const Sharding& s, int d, int64_t extent, const Mesh& mesh) {
  std::vector<int64_t> bounds = {1, extent};
  std::vector<std::pair<int64_t, int>> unit;  // splits by extent-1 axes: a size-1 factor at boundary lo
  for (size_t a = 0; a < s.size(); ++a) {
    if (s[a].kind != AxisState::Split || s[a].dim != d) continue;
    int64_t n = mesh.extent(static_cast<int>(a));
    int64_t hi = checked_mul(s[a].lo, n);
    if (s[a].lo < 1 || hi > extent || extent % hi != 0)
      fail(rule::kPropagationSplitOverlap, "mesh axis " + axis_name(mesh, static_cast<int>(a)) + " splits dim " + std::to_string(d) + " at [" +
                                               std::to_string(s[a].lo) + ", " + std::to_string(hi) + ") outside its extent " + std::to_string(extent));
    bounds.push_back(s[a].lo);
    bounds.push_back(hi);
    if (n == 1) unit.push_back({s[a].lo, static_cast<int>(a)});
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  for (size_t i = 1; i < bounds.size(); ++i)
    if (bounds[i] % bounds[i - 1] != 0)
      fail(rule::kPropagationSplitOverlap, "the splits of dim " + std::to_string(d) + " (extent " + std::to_string(extent) +
                                               ") do not nest: boundary " + std::to_string(bounds[i - 1]) + " does not divide " + std::to_string(bounds[i]));
  std::vector<DimFactor1> out;
  for (size_t i = bounds.size() - 1; i >= 1; --i) {  // outermost first
    int64_t hi = bounds[i], lo = bounds[i - 1];
    int owner = -1;
    for (size_t a = 0; a < s.size(); ++a)
      if (s[a].kind == AxisState::Split && s[a].dim == d && s[a].lo == lo && mesh.extent(static_cast<int>(a)) == hi / lo && hi / lo > 1) {
        if (owner >= 0)
          fail(rule::kPropagationSplitOverlap, "mesh axes " + axis_name(mesh, owner) + " and " + axis_name(mesh, static_cast<int>(a)) + " split the same factor of dim " +
                                                   std::to_string(d));
        owner = static_cast<int>(a);
      }
    if (owner < 0)
      for (size_t a = 0; a < s.size(); ++a)
        if (s[a].kind == AxisState::Split && s[a].dim == d && s[a].lo < hi && s[a].lo * mesh.extent(static_cast<int>(a)) > lo &&
            mesh.extent(static_cast<int>(a)) > 1)
          fail(rule::kPropagationSplitOverlap, "mesh axis " + axis_name(mesh, static_cast<int>(a)) + " splits across a boundary of dim " + std::to_string(d));
    out.push_back({hi / lo, owner});
    for (const auto& [ulo, ua] : unit)
      if (ulo == lo) out.push_back({1, ua});
  }
  return out;
}

}  // namespace

std::string to_string(const AxisState& s) {
  if (s.kind == AxisState::Split && s.lo != 1) return "S(" + std::to_string(s.dim) + ", lo=" + std::to_string(s.lo) + ")";
  return attr_text(s);
}

Sharding sharding_of(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  std::vector<int64_t> g = flat_extents(sl);
  auto runs = regroup(IntTuple::tuple(std::vector<IntTuple>(shape.begin(), shape.end())), IntTuple::tuple(std::vector<IntTuple>(g.begin(), g.end())));
  Sharding out;
  for (const auto& attr : sl.attrs()) {
    if (std::holds_alternative<Broadcast>(attr)) out.push_back(AxisState::broadcast());
    else if (std::holds_alternative<Dynamic>(attr)) out.push_back(AxisState::dynamic());
    else if (auto* p = std::get_if<Partial>(&attr)) out.push_back(AxisState::partial(p->reduction));
    else {
      int64_t k = std::get<Split>(attr).axis;
      for (size_t d = 0; d < runs.size(); ++d) {
        auto it = std::find(runs[d].begin(), runs[d].end(), static_cast<int>(k));
        if (it == runs[d].end()) continue;
        int64_t lo = 1;
        for (auto j = it + 1; j != runs[d].end(); ++j) lo = checked_mul(lo, g[*j]);
        out.push_back(AxisState::split(static_cast<int>(d), lo));
      }
    }
  }
  return out;
}

ShardLayout layout_of(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh) {
  std::vector<IntTuple> g;
  std::vector<ShardAttr> attrs(s.size(), Broadcast{});
  for (size_t a = 0; a < s.size(); ++a) {
    if (s[a].kind == AxisState::Dyn) attrs[a] = Dynamic{};
    if (s[a].kind == AxisState::Part) attrs[a] = Partial{s[a].reduction};
  }
  for (size_t d = 0; d < shape.size(); ++d)
    for (const auto& f : dim_factors(s, static_cast<int>(d), shape[d], mesh)) {
      if (f.axis >= 0) attrs[f.axis] = Split{static_cast<int64_t>(g.size())};
      g.push_back(IntTuple(f.extent));
    }
  return ShardLayout(std::make_shared<Layout>(Layout::unmaterialized(IntTuple::tuple(g))), attrs, mesh);
}

std::string sugar_text(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh) {
  std::string t = "(";
  for (size_t d = 0; d < shape.size(); ++d) {
    auto fs = dim_factors(s, static_cast<int>(d), shape[d], mesh);
    // Sugar N @ m.a with the axis's extent dividing N is (extent @ m.a, N / extent) (D5): a split
    // factor followed by an unsplit one prints as their product; adjacent unsplit factors merge.
    std::vector<std::string> entries;
    for (size_t i = 0; i < fs.size(); ++i) {
      const int axis = fs[i].axis;
      int64_t n = fs[i].extent;
      if (axis < 0 || n > 1)
        while (i + 1 < fs.size() && fs[i + 1].axis < 0) n *= fs[++i].extent;
      entries.push_back(axis < 0 ? std::to_string(n) : std::to_string(n) + " @ m." + axis_name(mesh, axis));
    }
    for (const auto& e : entries) t += (t.size() > 1 ? ", " : "") + e;
  }
  t += ")";
  std::string where;
  for (size_t a = 0; a < s.size(); ++a)
    if (s[a].kind == AxisState::Part || s[a].kind == AxisState::Dyn) where += (where.empty() ? " where " : ", ") + axis_name(mesh, static_cast<int>(a)) + "=" + attr_text(s[a]);
  return t + where;
}

std::vector<int64_t> local_shape_of(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh) {
  std::vector<int64_t> out = shape;
  for (size_t a = 0; a < s.size(); ++a)
    if (s[a].kind == AxisState::Split) out[s[a].dim] /= mesh.extent(static_cast<int>(a));
  return out;
}

}  // namespace tfspec::propagation
