#include "tree.hpp"

#include <cctype>

namespace cute_adapter {

std::string profile(const Tree& t) {
  if (t.leaf) return "_";
  std::string s = "(";
  for (size_t i = 0; i < t.kids.size(); ++i) s += (i ? "," : "") + profile(t.kids[i]);
  return s + ")";
}

static int64_t parse_int(const std::string& s) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty()) throw Skip("not a concrete integer (symbolic or out of range): CuTe holds run-time integers only");
  return v;
}

Tree tree_from_json(const Json& j) {
  Tree t;
  if (j.is_array()) {
    t.leaf = false;
    for (const auto& x : j) t.kids.push_back(tree_from_json(x));
  } else if (j.is_number_integer()) {
    t.v = j.get<int64_t>();
  } else if (j.is_string()) {
    t.v = parse_int(j.get<std::string>());
  } else {
    throw Skip("not a concrete integer (symbolic, None or boolean): CuTe holds run-time integers only");
  }
  return t;
}

Json tree_to_json(const Tree& t) {
  if (t.leaf) return t.v;
  Json a = Json::array();
  for (const auto& k : t.kids) a.push_back(tree_to_json(k));
  return a;
}

namespace {

// The text notation's IntTuple: an integer or a parenthesized list (§2 notation).
struct Text {
  const std::string& s;
  size_t i = 0;
  Tree tuple() {
    Tree t;
    if (i < s.size() && s[i] == '(') {
      t.leaf = false;
      ++i;
      for (;;) {
        t.kids.push_back(tuple());
        if (i < s.size() && s[i] == ':') throw Skip("by-mode tilers (a tuple of layouts) are not instantiated by this adapter");
        if (i < s.size() && s[i] == ',') { ++i; continue; }
        if (i >= s.size() || s[i] != ')') throw Refusal("parse-error", "expected ')' in " + s);
        ++i;
        return t;
      }
    }
    const size_t b = i;
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == b || (i == b + 1 && s[b] == '-')) throw Skip("not a concrete layout (symbolic, None or composed): outside CuTe's run-time integer Layout");
    t.v = parse_int(s.substr(b, i - b));
    return t;
  }
};

// The prefix product (§3: an absent stride is the compact column-major one).
Tree prefix(const Tree& shape, int64_t& run) {
  Tree t;
  if (shape.leaf) {
    t.v = run;
    run *= shape.v;
    return t;
  }
  t.leaf = false;
  for (const auto& k : shape.kids) t.kids.push_back(prefix(k, run));
  return t;
}

Tree prefix(const Tree& shape) {
  int64_t run = 1;
  return prefix(shape, run);
}

}  // namespace

LayoutArg layout_from_json(const Json& j) {
  LayoutArg l;
  if (j.is_string()) {
    std::string s;
    for (char c : j.get<std::string>()) if (c != ' ') s += c;
    Text t{s};
    l.shape = t.tuple();
    if (t.i == s.size()) l.stride = prefix(l.shape);
    else if (s[t.i] != ':') throw Skip("not a plain concrete layout (composed or trailing text): outside CuTe's run-time integer Layout");
    else {
      ++t.i;
      l.stride = t.tuple();
      if (t.i != s.size()) throw Skip("not a plain concrete layout (composed or trailing text): outside CuTe's run-time integer Layout");
    }
  } else if (j.is_number_integer()) {
    throw Skip("an integer where a layout is expected");
  } else if (j.is_object() && j.value("kind", "layout") == "layout" && j.contains("shape")) {
    l.shape = tree_from_json(j["shape"]);
    const char* key = j.contains("stride") ? "stride" : "strides";
    if (!j.contains(key)) l.stride = prefix(l.shape);
    else if (j[key].is_null()) throw Skip("an un-materialized stride (§7.1.2) has no CuTe form");
    else l.stride = tree_from_json(j[key]);
  } else {
    throw Skip("not a plain layout (composed, shard or malformed): no CuTe Layout form here");
  }
  if (profile(l.shape) != profile(l.stride))
    throw Refusal("stride-congruent", "stride " + profile(l.stride) + " is not congruent with shape " + profile(l.shape) + ": CuTe's make_layout rejects it at compile time");
  return l;
}

}  // namespace cute_adapter
