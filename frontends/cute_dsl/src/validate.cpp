// Translation validation of the DSL compiler's layout algebra (spec/CUTE_DSL.md §2): every static
// layout op in the IR is recomputed by the reference and compared with its result type as a function.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <regex>
#include <set>

#include "basis.hpp"
#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec::cute_dsl {
namespace {

bool is_layout_kind(const Type& t) { return t.kind == "layout" || t.kind == "composed_layout"; }

Tiler tiler_of(const Type& t, Symbols& syms) {
  if (t.kind == "tile") return read_tiler(t.text);
  const LayoutPtr l = read_layout(t.text, syms);
  if (l->kind() != LayoutKind::Layout) fail(rule::kCuteDslInput, "cute-dsl (§2): a swizzled layout as a tiler: " + t.text);
  return Tiler(static_cast<const Layout&>(*l));
}

const Layout& plain(const LayoutPtr& l, const Type& t) {
  if (l->kind() != LayoutKind::Layout) fail(rule::kCuteDslInput, "cute-dsl (§2): expected a plain layout, got " + t.text);
  return static_cast<const Layout&>(*l);
}

// CuTe's make_ordered_layout for a flat shape: the mode with the smallest order is stride 1.
Layout ordered_layout(const IntTuple& shape, const IntTuple& order) {
  std::vector<size_t> idx(static_cast<size_t>(rank(shape)));
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return order[a].value() < order[b].value(); });
  std::vector<IntTuple> stride(idx.size(), IntTuple(0));
  int64_t s = 1;
  for (size_t i : idx) stride[i] = IntTuple(s), s *= shape[i].value();
  return Layout(shape, IntTuple::tuple(stride));
}

// CuTe's tile_to_shape(block, trg, ord) = blocked_product(block, ordered(ceil_div(trg, block), ord)),
// on the outer of a composed block.
LayoutPtr tile_to_shape(const LayoutPtr& block, const IntTuple& trg, const IntTuple& order) {
  if (block->kind() == LayoutKind::Composed) {
    const auto& c = static_cast<const ComposedLayout&>(*block);
    return std::make_shared<ComposedLayout>(c.inner(), c.offset(), tile_to_shape(c.outer(), trg, order));
  }
  // A block of lower rank than the target gains modes 1:0 (CuTe pads it: (8,32):(32,1) tiled to
  // (128,32,4) is (8,32,1):(32,1,0) tiled), so a stage mode comes out of the ordered product.
  std::vector<IntTuple> shape, stride;
  for (int i = 0; i < rank(trg); ++i) {
    const bool own = i < static_cast<int>(static_cast<const Layout&>(*block).rank());
    shape.push_back(own ? static_cast<const Layout&>(*block).shape_ref()[i] : IntTuple(1));
    stride.push_back(own ? static_cast<const Layout&>(*block).stride()[i] : IntTuple(0));
  }
  const Layout b(IntTuple::tuple(shape), IntTuple::tuple(stride));
  std::vector<IntTuple> reps;
  for (int i = 0; i < rank(trg); ++i) {
    const int64_t bs = product_int(b.shape_ref()[i]);
    reps.emplace_back((trg[i].value() + bs - 1) / bs);
  }
  return std::make_shared<Layout>(blocked_product(b, ordered_layout(IntTuple::tuple(reps), order), DomainPolicy::Extend));
}

// The reference's answer for one op, or nullptr where the op is not covered (spec/CUTE_DSL.md §2).
LayoutPtr recompute(const Op& op, Symbols& syms, DomainPolicy policy = DomainPolicy::Extend) {
  const auto& in = op.operand_types;
  auto L = [&](size_t i) { return read_layout(in[i].text, syms); };
  const std::string& n = op.name;
  if (n == "cute.composition" && in.size() == 2) {
    const LayoutPtr a = L(0);
    if (a->kind() == LayoutKind::Composed)
      return std::make_shared<ComposedLayout>(composition(static_cast<const ComposedLayout&>(*a), tiler_of(in[1], syms), policy));
    return std::make_shared<Layout>(composition(plain(a, in[0]), tiler_of(in[1], syms), policy));
  }
  if (n == "cute.right_inverse" && in.size() == 1) return std::make_shared<Layout>(right_inverse(plain(L(0), in[0])));
  if (n == "cute.left_inverse" && in.size() == 1) return std::make_shared<Layout>(left_inverse(plain(L(0), in[0])));
  if (n == "cute.coalesce" && in.size() == 1) return std::make_shared<Layout>(coalesce(plain(L(0), in[0])));
  if (n == "cute.complement" && in.size() == 1) return std::make_shared<Layout>(complement(plain(L(0), in[0])));
  if (n == "cute.raked_product" && in.size() == 2)
    return std::make_shared<Layout>(raked_product(plain(L(0), in[0]), plain(L(1), in[1]), policy));
  if (n == "cute.blocked_product" && in.size() == 2)
    return std::make_shared<Layout>(blocked_product(plain(L(0), in[0]), plain(L(1), in[1]), policy));
  if (n == "cute.logical_product" && in.size() == 2)
    return std::make_shared<Layout>(logical_product(plain(L(0), in[0]), tiler_of(in[1], syms), policy));
  if (n == "cute.logical_divide" && in.size() == 2)
    return std::make_shared<Layout>(logical_divide(plain(L(0), in[0]), tiler_of(in[1], syms), policy));
  if (n == "cute.zipped_divide" && in.size() == 2)
    return std::make_shared<Layout>(zipped_divide(plain(L(0), in[0]), tiler_of(in[1], syms), policy));
  if (n == "cute.tile_to_shape" && in.size() == 3 && in[1].kind == "shape" && in[2].kind == "int_tuple")
    return tile_to_shape(L(0), parse_inttuple(in[1].text), parse_inttuple(in[2].text));
  return nullptr;
}

