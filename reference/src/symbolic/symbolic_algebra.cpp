// S2-S3 (spec/ALGEBRA.md): the algebra's algorithms over ShapeDims, branch for branch as in
// algebra.cpp; every branch on a value goes through the SymExec, every refusal is a `require`.
#include "tfspec/reference/symbolic_algebra.hpp"
#include "symbolic/symbolic_preds.hpp"

#include <algorithm>

#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

using namespace symbolic_preds;

using V = std::vector<ShapeDim>;
struct SFlat {
  V shape, stride;
};


ShapeDim leaf_dim(const IntTuple& leaf, const char* op) {
  if (leaf.is_none()) fail(rule::kNeedsConcrete, std::string(op) + " needs an extent or stride where None was given");
  return normalize(leaf.as_dim());
}

void push_leaves(const IntTuple& t, const char* op, V& out) {
  if (t.is_leaf()) {
    out.push_back(leaf_dim(t, op));
    return;
  }
  for (const auto& c : t.children()) push_leaves(c, op, out);
}

SFlat sflat(const Layout& l, const char* op) {
  SFlat f;
  push_leaves(l.shape_ref(), op, f.shape);
  push_leaves(l.stride(), op, f.stride);
  return f;
}

IntTuple leaf(const ShapeDim& d) { return IntTuple::sym(normalize(d)); }

Layout from_sflat(const V& s, const V& d) {
  if (s.size() == 1) return Layout(leaf(s[0]), leaf(d[0]));
  std::vector<IntTuple> ts, td;
  for (size_t i = 0; i < s.size(); ++i) {
    ts.push_back(leaf(s[i]));
    td.push_back(leaf(d[i]));
  }
  return Layout(IntTuple::tuple(std::move(ts)), IntTuple::tuple(std::move(td)));
}

// ceil(a / b) for b >= 1, in the form that prints best on each side of `b | a`.
ShapeDim ceil_div(SymExec& ex, const ShapeDim& a, const ShapeDim& b) {
  if (ex.branch(divides(b, a))) return sym_floordiv(a, b);
  return sym_floordiv(sym_sub(sym_add(a, b), sym(1)), b);
}

SFlat coalesce_sflat(SymExec& ex, const SFlat& f) {
  SFlat r{{sym(1)}, {sym(0)}};
  for (size_t i = 0; i < f.shape.size(); ++i) {
    const ShapeDim &s = f.shape[i], &d = f.stride[i];
    if (ex.branch(eq(s, sym(1)))) continue;
    if (ex.branch(eq(r.shape.back(), sym(1)))) {
      r.shape.back() = s;
      r.stride.back() = d;
    } else if (ex.branch(eq(sym_mul(r.shape.back(), r.stride.back()), d))) {
      r.shape.back() = sym_mul(r.shape.back(), s);
    } else {
      r.shape.push_back(s);
      r.stride.push_back(d);
    }
  }
  return r;
}

std::string text(const ShapeDim& d) { return to_string(d); }

}  // namespace

bool is_symbolic(const Layout& l) {
  std::vector<IntTuple> v = flat_leaves(l.shape_ref());
  if (l.materialized())
    for (const auto& x : flat_leaves(l.stride())) v.push_back(x);
  return std::any_of(v.begin(), v.end(), [](const IntTuple& x) { return x.is_sym(); });
}

bool is_symbolic(const Tiler& t) {
  if (t.is_layout()) return is_symbolic(*t.layout);
  return std::any_of(t.modes.begin(), t.modes.end(), [](const Tiler& m) { return is_symbolic(m); });
}

ShapeDim sym_size(const IntTuple& shape) {
  ShapeDim p = sym(1);
  for (const auto& x : flat_leaves(shape)) p = sym_mul(p, leaf_dim(x, "size"));
  return p;
}
ShapeDim sym_size(const Layout& l) { return sym_size(l.shape_ref()); }

// 1 + the sum of (s - 1) * d over the modes of positive stride (Layout::cosize).
ShapeDim sym_cosize(SymExec& ex, const Layout& l) {
  const SFlat f = sflat(l, "cosize");
  ShapeDim hi = sym(0);
  for (size_t i = 0; i < f.shape.size(); ++i)
    if (ex.branch({f.stride[i], SymRel::Gt, sym(0)})) hi = sym_add(hi, sym_mul(sym_sub(f.shape[i], sym(1)), f.stride[i]));
  return sym_add(hi, sym(1));
}

