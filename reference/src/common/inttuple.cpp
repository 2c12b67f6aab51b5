// §1 IntTuple and the pycute index algebra over it.
#include "tfspec/reference/inttuple.hpp"

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec {

IntTuple IntTuple::none() {
  IntTuple t(0);
  t.kind_ = Kind::None;
  return t;
}

IntTuple IntTuple::sym(const ShapeDim& d) {
  if (auto c = const_value(d)) return IntTuple(*c);
  IntTuple t(0);
  t.kind_ = Kind::Sym;
  t.dim_ = d;
  return t;
}

IntTuple IntTuple::tuple(std::vector<IntTuple> children) {
  IntTuple t;
  int d = 0;
  for (const auto& c : children) d = std::max(d, c.depth_ + 0);
  if (d + 1 > kMaxDepth)
    fail(rule::kNestingTooDeep, "IntTuple nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  t.depth_ = static_cast<uint8_t>(d + 1);
  t.children_ = std::move(children);
  return t;
}

int64_t IntTuple::value() const {
  if (kind_ != Kind::Int) fail(rule::kNeedsConcrete, "expected an integer, got " + describe_leaf(*this));
  return value_;
}

const ShapeDim& IntTuple::dim() const {
  if (kind_ != Kind::Sym) fail(rule::in(rule::kInternal, "§1"), "not a symbolic leaf");
  return dim_;
}

ShapeDim IntTuple::as_dim() const {
  if (kind_ == Kind::Int) return dim_const(value_);
  if (kind_ == Kind::Sym) return dim_;
  fail(rule::kNeedsConcrete, "expected an extent or stride expression, got " + describe_leaf(*this));
}

const IntTuple& IntTuple::operator[](size_t i) const {
  if (kind_ != Kind::Tuple) {
    if (i == 0) return *this;  // a leaf is its own only mode
    fail(rule::kModeOutOfRange, "mode " + std::to_string(i) + " of a leaf");
  }
  if (i >= children_.size())
    fail(rule::kModeOutOfRange, "mode " + std::to_string(i) + " of a rank-" + std::to_string(children_.size()) + " tuple");
  return children_[i];
}

bool operator==(const IntTuple& a, const IntTuple& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case IntTuple::Kind::Int: return a.value_ == b.value_;
    case IntTuple::Kind::Sym: return structurally_equal(a.dim_, b.dim_);
    case IntTuple::Kind::None: return true;
    case IntTuple::Kind::Tuple: return a.children_ == b.children_;
  }
  return false;
}

std::string describe_leaf(const IntTuple& leaf) {
  switch (leaf.kind()) {
    case IntTuple::Kind::Int: return std::to_string(leaf.value());
    case IntTuple::Kind::Sym: return "symbolic dim '" + to_string(leaf.dim()) + "'";
    case IntTuple::Kind::None: return "None (launch-provided extent)";
    case IntTuple::Kind::Tuple: return "a tuple";
  }
  return "?";
}

int rank(const IntTuple& t) { return t.is_tuple() ? static_cast<int>(t.len()) : 1; }
int depth(const IntTuple& t) { return t.depth(); }

static void flatten_into(const IntTuple& t, std::vector<IntTuple>& out) {
  if (t.is_leaf()) {
    out.push_back(t);
    return;
  }
  for (const auto& c : t.children()) flatten_into(c, out);
}

std::vector<IntTuple> flat_leaves(const IntTuple& t) {
  std::vector<IntTuple> out;
  flatten_into(t, out);
  return out;
}

IntTuple flatten(const IntTuple& t) { return IntTuple::tuple(flat_leaves(t)); }

bool is_concrete(const IntTuple& t) {
  if (t.is_leaf()) return t.is_int();
  for (const auto& c : t.children())
    if (!is_concrete(c)) return false;
  return true;
}

bool has_none(const IntTuple& t) {
  if (t.is_leaf()) return t.is_none();
  for (const auto& c : t.children())
    if (has_none(c)) return true;
  return false;
}

bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.len() != b.len()) return false;
  for (size_t i = 0; i < a.len(); ++i)
    if (!congruent(a[i], b[i])) return false;
  return true;
}

bool compatible(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf()) {
    if (is_concrete(a) && is_concrete(b)) return a.value() == product_int(b);
    // Symbolic sizes: equal normal forms are equal for every value; otherwise the answer depends
    // on the values (M against (2,3) holds at M = 6 only), so it is no answer at all.
    const std::string x = to_string(normalize(product(a).as_dim())), y = to_string(normalize(product(b).as_dim()));
    if (x == y) return true;
    fail(rule::kNeedsConcrete, "whether the size " + x + " equals the size " + y + " depends on the symbols' values");
  }
  if (b.is_leaf() || a.len() != b.len()) return false;
  for (size_t i = 0; i < a.len(); ++i)
    if (!compatible(a[i], b[i])) return false;
  return true;
}

int64_t require_int(const IntTuple& leaf, const char* what) {
  if (!leaf.is_int())
    fail(rule::kNeedsConcrete, std::string(what) + " needs a concrete integer, got " + describe_leaf(leaf));
  return leaf.value();
}

