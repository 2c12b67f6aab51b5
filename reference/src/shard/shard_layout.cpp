// §6 ShardAttr, §7 ShardLayout and its derived quantities (§7.1.1, §7.1.2, §8; D2, D3, D10).
#include "tfspec/reference/shard_layout.hpp"

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"
#include "shard/shard_text_util.hpp"

namespace tfspec {

using shard_text::trim;

// ---- §6 ShardAttr

bool is_valid_reduction(const std::string& r) { return r == "sum" || r == "max" || r == "min"; }  // D9

std::string to_string(const ShardAttr& a) {
  if (auto* s = std::get_if<Split>(&a)) return "S(" + std::to_string(s->axis) + ")";
  if (std::holds_alternative<Broadcast>(a)) return "B";
  if (std::holds_alternative<Dynamic>(a)) return "D";
  const auto& p = std::get<Partial>(a);
  if (p.reduction == "sum") return "P()";
  std::string quoted = "P(\"";
  for (char c : p.reduction) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\")";
}

// The Partial of `P(` BODY `)` (t[open] == '('): BODY is empty (sum), a name, or a quoted string
// with backslash escapes, optionally after `reduction=`; nothing may follow the closing ')'.
static Partial parse_partial(const std::string& t, size_t open) {
  auto refuse = [&]() -> Partial { fail(rule::kShardAttrText, "'" + t.substr(0, 80) + "' is not P(), P(max) or P(\"max\")"); };
  size_t i = open + 1;
  auto blanks = [&] {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  };
  blanks();
  if (t.compare(i, 10, "reduction=") == 0) i += 10;
  blanks();
  std::string r;
  bool quoted = i < t.size() && (t[i] == '"' || t[i] == '\'');
  if (quoted) {
    const char q = t[i++];
    for (;; ++i) {
      if (i >= t.size()) return refuse();
      if (t[i] == q) break;
      if (t[i] == '\\' && ++i >= t.size()) return refuse();
      r += t[i];
    }
    ++i;
  } else {
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) r += t[i++];
  }
  blanks();
  if (i + 1 != t.size() || t[i] != ')') return refuse();
  return Partial{r.empty() && !quoted ? "sum" : r};  // an unknown reduction is reported by rule partial-reduction
}

// Surface sugar (§6): S(i) | Split(i) | B | Broadcast | D | Dynamic | P() | P(max) | P("max") | Partial(...)
ShardAttr parse_shard_attr(std::string_view text) {
  std::string t = trim(text);
  if (t == "B" || t == "Broadcast" || t == "Broadcast()" || t == "B()") return Broadcast{};
  if (t == "D" || t == "Dynamic" || t == "Dynamic()" || t == "D()") return Dynamic{};
  if (shard_text::starts_with_call(t, "S") || shard_text::starts_with_call(t, "Split")) {
    std::string body = trim(shard_text::call_body(t));
    if (body.rfind("axis=", 0) == 0) body = body.substr(5);
    return Split{require_int(parse_inttuple(body), "Split axis")};
  }
  if (shard_text::starts_with_call(t, "P") || shard_text::starts_with_call(t, "Partial")) return parse_partial(t, t.find('('));
  fail(rule::kShardAttrText, "'" + t.substr(0, 80) + "' is not a ShardAttr (S(i), B, D, P(), P(\"max\"), P(\"min\"))");
}

// ---- §7 ShardLayout

ShardLayout::ShardLayout(LayoutPtr layout, std::vector<ShardAttr> attrs, Mesh mesh, Unchecked)
    : layout_(std::move(layout)), attrs_(std::move(attrs)), mesh_(std::move(mesh)) {
  if (!layout_) fail(rule::kShardLayoutMissing, "a ShardLayout binds a layout; got None");
}

ShardLayout::ShardLayout(LayoutPtr layout, std::vector<ShardAttr> attrs, Mesh mesh)
    : ShardLayout(std::move(layout), std::move(attrs), std::move(mesh), Unchecked{}) {
  validate_shard_layout(*this);
}

ShardLayout ShardLayout::unchecked(LayoutPtr layout, std::vector<ShardAttr> attrs, Mesh mesh) {
  return ShardLayout(std::move(layout), std::move(attrs), std::move(mesh), Unchecked{});
}

