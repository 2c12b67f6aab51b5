// The CuTe layout algebra (§3 "mirrors pycute"): each operation answers exactly when its result is
// a layout (D17). Conditions and decisions are recorded in spec/ALGEBRA.md.
#include "tfspec/reference/algebra.hpp"

#include <algorithm>
#include <tuple>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "layout/small_vec.hpp"

namespace tfspec {
namespace {

using detail::SmallInts;

struct Flat {
  SmallInts shape, stride;
};

void push_ints(const IntTuple& t, const char* op, SmallInts& out) {
  if (t.is_leaf()) {
    out.push_back(require_int(t, op));
    return;
  }
  for (const auto& c : t.children()) push_ints(c, op, out);
}

Flat flat_concrete(const Layout& l, const char* op) {
  Flat f;
  push_ints(l.shape_ref(), op, f.shape);
  push_ints(l.stride(), op, f.stride);
  return f;
}

// pycute's coalesce on the flat view.
Flat coalesce_flat(const Flat& f) {
  Flat r{{1}, {0}};
  for (size_t i = 0; i < f.shape.size(); ++i) {
    int64_t s = f.shape[i], d = f.stride[i];
    if (s == 1) continue;
    if (r.shape.back() == 1) {
      r.shape.back() = s;
      r.stride.back() = d;
    } else if (checked_mul(r.shape.back(), r.stride.back()) == d) {
      r.shape.back() = checked_mul(r.shape.back(), s);
    } else {
      r.shape.push_back(s);
      r.stride.push_back(d);
    }
  }
  return r;
}

template <class V>
Layout from_flat(const V& s, const V& d) {
  if (s.size() == 1) return Layout(IntTuple(s[0]), IntTuple(d[0]));
  std::vector<IntTuple> ts(s.begin(), s.end()), td(d.begin(), d.end());
  return Layout(IntTuple::tuple(std::move(ts)), IntTuple::tuple(std::move(td)));
}

void require_by_mode_rank(const Layout& l, size_t n, const char* op) {
  if (static_cast<size_t>(l.rank()) < n)
    fail(rule::kByModeRank, std::string(op) + ": a by-mode argument of rank " + std::to_string(n) + " needs a layout of rank >= " +
                                std::to_string(n) + ", got " + std::to_string(l.rank()));
}

// Applies f to the first modes of `l` per the by-mode profile and keeps the rest (CuTe by-mode).
template <class F>
Layout by_mode(const Layout& l, size_t n, const char* op, F f) {
  require_by_mode_rank(l, n, op);
  std::vector<Layout> modes;
  for (size_t i = 0; i < n; ++i) modes.push_back(f(l.mode(i), i));
  for (size_t i = n; i < static_cast<size_t>(l.rank()); ++i) modes.push_back(l.mode(i));
  return make_layout(modes);
}

}  // namespace

// ---------------------------------------------------------------- coalesce / filter (pycute)
Layout coalesce(const Layout& l) {
  Flat r = coalesce_flat(flat_concrete(l, "coalesce"));
  return from_flat(r.shape, r.stride);
}

Layout coalesce(const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return coalesce(l);
  return by_mode(l, profile.len(), "coalesce", [&](const Layout& m, size_t i) { return coalesce(m, profile[i]); });
}

Layout filter(const Layout& l) {
  Flat f = flat_concrete(l, "filter");
  std::vector<int64_t> rs, rd;
  for (size_t i = 0; i < f.shape.size(); ++i)
    if (!(f.shape[i] == 1 || f.stride[i] == 0)) {
      rs.push_back(f.shape[i]);
      rd.push_back(f.stride[i]);
    }
  if (rs.empty()) return Layout(IntTuple(1), IntTuple(0));
  return coalesce(from_flat(rs, rd));
}

Layout filter(const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return filter(l);
  return by_mode(l, profile.len(), "filter", [&](const Layout& m, size_t i) { return filter(m, profile[i]); });
}

// ---------------------------------------------------------------- composition (§3, A1, D15, D17)
namespace {

struct ModeResult {
  SmallInts shape, stride;
};

// pycute's composition of coalesced A with one flat mode s:d of B, line for line.
void compose_mode(const Flat& a, int64_t s, int64_t d, ModeResult& out) {
  if (s == 1 || d == 0) {  // a constant mode: A(0) == 0
    out.shape.push_back(s);
    out.stride.push_back(0);
    return;
  }
  const size_t last = a.shape.size() - 1;
  int64_t rest_s = s, rest_d = d;
  for (size_t p = 0; p < last; ++p) {
    const int64_t n = std::min(std::max<int64_t>(1, a.shape[p] / rest_d), rest_s);
    if (n != 1) {
      out.shape.push_back(n);
      out.stride.push_back(checked_mul(rest_d, a.stride[p]));
    }
    rest_s /= n;
    rest_d = ceil_div(rest_d, a.shape[p]);
  }
  if (rest_s != 1 || out.shape.empty()) {
    out.shape.push_back(rest_s);
    out.stride.push_back(checked_mul(rest_d, a.stride[last]));
  }
}

// Rebuilds B's structure with each leaf replaced by the shape/stride its mode composed to.
std::pair<IntTuple, IntTuple> rebuild(const IntTuple& b_shape, const std::vector<ModeResult>& modes, size_t& next) {
  if (b_shape.is_leaf()) {
    const ModeResult& m = modes[next++];
    if (m.shape.size() == 1) return {IntTuple(m.shape[0]), IntTuple(m.stride[0])};
    std::vector<IntTuple> s(m.shape.begin(), m.shape.end()), d(m.stride.begin(), m.stride.end());
    return {IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d))};
  }
  std::vector<IntTuple> s, d;
  s.reserve(b_shape.len());
  d.reserve(b_shape.len());
  for (const auto& c : b_shape.children()) {
    auto r = rebuild(c, modes, next);
    s.push_back(std::move(r.first));
    d.push_back(std::move(r.second));
  }
  return {IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d))};
}

