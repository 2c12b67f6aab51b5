// §7.1.1 / D5 sugar canonicalization and §7.4 / §7.1.2 / D4 Reshard typeinfer.
#include "tfspec/reference/canonical.hpp"

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/json_text.hpp"
#include "shard/shard_text_util.hpp"

namespace tfspec {

using shard_text::split_top;
using shard_text::trim;

namespace {

// Position of the word `w` at parenthesis depth 0, surrounded by whitespace; npos if absent.
size_t find_word(std::string_view s, std::string_view w) {
  int depth = 0;
  for (size_t i = 0; i + w.size() <= s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth != 0 || i == 0 || !std::isspace(static_cast<unsigned char>(s[i - 1]))) continue;
    if (s.substr(i, w.size()) == w && (i + w.size() == s.size() || std::isspace(static_cast<unsigned char>(s[i + w.size()]))))
      return i;
  }
  return std::string_view::npos;
}

// `m.NAME`, `m.axes[i]`, or a bare `NAME`: the mesh axis index.
int mesh_axis_ref(const std::string& ref, const Mesh& mesh) {
  std::string r = trim(ref);
  size_t dot = r.find('.');
  if (dot != std::string::npos) {  // `MESH.NAME`: the mesh's name is an identifier
    const std::string head = trim(r.substr(0, dot));
    bool ident = !head.empty() && (std::isalpha(static_cast<unsigned char>(head[0])) || head[0] == '_');
    for (char c : head) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ident) fail(rule::kSugarText, "'" + r.substr(0, 80) + "' is not m.NAME, m.axes[i] or NAME");
  }
  std::string tail = dot == std::string::npos ? r : trim(r.substr(dot + 1));
  if (tail.rfind("axes[", 0) == 0 && tail.back() == ']') {
    int64_t i = require_int(parse_inttuple(tail.substr(5, tail.size() - 6)), "mesh.axes index");
    if (i < 0 || i >= mesh.rank()) fail(rule::kMeshAxisRange, "mesh.axes[" + std::to_string(i) + "] of a rank-" + std::to_string(mesh.rank()) + " mesh");
    return static_cast<int>(i);
  }
  return mesh.axis(tail).index;
}

}  // namespace

bool looks_like_sugar(std::string_view text) {
  std::string t = trim(text);
  return !t.empty() && t.front() == '(' && !shard_text::starts_with_call(t, "shard");
}

ParsedSugar parse_sugar(std::string_view text, const std::optional<Mesh>& mesh_arg) {
  std::string t = trim(text);
  std::optional<Mesh> mesh = mesh_arg;
  if (size_t on = find_word(t, "on"); on != std::string::npos) {
    if (mesh) fail(rule::kSugarText, "the mesh is given twice (`on MESH` and the mesh argument)");
    mesh = parse_mesh(t.substr(on + 2));
    t = trim(t.substr(0, on));
  }
  if (!mesh) fail(rule::kSugarText, "sugar `(N @ m.a, ...)` needs a mesh (`on MESH` or the mesh argument)");
  std::string where;
  if (size_t w = find_word(t, "where"); w != std::string::npos) {
    where = trim(t.substr(w + 5));
    t = trim(t.substr(0, w));
  }
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') fail(rule::kSugarText, "sugar is a parenthesized list `(N @ m.a, N, ...)`");
  Sugar s;
  std::string body = t.substr(1, t.size() - 2);
  if (!trim(body).empty())
    for (const auto& e : split_top(body, ',')) {
      size_t at = e.find('@');
      SugarEntry entry{parse_inttuple(at == std::string::npos ? e : e.substr(0, at)), std::nullopt};
      if (!entry.extent.is_leaf()) fail(rule::kSugarText, "a sugar entry is one extent, got '" + e + "'");
      if (at != std::string::npos) entry.mesh_axis = mesh_axis_ref(e.substr(at + 1), *mesh);
      s.entries.push_back(entry);
    }
  if (!where.empty())
    for (const auto& o : split_top(where, ',')) {
      size_t eq = o.find('=');
      if (eq == std::string::npos) fail(rule::kSugarText, "a `where` entry is AXIS=ATTR, got '" + o + "'");
      ShardAttr a = parse_shard_attr(o.substr(eq + 1));
      if (std::holds_alternative<Split>(a)) fail(rule::kSugarText, "place Splits with `N @ m.a`, not in `where`");
      s.overrides.emplace_back(mesh_axis_ref(o.substr(0, eq), *mesh), a);
    }
  return ParsedSugar{std::move(s), std::move(*mesh)};
}