IntTuple leaf_mul(const IntTuple& a, const IntTuple& b, const char* what) {
  if (a.is_int() && b.is_int()) return IntTuple(checked_mul(a.value(), b.value()));
  if (a.is_none() || b.is_none())
    fail(rule::kNeedsConcrete, std::string(what) + " needs a known extent, got None (launch-provided)");
  return IntTuple::sym(dim_binary(ExprNode::Op::Mul, a.as_dim(), b.as_dim()));
}

IntTuple leaf_add(const IntTuple& a, const IntTuple& b, const char* what) {
  if (a.is_int() && b.is_int()) return IntTuple(checked_add(a.value(), b.value()));
  if (a.is_none() || b.is_none())
    fail(rule::kNeedsConcrete, std::string(what) + " needs a known extent, got None (launch-provided)");
  return IntTuple::sym(dim_binary(ExprNode::Op::Add, a.as_dim(), b.as_dim()));
}

IntTuple product(const IntTuple& t) {
  if (t.is_leaf()) {
    if (t.is_none()) fail(rule::kNeedsConcrete, "size of a shape with a None (launch-provided) extent");
    return t;
  }
  IntTuple r(1);
  for (const auto& c : t.children()) r = leaf_mul(r, product(c), "size");
  return r;
}

int64_t product_int(const IntTuple& t, const char* what) {
  if (t.is_leaf()) return require_int(t, what);
  int64_t r = 1;
  for (const auto& c : t.children()) r = checked_mul(r, product_int(c, what));
  return r;
}

IntTuple prefix_product(const IntTuple& a, const IntTuple& init) {
  if (a.is_tuple()) {
    if (init.is_tuple()) {
      if (init.len() != a.len()) fail(rule::kNotCongruent, "prefix_product: init not congruent with the tuple");
      std::vector<IntTuple> r;
      for (size_t i = 0; i < a.len(); ++i) r.push_back(prefix_product(a[i], init[i]));
      return IntTuple::tuple(std::move(r));
    }
    std::vector<IntTuple> r;
    IntTuple cur = init;
    for (size_t i = 0; i < a.len(); ++i) {
      r.push_back(prefix_product(a[i], cur));
      if (i + 1 < a.len()) cur = leaf_mul(cur, product(a[i]), "prefix_product");  // last extent never needed
    }
    return IntTuple::tuple(std::move(r));
  }
  if (init.is_tuple()) fail(rule::kNotCongruent, "prefix_product: tuple init for a leaf");
  return init;
}

IntTuple shape_div(const IntTuple& a, const IntTuple& b) {
  if (a.is_tuple()) {
    std::vector<IntTuple> r;
    if (b.is_tuple()) {
      if (a.len() != b.len()) fail(rule::kNotCongruent, "shape_div of tuples of different rank");
      for (size_t i = 0; i < a.len(); ++i) r.push_back(shape_div(a[i], b[i]));
    } else {
      IntTuple cur = b;
      for (const auto& v : a.children()) {
        r.push_back(shape_div(v, cur));
        cur = shape_div(cur, product(v));
      }
    }
    return IntTuple::tuple(std::move(r));
  }
  if (b.is_tuple()) return shape_div(a, product(b));
  int64_t x = require_int(a, "shape_div"), y = require_int(b, "shape_div");
  if (x <= 0 || y <= 0) fail(rule::kExtentPositive, "shape_div needs positive extents");
  if (x % y == 0) return IntTuple(x / y);
  if (y % x == 0) return IntTuple(1);
  fail(rule::kShapeDivDivisibility, "shape_div(" + std::to_string(x) + ", " + std::to_string(y) + "): neither divides the other");
}

IntTuple elem_scale(const IntTuple& a, const IntTuple& b) {
  if (a.is_tuple()) {
    if (!b.is_tuple() || a.len() != b.len()) fail(rule::kNotCongruent, "elem_scale of incongruent tuples");
    std::vector<IntTuple> r;
    for (size_t i = 0; i < a.len(); ++i) r.push_back(elem_scale(a[i], b[i]));
    return IntTuple::tuple(std::move(r));
  }
  return leaf_mul(a, product(b), "elem_scale");
}

// L(i) for an integer i (D1): i decomposes colexicographically over the modes, the last mode
// taking what is left (pycute: an index past the end continues the last mode). This is the one
// place the reference turns an index into an offset; Layout::operator() calls it.
int64_t crd2idx(int64_t i, const IntTuple& shape, const IntTuple& stride) {
  if (shape.is_leaf()) {
    if (stride.is_tuple()) fail(rule::kStrideCongruent, "tuple stride for a leaf extent");
    return checked_mul(i, require_int(stride, "stride"));
  }
  const auto& s = shape.children();
  const auto& d = stride.children();
  if (!stride.is_tuple() || d.size() != s.size()) fail(rule::kStrideCongruent, "stride is not congruent with the shape");
  const size_t n = s.size();
  if (n == 0) return 0;
  int64_t r = 0;
  for (size_t k = 0; k + 1 < n; ++k) {
    const int64_t ext = s[k].is_int() ? s[k].value() : product_int(s[k], "crd2idx");
    const int64_t q = floor_div(i, ext);  // i = q * ext + (i mod ext)
    r = checked_add(r, crd2idx(i - q * ext, s[k], d[k]));
    i = q;
  }
  return checked_add(r, crd2idx(i, s[n - 1], d[n - 1]));
}

