// CuTe's notation, as the DSL prints it in types, into tfspec's (spec/CUTE_DSL.md §1). The two
// agree on `shape:stride`; the DSL adds `?{div=N}` for a dynamic integer of known divisibility,
// `S<B,M,S>` for a swizzle (tfspec: `Sw<B,M,S>`) and `[a:b;c:d]` for a by-mode tiler.
#include <cctype>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {

std::string to_tfspec_notation(std::string_view cute, Symbols& syms) {
  std::string out;
  for (size_t i = 0; i < cute.size(); ++i) {
    const char c = cute[i];
    if (c == '?') {  // `?` or `?{div=N}` / `?{i64 div=N}`: a fresh symbol
      const std::string name = "s" + std::to_string(syms.divisors.size());
      int64_t div = 1;
      if (i + 1 < cute.size() && cute[i + 1] == '{') {
        const size_t close = cute.find('}', i);
        if (close == std::string_view::npos) fail(rule::kCuteDslInput, "cute-dsl (§1): unclosed '?{' in " + std::string(cute));
        const std::string_view body = cute.substr(i + 2, close - i - 2);
        const size_t d = body.find("div=");
        if (d != std::string_view::npos) div = std::stoll(std::string(body.substr(d + 4)));
        i = close;
      }
      syms.divisors[name] = div;
      out += name;
    } else if (c == 'S' && i + 1 < cute.size() && cute[i + 1] == '<') {
      out += "Sw";
    } else if (c == '[') {
      out += '(';
    } else if (c == ']') {
      out += ')';
    } else if (c == ';') {
      out += ',';
    } else {
      out += c;
    }
  }
  return out;
}

bool is_static(std::string_view cute) { return cute.find('?') == std::string_view::npos; }

int64_t elem_bits(const std::string& e) {
  if (e == "f64" || e == "i64") return 64;
  if (e == "f32" || e == "i32" || e == "tf32") return 32;
  if (e == "f16" || e == "bf16" || e == "i16") return 16;
  if (e == "i8" || e.rfind("f8", 0) == 0) return 8;
  return 0;
}

LayoutPtr read_layout(std::string_view cute, Symbols& syms) {
  const std::string t = to_tfspec_notation(cute, syms);
  try {
    return parse_pure_layout(t);
  } catch (const SpecError& e) {
    fail(rule::kCuteDslInput, "cute-dsl (§1): the layout \"" + std::string(cute) + "\" does not read: " + e.what());
  }
}

Tiler read_tiler(std::string_view cute) {
  Symbols none;
  const std::string t = to_tfspec_notation(cute, none);
  if (!none.divisors.empty()) fail(rule::kCuteDslInput, "cute-dsl (§1): a dynamic tiler is not read: " + std::string(cute));
  return parse_tiler(t);
}

// The copy's atom width in bits (`..., 128 b>`), 0 when not stated.
int64_t atom_bits(const std::string& atom) {
  const size_t b = atom.rfind(" b>");
  if (b == std::string::npos) return 0;
  size_t a = b;
  while (a > 0 && std::isdigit(static_cast<unsigned char>(atom[a - 1]))) --a;
  return std::stoll(atom.substr(a, b - a));
}

}  // namespace tfspec::cute_dsl