Layout sym_coalesce(SymExec& ex, const Layout& l) {
  const SFlat r = coalesce_sflat(ex, sflat(l, "coalesce"));
  return from_sflat(r.shape, r.stride);
}

// algebra.cpp complement: sorted by (stride, extent), each mode at or above the span below it.
Layout sym_complement(SymExec& ex, const Layout& l, const ShapeDim& cotarget) {
  const SFlat f = sflat(l, "complement");
  ex.require(ge(cotarget, sym(1)), rule::kComplementCotarget, "complement's cotarget " + text(cotarget) + " must be >= 1");
  std::vector<std::pair<ShapeDim, ShapeDim>> ds;  // (stride, extent)
  for (size_t i = 0; i < f.shape.size(); ++i) {
    ex.require(ge(f.stride[i], sym(0)), rule::kComplementNegativeStride, "complement needs non-negative strides, got " + text(f.stride[i]));
    if (ex.branch(eq(f.stride[i], sym(0))) || ex.branch(eq(f.shape[i], sym(1)))) continue;
    ds.emplace_back(f.stride[i], f.shape[i]);
  }
  auto less = [&](const auto& x, const auto& y) {
    return ex.branch(lt(x.first, y.first)) || (ex.branch(eq(x.first, y.first)) && ex.branch(lt(x.second, y.second)));
  };
  for (size_t i = 1; i < ds.size(); ++i)  // insertion sort: the same order as std::sort, branch by branch
    for (size_t j = i; j > 0 && less(ds[j], ds[j - 1]); --j) std::swap(ds[j], ds[j - 1]);
  V rs, rd;
  ShapeDim current = sym(1);
  for (const auto& [d, s] : ds) {
    ex.require(ge(d, current), rule::kComplementDisjoint,
               "complement of " + to_string(l) + ": stride " + text(d) + " is below the span " + text(current) + " of the smaller modes");
    rs.push_back(sym_floordiv(d, current));
    rd.push_back(current);
    current = sym_mul(s, d);
  }
  rs.push_back(ceil_div(ex, cotarget, current));
  rd.push_back(current);
  return sym_coalesce(ex, from_sflat(rs, rd));
}

// inttuple.cpp crd2idx, with its congruence refusals.
ShapeDim sym_crd2idx(const IntTuple& crd, const IntTuple& shape, const IntTuple& stride) {
  if (crd.is_tuple()) {
    if (!shape.is_tuple() || !stride.is_tuple() || crd.len() != shape.len() || stride.len() != shape.len())
      fail(rule::in(rule::kCoordNotCongruent, "§3"), "coordinate is not congruent with the shape");
    ShapeDim r = sym(0);
    for (size_t i = 0; i < crd.len(); ++i) r = sym_add(r, sym_crd2idx(crd[i], shape[i], stride[i]));
    return r;
  }
  const ShapeDim i = leaf_dim(crd, "crd2idx");
  if (shape.is_leaf()) {
    if (stride.is_tuple()) fail(rule::kStrideCongruent, "tuple stride for a leaf extent");
    return sym_mul(i, leaf_dim(stride, "crd2idx"));
  }
  if (!stride.is_tuple() || stride.len() != shape.len()) fail(rule::kStrideCongruent, "stride is not congruent with the shape");
  if (shape.len() == 0) return sym(0);
  // an integer index into a tuple: colexicographic, the last mode takes the rest (pycute)
  ShapeDim r = sym(0), rest = i;
  for (size_t k = 0; k + 1 < shape.len(); ++k) {
    const ShapeDim s = sym_size(shape[k]);
    r = sym_add(r, sym_crd2idx(IntTuple::sym(sym_mod(rest, s)), shape[k], stride[k]));
    rest = sym_floordiv(rest, s);
  }
  return sym_add(r, sym_crd2idx(IntTuple::sym(rest), shape[shape.len() - 1], stride[shape.len() - 1]));
}

}  // namespace tfspec
