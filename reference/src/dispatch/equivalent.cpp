// Equivalence across layout kinds (issue 32): basis by basis where both are linear, else index by
// index through each kind's own evaluation.
#include "tfspec/reference/equivalent.hpp"

#include <functional>
#include <vector>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {

namespace {

int64_t domain_size(const LayoutBase& l, const char* which) {
  if (l.kind() == LayoutKind::Swizzle)
    fail(rule::kIdentityNeedsIndex, std::string("layout ") + which + " is a swizzle alone, a function of offsets with no domain: compare Sw<B,M,S> o 0 o LAYOUT");
  const IntTuple s = l.shape();
  if (!is_concrete(s))
    fail(rule::kNeedsConcrete, std::string("layout ") + which + " has the symbolic shape " + to_string(s) +
                                   ": `layout equivalent` decides concrete layouts; `tfspec prove equivalent` decides symbolic ones");
  return product_int(s, "size");
}

// index -> value, without building IntTuples for the common kinds.
std::function<int64_t(int64_t)> evaluator(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: {
      const auto& x = static_cast<const Layout&>(l);
      return [&x](int64_t i) { return x(i); };
    }
    case LayoutKind::Linear: {
      const auto& x = static_cast<const LinearLayout&>(l);
      return [&x](int64_t i) { return x(i); };
    }
    case LayoutKind::Composed: {  // Sw<B,M,S> o off o Layout (X1), CuTe's swizzled shared-memory layouts
      const auto& c = static_cast<const ComposedLayout&>(l);
      if (c.inner() && c.inner()->kind() == LayoutKind::Swizzle && c.outer() && c.outer()->kind() == LayoutKind::Layout) {
        const auto& sw = static_cast<const Swizzle&>(*c.inner());
        const auto& outer = static_cast<const Layout&>(*c.outer());
        const int64_t off = c.offset();
        return [&sw, &outer, off](int64_t i) { return sw(checked_add(off, outer(i))); };
      }
      return [&l](int64_t i) { return l.apply(IntTuple(i)); };
    }
    default: return [&l](int64_t i) { return l.apply(IntTuple(i)); };
  }
}

// X2 "Direction": one rule for every reader (linear.hpp direction()).
bool takes_offsets(const LayoutBase& l) {
  return l.kind() == LayoutKind::Linear && direction(static_cast<const LinearLayout&>(l)) == LinearDirection::FromOffset;
}

// A against B^-1 by enumeration: B must be a bijection from its domain onto [0, n).
Equivalence against_inverse(const std::function<int64_t(int64_t)>& fa, const LayoutBase& b, Equivalence r) {
  const int64_t n = r.size_a;
  const auto fb = evaluator(b);
  std::vector<int64_t> inv(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = fb(i);
    if (v < 0 || v >= n)
      fail(rule::kEquivalentInverse, "B maps index " + std::to_string(i) + " to " + std::to_string(v) + ", outside [0, " + std::to_string(n) + "): B has no inverse on A's domain");
    if (inv[static_cast<size_t>(v)] >= 0)
      fail(rule::kEquivalentInverse, "B maps indices " + std::to_string(inv[static_cast<size_t>(v)]) + " and " + std::to_string(i) + " both to " + std::to_string(v) + ": B is not invertible");
    inv[static_cast<size_t>(v)] = i;
  }
  for (int64_t i = 0; i < n; ++i)
    if (fa(i) != inv[static_cast<size_t>(i)]) {
      r.index = i;
      r.value_a = fa(i);
      r.value_b = inv[static_cast<size_t>(i)];
      return r;
    }
  r.equal = true;
  return r;
}

}  // namespace

Equivalence equivalent(const LayoutBase& a, const LayoutBase& b, bool inverse) {
  Equivalence r;
  r.size_a = domain_size(a, "A");
  r.size_b = domain_size(b, "B");
  if (!inverse && takes_offsets(a) != takes_offsets(b))
    r.note = std::string(takes_offsets(a) ? "A" : "B") +
             "'s in-dim `offset` says it maps shared-memory offsets to coordinates (Triton's shared layouts), the other maps coordinates to "
             "offsets; --inverse compares A with B's inverse";
  if (r.size_a != r.size_b) {
    r.reason = "the domains differ in size: A has " + std::to_string(r.size_a) + " points, B " + std::to_string(r.size_b);
    r.method = "size";
    return r;
  }
  const int64_t n = r.size_a;
  const std::optional<StructuralBases> sa = inverse ? std::nullopt : structural_bases(a);
  const std::optional<StructuralBases> sb = inverse ? std::nullopt : structural_bases(b);
  if (sa && sb && sa->linear && sb->linear) {
    // Both F2-linear (a linear layout, or a CuTe layout whose structure says so): two XORs of
    // bases agree everywhere iff they agree on every unit index.
    r.method = "bases";
    const auto& fa = sa->bases;
    const auto& fb = sb->bases;
    for (size_t k = 0; k < fa.size(); ++k)
      if (fa[k] != fb[k]) {  // every index below 2^k is a XOR of equal bases: 2^k is the first difference
        r.index = int64_t{1} << k;
        r.value_a = fa[k];
        r.value_b = fb[k];
        return r;
      }
    r.equal = true;
    return r;
  }
  if (inverse && a.kind() == LayoutKind::Linear && b.kind() == LayoutKind::Linear) {
    const auto& lb = static_cast<const LinearLayout&>(b);
    if (!lb.invertible())
      fail(rule::kEquivalentInverse, "B is not invertible: input bits " + std::to_string(lb.in_bits()) + ", output bits " + std::to_string(lb.out_bits()) +
                                         ", an image of rank " + std::to_string(lb.rank()));
    const LinearLayout inv = invert(lb);
    Equivalence e = equivalent(a, inv, false);
    e.note = r.note;
    return e;
  }
  if (n > kMaxEnumeration)
    fail(rule::kResourceLimit, "equivalence of layouts of " + std::to_string(n) + " points enumerates them (only two linear layouts compare by their bases); beyond the bound " +
                                   std::to_string(kMaxEnumeration));
  r.method = "enumeration";
  const auto fa = evaluator(a);
  if (inverse) return against_inverse(fa, b, std::move(r));
  const auto fb = evaluator(b);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x = fa(i), y = fb(i);
    if (x != y) {
      r.index = i;
      r.value_a = x;
      r.value_b = y;
      return r;
    }
  }
  r.equal = true;
  return r;
}

}  // namespace tfspec