// §3 idx = crd2idx(coord, shape, stride): a tuple coordinate mode by mode, an integer by L(i).
int64_t crd2idx(const IntTuple& crd, const IntTuple& shape, const IntTuple& stride) {
  if (!crd.is_tuple()) return crd2idx(require_int(crd, "coordinate"), shape, stride);
  if (!shape.is_tuple() || !stride.is_tuple() || crd.len() != shape.len() || stride.len() != shape.len())
    fail(rule::in(rule::kCoordNotCongruent, "§3"), "coordinate is not congruent with the shape");
  int64_t r = 0;
  for (size_t i = 0; i < crd.len(); ++i) r = checked_add(r, crd2idx(crd[i], shape[i], stride[i]));
  return r;
}

static IntTuple unflatten_at(const std::vector<int64_t>& flat, const IntTuple& shape, size_t& next) {
  if (shape.is_leaf()) {
    if (next >= flat.size()) fail(rule::kCoordNotCongruent, "a flat coordinate has fewer values than the shape has leaves");
    return IntTuple(flat[next++]);
  }
  std::vector<IntTuple> c;
  for (const auto& x : shape.children()) c.push_back(unflatten_at(flat, x, next));
  return IntTuple::tuple(std::move(c));
}

IntTuple unflatten(const std::vector<int64_t>& flat, const IntTuple& shape) {
  size_t next = 0;
  IntTuple c = unflatten_at(flat, shape, next);
  if (next != flat.size()) fail(rule::kCoordNotCongruent, "a flat coordinate has more values than the shape has leaves");
  return c;
}

int64_t crd2idx(const IntTuple& crd, const IntTuple& shape) {
  return crd2idx(crd, shape, prefix_product(shape));
}

static IntTuple idx2crd_rec(int64_t idx, const IntTuple& shape, const IntTuple& stride) {
  if (shape.is_tuple()) {
    std::vector<IntTuple> r;
    for (size_t i = 0; i < shape.len(); ++i) r.push_back(idx2crd_rec(idx, shape[i], stride[i]));
    return IntTuple::tuple(std::move(r));
  }
  return IntTuple(floor_mod(floor_div(idx, require_int(stride, "idx2crd")), require_int(shape, "idx2crd")));
}

IntTuple idx2crd(int64_t idx, const IntTuple& shape) {
  if (shape.is_leaf()) return IntTuple(idx);  // pycute: a leaf keeps the whole index
  return idx2crd_rec(idx, shape, prefix_product(shape));
}

IntTuple crd2crd(const IntTuple& crd, const IntTuple& dst_shape, const IntTuple& src_shape) {
  if (crd.is_tuple()) {
    if (dst_shape.is_tuple()) {
      if (crd.len() != dst_shape.len() || !src_shape.is_tuple() || src_shape.len() != crd.len())
        fail(rule::kCoordNotCongruent, "crd2crd: coordinate, source and target shapes differ in rank");
      std::vector<IntTuple> r;
      for (size_t i = 0; i < crd.len(); ++i) r.push_back(crd2crd(crd[i], dst_shape[i], src_shape[i]));
      return IntTuple::tuple(std::move(r));
    }
    return IntTuple(crd2idx(crd, src_shape));
  }
  if (dst_shape.is_tuple()) return idx2crd(require_int(crd, "crd2crd"), dst_shape);
  return crd;
}

static void slice_into(const IntTuple& crd, const IntTuple& t, bool keep_wild, std::vector<IntTuple>& out) {
  if (crd.is_tuple()) {
    if (!t.is_tuple() || t.len() != crd.len())
      fail(rule::kCoordNotCongruent, "slice coordinate is not congruent with the tuple");
    for (size_t i = 0; i < crd.len(); ++i) slice_into(crd[i], t[i], keep_wild, out);
    return;
  }
  if (crd.is_none() == keep_wild) out.push_back(t);
}

IntTuple slice(const IntTuple& crd, const IntTuple& t) {
  std::vector<IntTuple> out;
  slice_into(crd, t, true, out);
  return IntTuple::tuple(std::move(out));
}

IntTuple dice(const IntTuple& crd, const IntTuple& t) {
  std::vector<IntTuple> out;
  slice_into(crd, t, false, out);
  return IntTuple::tuple(std::move(out));
}

bool coord_in_shape(const IntTuple& crd, const IntTuple& shape) {
  if (crd.is_tuple()) {
    if (!shape.is_tuple() || crd.len() != shape.len()) return false;
    for (size_t i = 0; i < crd.len(); ++i)
      if (!coord_in_shape(crd[i], shape[i])) return false;
    return true;
  }
  if (!crd.is_int()) return false;
  int64_t n = product_int(shape, "coordinate bound");
  return crd.value() >= 0 && crd.value() < n;
}

}  // namespace tfspec
