// §4 ComposedLayout.
#include "tfspec/reference/composed.hpp"

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec {

ComposedLayout::ComposedLayout(LayoutPtr inner, int64_t offset, LayoutPtr outer)
    : inner_(std::move(inner)), offset_(offset), outer_(std::move(outer)) {}

IntTuple ComposedLayout::shape() const {
  if (outer_) return outer_->shape();
  if (inner_) return inner_->shape();
  return IntTuple();  // no explicit domain: shape == ()
}

int64_t apply_or_identity(const LayoutPtr& l, const IntTuple& v) {
  if (l) return l->apply(v);
  if (v.is_int()) return v.value();
  if (v.is_tuple() && v.len() == 0) return 0;
  fail(rule::kIdentityNeedsIndex, "the identity (None) component maps integers; got a coordinate tuple");
}

int64_t ComposedLayout::apply(const IntTuple& coord) const {
  IntTuple c = coord;
  // With no outer, the domain is inner's: a tuple coordinate names a point of inner's domain.
  if (!outer_ && inner_ && coord.is_tuple()) {
    if (offset_ == 0) return inner_->apply(coord);
    c = IntTuple(crd2idx(coord, inner_->shape()));
  }
  int64_t mid = checked_add(offset_, apply_or_identity(outer_, c));
  return apply_or_identity(inner_, IntTuple(mid));
}

}  // namespace tfspec
