// §5 Topology, Mesh, MeshAxis; D6, D7, D12.
#include "tfspec/reference/mesh.hpp"

#include <cctype>
#include <set>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "shard/shard_text_util.hpp"

namespace tfspec {
namespace {

using shard_text::split_top;
using shard_text::trim;

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

void check_topology(const Topology& t) {
  if (!is_identifier(t.name)) fail(rule::kTopologyName, "topology name '" + t.name + "' is not an identifier");
  if (t.num_devices && *t.num_devices < 1)
    fail(rule::kTopologyNumDevices, "topology " + t.name + " has num_devices " + std::to_string(*t.num_devices) + " (must be >= 1)");
  if (!t.num_devices && t.name != "cta")
    fail(rule::kTopologyDynamicCta, "only a `cta` topology may have a launch-provided (None) extent; got " + t.name);
}

// §5 names are human-readable, e.g. `x` or `cta.x`: dot-separated identifiers.
bool is_axis_name(const std::string& s) {
  size_t b = 0;
  for (;;) {
    size_t e = s.find('.', b);
    if (!is_identifier(s.substr(b, e == std::string::npos ? std::string::npos : e - b))) return false;
    if (e == std::string::npos) return true;
    b = e + 1;
  }
}

// The flat strides and origin offset of a mesh layout that slicing understands: a Layout, or
// the ComposedLayout(None, offset, Layout) an earlier slice produced (D7).
struct Box {
  int64_t offset;
  std::vector<IntTuple> strides;
};
Box box_of(const LayoutBase& l) {
  if (l.kind() == LayoutKind::Layout) return {0, flat_leaves(static_cast<const Layout&>(l).stride())};
  const auto& c = static_cast<const ComposedLayout&>(l);
  if (c.inner() || !c.outer() || c.outer()->kind() != LayoutKind::Layout)
    fail(rule::kMeshSliceLayout, "only a Layout or a slice ComposedLayout(None, offset, Layout) mesh can be sliced again");
  return {c.offset(), flat_leaves(static_cast<const Layout&>(*c.outer()).stride())};
}

// D16: the mesh layout maps mesh coordinates one-to-one into [0, topology_domain) (the upper
// bound only when the domain is static). Mesh layouts are affine, a Layout or a slice
// ComposedLayout(None, offset, Layout): the extreme devices come from the strides' signs and
// injectivity from is_injective, so no mesh is enumerated. Symbolic / None extents or strides,
// and general compositions, are left to the consumers that need numbers (they fail closed).
void check_device_map(const LayoutBase& layout, std::optional<int64_t> domain) {
  int64_t offset = 0;
  const Layout* affine = nullptr;
  if (layout.kind() == LayoutKind::Layout) affine = &static_cast<const Layout&>(layout);
  if (layout.kind() == LayoutKind::Composed) {
    const auto& c = static_cast<const ComposedLayout&>(layout);
    if (c.inner() || !c.outer() || c.outer()->kind() != LayoutKind::Layout) return;
    affine = &static_cast<const Layout&>(*c.outer());
    offset = c.offset();
    if (offset < 0 || (domain && offset >= *domain))
      fail(rule::kMeshSliceOffset, "the mesh layout's origin offset " + std::to_string(offset) + " lies outside the device domain [0, " +
                                          (domain ? std::to_string(*domain) : std::string("None")) + ")");
  }
  if (!affine || !is_concrete(affine->shape_ref()) || !affine->materialized() || !is_concrete(affine->stride())) return;
  const auto ext = flat_leaves(affine->shape_ref()), str = flat_leaves(affine->stride());
  int64_t lo = offset, hi = offset;
  std::vector<IntTuple> at_lo, at_hi;  // the coordinates of the lowest and highest device
  for (size_t i = 0; i < ext.size(); ++i) {
    const int64_t last = ext[i].value() - 1, step = checked_mul(last, str[i].value());
    at_lo.push_back(IntTuple(step < 0 ? last : 0));
    at_hi.push_back(IntTuple(step > 0 ? last : 0));
    (step < 0 ? lo : hi) = checked_add(step < 0 ? lo : hi, step);
  }
  if (lo < 0)
    fail(rule::kMeshDeviceNegative, "mesh coordinate " + to_string(IntTuple::tuple(at_lo)) + " maps to device " + std::to_string(lo) + " (devices are >= 0)");
  if (domain && hi >= *domain)
    fail(rule::kMeshDeviceRange, "mesh coordinate " + to_string(IntTuple::tuple(at_hi)) + " maps to device " + std::to_string(hi) +
                                        ", outside the topology domain [0, " + std::to_string(*domain) + ")");
  InjectivityResult r = is_injective(*affine);
  if (!r.injective)
    fail(rule::kMeshDeviceShared, "mesh coordinates " + to_string(flatten(r.witness->first)) + " and " + to_string(flatten(r.witness->second)) +
                                         " both map to device " + std::to_string(checked_add(offset, r.offset)));
}

}  // namespace

Topology resolve_topology(std::string_view text) {
  std::string s = trim(text);
  size_t p = s.find('(');
  Topology t;
  if (p == std::string::npos) {
    t.name = s;  // a bare name: launch-provided (only valid for cta)
  } else {
    if (s.back() != ')') fail(rule::kTopologyText, "topology '" + s + "' is not name(n)");
    t.name = trim(s.substr(0, p));
    std::string n = trim(s.substr(p + 1, s.size() - p - 2));
    if (n != "None") t.num_devices = require_int(parse_inttuple(n), "num_devices");
  }
  check_topology(t);
  return t;
}

Mesh::Mesh(std::vector<Topology> topologies, LayoutPtr layout, std::optional<std::vector<std::string>> names)
    : topologies_(std::move(topologies)), layout_(std::move(layout)), names_(std::move(names)) {
  if (topologies_.empty()) fail(rule::kMeshTopologiesEmpty, "a Mesh needs at least one Topology");
  for (const auto& t : topologies_) check_topology(t);
  if (!layout_ || layout_->kind() == LayoutKind::Shard)
    fail(rule::kMeshLayoutKind, "a mesh layout is a Layout or (after a slice) a ComposedLayout");
  if (layout_->kind() == LayoutKind::Layout && !static_cast<const Layout&>(*layout_).materialized())
    fail(rule::kMeshLayoutKind, "a mesh layout has concrete strides");
  const int r = rank();
  if (names_) {
    if (static_cast<int>(names_->size()) != r)
      fail(rule::kMeshNamesRank, std::to_string(names_->size()) + " names for a rank-" + std::to_string(r) + " mesh");
    std::set<std::string> seen;
    for (const auto& n : *names_) {
      if (!is_axis_name(n)) fail(rule::kMeshNamesUnique, "mesh axis name '" + n + "' is not a (dotted) identifier such as x or cta.x");
      if (!seen.insert(n).second) fail(rule::kMeshNamesUnique, "mesh axis name '" + n + "' is used twice");
    }
  }
  // An un-sliced mesh covers its topologies exactly (checked when both sides are static).
  auto dom = topology_domain();
  if (!is_slice() && dom && is_concrete(shape()) && product_int(shape()) != *dom)
    fail(rule::kMeshTopologySize, "the mesh has " + std::to_string(product_int(shape())) + " instances but its topologies " + std::to_string(*dom) + " devices");
  check_device_map(*layout_, dom);
}

int Mesh::rank() const { return tfspec::rank(flatten(shape())); }

std::vector<IntTuple> Mesh::extents() const { return flat_leaves(shape()); }

// §5 / D6: the product of every topology's num_devices; None when any is launch-provided.
std::optional<int64_t> Mesh::topology_domain() const {
  int64_t p = 1;
  for (const auto& t : topologies_) {
    if (!t.num_devices) return std::nullopt;
    p = checked_mul(p, *t.num_devices);
  }
  return p;
}

// §1 / §5: consumers needing a number fail closed on symbolic / None extents.
int64_t Mesh::extent(int a) const {
  auto e = extents();
  if (a < 0 || a >= static_cast<int>(e.size()))
    fail(rule::kMeshAxisRange, "mesh axis " + std::to_string(a) + " of a rank-" + std::to_string(e.size()) + " mesh");
  if (!e[a].is_int())
    fail(rule::kMeshExtentStatic, "mesh axis " + std::to_string(a) + " has extent " + describe_leaf(e[a]) + "; a static int is required");
  return e[a].value();
}

// `mesh.x` finds the axis named `x`, or the one axis whose dotted name ends in `.x` (`cta.x`).
MeshAxis Mesh::axis(std::string_view name) const {
  if (names_) {
    for (size_t i = 0; i < names_->size(); ++i)
      if ((*names_)[i] == name) return axes(static_cast<int>(i));
    std::optional<int> found;
    const std::string suffix = "." + std::string(name);
    for (size_t i = 0; i < names_->size(); ++i) {
      const std::string& n = (*names_)[i];
      if (n.size() <= suffix.size() || n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
      if (found) fail(rule::kMeshAxisAmbiguous, "mesh axis '" + std::string(name) + "' matches more than one name");
      found = static_cast<int>(i);
    }
    if (found) return axes(*found);
  }
  fail(rule::kMeshAxisUnknown, "the mesh has no axis named '" + std::string(name) + "'");
}

MeshAxis Mesh::axes(int i) const { return MeshAxis{this, i, extent(i)}; }

int64_t Mesh::size() const {
  int64_t p = 1;
  for (int a = 0; a < rank(); ++a) p = checked_mul(p, extent(a));
  return p;
}

// §5 / D7: the sub-box; dropped axes contribute their fixed coordinate to the origin offset,
// ranges their first coordinate.
Mesh Mesh::slice(const std::vector<MeshIndex>& index) const {
  if (static_cast<int>(index.size()) != rank())
    fail(rule::kMeshSliceRank, "a mesh slice needs one entry per mesh axis (" + std::to_string(rank()) + ")");
  Box box = box_of(*layout_);
  int64_t offset = box.offset;
  std::vector<IntTuple> kept_ext, kept_str;
  std::vector<std::string> kept_names;
  for (int a = 0; a < rank(); ++a) {
    const int64_t ext = extent(a);  // fails closed on symbolic / None extents
    MeshIndex ix = index[a];
    if (ix.kind == MeshIndex::All) ix = MeshIndex{MeshIndex::Range, 0, ext};
    const bool range = ix.kind == MeshIndex::Range;
    const int64_t end = range ? ix.end : ix.begin + 1;
    if (ix.begin < 0 || end > ext || ix.begin >= end)
      fail(rule::kMeshSliceRange, (range ? "range " + std::to_string(ix.begin) + ":" + std::to_string(ix.end) : "index " + std::to_string(ix.begin)) +
                                         " outside mesh axis " + std::to_string(a) + " of extent " + std::to_string(ext));
    offset = checked_add(offset, checked_mul(ix.begin, require_int(box.strides[a], "mesh stride")));
    if (!range) continue;
    kept_ext.push_back(end - ix.begin);
    kept_str.push_back(box.strides[a]);
    if (names_) kept_names.push_back((*names_)[a]);
  }
  auto sub = std::make_shared<Layout>(IntTuple::tuple(kept_ext), IntTuple::tuple(kept_str));
  std::optional<std::vector<std::string>> n;
  if (names_) n = kept_names;
  return Mesh(topologies_, std::make_shared<ComposedLayout>(nullptr, offset, sub), n);
}

Mesh Mesh::operator[](const IntTuple& crd) const {
  std::vector<MeshIndex> index;
  for (const auto& e : crd.is_tuple() ? crd.children() : std::vector<IntTuple>{crd}) {
    if (e.is_none()) index.push_back({MeshIndex::All, 0, 0});
    else if (e.is_int()) index.push_back({MeshIndex::Fixed, e.value(), 0});
    else fail(rule::kMeshStaticIndex, "mesh[...] takes static ints; got " + describe_leaf(e));
  }
  return slice(index);
}

// `(1, _, 0:2)`: ints, `_` and ranges `b:e`; anything else (a symbol) is refused.
std::vector<MeshIndex> parse_mesh_index(std::string_view text) {
  std::string t = trim(text);
  if (t.size() >= 2 && t.front() == '(' && t.back() == ')') t = t.substr(1, t.size() - 2);
  std::vector<MeshIndex> out;
  if (trim(t).empty()) return out;
  for (const auto& e : split_top(t, ',')) {
    if (e == "_") {
      out.push_back({MeshIndex::All, 0, 0});
      continue;
    }
    size_t colon = e.find(':');
    auto num = [](const std::string& x) {
      IntTuple v = parse_inttuple(x);
      if (!v.is_int()) fail(rule::kMeshStaticIndex, "mesh[...] takes static ints; got " + describe_leaf(v));
      return v.value();
    };
    if (colon == std::string::npos) out.push_back({MeshIndex::Fixed, num(e), 0});
    else out.push_back({MeshIndex::Range, num(e.substr(0, colon)), num(e.substr(colon + 1))});
  }
  return out;
}

int64_t Mesh::device_of(const std::vector<int64_t>& mesh_coord) const {
  return layout_->apply(shard_text::coord_in(mesh_coord, shape()));
}

bool operator==(const Mesh& a, const Mesh& b) {
  return a.topologies_ == b.topologies_ && a.names_ == b.names_ && to_string(*a.layout_) == to_string(*b.layout_);
}

IntTuple row_major_strides(const std::vector<int64_t>& extents) {
  std::vector<IntTuple> s(extents.size());
  int64_t step = 1;
  for (size_t i = extents.size(); i-- > 0;) {
    s[i] = IntTuple(step);
    step = checked_mul(step, extents[i]);
  }
  return IntTuple::tuple(std::move(s));
}

static LayoutPtr default_mesh_layout(const std::vector<IntTuple>& ext) {
  IntTuple shape = IntTuple::tuple(ext);
  bool concrete = is_concrete(shape);
  std::vector<int64_t> v;
  if (concrete)
    for (const auto& e : ext) v.push_back(e.value());
  if (concrete) return std::make_shared<Layout>(shape, row_major_strides(v));
  // Non-static extents: row-major strides as expressions (the last axis fastest, D12).
  std::vector<IntTuple> s(ext.size());
  IntTuple step(1);
  for (size_t i = ext.size(); i-- > 0;) {
    s[i] = step;
    if (i == 0) break;
    if (ext[i].is_none())
      fail(rule::kMeshExtentStatic, "a launch-provided (None) extent can only be the first mesh axis of a default (row-major) mesh layout");
    step = leaf_mul(step, ext[i], "mesh stride");
  }
  return std::make_shared<Layout>(shape, IntTuple::tuple(std::move(s)));
}

Mesh make_mesh(const std::vector<std::string>& topology_names, const IntTuple& extents,
               std::optional<std::vector<std::string>> names) {
  std::vector<Topology> topos;
  for (const auto& n : topology_names) topos.push_back(resolve_topology(n));
  return Mesh(std::move(topos), default_mesh_layout(flat_leaves(extents)), std::move(names));
}

// `warp(8)*thread(32)` or a bare `cta`, as opposed to axes (`x=2,y=4` or `2,4`).
static bool looks_like_topologies(const std::string& part) {
  if (part.find('=') != std::string::npos) return false;
  for (const auto& t : split_top(part, '*')) {
    size_t p = t.find('(');
    if (t != "cta" && (p == std::string::npos || t.back() != ')' || !is_identifier(trim(t.substr(0, p))))) return false;
  }
  return true;
}

Mesh parse_mesh(std::string_view text) {
  auto parts = split_top(text, '|');
  LayoutPtr layout;
  // `TOPOS|layout=4` is one axis named `layout`; `AXES|layout=L` and `TOPOS|AXES|layout=L` override the layout.
  const bool has_layout = parts.back().rfind("layout=", 0) == 0 && (parts.size() == 3 || (parts.size() == 2 && !looks_like_topologies(parts[0])));
  if (has_layout) {
    layout = parse_any_layout(parts.back().substr(7));
    parts.pop_back();
  }
  if (parts.size() > 2 || parts.back().empty()) fail(rule::kMeshText, "a mesh is [TOPOS |] AXES [| layout=LAYOUT]; got '" + std::string(text.substr(0, 200)) + "'");
  std::vector<IntTuple> ext;
  std::vector<std::string> names;
  for (const auto& ax : split_top(parts.back(), ',')) {
    size_t eq = ax.find('=');
    if (eq != std::string::npos) names.push_back(trim(ax.substr(0, eq)));
    IntTuple e = parse_inttuple(eq == std::string::npos ? ax : ax.substr(eq + 1));
    if (!e.is_leaf()) fail(rule::kMeshText, "a mesh axis extent is a single entry; got '" + ax + "'");
    ext.push_back(e);
  }
  if (!names.empty() && names.size() != ext.size()) fail(rule::kMeshText, "either every mesh axis is named or none is");
  std::optional<std::vector<std::string>> n;
  if (!names.empty()) n = names;
  if (!layout) layout = default_mesh_layout(ext);
  else if (!(flatten(layout->shape()) == IntTuple::tuple(ext)))
    fail(rule::kMeshText, "the mesh layout's shape " + to_string(layout->shape()) + " differs from the axes' extents");
  std::vector<Topology> topos;
  if (parts.size() == 2) {
    for (const auto& t : split_top(parts[0], '*')) topos.push_back(resolve_topology(t));
  } else {
    IntTuple s = IntTuple::tuple(ext);
    if (is_concrete(s)) topos.push_back(Topology{"device", product_int(s)});
    else topos.push_back(Topology{"cta", std::nullopt});
  }
  return Mesh(std::move(topos), layout, n);
}

std::string to_string(const Mesh& m) {
  std::string out;
  for (size_t i = 0; i < m.topologies().size(); ++i) {
    const auto& t = m.topologies()[i];
    out += (i ? "*" : "") + t.name + "(" + (t.num_devices ? std::to_string(*t.num_devices) : "None") + ")";
  }
  out += "|";
  auto ext = m.extents();
  for (size_t i = 0; i < ext.size(); ++i) {
    if (i) out += ",";
    if (m.names()) out += (*m.names())[i] + "=";
    out += to_string(ext[i]);
  }
  std::string layout = to_string(*m.layout());
  if (layout != to_string(*default_mesh_layout(ext))) out += "|layout=" + layout;
  return out;
}

}  // namespace tfspec
