// Layout-algebra ops (§1-§4) for `tfspec layout` and `tfspec serve`.
#include <algorithm>

#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/wire.hpp"

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec::protocol {
namespace {

using P = ParamType;

Layout L(const Json& args, const char* name, const std::string& op = "the CuTe algebra") { return plain_layout_arg(args, name, op); }
LayoutPtr AnyL(const Json& args, const char* name) { return any_layout_from_json(require_arg(args, name)); }
IntTuple T(const Json& args, const char* name) { return inttuple_from_json(require_arg(args, name)); }
int64_t I(const Json& args, const char* name) { return require_int(inttuple_from_json(require_arg(args, name)), name); }

OpResult layout_result(const Layout& l) { return {to_json(l), to_string(l)}; }
OpResult int_result(int64_t v) { return {to_json(IntTuple(v)), std::to_string(v)}; }
OpResult tuple_result(const IntTuple& t) { return {to_json(t), to_string(t)}; }
OpResult bool_result(bool b) { return {Json(b), b ? "true" : "false"}; }

Layout plain_only(const Json& args, const char* name, const std::string& op);

Op unary(const std::string& name, const std::string& clause, const std::string& summary, Layout (*f)(const Layout&)) {
  return Op{"layout", name, clause, summary, {{"layout", P::AnyLayout}},
            [f, name](const Json& a) { return layout_result(f(plain_only(a, "layout", name))); }};
}

// D15: the optional `domain` argument, "strict" (default) or "extend".
const Param kDomainParam{"domain", P::Text, true, "strict (default: refuse a tiler past A's domain) or extend (CuTe: A continues)"};
DomainPolicy domain_arg(const Json& args) {
  if (!args.contains("domain") || args["domain"] == "strict") return DomainPolicy::Strict;
  if (args["domain"] == "extend") return DomainPolicy::Extend;
  fail(rule::kProtocolBadArgs, "domain is \"strict\" or \"extend\", got " + args["domain"].dump());
}

// Under extend the result also says how many of its points lie past A's domain (D15).
OpResult domain_result(const Layout& l, DomainPolicy policy, const std::function<int64_t()>& outside) {
  if (policy == DomainPolicy::Strict) return layout_result(l);
  const int64_t n = outside();
  Json j = to_json(l);
  j["outside"] = n;
  return {j, "outside " + std::to_string(n) + "\n" + to_string(l)};
}

using TiledOp = Layout (*)(const Layout&, const Tiler&, DomainPolicy);
using Outside = int64_t (*)(const Layout&, const Tiler&);
Op tiled(const std::string& name, const std::string& summary, TiledOp f, Outside outside) {
  return Op{"layout", name, "§3", summary, {{"a", P::Layout}, {"tiler", P::Tiler}, kDomainParam}, [name, f, outside](const Json& a) {
              const Layout x = L(a, "a", name);
              const Tiler t = tiler_from_json(require_arg(a, "tiler"));
              const DomainPolicy policy = domain_arg(a);
              return domain_result(f(x, t, policy), policy, [&] { return outside(x, t); });
            }};
}

// X1: `a` may also be a ComposedLayout (a swizzled layout, CuTe's ComposedLayout<Sw, o, L>); the
// op then applies to its outer (swizzle.hpp). A plain Layout is read as before, with its errors.
struct LayoutArg {
  std::optional<Layout> plain;
  std::shared_ptr<const ComposedLayout> composed;
};
// X2 (issue 44): a linear layout reads through its CuTe form, plain or swizzled (to_cute, exact).
LayoutPtr linear_as_cute(const LinearLayout& l, const std::string& name) {
  try {
    return to_cute(l);
  } catch (const SpecError& e) {
    fail(rule::kLinearNotCute, "`" + name + "` is a linear layout, which the CuTe algebra reads through its CuTe form, and it has none: " + e.diagnostic().message);
  }
}

LayoutArg plain_or_composed(const Json& args, const char* name) {
  if (const Json& j = require_arg(args, name); j.is_object() && j.value("kind", "") == "linear") {
    const LayoutPtr c = linear_as_cute(linear_from_json(j), name);
    if (c->kind() == LayoutKind::Layout) return {static_cast<const Layout&>(*c), nullptr};
    return {std::nullopt, std::static_pointer_cast<const ComposedLayout>(c)};
  }
  try {
    return {L(args, name), nullptr};
  } catch (const SpecError& plain_error) {
    LayoutPtr any;
    try {
      any = AnyL(args, name);
    } catch (const SpecError&) {
      throw plain_error;
    }
    if (any->kind() != LayoutKind::Composed) throw plain_error;
    return {std::nullopt, std::static_pointer_cast<const ComposedLayout>(any)};
  }
}

// The algebra ops a plain Layout has and a ComposedLayout does not (coalesce, filter, complement,
// the inverses): a swizzled or offset layout (extension X1, spec/ALGEBRA.md) is read, then refused
// by its own rule, never as unreadable text.
Layout plain_only(const Json& args, const char* name, const std::string& op) {
  if (const Json& j = require_arg(args, name); j.is_object() && j.value("kind", "") == "linear") return plain_layout_arg(args, name, op);
  const LayoutArg arg = plain_or_composed(args, name);
  if (arg.composed)
    fail(rule::kComposedAlgebra, op + " takes a plain Layout; " + to_string(*arg.composed) +
                                     " is a ComposedLayout (extension X1: a swizzle or an offset composed with a layout), which has no " + op +
                                     " in the spec (its outer layout has one: apply " + op + " to that)");
  return *arg.plain;
}

// cosize of any layout: 1 + its largest offset over the domain (§3). A plain Layout by its
// strides; a ComposedLayout (a swizzle: what CUTLASS sizes shared memory by) by enumerating its
// domain, bounded, since a swizzle can move the largest offset past the outer layout's cosize.
int64_t any_cosize(const Json& args) {
  if (const LayoutPtr any = AnyL(args, "layout"); any->kind() == LayoutKind::Linear)  // X2: the span's largest element, exactly
    return checked_add(static_cast<const LinearLayout&>(*any).max_value(), 1);
  const LayoutArg arg = plain_or_composed(args, "layout");
  if (arg.plain) return arg.plain->cosize();
  const ComposedLayout& c = *arg.composed;
  const int64_t n = product_int(c.shape(), "cosize");
  if (n > kMaxEnumeration)
    fail(rule::kResourceLimit, "cosize of a ComposedLayout of " + std::to_string(n) + " points enumerates them; beyond the bound " + std::to_string(kMaxEnumeration));
  int64_t hi = 0;
  for (int64_t i = 0; i < n; ++i) hi = std::max(hi, c.apply(IntTuple(i)));
  return checked_add(hi, 1);
}

OpResult composed_result(const ComposedLayout& c, DomainPolicy policy, const std::function<int64_t()>& outside) {
  Json j = to_json(c);
  if (policy == DomainPolicy::Strict) return {j, to_string(c)};
  const int64_t n = outside();
  j["outside"] = n;
  return {j, "outside " + std::to_string(n) + "\n" + to_string(c)};
}

using ComposedTiledOp = ComposedLayout (*)(const ComposedLayout&, const Tiler&, DomainPolicy);
Op divide_like(const std::string& name, const std::string& summary, TiledOp f, ComposedTiledOp g, Outside outside) {
  return Op{"layout", name, "§3", summary, {{"a", P::AnyLayout}, {"tiler", P::Tiler}, kDomainParam}, [name, f, g, outside](const Json& a) {
              const Tiler t = tiler_from_json(require_arg(a, "tiler"));
              const DomainPolicy policy = domain_arg(a);
              const LayoutArg arg = plain_or_composed(a, "a");
              if (const auto& c = arg.composed)
                return composed_result(g(*c, t, policy), policy, [&] { return outside(plain_outer(*c, name), t); });
              const Layout& x = *arg.plain;
              return domain_result(f(x, t, policy), policy, [&] { return outside(x, t); });
            }};
}

Op blocked_or_raked(const std::string& name, const std::string& summary, Layout (*f)(const Layout&, const Layout&, DomainPolicy)) {
  return Op{"layout", name, "§3", summary, {{"a", P::Layout}, {"b", P::Layout}, kDomainParam}, [name, f](const Json& a) {
              const Layout x = L(a, "a", name), y = L(a, "b", name);
              const DomainPolicy policy = domain_arg(a);
              return domain_result(f(x, y, policy), policy, [&] { return product_outside(x, Tiler(y)); });
            }};
}


}  // namespace

Layout plain_layout_arg(const Json& args, const std::string& name, const std::string& op) {
  const Json& j = require_arg(args, name);
  if (!j.is_object() || j.value("kind", "") != "linear") return layout_from_json(j);
  const LinearLayout l = linear_from_json(j);
  const LayoutPtr c = linear_as_cute(l, name);
  if (c->kind() != LayoutKind::Layout)
    fail(rule::kLinearNotCute, op + " takes a plain Layout as `" + name + "`; the linear layout " + to_string(l) + " is the swizzled " + to_string(*c) +
                                   " as a CuTe layout (a ComposedLayout), which it does not take");
  return static_cast<const Layout&>(*c);
}

namespace {

// §1: IntTuple ops.
std::vector<Op> inttuple_ops() {
  return {
    {"layout", "flatten", "§1", "flat view of an IntTuple", {{"t", P::IntTuple}}, [](const Json& a) { return tuple_result(flatten(T(a, "t"))); }},
    {"layout", "rank", "§1", "rank of an IntTuple or a layout's shape", {{"t", P::IntTuple}}, [](const Json& a) { return int_result(rank(T(a, "t"))); }},
    {"layout", "depth", "§1", "nesting depth of an IntTuple", {{"t", P::IntTuple}}, [](const Json& a) { return int_result(depth(T(a, "t"))); }},
    {"layout", "product", "§1", "product of an IntTuple's leaves (symbolic allowed)", {{"t", P::IntTuple}},
           [](const Json& a) { return tuple_result(product(T(a, "t"))); }},
    {"layout", "prefix_product", "§1", "pycute prefix_product", {{"t", P::IntTuple}}, [](const Json& a) { return tuple_result(prefix_product(T(a, "t"))); }},
    {"layout", "shape_div", "§1", "pycute shape_div", {{"a", P::IntTuple}, {"b", P::IntTuple}},
           [](const Json& a) { return tuple_result(shape_div(T(a, "a"), T(a, "b"))); }},
    {"layout", "congruent", "§1", "same tree structure", {{"a", P::IntTuple}, {"b", P::IntTuple}},
           [](const Json& a) { return bool_result(congruent(T(a, "a"), T(a, "b"))); }},
    {"layout", "compatible", "§1", "shape a is compatible with shape b", {{"a", P::IntTuple}, {"b", P::IntTuple}},
           [](const Json& a) { return bool_result(compatible(T(a, "a"), T(a, "b"))); }},
    {"layout", "crd2idx", "§1", "coordinate -> index (compact colex strides unless given)",
           {{"coord", P::Coord}, {"shape", P::IntTuple}, {"stride", P::IntTuple, true}}, [](const Json& a) {
             IntTuple s = T(a, "shape");
             IntTuple st = a.contains("stride") ? T(a, "stride") : prefix_product(s);
             return int_result(crd2idx(coord_from_json(require_arg(a, "coord")), s, st));
           }},
    {"layout", "idx2crd", "§1", "index -> coordinate (colexicographic, D1)", {{"index", P::IntTuple}, {"shape", P::IntTuple}},
           [](const Json& a) { return tuple_result(idx2crd(I(a, "index"), T(a, "shape"))); }},
    {"layout", "crd2crd", "§1", "coordinate in src shape -> coordinate in dst shape",
           {{"coord", P::Coord}, {"dst", P::IntTuple}, {"src", P::IntTuple}},
           [](const Json& a) { return tuple_result(crd2crd(coord_from_json(require_arg(a, "coord")), T(a, "dst"), T(a, "src"))); }},
  };
}

// §2-§4: reading a layout: parse, evaluate, its shape and size, a mode, a slice.
std::vector<Op> layout_query_ops() {
  return {
    {"layout", "parse", "§3", "parse and print (normal form)", {{"layout", P::AnyLayout}}, [](const Json& a) {
             auto l = AnyL(a, "layout");
             return OpResult{to_json(*l), to_string(*l)};
           }},
    {"layout", "eval", "§3", "offset of an index (colexicographic) or coordinate", {{"layout", P::AnyLayout}, {"coord", P::Coord}},
           [](const Json& a) { return int_result(AnyL(a, "layout")->apply(coord_from_json(require_arg(a, "coord")))); }},
    {"layout", "size", "§3", "number of domain points", {{"layout", P::AnyLayout}},
           [](const Json& a) { return int_result(product_int(AnyL(a, "layout")->shape(), "size")); }},
    {"layout", "cosize", "§3", "1 + largest offset (a ComposedLayout's by its domain: a swizzle may move it)", {{"layout", P::AnyLayout}},
           [](const Json& a) { return int_result(any_cosize(a)); }},
    {"layout", "shape", "§2", "domain shape", {{"layout", P::AnyLayout}}, [](const Json& a) { return tuple_result(AnyL(a, "layout")->shape()); }},
    {"layout", "domain_rank", "§2", "rank(flatten(shape))", {{"layout", P::AnyLayout}},
           [](const Json& a) { return int_result(AnyL(a, "layout")->domain_rank()); }},
    {"layout", "mode", "§3", "the i-th sub-layout", {{"layout", P::Layout}, {"i", P::Int}}, [](const Json& a) {
             int64_t i = I(a, "i");
             Layout l = L(a, "layout", "mode");
             if (i < 0 || i >= l.rank()) fail(rule::in(rule::kModeOutOfRange, "§3"), "mode " + std::to_string(i) + " of a rank-" + std::to_string(l.rank()) + " layout");
             return layout_result(l.mode(static_cast<size_t>(i)));
           }},
    {"layout", "slice", "§3", "slice with `_` wildcards: the sub-layout and its offset", {{"layout", P::AnyLayout}, {"coord", P::Coord}},
           [](const Json& a) {
             const LayoutArg arg = plain_or_composed(a, "layout");
             if (const auto& c = arg.composed) {  // X1: CuTe keeps the offset inside the composed layout
               const ComposedLayout s = slice(coord_from_json(require_arg(a, "coord")), *c);
               return OpResult{Json{{"layout", to_json(s)}, {"offset", 0}}, "offset 0\n" + to_string(s)};
             }
             SliceResult s = slice_and_offset(coord_from_json(require_arg(a, "coord")), *arg.plain);
             return OpResult{Json{{"layout", to_json(s.layout)}, {"offset", s.offset}},
                             "offset " + std::to_string(s.offset) + "\n" + to_string(s.layout)};
           }},
  };
}

// §3: the layout algebra.
std::vector<Op> algebra_ops() {
  return {
    {"layout", "coalesce", "§3", "merge modes without changing the function", {{"layout", P::AnyLayout}, {"profile", P::IntTuple, true}},
           [](const Json& a) {
             const Layout l = plain_only(a, "layout", "coalesce");
             return layout_result(a.contains("profile") ? coalesce(l, T(a, "profile")) : coalesce(l));
           }},
    {"layout", "filter", "§3", "drop stride-0 and size-1 modes, then coalesce", {{"layout", P::AnyLayout}, {"profile", P::IntTuple, true}},
           [](const Json& a) {
             const Layout l = plain_only(a, "layout", "filter");
             return layout_result(a.contains("profile") ? filter(l, T(a, "profile")) : filter(l));
           }},
    divide_like("composition", "A o B (B a layout or by-mode tiler); refused unless A o B is a layout", composition, composition, composition_outside),
    {"layout", "admissible", "§3", "whether CuTe's by-mode A o B is exact (the walk of spec/ALGEBRA.md A1), and the rule that refuses it", {{"a", P::Layout}, {"b", P::Layout}},
           [](const Json& a) {
             auto refusal = composition_refusal(L(a, "a", "admissible"), L(a, "b", "admissible"));
             if (!refusal) return OpResult{Json{{"admissible", true}}, "admissible"};
             return OpResult{Json{{"admissible", false}, {"violation", to_json(*refusal)}},
                             "not admissible: [" + refusal->rule + " " + refusal->clause + "] " + refusal->message, 1};
           }},
    {"layout", "complement", "§3", "complement with cotarget (default cosize)", {{"layout", P::AnyLayout}, {"cotarget", P::Int, true}},
           [](const Json& a) {
             const Layout l = plain_only(a, "layout", "complement");
             return layout_result(a.contains("cotarget") ? complement(l, I(a, "cotarget")) : complement(l));
           }},
    unary("right_inverse", "§3", "R with L(R(i)) == i on R's domain", right_inverse),
    unary("left_inverse", "§3", "R with R(L(i)) == i", left_inverse),
    divide_like("logical_divide", "A o (B, complement(B, size(A)))", logical_divide, logical_divide, divide_outside),
    divide_like("zipped_divide", "((tiles), (rests))", zipped_divide, zipped_divide, divide_outside),
    divide_like("tiled_divide", "((tiles), rest0, rest1, ...)", tiled_divide, tiled_divide, divide_outside),
    divide_like("flat_divide", "(tile0, tile1, ..., rest0, rest1, ...)", flat_divide, flat_divide, divide_outside),
    tiled("logical_product", "(A, complement(A, size(A) cosize(B)) o B); an integer n means Layout(n)", logical_product, product_outside),
    tiled("zipped_product", "((A modes), (B modes))", zipped_product, product_outside),
    tiled("tiled_product", "((A modes), B0, B1, ...)", tiled_product, product_outside),
    tiled("flat_product", "flattened logical product", flat_product, product_outside),
    blocked_or_raked("blocked_product", "mode i = (A_i, B_i)", blocked_product),
    blocked_or_raked("raked_product", "mode i = (B_i, A_i)", raked_product),
    {"layout", "max_common_vector", "§3", "contiguous elements that correspond in A and B", {{"a", P::Layout}, {"b", P::Layout}},
           [](const Json& a) { return int_result(max_common_vector(L(a, "a", "max_common_vector"), L(a, "b", "max_common_vector"))); }},
  };
}

// §2: injectivity, the rule catalogue and the check of a layout.
std::vector<Op> check_ops() {
  return {
    {"layout", "injective", "§2", "exact injectivity with a witness pair", {{"layout", P::AnyLayout}}, [](const Json& a) {
             InjectivityResult res = is_injective(*AnyL(a, "layout"));
             Json j{{"injective", res.injective}, {"method", res.method}};
             std::string text = res.injective ? "injective (" + res.method + ")" : "not injective";
             if (res.witness) {
               j["witness"] = Json::array({to_json(res.witness->first), to_json(res.witness->second)});
               text += ": " + coord_to_string(res.witness->first) + " and " + coord_to_string(res.witness->second) +
                       " both map to " + std::to_string(res.offset);
             }
             return OpResult{j, text, res.injective ? 0 : 1};
           }},
    {"layout", "rules", "§2", "the catalogue's rules of §1-§4 and the protocol (id, clause, kind, summary; `checked` if `layout check` runs it)", {},
           [](const Json&) {
             auto checked = checked_rules(LayoutKind::Layout);
             for (const RuleId* c : checked_rules(LayoutKind::Composed)) checked.push_back(c);
             return rules_result(kLayoutClauses, checked);
           }},
    {"layout", "check", "§2", "may this layout enter TensorType.layout? (all violations)", {{"layout", P::AnyLayout}},
           [](const Json& a) {
             const CheckReport report = check_layout(*AnyL(a, "layout"), "layout");
             // §1: a symbolic layout is not broken; like `layout injective`, the check needs concrete
             // values (exit 3, needs-concrete) and `tfspec prove` decides its properties. Any other
             // violation still fails the check (exit 1), symbolic extents listed with it.
             const bool only_symbolic = !report.violations.empty() && std::all_of(report.violations.begin(), report.violations.end(), [](const Diagnostic& d) {
               return d.rule == rule::kLayoutConcrete.id;
             });
             if (only_symbolic)
               fail(rule::kNeedsConcrete, report.violations.front().message + " (at " + report.violations.front().path +
                                              "): `layout check` decides concrete layouts; `tfspec prove injective|in-bounds|...` decides a symbolic one");
             return check_result(report);
           }},
  };
}

}  // namespace

void register_layout_ops(OpRegistry& r) {
  for (auto table : {inttuple_ops, layout_query_ops, algebra_ops, check_ops})
    for (Op& op : table()) r.add(std::move(op));
}

}  // namespace tfspec::protocol
