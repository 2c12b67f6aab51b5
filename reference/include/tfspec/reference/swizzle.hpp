// X1 (spec/ALGEBRA.md, Extensions): CuTe's Swizzle<B,M,S>, a bijection on offsets, and the algebra
// ops CuTe defines on a ComposedLayout whose outer is a plain Layout (the inner, swizzle or not,
// passes through). Not part of the seed spec: corpus cases for it are tagged `extension`.
#pragma once
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/composed.hpp"

namespace tfspec {

// offset -> offset xor ((offset & Y) shifted right by S), Y = the B bits at M + max(0,S); the
// result's changed bits are the B bits at M - min(0,S) (a negative S shifts left). |S| >= B keeps
// the two masks apart, so applying it twice gives the offset back (an involution, hence a
// bijection on all of int64). Text `Sw<B,M,S>`; JSON {"kind":"swizzle","bits":B,"base":M,"shift":S}.
class Swizzle final : public LayoutBase {
 public:
  Swizzle(int64_t bits, int64_t base, int64_t shift);  // swizzle-params unless legal
  LayoutKind kind() const override { return LayoutKind::Swizzle; }
  // A function of offsets with no domain of its own, like the identity (None) of §4.
  IntTuple shape() const override { return IntTuple(); }
  int64_t apply(const IntTuple& coord) const override;  // an integer offset (or (), as 0)
  int64_t operator()(int64_t offset) const {
    const int64_t y = offset & yyy_mask_;
    return offset ^ (shift_ >= 0 ? y >> shift_ : y << -shift_);
  }

  int bits() const { return bits_; }
  int base() const { return base_; }
  int shift() const { return shift_; }
  int64_t yyy_mask() const { return yyy_mask_; }  // the bits read
  int64_t zzz_mask() const { return zzz_mask_; }  // the bits changed

 private:
  int bits_, base_, shift_;
  int64_t yyy_mask_, zzz_mask_;
};

std::string to_string(const Swizzle& s);  // Sw<B,M,S>

// CuTe's ops on ComposedLayout<I, o, L> (L a plain Layout): the op applies to L and the result is
// I o o o op(L). As functions: composition(C, B)(i) = C(B(i)) exactly when L o B is (L's own rules
// refuse otherwise); a divide is a composition with a layout built from the tiler and size(L).
// composed-algebra-outer when the outer is not a plain Layout.
ComposedLayout composition(const ComposedLayout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
ComposedLayout logical_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
ComposedLayout zipped_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
ComposedLayout tiled_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
ComposedLayout flat_divide(const ComposedLayout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
// CuTe's slice of a composed layout: I o (o + offset of the fixed modes) o slice(L); offset 0.
ComposedLayout slice(const IntTuple& crd, const ComposedLayout& a);
// The outer as a plain Layout, or composed-algebra-outer naming `op`.
const Layout& plain_outer(const ComposedLayout& a, const std::string& op);

}  // namespace tfspec
