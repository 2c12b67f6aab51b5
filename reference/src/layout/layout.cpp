// §2 common contract and §3 Layout.
#include "tfspec/reference/layout.hpp"

#include <functional>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec {

int LayoutBase::domain_rank() const { return tfspec::rank(flatten(shape())); }

// Walks the leaves; the path string is only built for the error message.
static void validate_shape_rec(const IntTuple& s, const std::string& base, std::vector<size_t>& at) {
  if (s.is_tuple()) {
    for (size_t i = 0; i < s.len(); ++i) {
      at.push_back(i);
      validate_shape_rec(s[i], base, at);
      at.pop_back();
    }
    return;
  }
  if (s.is_int() && s.value() < 1) {
    std::string path = base;
    for (size_t i : at) path += "[" + std::to_string(i) + "]";
    fail(rule::in(rule::kExtentPositive, "§3"), "extent " + std::to_string(s.value()) + " at " + path + " is not >= 1", path);
  }
}

static bool extents_positive(const IntTuple& s) {
  if (s.is_leaf()) return !s.is_int() || s.value() >= 1;
  for (const auto& c : s.children())
    if (!extents_positive(c)) return false;
  return true;
}

void validate_shape(const IntTuple& shape, const std::string& path) {
  if (extents_positive(shape)) return;
  std::vector<size_t> at;
  validate_shape_rec(shape, path, at);
}

// size(shape) when every extent is concrete and the product fits int64; -1 otherwise (size()
// then reports why).
static int64_t concrete_size(const IntTuple& t) {
  if (t.is_leaf()) return t.is_int() ? t.value() : -1;
  int64_t r = 1;
  for (const auto& c : t.children()) {
    int64_t v = concrete_size(c);
    if (v < 0 || __builtin_mul_overflow(r, v, &r)) return -1;
  }
  return r;
}

Layout::Layout(IntTuple shape) : shape_(std::move(shape)) {
  validate_shape(shape_, "shape");
  size_ = concrete_size(shape_);
  stride_ = prefix_product(shape_);  // §3 default
}

Layout::Layout(IntTuple shape, IntTuple stride) : shape_(std::move(shape)), stride_(std::move(stride)) {
  validate_shape(shape_, "shape");
  size_ = concrete_size(shape_);
  if (!congruent(shape_, *stride_))
    fail(rule::kStrideCongruent, "stride is not congruent with the shape", "stride");
  if (has_none(*stride_)) fail(rule::kStrideNoneLeaf, "a single stride entry cannot be None", "stride");
}

Layout::Layout(IntTuple shape, Unmaterialized) : shape_(std::move(shape)) {
  validate_shape(shape_, "shape");
  size_ = concrete_size(shape_);
}

Layout Layout::unmaterialized(IntTuple shape) { return Layout(std::move(shape), Unmaterialized{}); }

const IntTuple& Layout::stride() const {
  if (!stride_)
    fail(rule::kStrideUnmaterialized, "the layout's strides are un-materialized (None); Reshard typeinfer must fix them first");
  return *stride_;
}

int64_t Layout::size() const { return size_ >= 0 ? size_ : product_int(shape_, "size"); }

int64_t Layout::cosize() const {
  // max over the domain of L(c), plus one; each mode contributes its extreme (stride sign decides).
  const auto shapes = flat_leaves(shape_);
  const auto strides = flat_leaves(stride());
  int64_t hi = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t s = require_int(shapes[i], "cosize"), d = require_int(strides[i], "cosize");
    if (d > 0) hi = checked_add(hi, checked_mul(s - 1, d));
  }
  return checked_add(hi, 1);
}

Layout Layout::mode(size_t i) const {
  if (!materialized()) return Layout::unmaterialized(shape_[i]);
  return Layout(shape_[i], stride()[i]);
}

Layout Layout::get(const std::vector<size_t>& path) const {
  Layout l = *this;
  for (size_t i : path) l = l.mode(i);
  return l;
}

int64_t Layout::apply(const IntTuple& coord) const {
  if (coord.is_int()) return (*this)(coord.value());
  if (!coord_in_shape(coord, shape_))
    fail(rule::kCoordInDomain, "coordinate is not in the layout's domain", "coord");
  return crd2idx(coord, shape_, stride());
}

int64_t Layout::operator()(int64_t index) const {
  const int64_t n = size();
  if (index < 0 || index >= n)
    fail(rule::kCoordInDomain, "index " + std::to_string(index) + " is outside the domain [0, " + std::to_string(n) + ")", "coord");
  return crd2idx(index, shape_, stride());  // L(i), D1
}

Layout make_layout(const std::vector<Layout>& modes) {
  std::vector<IntTuple> s, d;
  for (const auto& m : modes) {
    s.push_back(m.shape_ref());
    d.push_back(m.stride());
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

SliceResult slice_and_offset(const IntTuple& crd, const Layout& l) {
  // Offset: the fixed coordinates with every wildcard set to 0.
  std::function<IntTuple(const IntTuple&, const IntTuple&)> zero_wild = [&](const IntTuple& c, const IntTuple& s) {
    if (c.is_tuple()) {
      if (!s.is_tuple() || s.len() != c.len())
        fail(rule::in(rule::kCoordNotCongruent, "§3"), "slice coordinate is not congruent with the shape");
      std::vector<IntTuple> r;
      for (size_t i = 0; i < c.len(); ++i) r.push_back(zero_wild(c[i], s[i]));
      return IntTuple::tuple(std::move(r));
    }
    if (c.is_none()) return s.is_tuple() ? idx2crd(0, s) : IntTuple(0);
    return c;
  };
  IntTuple fixed = zero_wild(crd, l.shape_ref());
  if (!coord_in_shape(fixed, l.shape_ref()))
    fail(rule::kCoordInDomain, "slice coordinate is outside the layout's domain", "coord");
  int64_t off = crd2idx(fixed, l.shape_ref(), l.stride());
  IntTuple s = slice(crd, l.shape_ref()), d = slice(crd, l.stride());
  if (s.len() == 1) return {Layout(s[0], d[0]), off};
  return {Layout(s, d), off};
}

}  // namespace tfspec
