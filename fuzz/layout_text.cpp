// Fuzz target: the layout notation (IntTuple, expressions, Layout, ComposedLayout text).
// Findings: crashes, non-SpecError exceptions, and print -> parse not being the identity (text
// and JSON); small concrete layouts are also checked (injectivity walk) and drawn (the offset
// picture and the check picture, issue 14: an SVG document or a SpecError, nothing else), and
// printed (issue 25); symbolic ones are bound to small values and drawn.
#include "fuzz_support.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

using namespace tfspec;

// The pictures and the terminal print (issue 25) of a small concrete layout: an SVG document, a
// table ending in its +---+ rule, a TikZ document, or a SpecError; nothing else.
static void draw_small(const LayoutBase& l, const std::string& printed) {
  try {
    if (product_int(l.shape()) > 256) return;  // small ones only, so the target keeps its speed
  } catch (const SpecError&) {
    return;
  }
  for (auto draw : {draw::layout_svg, draw::check_svg}) {
    try {
      const std::string svg = draw(l);
      FUZZ_CHECK(svg.starts_with("<?xml") && svg.ends_with("</svg>\n"), printed);
    } catch (const SpecError&) {
    }
  }
  try {
    FUZZ_CHECK(draw::print_layout(l).ends_with("+\n"), printed);
    FUZZ_CHECK(draw::print_latex(l).ends_with("\\end{document}\n"), printed);
  } catch (const SpecError&) {
  }
}

// `--bind`: every symbol given a small value (2, 3, ...); the bound layout has no symbol left and
// draws like any concrete one.
static void bound(const LayoutBase& l, const std::string& printed) {
  const std::set<std::string> symbols = layout_symbols(l);
  if (symbols.empty()) return;
  Bindings b;
  int64_t v = 2;
  for (const auto& n : symbols) b[n] = v++;
  LayoutPtr c;
  try {
    c = bind_symbols(l, b);
  } catch (const SpecError&) {
    return;
  }
  FUZZ_CHECK(layout_symbols(*c).empty(), printed);
  draw_small(*c, to_string(*c));
}

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
    draw_small(*l, printed);
  }
  bound(*l, printed);
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