// Covered when every operand is a static layout, tile, shape or order and the result a static layout.
bool covered(const Op& op) {
  static const std::set<std::string> ops = {"cute.composition", "cute.right_inverse", "cute.left_inverse", "cute.coalesce",
                                            "cute.complement", "cute.raked_product", "cute.blocked_product",
                                            "cute.logical_product", "cute.logical_divide", "cute.zipped_divide",
                                            "cute.tile_to_shape"};
  if (!ops.count(op.name)) return false;
  if (op.result_types.size() != 1 || !is_layout_kind(op.result_types[0]) || op.operand_types.empty()) return false;
  for (const Type& t : op.operand_types) {
    if (!(is_layout_kind(t) || t.kind == "tile" || t.kind == "shape" || t.kind == "int_tuple")) return false;
  }
  return true;
}

bool all_static(const Op& op) {
  for (const Type& t : op.operand_types) if (!is_static(t.text)) return false;
  return is_static(op.result_types[0].text);
}

std::string operands_text(const Op& op) {
  std::string s;
  for (const Type& t : op.operand_types) s += (s.empty() ? "" : ", ") + t.text;
  return s;
}

kernel::Finding compare(const Op& op, const LayoutPtr& ref, const LayoutPtr& got) {
  kernel::Finding f = make_finding("layout-op", op.name);
  f.loc = op_where(op);
  const Equivalence e = equivalent(*got, *ref);
  f.detail = {{"op", op.name}, {"line", op.line}, {"operands", operands_text(op)}, {"ir", op.result_types[0].text},
              {"reference", to_string(*ref)}};
  if (e.equal) {
    f.message = op.name + "(" + operands_text(op) + ") = " + op.result_types[0].text + ", as the reference computes";
    return f;
  }
  f.outcome = kernel::Outcome::Violation;
  f.rule = &rule::kCuteDslLayoutOp;
  f.message = op.name + "(" + operands_text(op) + "): the IR says " + op.result_types[0].text + ", the reference " +
              to_string(*ref);
  if (e.index) {
    f.message += "; they differ first at index " + std::to_string(*e.index) + " (IR " + std::to_string(e.value_a) +
                 ", reference " + std::to_string(e.value_b) + ")";
    f.detail["index"] = *e.index;
  } else {
    f.message += "; " + e.reason;
  }
  return f;
}

// D15: where B reaches past A's domain (the strict recompute refuses with
// composition-image-in-domain), the result past the domain is a convention: the reference extends
// A's last mode by D15, the DSL by its own rule (spec/CUTE_DSL.md "The DSL as a conformance peer").
// A difference there is not a violation of the spec; it is undecided, saying why.
bool reaches_past_domain(const Op& op) {
  try {
    Symbols strict_syms;
    recompute(op, strict_syms, DomainPolicy::Strict);
    return false;
  } catch (const SpecError& e) {
    return e.diagnostic().rule == rule::kCompositionImageInDomain.id;
  }
}

// For A o B of two plain layouts: the first index i of B whose B(i) lies inside A's domain
// (B(i) < size(A)) where the IR and the reference differ; inside the domain there is no convention
// and a difference is a violation.
std::optional<int64_t> in_domain_difference(const Op& op, const LayoutPtr& ref, const LayoutPtr& got) {
  if (op.name != "cute.composition" || op.operand_types[1].kind != "layout" || op.operand_types[0].kind != "layout")
    return std::nullopt;
  Symbols syms;
  const LayoutPtr a = read_layout(op.operand_types[0].text, syms), b = read_layout(op.operand_types[1].text, syms);
  for (const LayoutPtr& l : {a, b, ref, got})
    if (l->kind() != LayoutKind::Layout) return std::nullopt;
  const auto& A = static_cast<const Layout&>(*a);
  const auto& B = static_cast<const Layout&>(*b);
  const auto& R = static_cast<const Layout&>(*ref);
  const auto& G = static_cast<const Layout&>(*got);
  if (G.size() != B.size()) return std::nullopt;
  for (int64_t i = 0; i < B.size(); ++i)
    if (B(i) >= 0 && B(i) < A.size() && G(i) != R(i)) return i;
  return std::nullopt;
}

