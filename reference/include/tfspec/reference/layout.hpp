// §2 the layout hierarchy and §3 the primitive Layout.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "tfspec/reference/inttuple.hpp"

namespace tfspec {

// Swizzle: extension X1 (swizzle.hpp); Linear: extension X2, Triton's linear layouts (linear.hpp).
enum class LayoutKind { Layout, Composed, Shard, Swizzle, Linear };

// §2 common contract: a stable domain shape, a coord -> offset mapping, domain_rank.
class LayoutBase {
 public:
  virtual ~LayoutBase() = default;
  virtual LayoutKind kind() const = 0;
  virtual IntTuple shape() const = 0;
  // domain_rank == rank(flatten(shape)) (§2)
  int domain_rank() const;
  // Offset of a domain coordinate (an int index, colexicographic per D1, or a congruent tuple).
  virtual int64_t apply(const IntTuple& coord) const = 0;
};
using LayoutPtr = std::shared_ptr<const LayoutBase>;

// §3: shape + stride; no offset. The stride is either materialized (given, or the pycute default
// prefix_product(shape)) or explicitly un-materialized (§7.1.2 `S is None`), which is a different
// state from the rank-0 stride `()`.
class Layout final : public LayoutBase {
 public:
  Layout() : Layout(IntTuple(1), IntTuple(0)) {}  // 1:0
  explicit Layout(IntTuple shape);                // stride = prefix_product(shape)
  Layout(IntTuple shape, IntTuple stride);
  static Layout unmaterialized(IntTuple shape);

  LayoutKind kind() const override { return LayoutKind::Layout; }
  IntTuple shape() const override { return shape_; }
  const IntTuple& shape_ref() const { return shape_; }
  bool materialized() const { return stride_.has_value(); }
  const IntTuple& stride() const;  // SpecError("stride-unmaterialized", §7.1.2) when None

  int rank() const { return tfspec::rank(shape_); }
  int depth() const { return tfspec::depth(shape_); }
  int64_t size() const;    // concrete only
  int64_t cosize() const;  // 1 + L(size-1) over the domain's max corner; concrete only
  Layout mode(size_t i) const;  // the i-th sub-layout
  Layout get(const std::vector<size_t>& path) const;  // nested sub-layout

  int64_t apply(const IntTuple& coord) const override;  // bounds-checked (rule "coord-in-domain")
  int64_t operator()(int64_t index) const;              // fast path for integer indices
  int64_t operator()(const IntTuple& coord) const { return apply(coord); }

  friend bool operator==(const Layout& a, const Layout& b) {  // structural (size_ is derived)
    return a.shape_ == b.shape_ && a.stride_ == b.stride_;
  }

 private:
  struct Unmaterialized {};
  Layout(IntTuple shape, Unmaterialized);
  IntTuple shape_;
  std::optional<IntTuple> stride_;
  int64_t size_ = -1;  // cached size(shape) when concrete
};

// Builds a layout whose modes are the given layouts: shape (s0, s1, ...), stride (d0, d1, ...).
Layout make_layout(const std::vector<Layout>& modes);
// Checks what every Layout must satisfy structurally: extents >= 1 (or symbolic/None), stride
// congruent with shape. Used by constructors.
void validate_shape(const IntTuple& shape, const std::string& path);

// Slicing (CuTe slice_and_offset): wildcard (None) modes are kept; the fixed coordinates give the offset.
struct SliceResult {
  Layout layout;
  int64_t offset;
};
SliceResult slice_and_offset(const IntTuple& crd, const Layout& l);

}  // namespace tfspec
