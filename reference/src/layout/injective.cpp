// §2 injectivity, decided exactly.
//
// Offsets are sum_j c_j d_j with 0 <= c_j < s_j. Two coordinates collide iff some non-zero
// delta (|delta_j| < s_j) has sum_j delta_j d_j == 0; that is independent of the strides' signs.
// A mode can be set aside ("peeled") when its delta is forced to 0 in every such solution:
//  - the mode of largest |d| whose |d| exceeds the span sum_{j != k} (s_j - 1)|d_j| of the rest;
//  - the mode of smallest |d| when every other |d_j| is a multiple of |d_k| s_k (then
//    delta_k |d_k| must be a multiple of |d_k| s_k, so delta_k == 0).
// Whatever is left is enumerated (bounded by kMaxEnumeration), else the answer is undecided.
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/linear.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <utility>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec {
namespace {

IntTuple to_coord(const IntTuple& shape, const std::vector<int64_t>& flat) { return unflatten(flat, shape); }

// The flat modes: extents s and strides d.
struct FlatModes {
  std::vector<int64_t> s, d;
  int64_t abs_stride(size_t i) const { return d[i] == INT64_MIN ? INT64_MAX : std::llabs(d[i]); }
  int64_t span(size_t i) const {  // (s - 1)|d|, saturating
    int64_t v;
    if (__builtin_mul_overflow(s[i] - 1, abs_stride(i), &v)) return INT64_MAX;
    return v;
  }
};

// Sets aside the modes whose delta is forced to 0 (the two peeling rules of the header comment),
// until neither applies; what is left must be enumerated.
void peel(const FlatModes& m, std::vector<size_t>& live) {
  auto by_stride = [&](size_t a, size_t b) { return m.abs_stride(a) < m.abs_stride(b); };
  bool changed = true;
  while (changed && !live.empty()) {
    changed = false;
    std::sort(live.begin(), live.end(), by_stride);
    int64_t rest = 0;  // span of all but the largest mode
    for (size_t k = 0; k + 1 < live.size(); ++k) {
      int64_t sp = m.span(live[k]);
      rest = (rest > INT64_MAX - sp) ? INT64_MAX : rest + sp;
    }
    if (live.size() == 1 || m.abs_stride(live.back()) > rest) {
      live.pop_back();
      changed = true;
      continue;
    }
    int64_t unit;  // the smallest mode's extent times its stride divides every other stride?
    if (!__builtin_mul_overflow(m.abs_stride(live.front()), m.s[live.front()], &unit)) {
      bool divides = true;
      for (size_t k = 1; k < live.size() && divides; ++k) divides = m.abs_stride(live[k]) % unit == 0;
      if (divides) {
        live.erase(live.begin());
        changed = true;
      }
    }
  }
}

// Every point of the live modes' sub-domain, sorted by offset: a repeated offset is a collision.
InjectivityResult enumerate(const Layout& l, const FlatModes& m, const std::vector<size_t>& live) {
  int64_t count = 1;
  for (size_t i : live) {
    if (__builtin_mul_overflow(count, m.s[i], &count) || count > kMaxEnumeration)
      fail(rule::kInjectivityUndecided, "the modes of " + std::to_string(live.size()) + " interleaved strides span more than " +
               std::to_string(kMaxEnumeration) + " points; injectivity is not decided (try `tfspec prove injective`)");
  }
  std::vector<std::pair<int64_t, int64_t>> offs;  // (offset, index in the live sub-domain)
  offs.reserve(static_cast<size_t>(count));
  for (int64_t idx = 0; idx < count; ++idx) {
    int64_t rem = idx, off = 0;
    for (size_t i : live) {
      off = checked_add(off, checked_mul(rem % m.s[i], m.d[i]));
      rem /= m.s[i];
    }
    offs.emplace_back(off, idx);
  }
  std::sort(offs.begin(), offs.end());
  InjectivityResult r;
  r.method = "enumeration";
  r.injective = true;
  auto coord = [&](int64_t idx) {
    std::vector<int64_t> c(m.s.size(), 0);
    for (size_t i : live) {
      c[i] = idx % m.s[i];
      idx /= m.s[i];
    }
    return to_coord(l.shape_ref(), c);
  };
  for (size_t k = 1; k < offs.size(); ++k) {
    if (offs[k].first != offs[k - 1].first) continue;
    r.injective = false;
    r.witness = {coord(offs[k - 1].second), coord(offs[k].second)};
    r.offset = offs[k].first;
    return r;
  }
  return r;
}

}  // namespace

InjectivityResult is_injective(const Layout& l) {
  FlatModes m;
  for (const auto& x : flat_leaves(l.shape_ref())) m.s.push_back(require_int(x, "injectivity"));
  for (const auto& x : flat_leaves(l.stride())) m.d.push_back(require_int(x, "injectivity"));
  const size_t n = m.s.size();
  std::vector<size_t> live;
  for (size_t i = 0; i < n; ++i) {
    if (m.s[i] == 1) continue;
    if (m.d[i] == 0) {  // (0,...) and (..., 1 at i, ...) share offset 0
      std::vector<int64_t> a(n, 0), b(n, 0);
      b[i] = 1;
      InjectivityResult r;
      r.injective = false;
      r.method = "zero-stride";
      r.witness = {to_coord(l.shape_ref(), a), to_coord(l.shape_ref(), b)};
      return r;
    }
    live.push_back(i);
  }
  peel(m, live);
  if (!live.empty()) return enumerate(l, m, live);
  InjectivityResult r;
  r.injective = true;
  r.method = "separated-strides";
  return r;
}

namespace {

// [lo, hi] of offset + outer(c) over outer's domain, or nullopt on overflow.
std::optional<std::pair<int64_t, int64_t>> image_range(const Layout& outer, int64_t offset) {
  int64_t lo = offset, hi = offset;
  const auto s = flat_leaves(outer.shape_ref()), d = flat_leaves(outer.stride());
  for (size_t i = 0; i < s.size(); ++i) {
    int64_t span;
    if (__builtin_mul_overflow(require_int(s[i], "injectivity") - 1, require_int(d[i], "injectivity"), &span)) return std::nullopt;
    if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return std::nullopt;
  }
  return std::make_pair(lo, hi);
}

// §4: inner(offset + outer(c)) is injective iff outer is, when inner is the identity (None), or an
// injective layout whose domain [0, size(inner)) holds outer's whole image (then inner is one-to-one
// on everything outer reaches). Decided by the outer layout's exact check, not by enumeration.
std::optional<InjectivityResult> by_outer(const ComposedLayout& c) {
  if (!c.outer() || c.outer()->kind() != LayoutKind::Layout) return std::nullopt;
  const auto& outer = static_cast<const Layout&>(*c.outer());
  // X1: a swizzle is a bijection on all of int64, so it keeps every collision and adds none.
  const bool swizzle = c.inner() && c.inner()->kind() == LayoutKind::Swizzle;
  if (c.inner() && !swizzle) {
    if (c.inner()->kind() != LayoutKind::Layout) return std::nullopt;
    const auto& inner = static_cast<const Layout&>(*c.inner());
    const auto range = image_range(outer, c.offset());
    if (!range || range->first < 0 || range->second >= inner.size()) return std::nullopt;
    if (!is_injective(inner).injective) return std::nullopt;
  }
  InjectivityResult r = is_injective(outer);
  r.method = (swizzle ? "swizzle-inner+" : c.inner() ? "injective-inner+" : "identity-inner+") + r.method;
  if (!r.injective && r.witness) r.offset = c.apply(r.witness->first);
  return r;
}

}  // namespace

InjectivityResult is_injective(const LayoutBase& l) {
  if (l.kind() == LayoutKind::Layout) return is_injective(static_cast<const Layout&>(l));
  if (l.kind() == LayoutKind::Linear) {  // X2: rank of the bases over F2; a kernel element witnesses a collision with 0
    const auto& x = static_cast<const LinearLayout&>(l);
    InjectivityResult r;
    r.method = "f2-rank";
    r.injective = x.injective();
    if (auto k = x.kernel_witness()) {
      r.witness = {idx2crd(0, x.shape()), idx2crd(*k, x.shape())};
      r.offset = 0;
    }
    return r;
  }
  if (l.kind() == LayoutKind::Composed) {
    try {
      if (auto r = by_outer(static_cast<const ComposedLayout&>(l))) return *r;
    } catch (const SpecError& e) {
      if (e.kind() != RuleKind::Limit) throw;  // undecided on the way: enumerate instead
    }
  }
  const IntTuple shape = l.shape();
  const int64_t n = product_int(shape, "injectivity");
  if (n > kMaxEnumeration)
    fail(rule::kInjectivityUndecided, "a composed layout of " + std::to_string(n) + " points is beyond the enumeration bound " + std::to_string(kMaxEnumeration));
  std::vector<std::pair<int64_t, int64_t>> offs;
  offs.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) offs.emplace_back(l.apply(shape.is_tuple() && shape.len() == 0 ? IntTuple() : IntTuple(i)), i);
  std::sort(offs.begin(), offs.end());
  InjectivityResult r;
  r.method = "enumeration";
  r.injective = true;
  for (size_t k = 1; k < offs.size(); ++k)
    if (offs[k].first == offs[k - 1].first) {
      r.injective = false;
      r.witness = {idx2crd(offs[k - 1].second, shape), idx2crd(offs[k].second, shape)};
      r.offset = offs[k].first;
      break;
    }
  return r;
}

}  // namespace tfspec
