// §2 injectivity of a layout with symbolic dims.
// Counterexample encoding: coordinate differences t_i = x_i - y_i with |t_i| <= s_i - 1, not all
// zero, and sum t_i * d_i == 0 (two distinct coordinates, one offset). From t: x_i = max(t_i, 0),
// y_i = max(-t_i, 0), both inside the domain.
#include <algorithm>

#include "engine.hpp"
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

// Separated strides with the order proved by Z3: the modes are sorted by their strides at one
// admissible point (a model of the assumptions), then one query proves that in this order every
// mode of extent > 1 clears the span of the ones before it, for every admissible value.
std::optional<std::string> separated_strides_z3(z3::context& ctx, const FlatModes& f, const std::vector<z3::expr>& base,
                                                unsigned timeout_ms) {
  std::vector<z3::expr> sample = base;
  QueryOutcome q = check(ctx, sample, Limits{std::min(timeout_ms, 500u), 0}, "QF_NIA", "", "");
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
  if (check(ctx, obligation, Limits{timeout_ms, 0}, "QF_NIA", "", "").result == z3::unsat) return "separated-strides-z3";
  return std::nullopt;
}

}  // namespace

ProveResult prove_injective(const Layout& l, const ProveOptions& o) {
  z3::context ctx;
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
  g.structural = [&](const std::vector<z3::expr>& base) {
    auto m = separated_strides(ctx, f);
    return m ? m : separated_strides_z3(ctx, f, base, o.timeout_ms);
  };

  auto witness = [l](const Bindings& b, int64_t i1, int64_t i2, const Layout& c) {
    Counterexample cx;
    IntTuple c1 = idx2crd(i1, c.shape_ref()), c2 = idx2crd(i2, c.shape_ref());
    int64_t off = c(i1);
    cx.json = Json{{"symbols", bindings_json(b)}, {"layout", to_string(c)},
                   {"coords", Json::array({to_json(c1), to_json(c2)})}, {"offset", off}};
    cx.text = at(b) + "the layout is " + to_string(c) + ": coordinates " + coord_to_string(c1) + " and " +
              coord_to_string(c2) + " both map to offset " + std::to_string(off);
    return cx;
  };
  g.replay = [&, witness](const z3::model& m, const Bindings& b) -> std::optional<Counterexample> {
    Layout c = substitute(l, b);
    std::vector<int64_t> x, y;
    for (const auto& ti : t) {
      auto v = model_int(m, ti);
      if (!v) return std::nullopt;
      x.push_back(*v > 0 ? *v : 0);
      y.push_back(*v < 0 ? -*v : 0);
    }
    int64_t i1 = colex_index(x, c), i2 = colex_index(y, c);
    if (i1 == i2 || c(i1) != c(i2) || is_injective(c).injective) return std::nullopt;
    return witness(b, i1, i2, c);
  };
  g.concrete = [&, witness](const Bindings& b) -> std::optional<Counterexample> {
    Layout c = substitute(l, b);
    InjectivityResult res = is_injective(c);
    if (res.injective) return std::nullopt;
    if (!res.witness) fail("prove-internal", "§2", "the reference found no witness pair");
    // The witness coordinates as colexicographic indices of the concrete layout.
    int64_t i1 = crd2idx(res.witness->first, c.shape_ref()), i2 = crd2idx(res.witness->second, c.shape_ref());
    return witness(b, i1, i2, c);
  };
  return run_goal(enc, g, o);
}

}  // namespace tfspec::solver