Layout on_b_structure(const Layout& b, const std::vector<ModeResult>& modes) {
  size_t next = 0;
  auto r = rebuild(b.shape_ref(), modes, next);
  return Layout(std::move(r.first), std::move(r.second));
}

// A ∘ B by modes, as pycute and CuTe compute it.
Layout compose_by_modes(const Flat& fa, const Layout& b, const Flat& fb) {
  std::vector<ModeResult> modes(fb.shape.size());
  for (size_t j = 0; j < fb.shape.size(); ++j) compose_mode(fa, fb.shape[j], fb.stride[j], modes[j]);
  return on_b_structure(b, modes);
}

// How many points of B's domain (non-negative strides) B maps below `bound`: recursion over B's
// modes, largest stride first, pruned where the remaining modes all stay below or all reach it.
class PointsBelow {
 public:
  explicit PointsBelow(const Flat& b) {
    for (size_t j = 0; j < b.shape.size(); ++j) modes_.emplace_back(b.stride[j], b.shape[j]);
    std::sort(modes_.rbegin(), modes_.rend());
    max_.assign(modes_.size() + 1, 0);
    size_.assign(modes_.size() + 1, 1);
    for (size_t j = modes_.size(); j-- > 0;) {
      max_[j] = checked_add(max_[j + 1], checked_mul(modes_[j].second - 1, modes_[j].first));
      size_[j] = checked_mul(size_[j + 1], modes_[j].second);
    }
  }
  // nullopt when the count needs more than kCompositionPointLimit steps.
  std::optional<int64_t> count(int64_t bound) {
    budget_ = kCompositionPointLimit;
    const int64_t n = below(0, bound);
    return budget_ < 0 ? std::nullopt : std::optional<int64_t>(n);
  }

