// §1 IntTuple: nested tuples whose leaves are int64, a symbolic ShapeDim, or None
// (a launch-provided extent). pycute's conventions; decision D1: integer indices are
// decomposed colexicographically (first mode fastest).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tfspec/reference/shapedim.hpp"

namespace tfspec {

class IntTuple {
 public:
  enum class Kind : uint8_t { Int, Sym, None, Tuple };

  IntTuple() : kind_(Kind::Tuple) {}  // the empty tuple ()
  IntTuple(int64_t v) : kind_(Kind::Int), value_(v) {}  // NOLINT: ints are IntTuples
  IntTuple(int v) : IntTuple(static_cast<int64_t>(v)) {}  // NOLINT
  static IntTuple none();
  static IntTuple sym(const ShapeDim& d);  // a constant expression becomes an Int leaf
  static IntTuple tuple(std::vector<IntTuple> children);

  Kind kind() const { return kind_; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_sym() const { return kind_ == Kind::Sym; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  bool is_leaf() const { return kind_ != Kind::Tuple; }

  int64_t value() const;          // Int leaf only (SpecError otherwise)
  const ShapeDim& dim() const;    // Sym leaf only
  ShapeDim as_dim() const;        // Int or Sym leaf as an expression
  const std::vector<IntTuple>& children() const { return children_; }
  size_t len() const { return children_.size(); }  // number of top-level modes of a tuple
  const IntTuple& operator[](size_t i) const;

  int depth() const { return depth_; }
  friend bool operator==(const IntTuple& a, const IntTuple& b);

 private:
  Kind kind_;
  uint8_t depth_ = 0;  // cached nesting depth (bounded by kMaxDepth)
  int64_t value_ = 0;
  ShapeDim dim_;
  std::vector<IntTuple> children_;
};

// Deepest nesting the reference accepts; parsers refuse deeper input (rule "nesting-too-deep").
inline constexpr int kMaxDepth = 64;

// ---- structure (§1) ----
int rank(const IntTuple& t);    // 1 for a leaf, number of modes for a tuple
int depth(const IntTuple& t);   // 0 for a leaf
IntTuple flatten(const IntTuple& t);  // always a tuple of leaves
// The inverse of flatten for a coordinate: the flat values rebuilt into the nesting of `shape`
// (a leaf shape takes one value). flat.size() must equal rank(flatten(shape)).
IntTuple unflatten(const std::vector<int64_t>& flat, const IntTuple& shape);
std::vector<IntTuple> flat_leaves(const IntTuple& t);
bool is_concrete(const IntTuple& t);  // every leaf an Int
bool congruent(const IntTuple& a, const IntTuple& b);   // same tree structure
bool compatible(const IntTuple& a, const IntTuple& b);  // CuTe: a's leaves each cover a sub-tree of b of equal size
bool has_none(const IntTuple& t);
std::string describe_leaf(const IntTuple& leaf);  // for messages

// ---- leaf arithmetic (symbolic where possible, fails closed on None) ----
IntTuple leaf_mul(const IntTuple& a, const IntTuple& b, const char* what);
IntTuple leaf_add(const IntTuple& a, const IntTuple& b, const char* what);

// ---- sizes ----
IntTuple product(const IntTuple& t);  // a leaf: Int when concrete, Sym otherwise; fails on None
// Concrete product; fails closed (rule "needs-concrete", §1) naming the first symbolic/None leaf.
int64_t product_int(const IntTuple& t, const char* what = "product");
int64_t require_int(const IntTuple& leaf, const char* what);

// ---- pycute-style index algebra ----
IntTuple prefix_product(const IntTuple& a, const IntTuple& init = IntTuple(1));
IntTuple shape_div(const IntTuple& a, const IntTuple& b);
IntTuple elem_scale(const IntTuple& a, const IntTuple& b);
// crd2idx: crd an int (colexicographic) or a tuple congruent with shape. An int index beyond a
// mode's size spills into the last mode, exactly as pycute does; Layout::operator() checks bounds.
int64_t crd2idx(const IntTuple& crd, const IntTuple& shape, const IntTuple& stride);
int64_t crd2idx(int64_t index, const IntTuple& shape, const IntTuple& stride);  // L(i), D1
int64_t crd2idx(const IntTuple& crd, const IntTuple& shape);  // compact colex strides
IntTuple idx2crd(int64_t idx, const IntTuple& shape);
IntTuple crd2crd(const IntTuple& crd, const IntTuple& dst_shape, const IntTuple& src_shape);
// Slicing: a None leaf in crd is the wildcard `_`; slice keeps the wildcard modes, dice the others.
IntTuple slice(const IntTuple& crd, const IntTuple& t);
IntTuple dice(const IntTuple& crd, const IntTuple& t);
bool coord_in_shape(const IntTuple& crd, const IntTuple& shape);  // every component in [0, extent)

}  // namespace tfspec
