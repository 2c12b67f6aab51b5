// An optimized coalesce, complement and L(i) for concrete plain layouts (issue 31): the Python module's
// hot path for the two ops whose reference functions cost as much as pycute's whole call. Flat
// fixed-size arrays on the stack, no IntTuple trees until the result, no exceptions: where the
// reference would refuse (overflow, a negative stride, overlapping modes, a cotarget below 1) or
// the layout has more than kMaxModes leaves, these functions decline (nullopt) and the caller runs
// the reference, whose SpecError (rule, clause, kind, message) is then the answer. Written apart
// from the reference's algebra (reference/src/layout/algebra.cpp), which it must not call;
// python/tests/fast_algebra_test.cpp fuzzes one against the other (values and declines).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tfspec/reference/layout.hpp"

namespace tfspec::python::fast {

inline constexpr size_t kMaxModes = 32;

struct Flat {
  int64_t shape[kMaxModes];
  int64_t stride[kMaxModes];
  size_t n = 0;
};

namespace detail {

inline bool push_leaves(const IntTuple& s, const IntTuple& d, Flat& out) {
  if (s.is_leaf()) {
    if (!s.is_int() || !d.is_int() || out.n == kMaxModes) return false;
    out.shape[out.n] = s.value();
    out.stride[out.n] = d.value();
    ++out.n;
    return true;
  }
  const auto& sc = s.children();
  const auto& dc = d.children();
  if (d.is_leaf() || sc.size() != dc.size()) return false;
  for (size_t i = 0; i < sc.size(); ++i)
    if (!push_leaves(sc[i], dc[i], out)) return false;
  return true;
}

// CuTe's coalesce of the flat modes (s_i, d_i), i < n, into out: size-1 modes dropped, a mode
// merged into the one before it when it continues it (d_i == s_prev * d_prev); 1:0 when nothing
// is left. False on an int64 overflow of s_prev * d_prev or of a merged extent.
inline bool coalesce(const int64_t* s, const int64_t* d, size_t n, Flat& out) {
  out.n = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == 1) continue;
    if (out.n > 0) {
      int64_t next;
      if (__builtin_mul_overflow(out.shape[out.n - 1], out.stride[out.n - 1], &next)) return false;
      if (next == d[i]) {
        if (__builtin_mul_overflow(out.shape[out.n - 1], s[i], &out.shape[out.n - 1])) return false;
        continue;
      }
    }
    out.shape[out.n] = s[i];
    out.stride[out.n] = d[i];
    ++out.n;
  }
  if (out.n == 0) {
    out.shape[0] = 1;
    out.stride[0] = 0;
    out.n = 1;
  }
  return true;
}

}  // namespace detail

// The flat view (leaves, colexicographic order) of a layout's shape and stride into `out`; false
// unless every leaf is an integer and there are at most kMaxModes of them.
inline bool flat_into(const Layout& l, Flat& out) {
  out.n = 0;
  return l.materialized() && detail::push_leaves(l.shape_ref(), l.stride(), out);
}
inline std::optional<Flat> flat(const Layout& l) {
  Flat f;
  if (!flat_into(l, f)) return std::nullopt;
  return f;
}

// s:d for one mode, (s0,...):(d0,...) for more.
inline Layout to_layout(const Flat& f) {
  if (f.n == 1) return Layout(IntTuple(f.shape[0]), IntTuple(f.stride[0]));
  std::vector<IntTuple> s(f.shape, f.shape + f.n), d(f.stride, f.stride + f.n);
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

// L(i) (§3, D1: i read colexicographically over the flat modes) for 0 <= i < size(L); nullopt
// outside the domain, where size(L) overflows int64, or where the sum of the terms' magnitudes
// does: then no order of summing (the reference's is by nested modes) can overflow, so an answer
// here is the reference's answer, and a refusal of the reference is never answered.
inline std::optional<int64_t> apply(const int64_t* s, const int64_t* d, size_t n, int64_t i) {
  int64_t size = 1;
  for (size_t k = 0; k < n; ++k)
    if (__builtin_mul_overflow(size, s[k], &size)) return std::nullopt;  // the reference refuses every L(i)
  if (i < 0 || i >= size) return std::nullopt;
  int64_t offset = 0, magnitude = 0;
  for (size_t k = 0; k < n; ++k) {
    int64_t term;
    if (__builtin_mul_overflow(i % s[k], d[k], &term) || term == INT64_MIN) return std::nullopt;
    if (__builtin_add_overflow(magnitude, term < 0 ? -term : term, &magnitude)) return std::nullopt;
    offset += term;  // |offset| <= magnitude: no overflow
    i /= s[k];
  }
  return offset;
}

// coalesce(L) (§3, pycute's) into `out`: false where the reference refuses (an overflow).
inline bool coalesce_into(const Flat& f, Flat& out) { return detail::coalesce(f.shape, f.stride, f.n, out); }
inline std::optional<Flat> coalesce(const Flat& f) {
  Flat r;
  if (!coalesce_into(f, r)) return std::nullopt;
  return r;
}

// cosize(L) = 1 + sum over modes with d > 0 of (s - 1) * d; nullopt on overflow.
inline std::optional<int64_t> cosize(const Flat& f) {
  int64_t hi = 0;
  for (size_t i = 0; i < f.n; ++i) {
    if (f.stride[i] <= 0) continue;
    int64_t t;
    if (__builtin_mul_overflow(f.shape[i] - 1, f.stride[i], &t) || __builtin_add_overflow(hi, t, &hi)) return std::nullopt;
  }
  if (__builtin_add_overflow(hi, 1, &hi)) return std::nullopt;
  return hi;
}

// complement(L, cotarget) (§3, CuTe's): the modes with d > 0 and s > 1 sorted by (d, s); each
// fills the gap below it with d / span copies of the span `span` of the smaller ones, the last
// mode reaches the cotarget (ceiling), then coalesce. nullopt where the reference refuses: a
// cotarget below 1, a negative stride, a stride below the span (overlap), an overflow.
inline std::optional<Flat> complement(const Flat& f, int64_t cotarget) {
  if (cotarget < 1) return std::nullopt;
  int64_t ds[kMaxModes], ss[kMaxModes];
  size_t m = 0;
  for (size_t i = 0; i < f.n; ++i) {
    if (f.stride[i] < 0) return std::nullopt;
    if (f.stride[i] == 0 || f.shape[i] == 1) continue;
    // insertion sort by (stride, shape)
    size_t j = m++;
    while (j > 0 && (ds[j - 1] > f.stride[i] || (ds[j - 1] == f.stride[i] && ss[j - 1] > f.shape[i]))) {
      ds[j] = ds[j - 1];
      ss[j] = ss[j - 1];
      --j;
    }
    ds[j] = f.stride[i];
    ss[j] = f.shape[i];
  }
  if (m == kMaxModes) return std::nullopt;  // m + 1 modes before coalescing: more than a Flat holds
  int64_t rs[kMaxModes], rd[kMaxModes];
  int64_t span = 1;
  for (size_t k = 0; k < m; ++k) {
    if (ds[k] < span) return std::nullopt;
    rs[k] = ds[k] / span;
    rd[k] = span;
    if (__builtin_mul_overflow(ss[k], ds[k], &span)) return std::nullopt;
  }
  rs[m] = cotarget / span + (cotarget % span != 0);
  rd[m] = span;
  Flat r;
  if (!detail::coalesce(rs, rd, m + 1, r)) return std::nullopt;
  return r;
}

}  // namespace tfspec::python::fast
