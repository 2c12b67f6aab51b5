// §4 ComposedLayout: idx = apply(inner, offset + apply(outer, coord)), apply(None, v) == v.
#pragma once
#include "tfspec/reference/layout.hpp"

namespace tfspec {

class ComposedLayout final : public LayoutBase {
 public:
  ComposedLayout(LayoutPtr inner, int64_t offset, LayoutPtr outer);
  LayoutKind kind() const override { return LayoutKind::Composed; }
  // From outer when present, else inner; () when neither (§4).
  IntTuple shape() const override;
  int64_t apply(const IntTuple& coord) const override;

  const LayoutPtr& inner() const { return inner_; }
  int64_t offset() const { return offset_; }
  const LayoutPtr& outer() const { return outer_; }

 private:
  LayoutPtr inner_;
  int64_t offset_;
  LayoutPtr outer_;
};

// apply(None, v) == v (§4)
int64_t apply_or_identity(const LayoutPtr& l, const IntTuple& v);

}  // namespace tfspec