bool operator==(const ShardLayout& a, const ShardLayout& b) {
  return a.attrs_ == b.attrs_ && a.mesh_ == b.mesh_ && to_string(*a.layout_) == to_string(*b.layout_);
}

// ---- storage (D3 / D4)

Storage parse_storage(std::string_view s) {
  std::string t = trim(s);
  if (t == "rmem") return Storage::Rmem;
  if (t == "smem") return Storage::Smem;
  if (t == "gmem") return Storage::Gmem;
  fail(rule::kStorageUnknown, "storage '" + t.substr(0, 40) + "' is not rmem, smem or gmem");
}

std::string to_string(Storage s) {
  switch (s) {
    case Storage::Rmem: return "rmem";
    case Storage::Smem: return "smem";
    case Storage::Gmem: return "gmem";
  }
  return "?";
}

// ---- derived quantities

std::vector<int64_t> flat_extents(const ShardLayout& sl) {
  std::vector<int64_t> g;
  for (const auto& leaf : flat_leaves(sl.shape())) {
    if (!leaf.is_int())
      fail(rule::kShardConcrete, "layout extent " + describe_leaf(leaf) + " is not a static int (symbolic layouts: `tfspec prove`)", "layout.shape");
    g.push_back(leaf.value());
  }
  return g;
}

// D10: which mesh axis Splits each flat layout dim (the per-layout-dim view).
std::vector<std::optional<int>> split_binding(const ShardLayout& sl) {
  std::vector<std::optional<int>> b(static_cast<size_t>(sl.domain_rank()));
  for (size_t a = 0; a < sl.attrs().size(); ++a) {
    auto* s = std::get_if<Split>(&sl.attrs()[a]);
    if (!s) continue;
    if (s->axis < 0 || s->axis >= static_cast<int64_t>(b.size()))
      fail(rule::kSplitAxisRange, "Split(" + std::to_string(s->axis) + ") outside [0, " + std::to_string(b.size()) + ")", "attrs[" + std::to_string(a) + "]");
    if (b[s->axis]) fail(rule::kSplitAxisUnique, "layout axis " + std::to_string(s->axis) + " is Split by two mesh axes", "attrs[" + std::to_string(a) + "]");
    b[s->axis] = static_cast<int>(a);
  }
  return b;
}

std::vector<ShardAttr> layout_dim_view(const ShardLayout& sl) {
  std::vector<ShardAttr> v;
  auto b = split_binding(sl);
  for (size_t k = 0; k < b.size(); ++k) {
    if (b[k])
      v.emplace_back(Split{static_cast<int64_t>(k)});  // not in_place_type: clang 14 has no parenthesized aggregate init
    else
      v.emplace_back(std::in_place_type<Broadcast>);
  }
  return v;
}

// §7.1.1: G[k] / mesh extent on Split-bound dims (1 in canonical form), G[k] elsewhere.
static std::vector<int64_t> local_extents(const ShardLayout& sl) {
  std::vector<int64_t> g = flat_extents(sl);
  auto b = split_binding(sl);
  for (size_t k = 0; k < g.size(); ++k) {
    if (!b[k]) continue;
    int64_t e = sl.mesh().extent(*b[k]);
    if (g[k] % e != 0)
      fail(rule::kSplitDivides, "mesh extent " + std::to_string(e) + " does not divide layout extent " + std::to_string(g[k]) + " of dim " + std::to_string(k), "layout.shape");
    g[k] /= e;
  }
  return g;
}

IntTuple local_shape(const ShardLayout& sl) {
  return shard_text::with_leaves(sl.shape(), local_extents(sl));
}

