// Equivalence across layout kinds (issue 32): basis by basis where both are linear, else index by
// index through each kind's own evaluation.
#include "tfspec/reference/equivalent.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "tfspec/reference/algebra.hpp"
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

// A plain layout, or Sw<B,M,S> o off o Layout (a ComposedLayout with a swizzle or no inner part):
// i -> sw(off + L(i)). nullopt for every other kind.
struct Affine {
  const Swizzle* sw = nullptr;  // null: no swizzle (or Sw<0,M,S>, the identity)
  int64_t off = 0;
  const Layout* layout = nullptr;
};
std::optional<Affine> affine(const LayoutBase& l) {
  if (l.kind() == LayoutKind::Layout) return Affine{nullptr, 0, static_cast<const Layout*>(&l)};
  if (l.kind() != LayoutKind::Composed) return std::nullopt;
  const auto& c = static_cast<const ComposedLayout&>(l);
  if (!c.outer() || c.outer()->kind() != LayoutKind::Layout) return std::nullopt;
  const Swizzle* sw = nullptr;
  if (c.inner()) {
    if (c.inner()->kind() != LayoutKind::Swizzle) return std::nullopt;
    sw = static_cast<const Swizzle*>(c.inner().get());
    if (sw->bits() == 0) sw = nullptr;
  }
  return Affine{sw, c.offset(), static_cast<const Layout*>(c.outer().get())};
}

void leaves(const IntTuple& t, std::vector<int64_t>& out) {
  if (t.is_leaf()) {
    out.push_back(require_int(t, "equivalent"));
    return;
  }
  for (const auto& c : t.children()) leaves(c, out);
}

bool same_swizzle(const Swizzle* a, const Swizzle* b) {
  if (!a || !b) return a == b;
  return a->bits() == b->bits() && a->base() == b->base() && a->shift() == b->shift();
}

// The coalesced flat modes (pycute's coalesce: size-1 modes dropped, a mode whose stride is the
// previous one's shape * stride merged into it), a canonical form of the function: its first
// mode (s, d) has L(i) = i d for i < s and L(s) != s d (else the two would have merged), and the
// rest is the same argument on L(s j). So two layouts of one size are the same function iff
// their coalesced modes are equal, and the first index where they differ is read off the first
// unequal mode k (P the product of the shapes before it): P when the strides differ (index P is
// c = 1 of mode k), else P * min(shapes), where one side's next mode begins and the other's
// does not.
std::optional<int64_t> first_difference(const Layout& a, const Layout& b) {
  const Layout ca = coalesce(a), cb = coalesce(b);
  const auto flat = [](const Layout& l) {
    std::vector<int64_t> shape, stride;
    leaves(l.shape_ref(), shape);
    leaves(l.stride(), stride);
    std::vector<std::pair<int64_t, int64_t>> m;
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] > 1) m.emplace_back(shape[i], stride[i]);
    return m;
  };
  const auto ma = flat(ca), mb = flat(cb);
  int64_t p = 1;
  for (size_t k = 0; k < ma.size() && k < mb.size(); ++k) {
    if (ma[k] == mb[k]) {
      p = checked_mul(p, ma[k].first);
      continue;
    }
    if (ma[k].second != mb[k].second) return p;
    return checked_mul(p, std::min(ma[k].first, mb[k].first));
  }
  return std::nullopt;  // equal sizes: both ran out together
}

// Two affine sides under the same swizzle (none included): the swizzle is a bijection, so they
// agree exactly where off + L(i) does, decided on the coalesced forms without enumerating.
std::optional<Equivalence> by_coalesced(const LayoutBase& a, const LayoutBase& b, Equivalence r) {
  const auto xa = affine(a), xb = affine(b);
  if (!xa || !xb || !same_swizzle(xa->sw, xb->sw) || !is_concrete(xa->layout->stride()) || !is_concrete(xb->layout->stride())) return std::nullopt;
  r.method = "coalesced";
  const std::optional<int64_t> at = xa->off != xb->off ? std::optional<int64_t>(0) : first_difference(*xa->layout, *xb->layout);
  if (!at) {
    r.equal = true;
    return r;
  }
  r.index = *at;
  r.value_a = evaluator(a)(*at);
  r.value_b = evaluator(b)(*at);
  return r;
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
  if (!inverse)
    if (auto c = by_coalesced(a, b, r)) return *c;
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