 private:
  int64_t below(size_t j, int64_t bound) {
    if (bound <= 0 || budget_ < 0) return 0;
    if (max_[j] < bound) return size_[j];
    --budget_;
    const auto [d, s] = modes_[j];
    if (d == 0) return checked_mul(s, below(j + 1, bound));
    // The first `full` values of t leave all of the remaining modes below bound - t*d (t*d <
    // bound - max_[j+1]): size_[j+1] points each, counted at once. Each other t is a step of the
    // budget: a mode of 5.8e9 points (B = (3,5816627202):(1,3) in a divide) took the loop 16 s
    // point by point, uncounted, past the budget (the property of issue 46 found it).
    const int64_t room = bound - max_[j + 1];
    const int64_t full = room > 0 ? std::min(s, (room - 1) / d + 1) : 0;
    int64_t n = checked_mul(full, size_[j + 1]);
    for (int64_t t = full; t < s && t * d < bound; ++t) {
      if (--budget_ < 0) return 0;
      n = checked_add(n, below(j + 1, bound - t * d));
    }
    return n;
  }
  std::vector<std::pair<int64_t, int64_t>> modes_;  // (stride, extent), largest stride first
  std::vector<int64_t> max_, size_;                 // of modes [j, end)
  int64_t budget_ = 0;
};

int64_t product_of(const SmallInts& v) {
  int64_t p = 1;
  for (int64_t x : v) p = checked_mul(p, x);
  return p;
}

Diagnostic negative_stride(int64_t d) {
  return Diagnostic(rule::kCompositionImageInDomain, "B has a negative stride " + std::to_string(d) + ": its image leaves A's domain below 0");
}

// D15 strict: the refusal says how many points fall outside and what extend would do.
Diagnostic outside_domain(const Flat& a, const Flat& b) {
  const int64_t n = product_of(a.shape), total = product_of(b.shape);
  const auto inside = PointsBelow(b).count(n);
  const std::string count = inside ? std::to_string(total - *inside) + " of " + std::to_string(total) : "some";
  return Diagnostic(rule::kCompositionImageInDomain,
                    count + " points of B's domain map past A's domain [0, " + std::to_string(n) +
                        "); refused under --domain strict, while --domain extend gives CuTe's predicated semantics (A continues past its last mode)");
}

Diagnostic stride_refusal(int64_t d, int64_t rest_d, int64_t m) {
  return Diagnostic(rule::kCompositionStrideDivisibility,
                    "B's stride " + std::to_string(d) + " is not left divisible by A's shape (remaining stride " +
                        std::to_string(rest_d) + " against extent " + std::to_string(m) + ": neither divides the other)");
}

// The walk of A1 (1)-(2) for one flat mode s:d of B over coalesced A; adds to usage[p] the
// largest digit the mode puts on A's digit p.
std::optional<Diagnostic> mode_refusal(const Flat& a, int64_t s, int64_t d, SmallInts& usage) {
  if (s == 1 || d == 0) return std::nullopt;
  if (d < 0) return negative_stride(d);
  const size_t last = a.shape.size() - 1;
  int64_t rest_s = s, rest_d = d;
  for (size_t p = 0; p < last && rest_s > 1; ++p) {
    const int64_t m = a.shape[p];
    if (rest_d >= m) {
      if (rest_d % m != 0) return stride_refusal(d, rest_d, m);
      rest_d /= m;
      continue;
    }
    if (m % rest_d != 0) return stride_refusal(d, rest_d, m);
    const int64_t n = m / rest_d, used = std::min(rest_s, n);
    if (rest_s % used != 0)
      return Diagnostic(rule::kCompositionShapeDivisibility,
                        "B's extent " + std::to_string(s) + " is not weakly left divisible by A's shape (remaining extent " +
                            std::to_string(rest_s) + " spans a mode of " + std::to_string(n) + " without being a multiple)");
    usage[p] = checked_add(usage[p], checked_mul(rest_d, used - 1));
    rest_s /= used;
    rest_d = 1;
  }
  if (rest_s > 1) usage[last] = checked_add(usage[last], checked_mul(rest_d, rest_s - 1));
  return std::nullopt;
}

std::optional<Diagnostic> walk_refusal(const Flat& a, const Flat& b, DomainPolicy policy) {
  SmallInts usage(a.shape.size(), 0);
  for (size_t j = 0; j < b.shape.size(); ++j)
    if (auto r = mode_refusal(a, b.shape[j], b.stride[j], usage)) return r;
  // A1 (4): no carries between B's modes, so A(sum of B's mode offsets) == sum of A(each).
  const size_t last = usage.size() - 1;
  for (size_t p = 0; p < last; ++p)
    if (usage[p] >= a.shape[p])
      return Diagnostic(rule::kCompositionModeOverlap,
                        "B's modes together put digit " + std::to_string(usage[p]) + " on A's mode " + std::to_string(p) + " of extent " +
                            std::to_string(a.shape[p]) + ": their offsets carry into each other, so A∘B is not B's modes composed one by one");
  if (policy == DomainPolicy::Strict && usage[last] >= a.shape[last]) return outside_domain(a, b);
  return std::nullopt;
}

