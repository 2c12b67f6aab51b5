// Reading JSON text, from any source: one nesting limit for every JSON tfspec reads (a protocol
// request, an adapter's reply, a kernel description, a propagation program, a corpus file, a
// Python argument). A value nested deeper than kMaxJsonDepth is never built: copying, printing or
// destroying a 10^5-deep document would recurse that deep and exhaust the stack. Refusal:
// nesting-too-deep (§1), naming what was being read.
#pragma once
#include <istream>
#include <string>
#include <string_view>

#include "tfspec/reference/inttuple.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec {

// IntTuples nest up to kMaxDepth; the objects around them (a request, its args, a layout, a
// pipeline's operand) add a few levels more. No legal input of any reader comes near it.
inline constexpr int kMaxJsonDepth = 2 * kMaxDepth + 16;

// Parses `text`. Malformed text throws Json::parse_error (each caller names its own rule for
// that); nesting deeper than kMaxJsonDepth throws SpecError nesting-too-deep, naming `what`.
Json parse_json_text(std::string_view text, std::string_view what);
Json parse_json_stream(std::istream& in, std::string_view what);

// As parse_json_text, but too deep is reported through `too_deep` (the value is then cut at the
// limit) so a caller that must still read a field of the outer object (serve's seq) can.
Json parse_json_text_cut(std::string_view text, bool& too_deep);

std::string too_deep_message(std::string_view what);

}  // namespace tfspec
