// Wire encoders (spec/PROTOCOL.md) beyond the reference objects' own JSON forms.
#include "tfspec/protocol/wire.hpp"

#include "tfspec/reference/notation.hpp"

namespace tfspec::protocol {

Json tiler_to_json(const Tiler& t) {
  if (t.is_layout()) return to_json(*t.layout);
  Json modes = Json::array();
  for (const auto& m : t.modes) modes.push_back(tiler_to_json(m));
  return Json{{"tiler", modes}};
}

static Tiler tiler_from_json_at(const Json& j, int depth) {
  if (depth > kMaxDepth) fail(rule::in(rule::kNestingTooDeep, "§3"), "tiler nests too deeply");
  if (j.is_object() && j.contains("tiler")) {
    if (!j["tiler"].is_array()) fail(rule::in(rule::kJsonType, "§3"), "\"tiler\" is an array of tilers");
    std::vector<Tiler> modes;
    for (const auto& m : j["tiler"]) modes.push_back(tiler_from_json_at(m, depth + 1));
    if (modes.empty()) fail(rule::in(rule::kJsonType, "§3"), "a by-mode tiler needs at least one mode");
    return Tiler(std::move(modes));
  }
  if (j.is_number_integer()) return Tiler(Layout(IntTuple(j.get<int64_t>())));  // n means Layout(n)
  if (j.is_string()) return parse_tiler(j.get<std::string>());
  return Tiler(layout_from_json(j));
}

Tiler tiler_from_json(const Json& j) { return tiler_from_json_at(j, 0); }

Json ints_json(const std::vector<int64_t>& v) {
  Json a = Json::array();
  for (int64_t x : v) a.push_back(to_json(IntTuple(x)));
  return a;
}

Json engines_json(const Engines& e) {
  Json b = Json::object();
  for (const auto& [id, buf] : e.buffers) b[std::to_string(id)] = ints_json(buf);
  return Json{{"storage", to_string(e.storage)}, {"buffers", b}};
}

std::string engines_text(const Engines& e) {
  std::string out;
  for (const auto& [id, buf] : e.buffers) {
    std::vector<IntTuple> v(buf.begin(), buf.end());
    out += to_string(e.storage) + " engine " + std::to_string(id) + ": " + to_string(IntTuple::tuple(v)) + "\n";
  }
  return out;
}

static std::vector<int64_t> ints_of(const IntTuple& t, const char* what) {
  std::vector<int64_t> v;
  for (const auto& x : flat_leaves(t)) v.push_back(require_int(x, what));
  return v;
}

Engines engines_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("storage") || !j.contains("buffers") || !j["buffers"].is_object())
    fail(rule::in(rule::kJsonType, "§7"), "engines are {\"storage\": rmem|smem|gmem, \"buffers\": {\"ENGINE\": [int, ...]}}");
  if (!j["storage"].is_string()) fail(rule::in(rule::kJsonType, "§7"), "engines.storage is a string (rmem | smem | gmem)");
  Engines e{parse_storage(j["storage"].get<std::string>()), {}};
  for (const auto& [k, v] : j["buffers"].items()) {
    int64_t id = require_int(parse_inttuple(k), "engine id");
    e.buffers[id] = ints_of(inttuple_from_json(v), "buffer value");
  }
  return e;
}

Json error_json(const Diagnostic& d) {
  return Json{{"rule", d.rule}, {"clause", d.clause}, {"kind", std::string(to_string(d.kind()))}, {"message", d.message}};
}

std::string dump_line(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace tfspec::protocol