[[noreturn]] void refuse(const Layout& a, const Layout& b, Diagnostic why, const std::string& evidence = "") {
  why.message = "composition " + to_string(a) + " o " + to_string(b) + " is refused: " + why.message + evidence;
  throw SpecError(std::move(why));
}

// Coalesced modes of t -> f[t * step], t < s (each the longest run of equal steps: the coalesced
// form of a layout is unique), or false when no layout of extent s computes it.
bool refine_mode(const std::vector<int64_t>& f, int64_t step, int64_t s, ModeResult& out) {
  for (int64_t unit = step; s > 1;) {
    const int64_t d = f[unit];
    int64_t k = 2;
    while (k < s && f[k * unit] - f[(k - 1) * unit] == d) ++k;
    if (s % k != 0) return false;
    out.shape.push_back(k);
    out.stride.push_back(d);
    unit *= k;
    s /= k;
  }
  if (out.shape.empty()) {
    out.shape.push_back(1);
    out.stride.push_back(0);
  }
  return true;
}

// D17: A ∘ B where the walk refused, as a function: B's points through A (A continued past the
// last mode of coalesce(A) under extend), each flat mode of B refined, every point verified.
Layout compose_by_points(const Layout& a, const Layout& b, const Flat& fa, const Flat& fb, DomainPolicy policy, const Diagnostic& why) {
  int64_t top = 0;
  for (size_t j = 0; j < fb.shape.size(); ++j) {
    if (fb.stride[j] < 0 && fb.shape[j] > 1) refuse(a, b, negative_stride(fb.stride[j]));
    top = checked_add(top, checked_mul(fb.shape[j] - 1, fb.stride[j]));
  }
  if (policy == DomainPolicy::Strict && top >= product_of(fa.shape)) refuse(a, b, outside_domain(fa, fb));
  if (b.size() > kCompositionPointLimit)
    fail(rule::kCompositionUndecided, "composition " + to_string(a) + " o " + to_string(b) + ": " + why.message + "; whether A∘B is still a layout needs " +
                                          std::to_string(b.size()) + " points, over the limit of " + std::to_string(kCompositionPointLimit));
  const Layout ac = from_flat(fa.shape, fa.stride);
  const IntTuple &as = ac.shape_ref(), &ad = ac.stride();
  std::vector<int64_t> f(static_cast<size_t>(b.size()));
  for (int64_t i = 0; i < b.size(); ++i) f[i] = crd2idx(IntTuple(b(i)), as, ad);  // pycute's crd2idx continues the last mode
  std::vector<ModeResult> modes(fb.shape.size());
  int64_t step = 1;
  for (size_t j = 0; j < fb.shape.size(); step *= fb.shape[j], ++j)
    if (!refine_mode(f, step, fb.shape[j], modes[j]))
      refuse(a, b, why, "; and A∘B is no layout: along B's mode " + std::to_string(j) + " (extent " + std::to_string(fb.shape[j]) +
                            ") the values of A(B) are no layout of that extent");
  const Layout r = on_b_structure(b, modes);
  for (int64_t i = 0; i < b.size(); ++i)
    if (r(i) != f[i])
      refuse(a, b, why, "; and A∘B is no layout over a refinement of B's shape: A(B(" + std::to_string(i) + ")) = A(" +
                            std::to_string(b(i)) + ") = " + std::to_string(f[i]) + ", where the modes of B composed one by one give " +
                            std::to_string(r(i)));
  return r;
}

