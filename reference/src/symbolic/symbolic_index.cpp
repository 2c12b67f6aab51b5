// S7 (spec/ALGEBRA.md): idx2crd, crd2crd, shape_div, eval and slice over ShapeDims, as inttuple.cpp
// and layout.cpp compute them: idx2crd and crd2crd have no branch (each leaf is
// `(i // stride) % extent`); shape_div branches on which extent divides the other; the coordinate
// bounds of eval and slice are their conditions.
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "symbolic/symbolic_preds.hpp"

namespace tfspec {
namespace {

using namespace symbolic_preds;

ShapeDim leaf_dim(const IntTuple& x, const char* op) {
  if (x.is_none()) fail(rule::kNeedsConcrete, std::string(op) + " needs an extent where None was given");
  return normalize(x.as_dim());
}

// inttuple.cpp idx2crd_rec with the strides of prefix_product(shape) accumulated in leaf order.
IntTuple idx2crd_rec(const ShapeDim& idx, const IntTuple& shape, ShapeDim& stride) {
  if (shape.is_tuple()) {
    std::vector<IntTuple> r;
    for (const auto& c : shape.children()) r.push_back(idx2crd_rec(idx, c, stride));
    return IntTuple::tuple(std::move(r));
  }
  const ShapeDim s = leaf_dim(shape, "idx2crd");
  const IntTuple c = IntTuple::sym(sym_mod(sym_floordiv(idx, stride), s));
  stride = sym_mul(stride, s);
  return c;
}

IntTuple zeros(const IntTuple& s) {
  if (s.is_leaf()) return IntTuple(0);
  std::vector<IntTuple> r;
  for (const auto& c : s.children()) r.push_back(zeros(c));
  return IntTuple::tuple(std::move(r));
}

// layout.cpp zero_wild: the fixed coordinates with every wildcard set to 0 (idx2crd(0, s)).
IntTuple zero_wild(const IntTuple& c, const IntTuple& s) {
  if (c.is_tuple()) {
    if (!s.is_tuple() || s.len() != c.len()) fail(rule::in(rule::kCoordNotCongruent, "§3"), "slice coordinate is not congruent with the shape");
    std::vector<IntTuple> r;
    for (size_t i = 0; i < c.len(); ++i) r.push_back(zero_wild(c[i], s[i]));
    return IntTuple::tuple(std::move(r));
  }
  if (c.is_none()) return zeros(s);
  return c;
}

// inttuple.cpp coord_in_shape: structure first (no value), then 0 <= c < size(shape) per leaf.
void require_in_shape(SymExec& ex, const IntTuple& crd, const IntTuple& shape) {
  const auto outside = [] { fail(rule::kCoordInDomain, "the coordinate is outside the layout's domain (not congruent with its shape)", "coord"); };
  if (crd.is_tuple()) {
    if (!shape.is_tuple() || crd.len() != shape.len()) outside();
    for (size_t i = 0; i < crd.len(); ++i) require_in_shape(ex, crd[i], shape[i]);
    return;
  }
  if (crd.is_none()) outside();
  const ShapeDim c = normalize(crd.as_dim()), n = sym_size(shape);
  const std::string msg = "coordinate " + to_string(c) + " is outside [0, " + to_string(n) + ")";
  ex.require({c, SymRel::Ge, sym(0)}, rule::kCoordInDomain, msg);
  ex.require({c, SymRel::Lt, n}, rule::kCoordInDomain, msg);
}

}  // namespace

IntTuple sym_idx2crd(const ShapeDim& idx, const IntTuple& shape) {
  if (shape.is_leaf()) return IntTuple::sym(normalize(idx));  // pycute: a leaf keeps the whole index
  ShapeDim stride = sym(1);
  return idx2crd_rec(idx, shape, stride);
}

// inttuple.cpp crd2crd: by mode where the coordinate and the target are tuples, else through the
// colexicographic index of the source shape.
IntTuple sym_crd2crd(const IntTuple& crd, const IntTuple& dst, const IntTuple& src) {
  if (crd.is_tuple()) {
    if (dst.is_tuple()) {
      if (crd.len() != dst.len() || !src.is_tuple() || src.len() != crd.len())
        fail(rule::kCoordNotCongruent, "crd2crd: coordinate, source and target shapes differ in rank");
      std::vector<IntTuple> r;
      for (size_t i = 0; i < crd.len(); ++i) r.push_back(sym_crd2crd(crd[i], dst[i], src[i]));
      return IntTuple::tuple(std::move(r));
    }
    return IntTuple::sym(normalize(sym_crd2idx(crd, src, prefix_product(src))));
  }
  if (dst.is_tuple()) return sym_idx2crd(leaf_dim(crd, "crd2crd"), dst);
  return crd;
}

// inttuple.cpp shape_div: a tuple divided mode by mode, or its leaves in turn by what the earlier
// ones left of b; two extents: a // b where b divides a, 1 where a divides b, refused otherwise.
IntTuple sym_shape_div(SymExec& ex, const IntTuple& a, const IntTuple& b) {
  if (a.is_tuple()) {
    std::vector<IntTuple> r;
    if (b.is_tuple()) {
      if (a.len() != b.len()) fail(rule::kNotCongruent, "shape_div of tuples of different rank");
      for (size_t i = 0; i < a.len(); ++i) r.push_back(sym_shape_div(ex, a[i], b[i]));
    } else {
      // What is left of b after the last leaf is unused, and inttuple.cpp's computing it cannot
      // refuse (shape_div(v, cur) answered, so one of v, cur divides the other): not branched on.
      IntTuple cur = b;
      for (size_t i = 0; i < a.len(); ++i) {
        r.push_back(sym_shape_div(ex, a[i], cur));
        if (i + 1 < a.len()) cur = sym_shape_div(ex, cur, IntTuple::sym(sym_size(a[i])));
      }
    }
    return IntTuple::tuple(std::move(r));
  }
  if (b.is_tuple()) return sym_shape_div(ex, a, IntTuple::sym(sym_size(b)));
  const ShapeDim x = leaf_dim(a, "shape_div"), y = leaf_dim(b, "shape_div");
  ex.require(ge(x, sym(1)), rule::kExtentPositive, "shape_div needs positive extents, got " + to_string(x));
  ex.require(ge(y, sym(1)), rule::kExtentPositive, "shape_div needs positive extents, got " + to_string(y));
  if (ex.branch(divides(y, x))) return IntTuple::sym(normalize(sym_floordiv(x, y)));
  ex.require(divides(x, y), rule::kShapeDivDivisibility,
             "shape_div(" + to_string(x) + ", " + to_string(y) + "): neither divides the other");
  return IntTuple(1);
}

// layout.cpp Layout::apply: an integer is an index, 0 <= i < size(L), colexicographic (D1); a
// tuple a coordinate inside the shape; then crd2idx.
ShapeDim sym_eval(SymExec& ex, const IntTuple& coord, const Layout& l) {
  if (coord.is_leaf() && !coord.is_none()) {
    const ShapeDim i = normalize(coord.as_dim()), n = sym_size(l.shape_ref());
    const std::string msg = "index " + to_string(i) + " is outside the domain [0, " + to_string(n) + ")";
    ex.require({i, SymRel::Ge, sym(0)}, rule::kCoordInDomain, msg);
    ex.require({i, SymRel::Lt, n}, rule::kCoordInDomain, msg);
    return sym_crd2idx(coord, l.shape_ref(), l.stride());
  }
  require_in_shape(ex, coord, l.shape_ref());
  return sym_crd2idx(coord, l.shape_ref(), l.stride());
}

// layout.cpp slice_and_offset: the wildcard modes kept, the fixed coordinates' offset.
SymSlice sym_slice(SymExec& ex, const IntTuple& crd, const Layout& l) {
  const IntTuple fixed = zero_wild(crd, l.shape_ref());
  require_in_shape(ex, fixed, l.shape_ref());
  const ShapeDim off = sym_crd2idx(fixed, l.shape_ref(), l.stride());
  const IntTuple s = slice(crd, l.shape_ref()), d = slice(crd, l.stride());
  if (s.len() == 1) return {Layout(s[0], d[0]), off};
  return {Layout(s, d), off};
}

}  // namespace tfspec
