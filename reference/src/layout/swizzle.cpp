// X1 swizzles (spec/ALGEBRA.md, Extensions) and CuTe's algebra on composed layouts.
#include "tfspec/reference/swizzle.hpp"

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {

namespace {
// Every mask bit below 63: the masks are non-negative int64 and the sign bit is never touched.
constexpr int64_t kMaxSwizzleBit = 63;

std::string params(int64_t b, int64_t m, int64_t s) {
  return "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) + ">";
}
}  // namespace

Swizzle::Swizzle(int64_t bits, int64_t base, int64_t shift) {
  const std::string what = params(bits, base, shift);
  if (bits < 0 || base < 0) fail(rule::kSwizzleParams, what + ": the bit count B and the base M are >= 0");
  if (bits > kMaxSwizzleBit || base > kMaxSwizzleBit || shift > kMaxSwizzleBit || shift < -kMaxSwizzleBit)
    fail(rule::kSwizzleParams, what + ": the swizzle's bits lie past bit 62 of an int64 offset");
  const int64_t abs_shift = shift < 0 ? -shift : shift;
  if (abs_shift < bits) fail(rule::kSwizzleParams, what + ": |S| >= B (the bits read and the bits changed must not overlap)");
  if (base + abs_shift + bits > kMaxSwizzleBit)
    fail(rule::kSwizzleParams, what + ": M + |S| + B <= 63 (the swizzle's bits lie past bit 62 of an int64 offset)");
  bits_ = static_cast<int>(bits);
  base_ = static_cast<int>(base);
  shift_ = static_cast<int>(shift);
  const int64_t mask = (int64_t{1} << bits_) - 1;
  yyy_mask_ = mask << (base_ + (shift_ > 0 ? shift_ : 0));
  zzz_mask_ = mask << (base_ - (shift_ < 0 ? shift_ : 0));
}

int64_t Swizzle::apply(const IntTuple& coord) const {
  if (coord.is_int()) return (*this)(coord.value());
  if (coord.is_tuple() && coord.len() == 0) return (*this)(0);
  fail(rule::kIdentityNeedsIndex, "a swizzle maps integer offsets; got the coordinate " + coord_to_string(coord));
}

std::string to_string(const Swizzle& s) { return params(s.bits(), s.base(), s.shift()); }

const Layout& plain_outer(const ComposedLayout& a, const std::string& op) {
  if (!a.outer() || a.outer()->kind() != LayoutKind::Layout)
    fail(rule::kComposedAlgebraOuter, op + " of a composed layout applies to its outer, which must be a plain Layout (CuTe's ComposedLayout<I, o, L>); got " +
                                          (a.outer() ? to_string(*a.outer()) : std::string("None")));
  return static_cast<const Layout&>(*a.outer());
}

namespace {
using TiledOp = Layout (*)(const Layout&, const Tiler&, DomainPolicy);
ComposedLayout through_outer(const ComposedLayout& a, const Tiler& b, DomainPolicy policy, TiledOp op, const char* name) {
  const Layout& outer = plain_outer(a, name);
  return ComposedLayout(a.inner(), a.offset(), std::make_shared<Layout>(op(outer, b, policy)));
}
}  // namespace

ComposedLayout composition(const ComposedLayout& a, const Tiler& b, DomainPolicy policy) {
  return through_outer(a, b, policy, [](const Layout& l, const Tiler& t, DomainPolicy p) { return composition(l, t, p); }, "composition");
}
ComposedLayout logical_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy) {
  return through_outer(a, b, policy, [](const Layout& l, const Tiler& t, DomainPolicy p) { return logical_divide(l, t, p); }, "logical_divide");
}
ComposedLayout zipped_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy) {
  return through_outer(a, b, policy, [](const Layout& l, const Tiler& t, DomainPolicy p) { return zipped_divide(l, t, p); }, "zipped_divide");
}
ComposedLayout tiled_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy) {
  return through_outer(a, b, policy, [](const Layout& l, const Tiler& t, DomainPolicy p) { return tiled_divide(l, t, p); }, "tiled_divide");
}
ComposedLayout flat_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy) {
  return through_outer(a, b, policy, [](const Layout& l, const Tiler& t, DomainPolicy p) { return flat_divide(l, t, p); }, "flat_divide");
}

ComposedLayout slice(const IntTuple& crd, const ComposedLayout& a) {
  const SliceResult s = slice_and_offset(crd, plain_outer(a, "slice"));
  return ComposedLayout(a.inner(), checked_add(a.offset(), s.offset), std::make_shared<Layout>(s.layout));
}

}  // namespace tfspec
