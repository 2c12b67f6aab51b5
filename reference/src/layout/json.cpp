// JSON encoding of reference objects (spec/PROTOCOL.md).
#include "tfspec/reference/json.hpp"

#include <map>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

constexpr int64_t kExactDouble = int64_t{1} << 53;

IntTuple from_json_rec(const Json& j, int depth, bool wildcard) {
  if (depth > kMaxDepth) fail(rule::kNestingTooDeep, "JSON nests deeper than " + std::to_string(kMaxDepth) + " levels");
  if (j.is_null()) return IntTuple::none();
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(rule::kIntLiteralRange, "integer " + j.dump() + " does not fit int64");
    return IntTuple(j.get<int64_t>());
  }
  if (j.is_number_float()) fail(rule::in(rule::kJsonType, "§1"), "IntTuple entries are integers, got " + j.dump());
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
  fail(rule::in(rule::kJsonType, "§1"), "an IntTuple is a number, string, null or array; got " + std::string(j.type_name()));
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
  if (!j.is_object() || !j.contains("shape")) fail(rule::in(rule::kJsonType, "§3"), "a Layout is an object with a 'shape'");
  if (j.contains("kind") && j["kind"] != "layout") fail(rule::in(rule::kJsonType, "§3"), "expected kind 'layout', got " + j["kind"].dump());
  IntTuple shape = inttuple_from_json(j["shape"]);
  const char* key = j.contains("stride") ? "stride" : (j.contains("strides") ? "strides" : nullptr);  // D11
  if (!key) return Layout(shape);
  if (j[key].is_null()) return Layout::unmaterialized(shape);
  return Layout(shape, inttuple_from_json(j[key]));
}

Json to_json(const Diagnostic& d) {
  return Json{{"rule", d.rule}, {"clause", d.clause}, {"message", d.message}, {"path", d.path}};
}

}  // namespace tfspec
