// S8 (spec/ALGEBRA.md): right_inverse, left_inverse and max_common_vector over ShapeDims, branch
// for branch as algebra.cpp computes them: the sort by stride is an insertion sort whose every
// comparison asks the decider (the order std::sort gives, the ties being equal modes).
#include <tuple>

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "symbolic/symbolic_preds.hpp"

namespace tfspec {
namespace {

using namespace symbolic_preds;

using V = std::vector<ShapeDim>;


V leaves(const IntTuple& t, const char* op) {
  V v;
  for (const auto& x : flat_leaves(t)) {
    if (x.is_none()) fail(rule::kNeedsConcrete, std::string(op) + " needs an extent or stride where None was given");
    v.push_back(normalize(x.as_dim()));
  }
  return v;
}

Layout from_modes(const V& s, const V& d) {
  if (s.size() == 1) return Layout(IntTuple::sym(s[0]), IntTuple::sym(d[0]));
  std::vector<IntTuple> ts, td;
  for (size_t i = 0; i < s.size(); ++i) {
    ts.push_back(IntTuple::sym(s[i]));
    td.push_back(IntTuple::sym(d[i]));
  }
  return Layout(IntTuple::tuple(std::move(ts)), IntTuple::tuple(std::move(td)));
}

struct Mode {
  ShapeDim stride, shape, compact;
};

// std::tuple's lexicographic <, one branch per comparison.
bool less(SymExec& ex, const Mode& x, const Mode& y) {
  if (ex.branch(lt(x.stride, y.stride))) return true;
  if (!ex.branch(eq(x.stride, y.stride))) return false;
  if (ex.branch(lt(x.shape, y.shape))) return true;
  if (!ex.branch(eq(x.shape, y.shape))) return false;
  return ex.branch(lt(x.compact, y.compact));
}

}  // namespace

// algebra.cpp right_inverse: the modes of extent > 1 and stride > 0 sorted by (stride, extent,
// compact stride); from stride 1 each next mode must start where the previous ones end.
Layout sym_right_inverse(SymExec& ex, const Layout& l) {
  const V shape = leaves(l.shape_ref(), "right_inverse"), stride = leaves(l.stride(), "right_inverse");
  std::vector<Mode> sorted;
  ShapeDim acc = sym(1);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (ex.branch(gt(shape[i], sym(1))) && ex.branch(gt(stride[i], sym(0)))) sorted.push_back({stride[i], shape[i], acc});
    acc = sym_mul(acc, shape[i]);
  }
  for (size_t i = 1; i < sorted.size(); ++i)
    for (size_t j = i; j > 0 && less(ex, sorted[j], sorted[j - 1]); --j) std::swap(sorted[j], sorted[j - 1]);
  V rs, rd;
  ShapeDim current = sym(1);
  for (const auto& m : sorted) {
    if (!ex.branch(eq(m.stride, current))) break;
    rs.push_back(m.shape);
    rd.push_back(m.compact);
    current = sym_mul(m.shape, m.stride);
  }
  if (rs.empty()) return Layout(IntTuple(1), IntTuple(0));
  return sym_coalesce(ex, from_modes(rs, rd));
}

// algebra.cpp left_inverse: right_inverse((L, complement(L, 1))), refused where it does not
// cover [0, cosize(L)).
Layout sym_left_inverse(SymExec& ex, const Layout& l) {
  const Layout r = sym_right_inverse(ex, make_layout({l, sym_complement(ex, l, sym(1))}));
  const ShapeDim n = sym_size(r), c = sym_cosize(ex, l);
  ex.require({n, SymRel::Ge, c}, rule::kLeftInverseGaps,
             "left_inverse of " + to_string(l) + ": (L, complement(L)) covers only [0, " + to_string(n) + ") of L's offsets [0, " + to_string(c) + ")");
  return r;
}

// algebra.cpp max_common_vector where the walk admits A ∘ right_inverse(B): the first mode of
// the coalesced composition when its stride is 1. Where the walk refuses, the reference counts
// point by point, which has no symbolic form: the walk's conditions are sufficient (S8).
ShapeDim sym_max_common_vector(SymExec& ex, const Layout& a, const Layout& b) {
  const Layout r = sym_right_inverse(ex, b);
  const Layout c = sym_coalesce(ex, sym_composition(ex, a, Tiler(r), DomainPolicy::Strict));
  const V shape = leaves(c.shape_ref(), "max_common_vector"), stride = leaves(c.stride(), "max_common_vector");
  return ex.branch(eq(stride[0], sym(1))) ? shape[0] : sym(1);
}

}  // namespace tfspec
