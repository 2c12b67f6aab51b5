// Small text helpers shared by the shard-model parsers (mesh, shard layout, sugar).
#pragma once
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/inttuple.hpp"

namespace tfspec::shard_text {

inline std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Splits on `sep` outside (), [] and quoted strings ("..." or '...', with backslash escapes).
inline std::vector<std::string> split_top(std::string_view s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == sep && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

inline bool starts_with_call(std::string_view s, std::string_view name) {
  std::string t = trim(s);
  if (t.size() < name.size() + 2 || t.compare(0, name.size(), name) != 0) return false;
  size_t i = name.size();
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  return i < t.size() && t[i] == '(' && t.back() == ')';
}

// The text between the outer parentheses of `name(...)`.
inline std::string call_body(std::string_view s) {
  std::string t = trim(s);
  size_t p = t.find('(');
  return t.substr(p + 1, t.size() - p - 2);
}

// A flat coordinate in the structure of `shape` (an int for a leaf shape), the form
// LayoutBase::apply takes.
inline IntTuple coord_in(const std::vector<int64_t>& flat, const IntTuple& shape) { return unflatten(flat, shape); }

// The IntTuple with `shape`'s structure and the given flat leaf values.
inline IntTuple with_leaves(const IntTuple& shape, const std::vector<int64_t>& flat) { return coord_in(flat, shape); }

}  // namespace tfspec::shard_text