void past_domain_undecided(kernel::Finding& f) {
  f.outcome = kernel::Outcome::Undecided;
  f.message += "; B reaches past A's domain (composition-image-in-domain under D15 strict), where the "
               "result is a convention of the extension, not the spec's: not a violation (spec/CUTE_DSL.md §2)";
  f.detail["past_domain"] = true;
}

// The ops §2.2 recomputes on coordinate layouts: A (operand 0) may carry bases, the others not.
bool basis_covered(const Op& op) {
  static const std::set<std::string> ops = {"cute.composition", "cute.coalesce", "cute.logical_divide", "cute.zipped_divide"};
  if (!ops.count(op.name) || op.operand_types[0].kind != "layout" || op.result_types[0].kind != "layout") return false;
  for (size_t i = 1; i < op.operand_types.size(); ++i)
    if (op.operand_types[i].text.find('@') != std::string::npos) return false;
  return true;
}

kernel::Finding basis_skipped(const Op& op, const std::string& why) {
  kernel::Finding f = make_finding("layout-op", op.name, kernel::Outcome::Skipped);
  f.loc = op_where(op);
  f.message = op.name + "(" + operands_text(op) + "): not read: a coordinate layout with basis strides (`1@0`): " + why + " (spec/CUTE_DSL.md §2.2)";
  return f;
}

// §2.2: the op on the encoded operands, compared with the IR's encoded result point by point.
kernel::Finding validate_basis(const Op& op) {
  if (!basis_covered(op)) return basis_skipped(op, "the op is not one whose algebra only scales A's strides (composition, coalesce, the divides of a coordinate A)");
  if (!all_static(op)) return basis_skipped(op, "a dynamic value");
  BasisCode code;
  for (const Type* t : {&op.operand_types[0], &op.result_types[0]})
    for (size_t at = t->text.find('@'); at != std::string::npos; at = t->text.find('@', at + 1))
      code.modes = std::max(code.modes, 1 + std::atoi(t->text.c_str() + at + 1));
  if (code.modes < 1 || code.modes > 6) return basis_skipped(op, "more coordinate modes than the encoding holds (6)");
  code.radix = int64_t{1} << (62 / code.modes);
  Op enc = op;
  std::string why;
  for (Type* t : {&enc.operand_types[0], &enc.result_types[0]}) {
    const std::optional<std::string> e = basis_encoded(t->text, code, why);
    if (!e) return basis_skipped(op, why);
    t->text = *e;
  }
  Symbols syms;
  const Layout a = plain(read_layout(enc.operand_types[0].text, syms), enc.operand_types[0]);
  const Layout got = plain(read_layout(enc.result_types[0].text, syms), enc.result_types[0]);
  if (!basis_bounded(a, code, why) || !basis_bounded(got, code, why)) return basis_skipped(op, why);
  const Layout ref = plain(recompute(enc, syms), enc.result_types[0]);
  kernel::Finding f = make_finding("layout-op", op.name);
  f.loc = op_where(op);
  f.detail = {{"op", op.name}, {"line", op.line}, {"operands", operands_text(op)}, {"ir", op.result_types[0].text}, {"coordinate_modes", code.modes}};
  const std::string head = op.name + "(" + operands_text(op) + ")";
  if (ref.size() != got.size()) {
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kCuteDslLayoutOp;
    f.message = head + ": the IR's " + op.result_types[0].text + " has " + std::to_string(got.size()) + " points, the reference's " + std::to_string(ref.size());
    return f;
  }
  // Past A's domain (D15) the result is a convention (as on the plain path): for A o B of a plain
  // layout B only the indices with B(i) < size(A) can be a violation; for the other ops, any.
  std::optional<bool> past;
  std::optional<int64_t> first_past;
  for (int64_t i = 0; i < ref.size(); ++i) {
    if (ref(i) == got(i)) continue;
    if (!past) past = reaches_past_domain(enc);
    if (*past && op.name == "cute.composition" && op.operand_types[1].kind == "layout" &&
        plain(read_layout(op.operand_types[1].text, syms), op.operand_types[1])(i) >= a.size()) {
      first_past = first_past.value_or(i);
      continue;
    }
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kCuteDslLayoutOp;
    f.message = head + ": the IR says " + op.result_types[0].text + ", which differs from the reference first at index " + std::to_string(i) + " (IR " +
                coordinate_text(basis_digits(got(i), code)) + ", reference " + coordinate_text(basis_digits(ref(i), code)) + ")";
    f.detail["index"] = i;
    if (*past && !(op.name == "cute.composition" && op.operand_types[1].kind == "layout")) past_domain_undecided(f);
    return f;
  }
  if (first_past) {
    f.message = head + ": the IR says " + op.result_types[0].text + ", which differs from the reference only past A's domain, first at index " + std::to_string(*first_past);
    f.detail["index"] = *first_past;
    f.rule = &rule::kCuteDslLayoutOp;
    past_domain_undecided(f);
    return f;
  }
  f.message = head + " = " + op.result_types[0].text + ", as the reference computes on the coordinates (" + std::to_string(ref.size()) +
              " points; basis strides n@k read as n R^k, R = 2^" + std::to_string(62 / code.modes) + ", every coordinate below R / 2)";
  return f;
}

}  // namespace

