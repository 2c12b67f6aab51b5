// Text and JSON forms of Mesh and ShardLayout (spec/SHARD.md). The generic printer, JSON codec
// and text parser reach them through the closed dispatch on LayoutKind in any_layout.cpp.

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "shard/shard_text_util.hpp"

namespace tfspec {

using shard_text::split_top;
using shard_text::trim;

namespace {

// §7.1.2: `()` / `[]` for a non-empty shape is not the None sentinel.
[[noreturn]] void empty_stride(const std::string& shape) {
  fail(rule::kStrideEmptyNotNone, "stride () is a concrete rank-0 stride, not the un-materialized None; shape " + shape + " needs its strides or None", "layout.stride");
}

LayoutPtr underlying_from_text(const std::string& text) {
  std::string compact;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  if (compact.size() > 3 && compact.ends_with(":()") && !compact.starts_with("():")) empty_stride(compact.substr(0, compact.size() - 3));
  return parse_any_layout(text);
}

LayoutPtr underlying_from_json(const Json& j) {
  if (j.is_string()) return underlying_from_text(j.get<std::string>());
  if (j.is_object()) {
    for (const char* k : {"stride", "strides"})
      if (j.contains(k) && j[k].is_array() && j[k].empty() && j.contains("shape") && !(j["shape"].is_array() && j["shape"].empty()))
        empty_stride(j["shape"].dump());
  }
  return any_layout_from_json(j);
}

Json attr_to_json(const ShardAttr& a) {
  if (auto* s = std::get_if<Split>(&a)) return Json{{"kind", "split"}, {"axis", s->axis}};
  if (std::holds_alternative<Broadcast>(a)) return Json{{"kind", "broadcast"}};
  if (std::holds_alternative<Dynamic>(a)) return Json{{"kind", "dynamic"}};
  return Json{{"kind", "partial"}, {"reduction", std::get<Partial>(a).reduction}};
}

ShardAttr attr_from_json(const Json& j) {
  if (j.is_string()) return parse_shard_attr(j.get<std::string>());
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    fail(rule::in(rule::kJsonType, "§6"), "a ShardAttr is {\"kind\": split|broadcast|dynamic|partial, ...} or sugar text");
  std::string k = j["kind"];
  if (k == "split") {
    if (!j.contains("axis")) fail(rule::in(rule::kJsonType, "§6"), "a split attr needs an 'axis'");
    return Split{require_int(inttuple_from_json(j["axis"]), "Split axis")};
  }
  if (k == "broadcast") return Broadcast{};
  if (k == "dynamic") return Dynamic{};
  if (k == "partial") {
    if (!j.contains("reduction")) return Partial{};
    if (!j["reduction"].is_string()) fail(rule::in(rule::kJsonType, "§6"), "a Partial reduction is a string");
    return Partial{j["reduction"].get<std::string>()};
  }
  fail(rule::in(rule::kJsonType, "§6"), "unknown ShardAttr kind '" + k + "'");
}

Topology topology_from_json(const Json& j) {
  // §5: a raw string where a Topology is expected is rejected; surface names go through make_mesh.
  if (j.is_string())
    fail(rule::kMeshTopologyString, "topology given as the raw string " + j.dump() + "; resolve surface names (make_mesh / mesh text) to a Topology first");
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    fail(rule::in(rule::kJsonType, "§5"), "a Topology is {\"name\": str, \"num_devices\": int | null}");
  Topology t{j["name"].get<std::string>(), std::nullopt};
  if (j.contains("num_devices") && !j["num_devices"].is_null()) t.num_devices = require_int(inttuple_from_json(j["num_devices"]), "num_devices");
  return t;
}

}  // namespace

// ---- Mesh JSON

Json mesh_to_json(const Mesh& m) {
  Json topos = Json::array();
  for (const auto& t : m.topologies())
    topos.push_back(Json{{"name", t.name}, {"num_devices", t.num_devices ? Json(*t.num_devices) : Json(nullptr)}});
  Json names = m.names() ? Json(*m.names()) : Json(nullptr);
  return Json{{"topologies", topos}, {"layout", to_json(*m.layout())}, {"names", names}};
}

Mesh mesh_from_json(const Json& j) {
  if (j.is_string()) return parse_mesh(j.get<std::string>());
  if (!j.is_object()) fail(rule::in(rule::kJsonType, "§5"), "a Mesh is a JSON object or mesh text");
  std::vector<Topology> topos;
  if (j.contains("topologies")) {
    const Json& t = j["topologies"];
    if (t.is_array()) {
      for (const auto& x : t) topos.push_back(topology_from_json(x));
    } else {
      topos.push_back(topology_from_json(t));  // a single Topology normalizes to a one-element tuple (§5)
    }
  } else if (j.contains("topology")) {
    topos.push_back(topology_from_json(j["topology"]));
  }
  if (!j.contains("layout")) fail(rule::in(rule::kJsonType, "§5"), "a Mesh needs a 'layout'");
  std::optional<std::vector<std::string>> names;
  if (j.contains("names") && !j["names"].is_null()) {
    if (!j["names"].is_array()) fail(rule::in(rule::kJsonType, "§5"), "mesh names are an array of strings");
    std::vector<std::string> n;
    for (const auto& x : j["names"]) {
      if (!x.is_string()) fail(rule::in(rule::kJsonType, "§5"), "mesh names are strings");
      n.push_back(x.get<std::string>());
    }
    names = n;
  }
  return Mesh(std::move(topos), any_layout_from_json(j["layout"]), names);
}

// ---- ShardLayout text and JSON

ShardLayout parse_shard_layout(std::string_view text) {
  if (!shard_text::starts_with_call(text, "shard"))
    fail(rule::kShardText, "a shard layout is written shard(LAYOUT; ATTRS; MESH)");
  auto parts = split_top(shard_text::call_body(text), ';');
  if (parts.size() != 3) fail(rule::kShardText, "shard(LAYOUT; ATTRS; MESH) has three ';'-separated parts, got " + std::to_string(parts.size()));
  LayoutPtr layout = underlying_from_text(parts[0]);
  std::vector<ShardAttr> attrs;
  if (!parts[1].empty())
    for (const auto& a : split_top(parts[1], ',')) attrs.push_back(parse_shard_attr(a));
  return ShardLayout::unchecked(layout, std::move(attrs), parse_mesh(parts[2]));
}

std::string to_string(const ShardLayout& sl) {
  std::string attrs;
  for (size_t i = 0; i < sl.attrs().size(); ++i) attrs += (i ? "," : "") + to_string(sl.attrs()[i]);
  return "shard(" + to_string(*sl.layout()) + "; " + attrs + "; " + to_string(sl.mesh()) + ")";
}

Json shard_to_json(const ShardLayout& sl) {
  Json attrs = Json::array();
  for (const auto& a : sl.attrs()) attrs.push_back(attr_to_json(a));
  return Json{{"kind", "shard"}, {"layout", to_json(*sl.layout())}, {"attrs", attrs}, {"mesh", mesh_to_json(sl.mesh())}};
}

ShardLayout shard_from_json(const Json& j) {
  if (j.is_string()) return parse_shard_layout(j.get<std::string>());
  if (j.is_object() && (!j.contains("layout") || j["layout"].is_null()))
    fail(rule::kShardLayoutMissing, "a ShardLayout binds a layout; the JSON object has none");
  if (!j.is_object() || !j.contains("attrs") || !j.contains("mesh"))
    fail(rule::in(rule::kJsonType, "§7"), "a ShardLayout is {\"kind\":\"shard\", \"layout\", \"attrs\", \"mesh\"}");
  if (!j["attrs"].is_array()) fail(rule::in(rule::kJsonType, "§7.2"), "attrs is an array");
  static thread_local int depth = 0;  // a shard layout may bind another one: bound the recursion
  struct Guard {
    Guard() {
      if (++depth > kMaxDepth) {
        --depth;
        fail(rule::in(rule::kNestingTooDeep, "§7"), "shard layouts nest too deeply");
      }
    }
    ~Guard() { --depth; }
  } guard;
  std::vector<ShardAttr> attrs;
  for (const auto& a : j["attrs"]) attrs.push_back(attr_from_json(a));
  return ShardLayout::unchecked(underlying_from_json(j["layout"]), std::move(attrs), mesh_from_json(j["mesh"]));
}

}  // namespace tfspec
