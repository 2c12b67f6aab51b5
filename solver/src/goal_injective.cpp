// §2 injectivity of a layout with symbolic dims.
// Counterexample encoding: coordinate differences t_i = x_i - y_i with |t_i| <= s_i - 1, not all
// zero, and sum t_i * d_i == 0 (two distinct coordinates, one offset). From t: x_i = max(t_i, 0),
// y_i = max(-t_i, 0), both inside the domain.
#include <algorithm>

#include "engine.hpp"
#include "exact.hpp"
#include "positivity.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

// Separated strides (structural, no solver): an order of the modes in which each stride is at
// least 1 + the largest offset of the modes before it, i.e. clears their span. The comparison is
// syntactic: stride - (span + 1) must simplify (polynomial normal form) to a numeral >= 0, e.g.
// stride_k == product of the smaller extents for a compact layout. Modes of extent 1 are skipped.
std::optional<std::string> separated_strides(z3::context& ctx, const FlatModes& f) {
  z3::params som(ctx);  // sum-of-monomials normal form, so that A + A*(B-1) is A*B
  som.set("som", true);
  std::vector<size_t> left;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    z3::expr s = f.shape[i].simplify(som);
    int64_t v = 0;
    if (s.is_numeral_i64(v) && v == 1) continue;
    left.push_back(i);
  }
  z3::expr next = ctx.int_val(1);  // 1 + largest offset of the modes placed so far
  while (!left.empty()) {
    size_t best = left.size();
    int64_t best_gap = 0;
    for (size_t k = 0; k < left.size(); ++k) {
      int64_t gap = 0;
      if (!(f.stride[left[k]] - next).simplify(som).is_numeral_i64(gap) || gap < 0) continue;
      if (best == left.size() || gap < best_gap) best = k, best_gap = gap;
    }
    if (best == left.size()) return std::nullopt;
    const size_t i = left[best];
    next = (next + f.stride[i] * (f.shape[i] - 1)).simplify(som);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return "structural";
}

// Separated strides over the symbols' lower bounds (issue 20, the linear fragment): the modes are
// sorted by their strides at a generic point (every symbol 2^10 above its lower bound), then
// each gap |stride| - (1 + the span of the modes before) is shown >= 0 by positivity (a
// polynomial with no negative coefficient once every symbol is shifted to its lower bound), so
// the argument holds for every admissible value and needs no solver. It generalises the
// syntactic comparison to padded strides (`(N,K):(1,N+P)` with P >= 0) and to strides that
// exceed the span by a polynomial (`M+4*M*M` after a span of `4*M*M`).
std::optional<std::string> separated_strides_bounds(z3::context& ctx, const FlatModes& f, const LowerBounds& lower) {
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    int64_t one = 0;
    if (f.shape[i].is_numeral_i64(one) && one == 1) continue;
    auto v = lower.sample(f.stride[i], 1024);
    if (!v || *v == 0) return std::nullopt;
    order.emplace_back(*v < 0 ? -*v : *v, i);
  }
  std::sort(order.begin(), order.end());
  z3::expr next = ctx.int_val(1);
  for (const auto& [v, i] : order) {
    // |stride|: the sign seen at the sample point, shown for every value by the gap below
    const z3::expr d = *lower.sample(f.stride[i], 1024) < 0 ? -f.stride[i] : f.stride[i];
    if (!lower.nonneg(d - next)) return std::nullopt;
    next = next + d * (f.shape[i] - 1);
  }
  return "separated-strides-bounds";
}

// Separated strides with the order proved by Z3: the modes are sorted by their strides at one
// admissible point (a model of the assumptions), then one query proves that in this order every
// mode of extent > 1 clears the span of the ones before it, for every admissible value.
std::optional<std::string> separated_strides_z3(z3::context& ctx, const FlatModes& f, const std::vector<z3::expr>& base,
                                                Budget& budget, unsigned rlimit) {
  std::vector<z3::expr> sample = base;
  QueryOutcome q = check(ctx, sample, Limits{budget.share(0.1), rlimit, &budget}, "QF_NIA", "", "");
  if (q.result != z3::sat) return std::nullopt;
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t i = 0; i < f.stride.size(); ++i) {
    auto v = model_int(*q.model, f.stride[i]);
    if (!v) return std::nullopt;
    order.emplace_back(*v, i);
  }
  std::sort(order.begin(), order.end());
  z3::expr next = ctx.int_val(1), all = ctx.bool_val(true);
  for (const auto& [v, i] : order) {
    all = all && (f.shape[i] == 1 || f.stride[i] >= next);
    next = next + f.stride[i] * (f.shape[i] - 1);
  }
  std::vector<z3::expr> obligation = base;
  obligation.push_back(!all);
  if (check(ctx, obligation, Limits{budget.share(0.15), rlimit, &budget}, "QF_NIA", "", "").result == z3::unsat)
    return "separated-strides-z3";
  return std::nullopt;
}

// A sufficient condition for injectivity of a concrete layout (sorted by |stride|, each mode
// clears the span of the smaller ones): the reference decides such layouts by peeling, however
// large, so the instance search may hand them over without an enumeration.
bool separated(const ExactModes& m) {
  std::vector<std::pair<i128, i128>> modes;  // (|d|, s)
  for (size_t i = 0; i < m.shape.size(); ++i)
    if (m.shape[i] > 1) modes.emplace_back(m.stride[i] < 0 ? -m.stride[i] : m.stride[i], m.shape[i]);
  std::sort(modes.begin(), modes.end());
  i128 span = 0;
  for (const auto& [d, s] : modes) {
    if (d <= span) return false;
    i128 add;
    if (__builtin_mul_overflow(d, s - 1, &add) || __builtin_add_overflow(span, add, &span)) return false;
  }
  return true;
}

