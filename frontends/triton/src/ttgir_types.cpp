// Types of a TTGIR (spec/TRITON.md §1): `tensor<SHAPE x ELEM, #enc>`, `!ttg.memdesc<SHAPE x ELEM,
// #enc, #smem[, mutable][, ALLOC]>` (the async copy prints it without the prefix), `!tt.ptr<ELEM>`.
#include <cctype>

#include "tfspec/reference/error.hpp"
#include "ttgir_text.hpp"

namespace tfspec::triton::detail {
namespace {

int64_t bits_of(const std::string& elem) {
  if (elem == "f16" || elem == "bf16" || elem == "i16") return 16;
  if (elem == "f32" || elem == "i32" || elem == "tf32") return 32;
  if (elem == "f64" || elem == "i64") return 64;
  if (elem == "i8" || elem == "i1" || elem.starts_with("f8")) return 8;  // i1 is stored as a byte
  return 0;  // unknown: the checks that need the width say so
}

// "128x32x" prefix of sizes, then the element.
void shape_and_elem(std::string_view s, TypeInfo& t) {
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) {
    size_t n = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
    if (n >= s.size() || s[n] != 'x') break;
    t.shape.push_back(std::stoll(std::string(s.substr(0, n))));
    s.remove_prefix(n + 1);
  }
  if (s.starts_with("!tt.ptr<")) {
    t.pointer = true;
    s = s.substr(8, s.size() - 9);
  }
  t.elem = std::string(trim(s));
  t.elem_bits = bits_of(t.elem);
}

bool all_dims(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != 'x') return false;
  return true;
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

size_t find_top(std::string_view s, std::string_view sep, size_t from) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (depth == 0 && i >= from && s.substr(i, sep.size()) == sep) return i;
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if ((c == '>' && (i == 0 || s[i - 1] != '-')) || c == ')' || c == ']' || c == '}') --depth;
  }
  return std::string_view::npos;
}

std::vector<std::string_view> split_top(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t at = find_top(s, sep); at != std::string_view::npos; at = find_top(s, sep, start)) {
    out.push_back(trim(s.substr(start, at - start)));
    start = at + sep.size();
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

TypeInfo parse_type(std::string_view text, const Aliases& aliases, int line) {
  TypeInfo t;
  text = trim(text);
  t.text = std::string(text);
  std::string_view body;
  if (text.starts_with("tensor<")) t.kind = TypeInfo::Kind::Tensor, body = text.substr(7);
  else if (text.starts_with("!ttg.memdesc<")) t.kind = TypeInfo::Kind::MemDesc, body = text.substr(13);
  else if (text.starts_with("<")) t.kind = TypeInfo::Kind::MemDesc, body = text.substr(1);
  else {
    shape_and_elem(text, t);  // a scalar (or a pointer)
    return t;
  }
  if (!body.ends_with(">"))
    fail(rule::kTritonInput, "TTGIR line " + std::to_string(line) + " (§1): a type's '<' is not closed: " + std::string(text));
  const std::vector<std::string_view> parts = split_top(body.substr(0, body.size() - 1), ",");
  shape_and_elem(parts[0], t);
  for (size_t i = 1; i < parts.size(); ++i) {
    if (i == 1 && parts[i].starts_with("#")) {
      t.encoding = parse_encoding(parts[i], aliases);
    } else if (all_dims(parts[i])) {  // a memdesc view's allocation shape: "128x32"
      for (std::string_view d : split_top(parts[i], "x")) t.alloc_shape.push_back(std::stoll(std::string(d)));
    }
  }
  if (t.alloc_shape.empty()) t.alloc_shape = t.shape;
  return t;
}

}  // namespace tfspec::triton::detail
