// Fuzz target: the layout notation (IntTuple, expressions, Layout, ComposedLayout text).
// Findings: crashes, non-SpecError exceptions, and print -> parse not being the identity (text
// and JSON); small concrete layouts are also checked (injectivity walk) and drawn (the offset
// picture and the check picture, issue 14: an SVG document or a SpecError, nothing else).
#include "fuzz_support.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

using namespace tfspec;

static void layout_round_trip(const std::string& text) {
  LayoutPtr l;
  try {
    l = parse_any_layout(text);
  } catch (const SpecError&) {
    return;
  }
  const std::string printed = to_string(*l);
  LayoutPtr again = parse_any_layout(printed);  // must not throw: the printer's output is notation
  FUZZ_CHECK(to_string(*again) == printed, printed);
  const std::string wire = to_json(*l).dump();
  FUZZ_CHECK(to_string(*any_layout_from_json(Json::parse(wire))) == printed, wire);
  if (l->kind() != LayoutKind::Shard && is_concrete(l->shape())) {
    try {
      if (product_int(l->shape()) <= (1 << 14)) (void)check_layout(*l);
    } catch (const SpecError&) {
    }
    for (auto draw : {draw::layout_svg, draw::check_svg}) {  // small ones only, so the target keeps its speed
      try {
        if (product_int(l->shape()) > 256) break;
        const std::string svg = draw(*l);
        FUZZ_CHECK(svg.starts_with("<?xml") && svg.ends_with("</svg>\n"), printed);
      } catch (const SpecError&) {
      }
    }
  }
}

static void pieces(const std::string& text) {
  try {
    IntTuple t = parse_inttuple(text);
    const std::string printed = to_string(t);
    FUZZ_CHECK(parse_inttuple(printed) == t, printed);
    FUZZ_CHECK(inttuple_from_json(Json::parse(to_json(t).dump())) == t, printed);
  } catch (const SpecError&) {
  }
  try {
    ShapeDim d = parse_dim(text);
    const std::string printed = to_string(d);
    FUZZ_CHECK(structurally_equal(parse_dim(printed), d), printed);
    std::set<std::string> vars;
    collect_vars(d, vars);
    Bindings env;
    int64_t v = 3;
    for (const auto& n : vars) env[n] = v++;
    (void)evaluate(d, env);  // overflow and division by zero are SpecErrors
  } catch (const SpecError&) {
  }
  try {
    IntTuple c = parse_coord(text);
    FUZZ_CHECK(parse_coord(coord_to_string(c)) == c, coord_to_string(c));
  } catch (const SpecError&) {
  }
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  layout_round_trip(text);
  pieces(text);
  return 0;
}
