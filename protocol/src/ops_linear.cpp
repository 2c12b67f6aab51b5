// Linear layouts (extension X2, spec/ALGEBRA.md; issue 32): Triton's ops, the conversions to and
// from CuTe layouts, and `equivalent` across every kind. `eval`, `size`, `cosize`, `injective`,
// `parse`, `banks` and `vector_width` take linear layouts through the ops every kind shares.
#include <string>
#include <vector>

#include "tfspec/protocol/ops.hpp"
#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::protocol {
namespace {

using P = ParamType;

LinearLayout linear_arg(const Json& args, const char* name, const std::string& op) {
  const LayoutPtr l = any_layout_from_json(require_arg(args, name));
  if (l->kind() != LayoutKind::Linear)
    fail(rule::kLinearKind, op + " takes linear layouts; '" + name + "' is " + to_string(*l) + " (convert it with `tfspec layout to_linear`)");
  return static_cast<const LinearLayout&>(*l);
}

OpResult linear_result(const LinearLayout& l) { return {linear_to_json(l), to_string(l)}; }

std::string text_arg(const Json& args, const char* name) {
  const Json& v = require_arg(args, name);
  if (!v.is_string()) fail(rule::kJsonType, std::string("'") + name + "' is a string such as \"lane=32,warp=4\"");
  return v.get<std::string>();
}

std::vector<std::pair<std::string, int64_t>> dims_arg(const Json& args, const char* name) {
  return args.contains(name) ? parse_dim_sizes(text_arg(args, name)) : std::vector<std::pair<std::string, int64_t>>{};
}

std::vector<std::string> names_arg(const Json& args, const char* name) {
  const std::string t = text_arg(args, name);
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= t.size()) {
    size_t e = t.find(',', b);
    if (e == std::string::npos) e = t.size();
    std::string n = t.substr(b, e - b);
    n.erase(0, n.find_first_not_of(" \t"));
    n.erase(n.find_last_not_of(" \t") + 1);
    if (!n.empty() || e < t.size()) out.push_back(n);
    b = e + 1;
  }
  return out;
}

bool flag_arg(const Json& args, const char* name) {
  if (!args.contains(name)) return false;
  if (!args[name].is_boolean()) fail(rule::kJsonType, std::string("'") + name + "' is true or false");
  return args[name].get<bool>();
}

OpResult equivalent_result(const Json& a) {
  const LayoutPtr x = any_layout_from_json(require_arg(a, "a"));
  const LayoutPtr y = any_layout_from_json(require_arg(a, "b"));
  const bool inverse = flag_arg(a, "inverse");
  const Equivalence e = equivalent(*x, *y, inverse);
  Json j{{"equivalent", e.equal}, {"method", e.method}, {"size", e.size_a}};
  const std::string b_name = inverse ? "B^-1" : "B";
  std::string text;
  if (e.equal) {
    text = "equivalent (" + e.method + ", " + std::to_string(e.size_a) + " points)";
  } else if (e.index) {
    j["counterexample"] = Json{{"index", *e.index}, {"a", e.value_a}, {"b", e.value_b}};
    text = "not equivalent: index " + std::to_string(*e.index) + " maps to " + std::to_string(e.value_a) + " in A and " + std::to_string(e.value_b) + " in " + b_name +
           " (" + e.method + ")";
  } else {
    j["size_b"] = e.size_b;
    j["reason"] = e.reason;
    text = "not equivalent: " + e.reason;
  }
  if (!e.note.empty()) {
    j["note"] = e.note;
    text = "note: " + e.note + "\n" + text;
  }
  return {j, text, e.equal ? 0 : 1};
}

}  // namespace