// (points of A ∘ B, how many of them B maps inside A's domain); by-mode modes multiply.
std::pair<int64_t, int64_t> points_inside(const Layout& a, const Tiler& b) {
  if (!b.is_layout()) {
    require_by_mode_rank(a, b.modes.size(), "composition");
    int64_t n = 1, in = 1;
    for (size_t i = 0; i < static_cast<size_t>(a.rank()); ++i) {
      auto [x, y] = i < b.modes.size() ? points_inside(a.mode(i), b.modes[i]) : std::pair{a.mode(i).size(), a.mode(i).size()};
      n = checked_mul(n, x);
      in = checked_mul(in, y);
    }
    return {n, in};
  }
  const Flat fb = flat_concrete(*b.layout, "composition");
  for (size_t j = 0; j < fb.shape.size(); ++j)
    if (fb.stride[j] < 0 && fb.shape[j] > 1) throw SpecError(negative_stride(fb.stride[j]));
  const auto in = PointsBelow(fb).count(a.size());
  if (!in)
    fail(rule::kCompositionUndecided, "counting the points of " + to_string(*b.layout) + " past A's domain [0, " + std::to_string(a.size()) +
                                          ") needs more than " + std::to_string(kCompositionPointLimit) + " steps");
  return {b.layout->size(), *in};
}

}  // namespace

std::optional<Diagnostic> composition_refusal(const Layout& a, const Layout& b, DomainPolicy policy) {
  return walk_refusal(coalesce_flat(flat_concrete(a, "composition")), flat_concrete(b, "composition"), policy);
}

// §3: A ∘ B by modes where the walk admits it, else as a function (D17); D15 for the domain.
Layout composition(const Layout& a, const Layout& b, DomainPolicy policy) {
  const Flat fa = coalesce_flat(flat_concrete(a, "composition")), fb = flat_concrete(b, "composition");
  const std::optional<Diagnostic> why = walk_refusal(fa, fb, policy);
  if (!why) return compose_by_modes(fa, b, fb);
  if (why->rule == rule::kCompositionImageInDomain.id) refuse(a, b, *why);
  return compose_by_points(a, b, fa, fb, policy, *why);
}

Layout composition(const Layout& a, const Tiler& b, DomainPolicy policy) {
  if (b.is_layout()) return composition(a, *b.layout, policy);
  return by_mode(a, b.modes.size(), "composition", [&](const Layout& m, size_t i) { return composition(m, b.modes[i], policy); });
}

int64_t composition_outside(const Layout& a, const Tiler& b) {
  const auto [n, in] = points_inside(a, b);
  return n - in;
}

// ---------------------------------------------------------------- complement / inverses
// §3 (CuTe): sorted by stride, mode k fills the gap below it with d_k / span copies of the span
// of the smaller modes (floor, as CuTe), and the last mode reaches the cotarget.
Layout complement(const Layout& l, int64_t cotarget) {
  Flat f = flat_concrete(l, "complement");
  if (cotarget < 1) fail(rule::kComplementCotarget, "complement's cotarget must be >= 1, got " + std::to_string(cotarget));
  std::vector<std::pair<int64_t, int64_t>> ds;  // (stride, shape)
  for (size_t i = 0; i < f.shape.size(); ++i) {
    if (f.stride[i] < 0) fail(rule::kComplementNegativeStride, "complement needs non-negative strides, got " + std::to_string(f.stride[i]));
    if (f.stride[i] == 0 || f.shape[i] == 1) continue;
    ds.emplace_back(f.stride[i], f.shape[i]);
  }
  std::sort(ds.begin(), ds.end());
  std::vector<int64_t> rs, rd;
  int64_t current = 1;
  for (auto [d, s] : ds) {
    if (d < current)
      fail(rule::kComplementDisjoint, "complement of " + to_string(l) + " is undefined: stride " + std::to_string(d) +
                                          " is below the span " + std::to_string(current) + " of the smaller modes (they overlap or interleave)");
    rs.push_back(d / current);
    rd.push_back(current);
    current = checked_mul(s, d);
  }
  rs.push_back(ceil_div(cotarget, current));
  rd.push_back(current);
  return coalesce(from_flat(rs, rd));
}

Layout complement(const Layout& l) { return complement(l, l.cosize()); }