// §7.1.1 / §8 / D2: consecutive runs of flat G multiply to each T dim, left to right; size-1 G
// dims join the current run.
std::vector<std::vector<int>> regroup(const IntTuple& tensor_shape, const IntTuple& layout_shape) {
  std::vector<int64_t> t, g;
  for (const auto& x : flat_leaves(tensor_shape)) t.push_back(require_int(x, "logical extent"));
  for (const auto& x : flat_leaves(layout_shape)) g.push_back(require_int(x, "layout extent"));
  auto refuse = [&](const std::string& why) {
    fail(rule::kShardRegroup, "layout shape " + to_string(layout_shape) + " is not a row-major refinement of logical shape " + to_string(tensor_shape) + ": " + why);
  };
  std::vector<std::vector<int>> runs;
  size_t j = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    std::vector<int> run;
    int64_t p = 1;
    while (j < g.size() && (p < t[i] || g[j] == 1)) {
      if (g[j] < 1 || t[i] % checked_mul(p, g[j]) != 0) refuse("dim " + std::to_string(j) + " (" + std::to_string(g[j]) + ") crosses logical dim " + std::to_string(i));
      p *= g[j];
      run.push_back(static_cast<int>(j++));
    }
    if (p != t[i]) refuse("logical dim " + std::to_string(i) + " (" + std::to_string(t[i]) + ") is not covered");
    runs.push_back(std::move(run));
  }
  for (; j < g.size(); ++j)
    if (g[j] != 1) refuse("layout dim " + std::to_string(j) + " is left over");
  return runs;
}

// D3: rmem engines are per instance; smem engines per CTA (topologies outermost first, the
// CTA index is the device index divided by the devices below the `cta` topology); gmem one.
int64_t engine_of(const Mesh& mesh, const std::vector<int64_t>& mesh_coord, Storage storage) {
  if (storage == Storage::Gmem) return 0;
  int64_t device = mesh.device_of(mesh_coord);
  if (storage == Storage::Rmem) return device;
  const auto& topos = mesh.topologies();
  for (size_t i = 0; i < topos.size(); ++i) {
    if (topos[i].name != "cta") continue;
    int64_t below = 1;
    for (size_t j = i + 1; j < topos.size(); ++j) {
      if (!topos[j].num_devices) fail(rule::kMeshExtentStatic, "smem engines need static extents below the cta topology");
      below = checked_mul(below, *topos[j].num_devices);
    }
    return device / below;
  }
  return 0;  // no cta topology: the whole mesh lives in one CTA
}

// §7.2: Split(k) substitutes the mesh coordinate into layout dim k.
std::vector<int64_t> global_coord(const ShardLayout& sl, const std::vector<int64_t>& mesh_coord,
                                  const std::vector<int64_t>& local) {
  std::vector<int64_t> loc = local_extents(sl);
  auto b = split_binding(sl);
  if (local.size() != loc.size() || mesh_coord.size() != static_cast<size_t>(sl.mesh().rank()))
    fail(rule::in(rule::kCoordInDomain, "§7.1.1"), "coordinate ranks do not match the shard layout");
  std::vector<int64_t> g(local.size());
  for (size_t k = 0; k < g.size(); ++k) {
    if (local[k] < 0 || local[k] >= loc[k]) fail(rule::in(rule::kCoordInDomain, "§7.1.1"), "local coordinate outside local_shape");
    g[k] = b[k] ? checked_add(checked_mul(mesh_coord[*b[k]], loc[k]), local[k]) : local[k];
  }
  return g;
}

PhysicalElement physical_element(const ShardLayout& sl, Storage storage, const std::vector<int64_t>& mesh_coord,
                                 const std::vector<int64_t>& local) {
  for (int a = 0; a < sl.mesh().rank(); ++a)
    if (mesh_coord.at(a) < 0 || mesh_coord[a] >= sl.mesh().extent(a))
      fail(rule::in(rule::kCoordInDomain, "§5"), "mesh coordinate outside the mesh");
  std::vector<int64_t> g = global_coord(sl, mesh_coord, local);
  return {engine_of(sl.mesh(), mesh_coord, storage), sl.layout()->apply(shard_text::coord_in(g, sl.shape()))};
}

std::vector<std::vector<int64_t>> row_major_coords(const std::vector<int64_t>& extents) {
  int64_t n = 1;
  for (int64_t e : extents) n = checked_mul(n, e);
  if (n > (int64_t{1} << 20)) fail(rule::kResourceLimit, "more than 2^20 points to enumerate");
  std::vector<std::vector<int64_t>> out;
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> c(extents.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(c);
    for (size_t k = c.size(); k-- > 0;) {
      if (++c[k] < extents[k]) break;
      c[k] = 0;
    }
  }
  return out;
}

int64_t row_major_index(const std::vector<int64_t>& coord, const std::vector<int64_t>& extents) {
  int64_t i = 0;
  for (size_t k = 0; k < coord.size(); ++k) i = checked_add(checked_mul(i, extents[k]), coord[k]);
  return i;
}

}  // namespace tfspec
