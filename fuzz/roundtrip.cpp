// Fuzz target: the JSON forms. Any object the decoders accept must survive JSON -> object ->
// JSON -> object and object -> text -> object unchanged. Malformed JSON is not a finding; a
// decoder letting a nlohmann exception escape (instead of a json-type SpecError) is.
#include "fuzz_support.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/json_text.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"

using namespace tfspec;

static void layout(const Json& j) {
  LayoutPtr l = any_layout_from_json(j);
  const Json wire = to_json(*l);
  LayoutPtr back = any_layout_from_json(Json::parse(wire.dump()));
  FUZZ_CHECK(to_json(*back) == wire, wire.dump());
  const std::string printed = to_string(*l);
  FUZZ_CHECK(to_string(*parse_any_layout(printed)) == printed, printed);
}

static void inttuple(const Json& j) {
  IntTuple t = inttuple_from_json(j);
  FUZZ_CHECK(inttuple_from_json(Json::parse(to_json(t).dump())) == t, to_string(t));
  FUZZ_CHECK(parse_inttuple(to_string(t)) == t, to_string(t));
}

static void mesh(const Json& j) {
  Mesh m = mesh_from_json(j);
  FUZZ_CHECK(mesh_from_json(Json::parse(mesh_to_json(m).dump())) == m, to_string(m));
  FUZZ_CHECK(parse_mesh(to_string(m)) == m, to_string(m));
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  Json j;
  bool too_deep = false;
  try {
    j = parse_json_text_cut(text, too_deep);  // the one limit (json_text.hpp)
  } catch (const Json::exception&) {  // malformed JSON, or a number beyond double (out_of_range 406)
    return 0;
  }
  if (too_deep) return 0;
  try {
    (void)j.dump();
  } catch (const Json::type_error&) {
    return 0;  // invalid UTF-8 inside a string: not a JSON document the protocol accepts
  }
  for (auto* f : {layout, inttuple, mesh}) {
    try {
      f(j);
    } catch (const SpecError&) {
    }
  }
  return 0;
}