// §7.1.1 / D5; omitted mesh axes are Broadcast (§6); the result has S None (§7.1.2).
ShardLayout canonicalize(const Sugar& sugar, const Mesh& mesh) {
  std::vector<IntTuple> g;
  std::vector<ShardAttr> attrs(static_cast<size_t>(mesh.rank()), Broadcast{});
  std::vector<bool> assigned(attrs.size(), false);
  auto label = [&](int a) { return mesh.names() ? "m." + (*mesh.names())[a] : "m.axes[" + std::to_string(a) + "]"; };
  auto claim = [&](int a) {
    if (assigned.at(a)) fail(rule::kSugarAxisReused, "mesh axis " + label(a) + " is given two attrs");
    assigned[a] = true;
  };
  for (const auto& e : sugar.entries) {
    if (!e.mesh_axis) {
      g.push_back(e.extent);
      continue;
    }
    const int a = *e.mesh_axis;
    claim(a);
    const int64_t ext = mesh.extent(a);  // fails closed on a symbolic / None mesh extent
    if (!e.extent.is_int())
      fail(rule::kSugarSymbolic, "`" + describe_leaf(e.extent) + " @ " + label(a) + "`: divisibility of a symbolic extent must be proved (`tfspec prove`)");
    const int64_t n = e.extent.value();
    if (n < 1) fail(rule::in(rule::kExtentPositive, "§3"), "sugar extent " + std::to_string(n) + " is not >= 1");
    if (n % ext != 0)
      fail(rule::kSugarDivides, "`" + std::to_string(n) + " @ " + label(a) + "`: the axis extent " + std::to_string(ext) + " does not divide " + std::to_string(n));
    attrs[a] = Split{static_cast<int64_t>(g.size())};
    g.push_back(IntTuple(ext));
    if (n != ext) g.push_back(IntTuple(n / ext));  // D5: mesh factor outer, residual a non-Split dim
  }
  for (const auto& [a, attr] : sugar.overrides) {
    claim(a);
    attrs[a] = attr;
  }
  return ShardLayout(std::make_shared<Layout>(Layout::unmaterialized(IntTuple::tuple(std::move(g)))), std::move(attrs), mesh);
}

ShardLayout read_shard_layout(const Json& j, const std::optional<Mesh>& mesh) {
  if (j.is_object()) {
    if (mesh) fail(rule::kShardText, "a JSON shard layout carries its own mesh; drop the mesh argument");
    return shard_from_json(j);
  }
  if (!j.is_string()) fail(rule::in(rule::kJsonType, "§7"), "a shard layout is JSON or text (sugar or shard(...))");
  std::string t = trim(j.get<std::string>());
  if (!t.empty() && t.front() == '{') {
    Json parsed;
    try {
      parsed = parse_json_text(t, "a JSON shard layout");
    } catch (const Json::exception& e) {
      fail(rule::in(rule::kJsonMalformed, "§7"), std::string("malformed JSON shard layout: ") + e.what());
    }
    return read_shard_layout(parsed, mesh);
  }
  if (shard_text::starts_with_call(t, "shard")) {
    if (mesh) fail(rule::kShardText, "shard(...) carries its own mesh; drop the mesh argument");
    return parse_shard_layout(t);
  }
  ParsedSugar ps = parse_sugar(t, mesh);
  return canonicalize(ps.sugar, ps.mesh);
}

// ---- §7.1.2 / D4 materialization forms

IntTuple per_instance_strides(const ShardLayout& sl) {
  auto loc = flat_leaves(local_shape(sl));
  auto bind = split_binding(sl);
  std::vector<int64_t> s(loc.size());
  int64_t step = 1;
  for (size_t k = loc.size(); k-- > 0;) {
    s[k] = bind[k] ? 0 : step;  // a Split dim contributes 0 to the intra-engine offset
    step = checked_mul(step, loc[k].value());
  }
  return shard_text::with_leaves(sl.shape(), s);
}

IntTuple shared_strides(const ShardLayout& sl) {
  auto g = flat_extents(sl);
  std::vector<int64_t> s(g.size());
  int64_t step = 1;
  for (size_t k = g.size(); k-- > 0;) {
    s[k] = step;
    step = checked_mul(step, g[k]);
  }
  return shard_text::with_leaves(sl.shape(), s);
}

static bool has_unmaterialized(const LayoutBase& l) {
  if (l.kind() == LayoutKind::Layout) return !static_cast<const Layout&>(l).materialized();
  if (l.kind() == LayoutKind::Shard) return has_unmaterialized(*static_cast<const ShardLayout&>(l).layout());
  const auto& c = static_cast<const ComposedLayout&>(l);
  return (c.inner() && has_unmaterialized(*c.inner())) || (c.outer() && has_unmaterialized(*c.outer()));
}

static int level(Storage s) { return static_cast<int>(s); }  // rmem < smem < gmem

bool per_instance_direction(Storage src, Storage dst) {
  if (level(dst) != level(src)) return level(dst) < level(src);
  return dst == Storage::Rmem;
}

// §7.4: the output keeps TensorType.shape; §7.1.2: strides materialized unless given.
TensorType reshard_typeinfer(const TensorType& src, const ShardLayout& dst, Storage dst_storage) {
  LayoutPtr layout = dst.layout();
  if (layout->kind() == LayoutKind::Layout && !static_cast<const Layout&>(*layout).materialized()) {
    ShardLayout canonical(dst.layout(), dst.attrs(), dst.mesh());  // the forms need a valid canonical layout
    IntTuple strides = per_instance_direction(src.storage, dst_storage) ? per_instance_strides(canonical) : shared_strides(canonical);
    layout = std::make_shared<Layout>(dst.shape(), strides);
  }
  auto out = std::make_shared<ShardLayout>(ShardLayout::unchecked(layout, dst.attrs(), dst.mesh()));
  ShardCheckOptions opts;
  opts.storage = dst_storage;
  opts.tensor_shape = src.shape;
  validate_shard_layout(*out, opts);  // cheap rules first: a size mismatch never reaches the D3 enumeration
  // After typeinfer no reachable S is None (§7.1.2): a composed layout must bring its strides.
  if (has_unmaterialized(*layout))
    fail(rule::kShardStrideMaterialized, "strides are still un-materialized (None) after typeinfer: a composed layout must bring its strides", "layout.stride");
  return TensorType{src.shape, out, dst_storage};
}

}  // namespace tfspec
