// S3 (spec/ALGEBRA.md): composition and the divides over ShapeDims. The walk of A1 is run branch
// for branch as `walk_refusal` and `compose_mode` in algebra.cpp run it; each of its refusals is
// an obligation of the path, so the paths that answer are exactly the instances the walk admits.
#include <algorithm>

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "symbolic/symbolic_preds.hpp"

namespace tfspec {
namespace {

using namespace symbolic_preds;

using V = std::vector<ShapeDim>;

std::string text(const ShapeDim& d) { return to_string(d); }

struct Modes {
  V shape, stride;
};

Modes flat_modes(const Layout& l) {
  Modes m;
  for (const auto& x : flat_leaves(l.shape_ref())) m.shape.push_back(normalize(x.as_dim()));
  for (const auto& x : flat_leaves(l.stride())) m.stride.push_back(normalize(x.as_dim()));
  return m;
}

// One flat mode s:d of B over coalesced A (the digits a), the walk's checks as obligations;
// adds to usage[p] the largest digit the mode puts on A's digit p; returns compose_mode's modes.
Modes compose_mode(SymExec& ex, const Modes& a, const ShapeDim& s, const ShapeDim& d, V& usage) {
  Modes out;
  if (ex.branch(eq(s, sym(1))) || ex.branch(eq(d, sym(0)))) return {{s}, {sym(0)}};
  ex.require(ge(d, sym(0)), rule::kCompositionImageInDomain, "B has a negative stride " + text(d) + ": its image leaves A's domain below 0");
  const size_t last = a.shape.size() - 1;
  ShapeDim rest_s = s, rest_d = d;
  for (size_t p = 0; p < last && ex.branch({rest_s, SymRel::Gt, sym(1)}); ++p) {
    const ShapeDim& m = a.shape[p];
    const std::string stride_msg = "B's stride " + text(d) + " is not left divisible by A's shape (remaining stride " + text(rest_d) +
                                   " against extent " + text(m) + ")";
    if (ex.branch(ge(rest_d, m))) {
      ex.require(divides(m, rest_d), rule::kCompositionStrideDivisibility, stride_msg);
      rest_d = sym_floordiv(rest_d, m);
      continue;
    }
    ex.require(divides(rest_d, m), rule::kCompositionStrideDivisibility, stride_msg);
    const ShapeDim n = sym_floordiv(m, rest_d);
    const ShapeDim used = ex.branch(le(rest_s, n)) ? rest_s : n;
    ex.require(divides(used, rest_s), rule::kCompositionShapeDivisibility,
               "B's extent " + text(s) + " is not weakly left divisible by A's shape (remaining extent " + text(rest_s) + " spans a mode of " +
                   text(n) + ")");
    out.shape.push_back(used);
    out.stride.push_back(sym_mul(rest_d, a.stride[p]));
    usage[p] = sym_add(usage[p], sym_mul(rest_d, sym_sub(used, sym(1))));
    rest_s = sym_floordiv(rest_s, used);
    rest_d = sym(1);
  }
  if (!ex.branch(eq(rest_s, sym(1))) || out.shape.empty()) {
    usage[last] = sym_add(usage[last], sym_mul(rest_d, sym_sub(rest_s, sym(1))));
    out.shape.push_back(rest_s);
    out.stride.push_back(sym_mul(rest_d, a.stride[last]));
  }
  return out;
}

IntTuple one_or_tuple(const V& v) {
  if (v.size() == 1) return IntTuple::sym(v[0]);
  std::vector<IntTuple> t;
  for (const auto& x : v) t.push_back(IntTuple::sym(x));
  return IntTuple::tuple(std::move(t));
}

std::pair<IntTuple, IntTuple> rebuild(const IntTuple& b_shape, const std::vector<Modes>& modes, size_t& next) {
  if (b_shape.is_leaf()) {
    const Modes& m = modes[next++];
    return {one_or_tuple(m.shape), one_or_tuple(m.stride)};
  }
  std::vector<IntTuple> s, d;
  for (const auto& c : b_shape.children()) {
    auto r = rebuild(c, modes, next);
    s.push_back(std::move(r.first));
    d.push_back(std::move(r.second));
  }
  return {IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d))};
}

Layout compose_layouts(SymExec& ex, const Layout& a, const Layout& b, DomainPolicy policy) {
  const Modes fa = flat_modes(sym_coalesce(ex, a)), fb = flat_modes(b);
  V usage(fa.shape.size(), sym(0));
  std::vector<Modes> modes;
  for (size_t j = 0; j < fb.shape.size(); ++j) modes.push_back(compose_mode(ex, fa, fb.shape[j], fb.stride[j], usage));
  const size_t last = usage.size() - 1;
  for (size_t p = 0; p < last; ++p)  // A1 (4): no carry between B's modes
    ex.require(lt(usage[p], fa.shape[p]), rule::kCompositionModeOverlap,
               "B's modes together put digit " + text(usage[p]) + " on A's mode " + std::to_string(p) + " of extent " + text(fa.shape[p]));
  if (policy == DomainPolicy::Strict)
    ex.require(lt(usage[last], fa.shape[last]), rule::kCompositionImageInDomain,
               "B's image reaches " + text(usage[last]) + " on A's last mode of extent " + text(fa.shape[last]) + " (D15 strict)");
  size_t next = 0;
  auto r = rebuild(b.shape_ref(), modes, next);
  return Layout(std::move(r.first), std::move(r.second));
}

void require_rank(const Layout& a, size_t n, const char* op) {
  if (static_cast<size_t>(a.rank()) < n)
    fail(rule::kByModeRank, std::string(op) + ": a by-mode argument of rank " + std::to_string(n) + " needs a layout of rank >= " + std::to_string(n));
}

Tiler divide_tiler(SymExec& ex, const Layout& a, const Tiler& b) {
  if (b.is_layout()) return Tiler(make_layout({*b.layout, sym_complement(ex, *b.layout, sym_size(a))}));
  require_rank(a, b.modes.size(), "logical_divide");
  std::vector<Tiler> modes;
  for (size_t i = 0; i < b.modes.size(); ++i) modes.push_back(divide_tiler(ex, a.mode(i), b.modes[i]));
  return Tiler(std::move(modes));
}

}  // namespace

Layout sym_composition(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  if (b.is_layout()) return compose_layouts(ex, a, *b.layout, policy);
  require_rank(a, b.modes.size(), "composition");
  std::vector<Layout> modes;
  for (size_t i = 0; i < static_cast<size_t>(a.rank()); ++i)
    modes.push_back(i < b.modes.size() ? sym_composition(ex, a.mode(i), b.modes[i], policy) : a.mode(i));
  return make_layout(modes);
}

Layout sym_logical_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return sym_composition(ex, a, divide_tiler(ex, a, b), policy);
}

// algebra.cpp zipped_divide: for a by-mode tiler, the tiles gathered first, then the rests.
Layout sym_zipped_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return zip_result(sym_logical_divide(ex, a, b, policy), b);
}

}  // namespace tfspec