void register_linear_ops(OpRegistry& r) {
  const std::string c = "§2";
  r.add({"layout", "compose", c, "X2 linear layouts: outer(inner(x)), Triton's inner.compose(outer)", {{"inner", P::AnyLayout}, {"outer", P::AnyLayout}},
         [](const Json& a) { return linear_result(compose(linear_arg(a, "inner", "compose"), linear_arg(a, "outer", "compose"))); }});
  r.add({"layout", "invert", c, "X2: the inverse of an invertible linear layout", {{"layout", P::AnyLayout}},
         [](const Json& a) { return linear_result(invert(linear_arg(a, "layout", "invert"))); }});
  r.add({"layout", "pseudo_invert", c, "X2: B with L(B(y)) == y, B(y) the smallest index L maps to y (L surjective)", {{"layout", P::AnyLayout}},
         [](const Json& a) { return linear_result(pseudo_invert(linear_arg(a, "layout", "pseudo_invert"))); }});
  r.add({"layout", "linear_product", c, "X2: Triton's inner * outer (the inner's bits least significant on shared dims)", {{"inner", P::AnyLayout}, {"outer", P::AnyLayout}},
         [](const Json& a) { return linear_result(product(linear_arg(a, "inner", "linear_product"), linear_arg(a, "outer", "linear_product"))); }});
  r.add({"layout", "reshape_ins", c, "X2: the flattened input re-split into dims \"name=size,...\"", {{"layout", P::AnyLayout}, {"dims", P::Text}},
         [](const Json& a) { return linear_result(reshape_ins(linear_arg(a, "layout", "reshape_ins"), parse_dim_sizes(text_arg(a, "dims")))); }});
  r.add({"layout", "reshape_outs", c, "X2: the flattened output re-split into dims \"name=size,...\"", {{"layout", P::AnyLayout}, {"dims", P::Text}},
         [](const Json& a) { return linear_result(reshape_outs(linear_arg(a, "layout", "reshape_outs"), parse_dim_sizes(text_arg(a, "dims")))); }});
  r.add({"layout", "transpose_ins", c, "X2: the in-dims in the order \"a,b,...\"", {{"layout", P::AnyLayout}, {"order", P::Text}},
         [](const Json& a) { return linear_result(transpose_ins(linear_arg(a, "layout", "transpose_ins"), names_arg(a, "order"))); }});
  r.add({"layout", "transpose_outs", c, "X2: the out-dims in the order \"a,b,...\"", {{"layout", P::AnyLayout}, {"order", P::Text}},
         [](const Json& a) { return linear_result(transpose_outs(linear_arg(a, "layout", "transpose_outs"), names_arg(a, "order"))); }});
  r.add({"layout", "surjective", c, "X2: every output value is reached (rank == output bits)", {{"layout", P::AnyLayout}}, [](const Json& a) {
           const bool b = linear_arg(a, "layout", "surjective").surjective();
           return OpResult{Json(b), b ? "true" : "false"};
         }});
  r.add({"layout", "invertible", c, "X2: surjective with as many input bits as output bits", {{"layout", P::AnyLayout}}, [](const Json& a) {
           const bool b = linear_arg(a, "layout", "invertible").invertible();
           return OpResult{Json(b), b ? "true" : "false"};
         }});
  r.add({"layout", "to_linear", c, "X2: a CuTe layout (swizzled too) with power-of-two extents as a linear layout, when it is F2-linear",
         {{"layout", P::AnyLayout}, {"ins", P::Text, true, "in-dims \"lane=32,register=4\" (default: one per top-level mode)"},
          {"outs", P::Text, true, "out-dims \"dim0=16,dim1=8\" (default: offset=2^k)"}},
         [](const Json& a) {
           const LayoutPtr l = any_layout_from_json(require_arg(a, "layout"));
           return linear_result(to_linear(*l, dims_arg(a, "ins"), dims_arg(a, "outs")));
         }});
  r.add({"layout", "to_cute", c, "X2: a linear layout as a CuTe layout (plain, or one swizzle over a plain layout) with the same function", {{"layout", P::AnyLayout}},
         [](const Json& a) {
           const LayoutPtr l = to_cute(linear_arg(a, "layout", "to_cute"));
           return OpResult{to_json(*l), to_string(*l)};
         }});
  r.add({"layout", "equivalent", c, "X2: the same function on the same domain, any two kinds (exit 1 with the first differing index)",
         {{"a", P::AnyLayout}, {"b", P::AnyLayout}, {"inverse", P::Json, true, "true: compare A with B's inverse"}}, equivalent_result});
}

}  // namespace tfspec::protocol