constexpr int64_t kMaxInstanceSize = int64_t{1} << 20;  // the search's per-instance enumeration

}  // namespace

namespace {

// The witness: two flat coordinates of the concrete layout and their common offset.
Counterexample collision(const Layout& l, const Bindings& b, const std::vector<int64_t>& x, const std::vector<int64_t>& y, i128 off) {
  Layout c = substitute(l, b);
  Counterexample cx;
  IntTuple c1 = unflatten_coord(c.shape_ref(), x), c2 = unflatten_coord(c.shape_ref(), y);
  cx.json = Json{{"symbols", bindings_json(b)}, {"layout", to_string(c)}, {"coords", Json::array({to_json(c1), to_json(c2)})}};
  cx.json["offset"] = fits_int64(off) ? Json(static_cast<int64_t>(off)) : Json(i128_string(off));
  cx.text = at(b) + "the layout is " + to_string(c) + ": coordinates " + coord_to_string(c1) + " and " + coord_to_string(c2) +
            " both map to offset " + i128_string(off);
  return cx;
}

// Replays the model's coordinate differences t themselves, exactly (no enumeration of the layout).
std::optional<Counterexample> replay_differences(const Layout& l, const std::vector<z3::expr>& t, const z3::model& m, const Bindings& b) {
  ExactModes em = exact_modes(l, b);
  if (!em.fit_int64) fail(rule::in(rule::kProveUndecided, "§2"), "the layout's extents or strides leave int64 at " + to_string(b));
  std::vector<int64_t> x, y;
  i128 ox = 0, oy = 0;
  bool differ = false;
  for (size_t i = 0; i < t.size(); ++i) {
    auto v = model_int(m, t[i]);
    if (!v) fail(rule::in(rule::kProveUndecided, "§2"), "a coordinate of the model leaves int64");
    if (*v > em.shape[i] - 1 || *v < 1 - em.shape[i]) return std::nullopt;
    x.push_back(*v > 0 ? *v : 0);
    y.push_back(*v < 0 ? -*v : 0);
    differ = differ || *v != 0;
    i128 px, py;
    if (__builtin_mul_overflow(static_cast<i128>(x.back()), em.stride[i], &px) || __builtin_add_overflow(ox, px, &ox) ||
        __builtin_mul_overflow(static_cast<i128>(y.back()), em.stride[i], &py) || __builtin_add_overflow(oy, py, &oy))
      fail(rule::in(rule::kProveUndecided, "§2"), "an offset leaves 128 bits");
  }
  if (!differ || ox != oy) return std::nullopt;
  return collision(l, b, x, y, ox);
}

// The reference's exact decision on the instance at b.
std::optional<Counterexample> concrete_collision(const Layout& l, const Bindings& b) {
  ExactModes em = exact_modes(l, b);
  if (!em.fit_int64) fail(rule::in(rule::kProveUndecided, "§2"), "the layout's extents or strides leave int64 at " + to_string(b));
  i128 size = 1;
  for (auto s : em.shape)
    if (__builtin_mul_overflow(size, s, &size)) size = static_cast<i128>(1) << 100;
  if (size > kMaxInstanceSize && !separated(em))
    fail(rule::in(rule::kProveUndecided, "§2"), "an instance of " + i128_string(size) + " points is beyond the search's enumeration");
  Layout c = substitute(l, b);
  InjectivityResult res = is_injective(c);
  if (res.injective) return std::nullopt;
  if (!res.witness) fail(rule::in(rule::kProveInternal, "§2"), "the reference found no witness pair");
  std::vector<int64_t> x, y;
  for (const auto& v : flat_leaves(res.witness->first)) x.push_back(v.value());
  for (const auto& v : flat_leaves(res.witness->second)) y.push_back(v.value());
  return collision(l, b, x, y, c.apply(res.witness->first));
}

}  // namespace

ProveResult prove_injective(const Layout& l, const ProveOptions& o) {
  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  FlatModes f = flat_modes(enc, l, "layout");
  GoalSpec g;
  g.goal = "injective";
  g.clause = "§2";
  g.symbols = layout_symbols(l);
  std::vector<z3::expr> t, terms;
  z3::expr some = ctx.bool_val(false);
  extents_wellformed(g, f);
  for (size_t i = 0; i < f.shape.size(); ++i) {
    t.push_back(ctx.int_const(("crd!diff!" + std::to_string(i)).c_str()));
    g.negated.push_back(t[i] <= f.shape[i] - 1 && t[i] >= 1 - f.shape[i]);
    some = some || t[i] != 0;
    terms.push_back(t[i] * f.stride[i]);
  }
  g.negated.push_back(some);
  g.negated.push_back(sum(ctx, terms) == 0);
  g.structural = [&](const std::vector<z3::expr>& base, Budget& b, const LowerBounds& lower) {
    if (auto m = separated_strides(ctx, f)) return m;
    if (auto m = separated_strides_bounds(ctx, f, lower)) return m;
    return separated_strides_z3(ctx, f, base, b, o.rlimit);
  };

  g.replay = [&l, t](const z3::model& m, const Bindings& b) { return replay_differences(l, t, m, b); };
  g.concrete = [&l](const Bindings& b) { return concrete_collision(l, b); };
  return run_goal(enc, g, o, budget);
}

}  // namespace tfspec::solver