// §3 (CuTe): from stride 1, each next mode starts where the previous ones end; stride-0, negative
// and size-1 modes never extend that run and are skipped. R is the largest right inverse when
// filter(L) is injective with non-negative strides: size(R) is then the first offset L misses.
Layout right_inverse(const Layout& l) {
  Flat f = flat_concrete(l, "right_inverse");
  std::vector<int64_t> compact(f.shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    compact[i] = acc;
    acc = checked_mul(acc, f.shape[i]);
  }
  std::vector<std::tuple<int64_t, int64_t, int64_t>> sorted;  // (stride, shape, compact stride)
  for (size_t i = 0; i < f.shape.size(); ++i)
    if (f.shape[i] > 1 && f.stride[i] > 0) sorted.emplace_back(f.stride[i], f.shape[i], compact[i]);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> rs, rd;
  int64_t current = 1;
  for (auto [d, s, c] : sorted) {
    if (d != current) break;
    rs.push_back(s);
    rd.push_back(c);
    current = checked_mul(s, d);
  }
  if (rs.empty()) return Layout(IntTuple(1), IntTuple(0));
  return coalesce(from_flat(rs, rd));
}


// ---------------------------------------------------------------- divide / product
namespace {
// logical_divide's right operand: (B, complement(B, size(A))), per mode for a by-mode tiler.
Tiler divide_tiler(const Layout& a, const Tiler& b) {
  if (b.is_layout()) return Tiler(make_layout({*b.layout, complement(*b.layout, a.size())}));
  require_by_mode_rank(a, b.modes.size(), "logical_divide");
  std::vector<Tiler> modes;
  for (size_t i = 0; i < b.modes.size(); ++i) modes.push_back(divide_tiler(a.mode(i), b.modes[i]));
  return Tiler(std::move(modes));
}
}  // namespace

Layout logical_divide(const Layout& a, const Tiler& b, DomainPolicy policy) { return composition(a, divide_tiler(a, b), policy); }
int64_t divide_outside(const Layout& a, const Tiler& b) { return composition_outside(a, divide_tiler(a, b)); }

// (tile, rest) from a logical divide/product: for a layout tiler it is already zipped; for a
// by-mode tiler of rank r, mode i is (tile_i, rest_i): gather the tiles first.
Layout zip_result(const Layout& r, const Tiler& b) {
  if (b.is_layout()) return r;
  std::vector<Layout> tiles, rests;
  for (size_t i = 0; i < b.modes.size(); ++i) {
    Layout m = r.mode(i);
    if (m.rank() < 2 || m.shape_ref().is_leaf()) fail(rule::in(rule::kInternal, "§3"), "by-mode result lost its (tile, rest) structure");
    tiles.push_back(m.mode(0));
    rests.push_back(m.mode(1));
  }
  for (size_t i = b.modes.size(); i < static_cast<size_t>(r.rank()); ++i) rests.push_back(r.mode(i));
  return make_layout({make_layout(tiles), make_layout(rests)});
}

std::vector<Layout> modes_of(const Layout& l) {
  std::vector<Layout> v;
  if (l.shape_ref().is_leaf()) return {l};
  for (size_t i = 0; i < static_cast<size_t>(l.rank()); ++i) v.push_back(l.mode(i));
  return v;
}

Layout tiled_from_zipped(const Layout& z) {
  std::vector<Layout> m{z.mode(0)};
  for (const auto& x : modes_of(z.mode(1))) m.push_back(x);
  return make_layout(m);
}

Layout flat_from_zipped(const Layout& z) {
  std::vector<Layout> m = modes_of(z.mode(0));
  for (const auto& x : modes_of(z.mode(1))) m.push_back(x);
  return make_layout(m);
}

namespace {
// complement(A, size(A) cosize(B)): the copies of A that B's offsets index (logical_product).
Layout product_complement(const Layout& a, const Layout& b) { return complement(a, checked_mul(a.size(), b.cosize())); }

std::pair<int64_t, int64_t> product_points(const Layout& a, const Tiler& b) {
  if (b.is_layout()) {
    const auto [n, in] = points_inside(product_complement(a, *b.layout), b);
    return {checked_mul(n, a.size()), checked_mul(in, a.size())};
  }
  require_by_mode_rank(a, b.modes.size(), "logical_product");
  int64_t n = 1, in = 1;
  for (size_t i = 0; i < static_cast<size_t>(a.rank()); ++i) {
    auto [x, y] = i < b.modes.size() ? product_points(a.mode(i), b.modes[i]) : std::pair{a.mode(i).size(), a.mode(i).size()};
    n = checked_mul(n, x);
    in = checked_mul(in, y);
  }
  return {n, in};
}
}  // namespace

