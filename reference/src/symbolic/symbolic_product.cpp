// S6 (spec/ALGEBRA.md): filter, the regrouped divides and the products over ShapeDims, each the
// concrete op of algebra.cpp with its symbolic parts (coalesce, complement, composition) rerun
// through the SymExec; the regroupings are algebra.cpp's own (structural, no value branched on).
#include <algorithm>

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "symbolic/symbolic_preds.hpp"

namespace tfspec {
namespace {

using namespace symbolic_preds;

IntTuple leaf(const ShapeDim& d) { return IntTuple::sym(normalize(d)); }

ShapeDim leaf_dim(const IntTuple& x, const char* op) {
  if (x.is_none()) fail(rule::kNeedsConcrete, std::string(op) + " needs an extent or stride where None was given");
  return normalize(x.as_dim());
}

void require_rank(const Layout& a, size_t n, const char* op) {
  if (static_cast<size_t>(a.rank()) < n)
    fail(rule::kByModeRank, std::string(op) + ": a by-mode argument of rank " + std::to_string(n) + " needs a layout of rank >= " + std::to_string(n));
}

Layout block_or_rake(SymExec& ex, const Layout& a, const Layout& b, bool blocked, DomainPolicy policy) {
  const size_t r = static_cast<size_t>(std::max(a.rank(), b.rank()));
  const Layout ap = pad_rank(a, r), bp = pad_rank(b, r);
  const Layout prod = sym_logical_product(ex, ap, Tiler(bp), policy);  // (A', complement(A') o B')
  return interleave_modes(ap, prod.mode(1), blocked);
}

// algebra.cpp by_mode: f on the first profile.len() modes, the rest kept (the rank is structure,
// never a value: no branch).
template <class F>
Layout by_mode(const Layout& l, const IntTuple& profile, const char* op, F f) {
  require_rank(l, profile.len(), op);
  std::vector<Layout> modes;
  for (size_t i = 0; i < profile.len(); ++i) modes.push_back(f(l.mode(i), profile[i]));
  for (size_t i = profile.len(); i < static_cast<size_t>(l.rank()); ++i) modes.push_back(l.mode(i));
  return make_layout(modes);
}

}  // namespace

Layout sym_coalesce(SymExec& ex, const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return sym_coalesce(ex, l);
  return by_mode(l, profile, "coalesce", [&ex](const Layout& m, const IntTuple& p) { return sym_coalesce(ex, m, p); });
}

Layout sym_filter(SymExec& ex, const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return sym_filter(ex, l);
  return by_mode(l, profile, "filter", [&ex](const Layout& m, const IntTuple& p) { return sym_filter(ex, m, p); });
}

// algebra.cpp filter: the modes of extent 1 or stride 0 dropped (each a branch), then coalesce.
Layout sym_filter(SymExec& ex, const Layout& l) {
  const auto shape = flat_leaves(l.shape_ref()), stride = flat_leaves(l.stride());
  std::vector<IntTuple> rs, rd;
  for (size_t i = 0; i < shape.size(); ++i) {
    const ShapeDim s = leaf_dim(shape[i], "filter"), d = leaf_dim(stride[i], "filter");
    if (ex.branch(eq(s, sym(1))) || ex.branch(eq(d, sym(0)))) continue;
    rs.push_back(leaf(s));
    rd.push_back(leaf(d));
  }
  if (rs.empty()) return Layout(IntTuple(1), IntTuple(0));
  if (rs.size() == 1) return sym_coalesce(ex, Layout(rs[0], rd[0]));
  return sym_coalesce(ex, Layout(IntTuple::tuple(std::move(rs)), IntTuple::tuple(std::move(rd))));
}

Layout sym_tiled_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return tiled_from_zipped(sym_zipped_divide(ex, a, b, policy));
}
Layout sym_flat_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return flat_from_zipped(sym_zipped_divide(ex, a, b, policy));
}

// §3: (A, complement(A, size(A) cosize(B)) ∘ B); by-mode for a tuple tiler.
Layout sym_logical_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  if (!b.is_layout()) {
    require_rank(a, b.modes.size(), "logical_product");
    std::vector<Layout> modes;
    for (size_t i = 0; i < static_cast<size_t>(a.rank()); ++i)
      modes.push_back(i < b.modes.size() ? sym_logical_product(ex, a.mode(i), b.modes[i], policy) : a.mode(i));
    return make_layout(modes);
  }
  const ShapeDim cotarget = sym_mul(sym_size(a), sym_cosize(ex, *b.layout));
  return make_layout({a, sym_composition(ex, sym_complement(ex, a, cotarget), b, policy)});
}

Layout sym_zipped_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return zip_result(sym_logical_product(ex, a, b, policy), b);
}
Layout sym_tiled_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return tiled_from_zipped(sym_zipped_product(ex, a, b, policy));
}
Layout sym_flat_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy) {
  return flat_from_zipped(sym_zipped_product(ex, a, b, policy));
}
Layout sym_blocked_product(SymExec& ex, const Layout& a, const Layout& b, DomainPolicy policy) { return block_or_rake(ex, a, b, true, policy); }
Layout sym_raked_product(SymExec& ex, const Layout& a, const Layout& b, DomainPolicy policy) { return block_or_rake(ex, a, b, false, policy); }

}  // namespace tfspec
