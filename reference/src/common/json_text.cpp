// One nesting limit for every JSON text tfspec reads (json_text.hpp).
#include "tfspec/reference/json_text.hpp"

#include <iterator>

#include "tfspec/reference/error.hpp"

namespace tfspec {

Json parse_json_text_cut(std::string_view text, bool& too_deep) {
  too_deep = false;
  // nlohmann's parser keeps its own stack (no recursion); the callback drops every value deeper
  // than the limit before it is built, so the document held afterwards is at most that deep.
  return Json::parse(text.begin(), text.end(), [&too_deep](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return depth <= kMaxJsonDepth;
  });
}

std::string too_deep_message(std::string_view what) {
  return std::string(what) + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels (the limit for any JSON tfspec reads)";
}

Json parse_json_text(std::string_view text, std::string_view what) {
  bool too_deep = false;
  Json j = parse_json_text_cut(text, too_deep);
  if (too_deep) fail(rule::kNestingTooDeep, too_deep_message(what));
  return j;
}

Json parse_json_stream(std::istream& in, std::string_view what) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_json_text(text, what);
}

}  // namespace tfspec