Layout zipped_divide(const Layout& a, const Tiler& b, DomainPolicy p) { return zip_result(logical_divide(a, b, p), b); }
Layout tiled_divide(const Layout& a, const Tiler& b, DomainPolicy p) { return tiled_from_zipped(zipped_divide(a, b, p)); }
Layout flat_divide(const Layout& a, const Tiler& b, DomainPolicy p) { return flat_from_zipped(zipped_divide(a, b, p)); }

// §3: (A, complement(A, size(A) cosize(B)) ∘ B).
Layout logical_product(const Layout& a, const Tiler& b, DomainPolicy policy) {
  if (!b.is_layout())
    return by_mode(a, b.modes.size(), "logical_product", [&](const Layout& m, size_t i) { return logical_product(m, b.modes[i], policy); });
  return make_layout({a, composition(product_complement(a, *b.layout), *b.layout, policy)});
}

int64_t product_outside(const Layout& a, const Tiler& b) {
  const auto [n, in] = product_points(a, b);
  return n - in;
}

Layout zipped_product(const Layout& a, const Tiler& b, DomainPolicy p) { return zip_result(logical_product(a, b, p), b); }
Layout tiled_product(const Layout& a, const Tiler& b, DomainPolicy p) { return tiled_from_zipped(zipped_product(a, b, p)); }
Layout flat_product(const Layout& a, const Tiler& b, DomainPolicy p) { return flat_from_zipped(zipped_product(a, b, p)); }

Layout pad_rank(const Layout& l, size_t r) {
  std::vector<Layout> m = modes_of(l);
  while (m.size() < r) m.push_back(Layout(IntTuple(1), IntTuple(0)));
  return make_layout(m);
}

Layout interleave_modes(const Layout& ap, const Layout& c, bool blocked) {
  std::vector<Layout> modes;
  for (size_t i = 0; i < static_cast<size_t>(ap.rank()); ++i) {
    Layout x = ap.mode(i), y = c.mode(i);
    modes.push_back(blocked ? make_layout({x, y}) : make_layout({y, x}));
  }
  return make_layout(modes);
}

namespace {
Layout block_or_rake(const Layout& a, const Layout& b, bool blocked, DomainPolicy policy) {
  const size_t r = static_cast<size_t>(std::max(a.rank(), b.rank()));
  Layout ap = pad_rank(a, r), bp = pad_rank(b, r);
  Layout prod = logical_product(ap, Tiler(bp), policy);  // (A', complement(A') o B')
  return interleave_modes(ap, prod.mode(1), blocked);
}
}  // namespace

Layout blocked_product(const Layout& a, const Layout& b, DomainPolicy p) { return block_or_rake(a, b, true, p); }
Layout raked_product(const Layout& a, const Layout& b, DomainPolicy p) { return block_or_rake(a, b, false, p); }

// §3 (CuTe @post): the largest N with a(R(i)) == i for every i < N, R = right_inverse(b).
int64_t max_common_vector(const Layout& a, const Layout& b) {
  const Layout r = right_inverse(b);
  if (!composition_refusal(a, r)) {
    const Flat c = coalesce_flat(flat_concrete(composition(a, r), "max_common_vector"));
    return c.stride[0] == 1 ? c.shape[0] : 1;
  }
  const int64_t n = std::min(r.size(), a.size());  // the walk refused: the prefix point by point
  if (n > kCompositionPointLimit)
    fail(rule::kCompositionUndecided, "max_common_vector: " + to_string(a) + " o right_inverse(" + to_string(b) + ") is refused by the walk and " +
                                          std::to_string(n) + " points are over the limit of " + std::to_string(kCompositionPointLimit));
  int64_t i = 1;  // a(R(0)) == a(0) == 0
  while (i < n && r(i) < a.size() && a(r(i)) == i) ++i;
  return i;
}

}  // namespace tfspec
