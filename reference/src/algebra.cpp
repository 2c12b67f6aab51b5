// The CuTe layout algebra (§3 "mirrors pycute"), each operation with its admissibility checked.
// Conditions and decisions are recorded in spec/ALGEBRA.md.
#include "tfspec/reference/algebra.hpp"

#include <algorithm>
#include <tuple>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "small_vec.hpp"

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

// Applies f to the first modes of `l` per the by-mode profile and keeps the rest (CuTe by-mode).
template <class F>
Layout by_mode(const Layout& l, size_t n, const char* op, F f) {
  if (static_cast<size_t>(l.rank()) < n)
    fail("by-mode-rank", "§3", std::string(op) + ": a by-mode argument of rank " + std::to_string(n) +
                                   " needs a layout of rank >= " + std::to_string(n) + ", got " + std::to_string(l.rank()));
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

// ---------------------------------------------------------------- composition
// A (coalesced to M:D) composed with one flat mode s:d of B. Shah's left-divisibility conditions:
// the stride d must be left divisible by M (it lands on a digit boundary of A's mixed radix and
// divides that digit) and the shape s weakly left divisible by the rest; decision: B's image must
// stay inside A's domain [0, size(A)). `usage[p]` accumulates the largest digit this mode puts at
// position p, so the caller can check that B's modes never carry into each other.
namespace {

struct ModeResult {
  SmallInts shape, stride;
};

std::optional<Diagnostic> compose_mode(const Flat& a, int64_t s, int64_t d, SmallInts& usage, ModeResult& out) {
  auto refuse = [](const std::string& rule, const std::string& msg) {
    return std::optional<Diagnostic>(Diagnostic{rule, "§3", msg, ""});
  };
  if (s == 1 || d == 0) {
    out.shape.push_back(s);
    out.stride.push_back(0);
    return std::nullopt;
  }
  if (d < 0) return refuse("composition-image-in-domain", "B has a negative stride " + std::to_string(d) + ": its image leaves A's domain");
  const size_t last = a.shape.size() - 1;
  int64_t rest_s = s, rest_d = d;
  for (size_t p = 0; p < last && rest_s > 1; ++p) {
    const int64_t m = a.shape[p];
    if (rest_d >= m) {
      if (rest_d % m != 0)
        return refuse("composition-stride-divisibility",
                      "B's stride " + std::to_string(d) + " is not left divisible by A's shape (remaining stride " +
                          std::to_string(rest_d) + " vs extent " + std::to_string(m) + ")");
      rest_d /= m;
      continue;
    }
    if (m % rest_d != 0)
      return refuse("composition-stride-divisibility",
                    "B's stride " + std::to_string(d) + " is not left divisible by A's shape (extent " + std::to_string(m) +
                        " is not a multiple of the remaining stride " + std::to_string(rest_d) + ")");
    const int64_t n = m / rest_d;
    if (rest_s <= n) {
      out.shape.push_back(rest_s);
      out.stride.push_back(checked_mul(rest_d, a.stride[p]));
      usage[p] = checked_add(usage[p], checked_mul(rest_d, rest_s - 1));
      rest_s = 1;
      break;
    }
    if (rest_s % n != 0)
      return refuse("composition-shape-divisibility",
                    "B's extent " + std::to_string(s) + " is not weakly left divisible by A's shape (remaining extent " +
                        std::to_string(rest_s) + " spans a mode of " + std::to_string(n) + " without being a multiple)");
    if (n > 1) {
      out.shape.push_back(n);
      out.stride.push_back(checked_mul(rest_d, a.stride[p]));
      usage[p] = checked_add(usage[p], checked_mul(rest_d, n - 1));
    }
    rest_s /= n;
    rest_d = 1;
  }
  if (rest_s > 1) {
    out.shape.push_back(rest_s);
    out.stride.push_back(checked_mul(rest_d, a.stride[last]));
    usage[last] = checked_add(usage[last], checked_mul(rest_d, rest_s - 1));
  }
  if (out.shape.empty()) {
    out.shape.push_back(1);
    out.stride.push_back(0);
  }
  return std::nullopt;
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

struct Composed {
  std::optional<Diagnostic> refusal;
  std::optional<Layout> layout;
};

Composed compose(const Layout& a, const Layout& b) {
  const Flat fa = coalesce_flat(flat_concrete(a, "composition"));
  const Flat fb = flat_concrete(b, "composition");
  SmallInts usage(fa.shape.size(), 0);
  std::vector<ModeResult> modes(fb.shape.size());
  for (size_t j = 0; j < fb.shape.size(); ++j)
    if (auto r = compose_mode(fa, fb.shape[j], fb.stride[j], usage, modes[j])) return {r, std::nullopt};
  // No carries between B's modes: each digit position of A receives at most its extent - 1, so
  // A(sum of B's mode offsets) == sum of A(each mode offset) and the by-mode result is exact.
  for (size_t p = 0; p < usage.size(); ++p) {
    if (usage[p] < fa.shape[p]) continue;
    const bool last = p + 1 == usage.size();
    if (last)
      return {Diagnostic{"composition-image-in-domain", "§3",
                         "B's image reaches " + std::to_string(usage[p]) + " on A's last mode of extent " +
                             std::to_string(fa.shape[p]) + ": it leaves A's domain [0, size(A))", ""},
              std::nullopt};
    return {Diagnostic{"composition-mode-overlap", "§3",
                       "B's modes together put digit " + std::to_string(usage[p]) + " on A's mode " + std::to_string(p) +
                           " of extent " + std::to_string(fa.shape[p]) + ": their offsets carry into each other, so A∘B is not B's modes composed one by one",
                       ""},
            std::nullopt};
  }
  size_t next = 0;
  auto r = rebuild(b.shape_ref(), modes, next);
  return {std::nullopt, Layout(std::move(r.first), std::move(r.second))};
}

}  // namespace

std::optional<Diagnostic> composition_refusal(const Layout& a, const Layout& b) { return compose(a, b).refusal; }

Layout composition(const Layout& a, const Layout& b) {
  Composed c = compose(a, b);
  if (c.refusal) {
    c.refusal->message = "composition " + to_string(a) + " o " + to_string(b) + " is not admissible: " + c.refusal->message;
    throw SpecError(*c.refusal);
  }
  return std::move(*c.layout);
}

Layout composition(const Layout& a, const Tiler& b) {
  if (b.is_layout()) return composition(a, *b.layout);
  return by_mode(a, b.modes.size(), "composition", [&](const Layout& m, size_t i) { return composition(m, b.modes[i]); });
}

// ---------------------------------------------------------------- complement / inverses
Layout complement(const Layout& l, int64_t cotarget) {
  Flat f = flat_concrete(l, "complement");
  if (cotarget < 1) fail("complement-cotarget", "§3", "complement's cotarget must be >= 1, got " + std::to_string(cotarget));
  std::vector<std::pair<int64_t, int64_t>> ds;  // (stride, shape)
  for (size_t i = 0; i < f.shape.size(); ++i) {
    if (f.stride[i] < 0) fail("complement-negative-stride", "§3", "complement needs non-negative strides, got " + std::to_string(f.stride[i]));
    if (f.stride[i] == 0 || f.shape[i] == 1) continue;
    ds.emplace_back(f.stride[i], f.shape[i]);
  }
  std::sort(ds.begin(), ds.end());
  std::vector<int64_t> rs, rd;
  int64_t current = 1;
  for (auto [d, s] : ds) {
    if (d % current != 0)
      fail("complement-disjoint", "§3",
           "complement of " + to_string(l) + " is undefined: stride " + std::to_string(d) +
               " is not a multiple of the span " + std::to_string(current) + " of the smaller modes (they overlap or interleave)");
    rs.push_back(d / current);
    rd.push_back(current);
    current = checked_mul(s, d);
  }
  rs.push_back(ceil_div(cotarget, current));
  rd.push_back(current);
  return coalesce(from_flat(rs, rd));
}

Layout complement(const Layout& l) { return complement(l, l.cosize()); }

Layout right_inverse(const Layout& l) {
  Flat f = flat_concrete(l, "right_inverse");
  std::vector<int64_t> compact(f.shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    compact[i] = acc;
    acc = checked_mul(acc, f.shape[i]);
  }
  std::vector<std::tuple<int64_t, int64_t, int64_t>> sorted;  // (stride, shape, compact stride)
  for (size_t i = 0; i < f.shape.size(); ++i) sorted.emplace_back(f.stride[i], f.shape[i], compact[i]);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> rs, rd;
  int64_t current = 1;
  for (auto [d, s, c] : sorted) {
    if (s == 1) continue;
    if (d != current) break;
    rs.push_back(s);
    rd.push_back(c);
    current = checked_mul(s, d);
  }
  if (rs.empty()) return Layout(IntTuple(1), IntTuple(0));
  return coalesce(from_flat(rs, rd));
}

Layout left_inverse(const Layout& l) { return right_inverse(make_layout({l, complement(l, 1)})); }

// ---------------------------------------------------------------- divide / product
Layout logical_divide(const Layout& a, const Tiler& b) {
  if (!b.is_layout())
    return by_mode(a, b.modes.size(), "logical_divide", [&](const Layout& m, size_t i) { return logical_divide(m, b.modes[i]); });
  const Layout& t = *b.layout;
  return composition(a, make_layout({t, complement(t, a.size())}));
}

namespace {
// (tile, rest) from a logical divide/product: for a layout tiler it is already zipped; for a
// by-mode tiler of rank r, mode i is (tile_i, rest_i): gather the tiles first.
Layout zip_result(const Layout& r, const Tiler& b) {
  if (b.is_layout()) return r;
  std::vector<Layout> tiles, rests;
  for (size_t i = 0; i < b.modes.size(); ++i) {
    Layout m = r.mode(i);
    if (m.rank() < 2 || m.shape_ref().is_leaf()) fail("internal", "§3", "by-mode result lost its (tile, rest) structure");
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
}  // namespace

Layout zipped_divide(const Layout& a, const Tiler& b) { return zip_result(logical_divide(a, b), b); }
Layout tiled_divide(const Layout& a, const Tiler& b) { return tiled_from_zipped(zipped_divide(a, b)); }
Layout flat_divide(const Layout& a, const Tiler& b) { return flat_from_zipped(zipped_divide(a, b)); }

Layout logical_product(const Layout& a, const Tiler& b) {
  if (!b.is_layout())
    return by_mode(a, b.modes.size(), "logical_product", [&](const Layout& m, size_t i) { return logical_product(m, b.modes[i]); });
  const Layout& t = *b.layout;
  Layout c = complement(a, checked_mul(a.size(), t.cosize()));
  return make_layout({a, composition(c, t)});
}

Layout zipped_product(const Layout& a, const Tiler& b) { return zip_result(logical_product(a, b), b); }
Layout tiled_product(const Layout& a, const Tiler& b) { return tiled_from_zipped(zipped_product(a, b)); }
Layout flat_product(const Layout& a, const Tiler& b) { return flat_from_zipped(zipped_product(a, b)); }

namespace {
Layout pad_rank(const Layout& l, size_t r) {
  std::vector<Layout> m = modes_of(l);
  while (m.size() < r) m.push_back(Layout(IntTuple(1), IntTuple(0)));
  return make_layout(m);
}

Layout block_or_rake(const Layout& a, const Layout& b, bool blocked) {
  const size_t r = static_cast<size_t>(std::max(a.rank(), b.rank()));
  Layout ap = pad_rank(a, r), bp = pad_rank(b, r);
  Layout prod = logical_product(ap, Tiler(bp));  // (A', complement(A') o B')
  Layout c = prod.mode(1);
  std::vector<Layout> modes;
  for (size_t i = 0; i < r; ++i) {
    Layout x = ap.mode(i), y = c.mode(i);
    modes.push_back(blocked ? make_layout({x, y}) : make_layout({y, x}));
  }
  return make_layout(modes);
}
}  // namespace

Layout blocked_product(const Layout& a, const Layout& b) { return block_or_rake(a, b, true); }
Layout raked_product(const Layout& a, const Layout& b) { return block_or_rake(a, b, false); }

int64_t max_common_vector(const Layout& a, const Layout& b) {
  Layout r = coalesce(composition(a, right_inverse(b)));
  Flat f = flat_concrete(r, "max_common_vector");
  return f.stride[0] == 1 ? f.shape[0] : 1;
}

// ---------------------------------------------------------------- tiler notation
namespace {
size_t matching(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (depth == 0) return i;
  }
  fail("parse-error", "§3", "unbalanced brackets in tiler '" + std::string(s.substr(0, 200)) + "'");
}

Tiler parse_tiler_rec(std::string_view s, int depth) {
  if (depth > kMaxDepth) fail("nesting-too-deep", "§3", "tiler nests too deeply");
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  if (b == std::string_view::npos) fail("parse-error", "§3", "empty tiler");
  s = s.substr(b, e - b + 1);
  // CuTe: a tuple without a top-level stride is a by-mode tiler; each element is itself a tiler.
  if (s[0] != '(' || matching(s, 0) != s.size() - 1) return Tiler(parse_layout(s));
  std::vector<Tiler> modes;
  std::string_view body = s.substr(1, s.size() - 2);
  if (body.find_first_not_of(" \t\n") == std::string_view::npos) fail("parse-error", "§3", "a by-mode tiler needs at least one mode");
  size_t start = 0;
  int d = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    if (i < body.size() && body[i] == '(') ++d;
    if (i < body.size() && body[i] == ')') --d;
    if (i == body.size() || (body[i] == ',' && d == 0)) {
      std::string_view part = body.substr(start, i - start);
      if (i == body.size() && part.find_first_not_of(" \t\n") == std::string_view::npos) break;  // trailing comma
      modes.push_back(parse_tiler_rec(part, depth + 1));
      start = i + 1;
    }
  }
  return Tiler(std::move(modes));
}
}  // namespace

Tiler parse_tiler(std::string_view text) { return parse_tiler_rec(text, 0); }

std::string to_string(const Tiler& t) {
  if (t.is_layout()) return to_string(*t.layout);
  std::string s = "(";
  for (size_t i = 0; i < t.modes.size(); ++i) s += (i ? "," : "") + to_string(t.modes[i]);
  return s + ")";
}

}  // namespace tfspec