std::optional<kernel::Finding> validate_dynamic(const Op& op);  // validate_dynamic.cpp (§2.1)

void validate_layout_ops(const Module& m, std::vector<kernel::Finding>& out) {
  int64_t dynamic = 0;
  for (const Op& op : m.ops) {
    if (!covered(op)) continue;
    // A coordinate layout (ArithTuple strides `1@0`, CuTe's basis vectors) maps into a tuple of
    // coordinates, not an offset: §2.2 encodes the tuple as one integer where the op allows it.
    const bool basis = std::any_of(op.operand_types.begin(), op.operand_types.end(), [](const Type& t) { return t.text.find('@') != std::string::npos; }) ||
                       std::any_of(op.result_types.begin(), op.result_types.end(), [](const Type& t) { return t.text.find('@') != std::string::npos; });
    if (basis) {
      try {
        out.push_back(validate_basis(op));
      } catch (const SpecError& e) {
        kernel::Finding f = make_finding("layout-op", op.name, kernel::Outcome::Undecided, &rule::kCuteDslLayoutOp);
        f.loc = op_where(op);
        f.message = op.name + "(" + operands_text(op) + "): the reference does not answer on the coordinate layout: " + e.what();
        out.push_back(std::move(f));
      }
      continue;
    }
    if (!all_static(op)) {
      try {  // §2.1: on the symbolic algebra, where the op has a symbolic form
        if (std::optional<kernel::Finding> f = validate_dynamic(op)) out.push_back(std::move(*f));
        else ++dynamic;
      } catch (const SpecError& e) {
        // Past the symbolic algebra's work limit the op is not recomputed (skipped, saying why), as
        // an op with no symbolic form; any other refusal is undecided.
        const bool limit = e.diagnostic().rule == rule::kResourceLimit.id;
        kernel::Finding f = make_finding("layout-op", op.name, limit ? kernel::Outcome::Skipped : kernel::Outcome::Undecided,
                                         limit ? nullptr : &rule::kCuteDslLayoutOp);
        f.loc = "line " + std::to_string(op.line);
        f.message = op.name + "(" + operands_text(op) + "): " + (limit ? "not recomputed: " : "") +
                    "the symbolic reference does not answer: " + e.what();
        out.push_back(std::move(f));
      }
      continue;
    }
    Symbols syms;
    try {
      const LayoutPtr ref = recompute(op, syms);
      if (!ref) continue;
      kernel::Finding f = compare(op, ref, read_layout(op.result_types[0].text, syms));
      if (f.outcome == kernel::Outcome::Violation && reaches_past_domain(op) &&
          !in_domain_difference(op, ref, read_layout(op.result_types[0].text, syms)))
        past_domain_undecided(f);
      out.push_back(std::move(f));
    } catch (const SpecError& e) {
      // A layout string this reader cannot read is skipped (listed); a reference refusal is undecided.
      const bool unread = e.diagnostic().rule == rule::kCuteDslInput.id;
      kernel::Finding f = make_finding("layout-op", op.name, unread ? kernel::Outcome::Skipped : kernel::Outcome::Undecided,
                                       unread ? nullptr : &rule::kCuteDslLayoutOp);
      f.loc = "line " + std::to_string(op.line);
      f.message = op.name + "(" + operands_text(op) + "): " + (unread ? "not read: " : "the reference does not answer: ") + e.what();
      out.push_back(std::move(f));
    }
  }
  if (dynamic > 0) {
    kernel::Finding f = make_finding("layout-op", "dynamic layout ops", kernel::Outcome::Skipped);
    f.message = std::to_string(dynamic) + " layout op(s) with a dynamic (?) operand or result and no symbolic form are not recomputed (spec/CUTE_DSL.md §2.1)";
    out.push_back(std::move(f));
  }
}

}  // namespace tfspec::cute_dsl
