// CuTe's notation, as the DSL prints it in types, into tfspec's (spec/CUTE_DSL.md §1). The two
// agree on `shape:stride`; the DSL adds `?{div=N}` for a dynamic integer of known divisibility,
// `S<B,M,S>` for a swizzle (tfspec: `Sw<B,M,S>`) and `[a:b;c:d]` for a by-mode tiler.
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

}  // namespace tfspec::cute_dsl
