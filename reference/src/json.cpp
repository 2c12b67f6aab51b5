// JSON encoding of reference objects (spec/PROTOCOL.md).
#include "tfspec/reference/json.hpp"

#include <map>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

constexpr int64_t kExactDouble = int64_t{1} << 53;

struct Codec {
  LayoutKind kind;
  LayoutEncoder enc;
  LayoutDecoder dec;
};
std::map<std::string, Codec>& codecs() {
  static std::map<std::string, Codec> m;
  return m;
}

IntTuple from_json_rec(const Json& j, int depth, bool wildcard) {
  if (depth > kMaxDepth) fail("nesting-too-deep", "§1", "JSON nests deeper than " + std::to_string(kMaxDepth) + " levels");
  if (j.is_null()) return IntTuple::none();
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail("int-literal-range", "§1", "integer " + j.dump() + " does not fit int64");
    return IntTuple(j.get<int64_t>());
  }
  if (j.is_number_float()) fail("json-type", "§1", "IntTuple entries are integers, got " + j.dump());
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (wildcard && s == "_") return IntTuple::none();
    return IntTuple::sym(parse_dim(s));  // digits parse to an Int leaf
  }
  if (j.is_array()) {
    std::vector<IntTuple> c;
    c.reserve(j.size());
    for (const auto& x : j) c.push_back(from_json_rec(x, depth + 1, wildcard));
    return IntTuple::tuple(std::move(c));
  }
  fail("json-type", "§1", "an IntTuple is a number, string, null or array; got " + std::string(j.type_name()));
}

}  // namespace

Json to_json(const IntTuple& t) {
  switch (t.kind()) {
    case IntTuple::Kind::Int: {
      int64_t v = t.value();
      if (v > kExactDouble || v < -kExactDouble) return Json(std::to_string(v));
      return Json(v);
    }
    case IntTuple::Kind::Sym: return Json(to_string(t.dim()));
    case IntTuple::Kind::None: return Json(nullptr);
    case IntTuple::Kind::Tuple: {
      Json a = Json::array();
      for (const auto& c : t.children()) a.push_back(to_json(c));
      return a;
    }
  }
  return Json();
}

IntTuple inttuple_from_json(const Json& j) { return from_json_rec(j, 0, false); }
IntTuple coord_from_json(const Json& j) { return from_json_rec(j, 0, true); }

Json to_json(const Layout& l) {
  Json j{{"kind", "layout"}, {"shape", to_json(l.shape_ref())}};
  j["stride"] = l.materialized() ? to_json(l.stride()) : Json(nullptr);
  return j;
}

Layout layout_from_json(const Json& j) {
  if (j.is_string()) return parse_layout(j.get<std::string>());
  if (!j.is_object() || !j.contains("shape")) fail("json-type", "§3", "a Layout is an object with a 'shape'");
  if (j.contains("kind") && j["kind"] != "layout") fail("json-type", "§3", "expected kind 'layout', got " + j["kind"].dump());
  IntTuple shape = inttuple_from_json(j["shape"]);
  const char* key = j.contains("stride") ? "stride" : (j.contains("strides") ? "strides" : nullptr);  // D11
  if (!key) return Layout(shape);
  if (j[key].is_null()) return Layout::unmaterialized(shape);
  return Layout(shape, inttuple_from_json(j[key]));
}

static Json part_to_json(const LayoutPtr& p) { return p ? to_json(*p) : Json(nullptr); }

Json to_json(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return to_json(static_cast<const Layout&>(l));
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      return Json{{"kind", "composed"}, {"inner", part_to_json(c.inner())}, {"offset", c.offset()},
                  {"outer", part_to_json(c.outer())}};
    }
    default: break;
  }
  for (const auto& [name, codec] : codecs())
    if (codec.kind == l.kind()) return codec.enc(l);
  fail("internal", "§2", "no JSON encoder registered for this layout kind");
}

LayoutPtr any_layout_from_json(const Json& j) {
  if (j.is_string()) return parse_any_layout(j.get<std::string>());
  if (!j.is_object()) fail("json-type", "§2", "a layout is a JSON object or a text-notation string");
  std::string kind = j.contains("kind") && j["kind"].is_string() ? j["kind"].get<std::string>() : "layout";
  if (kind == "layout") return std::make_shared<Layout>(layout_from_json(j));
  if (kind == "composed") {
    // Nesting is bounded because every nested layout's IntTuples are, and composed parts recurse
    // through this function: bound it explicitly too.
    static thread_local int depth = 0;
    struct Guard {
      Guard() {
        if (++depth > kMaxDepth) {
          --depth;
          fail("nesting-too-deep", "§4", "composed layouts nest too deeply");
        }
      }
      ~Guard() { --depth; }
    } g;
    auto part = [&](const char* k) -> LayoutPtr {
      if (!j.contains(k) || j[k].is_null()) return nullptr;
      return any_layout_from_json(j[k]);
    };
    int64_t off = j.contains("offset") ? require_int(inttuple_from_json(j["offset"]), "offset") : 0;
    return std::make_shared<ComposedLayout>(part("inner"), off, part("outer"));
  }
  auto it = codecs().find(kind);
  if (it == codecs().end()) fail("json-type", "§2", "unknown layout kind '" + kind + "'");
  return it->second.dec(j);
}

void register_layout_json(const std::string& kind_name, LayoutKind kind, LayoutEncoder enc, LayoutDecoder dec) {
  codecs()[kind_name] = Codec{kind, enc, dec};
}

}  // namespace tfspec
