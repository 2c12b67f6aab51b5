// §3 offsets of a layout with symbolic dims: `in-bounds` (every offset in [0, E)) and `fits`
// (offsets and the index arithmetic of crd2idx stay inside a signed 32- or 64-bit integer).
#include "engine.hpp"
#include "exact.hpp"
#include "positivity.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

// Saturating 128-bit arithmetic for concrete replays of overflow goals: a value that saturates is
// far outside any 64-bit range, which is all the verdict needs.
constexpr i128 kSat = static_cast<i128>(1) << 120;
i128 sat(i128 v) { return v > kSat ? kSat : (v < -kSat ? -kSat : v); }
i128 smul(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? -kSat : kSat;
  return sat(r);
}
std::string value_string(i128 v) {
  if (v >= kSat) return ">= 2^120";
  if (v <= -kSat) return "<= -2^120";
  return i128_string(v);
}

// The quantities crd2idx computes (spec/PROVE.md): every extent and stride, the size (the range
// of a linear index), each |x_k * d_k| at its largest, and the largest / smallest partial sum of
// offsets over the first k modes. Builds them as Z3 terms and, for a concrete instance, as values.
struct Quantity {
  std::string what;
  z3::expr term;
};

std::vector<Quantity> quantities(z3::context& ctx, const FlatModes& f) {
  std::vector<Quantity> q;
  z3::expr size = ctx.int_val(1), hi = ctx.int_val(0), lo = ctx.int_val(0);
  for (size_t i = 0; i < f.shape.size(); ++i) {
    const std::string k = std::to_string(i);
    z3::expr s = f.shape[i], d = f.stride[i];
    z3::expr span = (s - 1) * d;  // the mode's contribution at its last coordinate
    q.push_back({"extent[" + k + "]", s});
    q.push_back({"stride[" + k + "]", d});
    q.push_back({"coordinate*stride in mode " + k, span});
    size = size * s;
    hi = hi + z3::ite(d > 0, span, ctx.int_val(0));
    lo = lo + z3::ite(d < 0, span, ctx.int_val(0));
    q.push_back({"size of modes 0.." + k, size});
    q.push_back({"largest offset of modes 0.." + k, hi});
    q.push_back({"smallest offset of modes 0.." + k, lo});
  }
  return q;
}

std::vector<std::pair<std::string, i128>> concrete_quantities(const ExactModes& m) {
  std::vector<std::pair<std::string, i128>> q;
  const auto& s = m.shape;
  const auto& d = m.stride;
  i128 size = 1, hi = 0, lo = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const std::string k = std::to_string(i);
    i128 span = smul(sat(s[i] - 1), d[i]);
    q.push_back({"extent[" + k + "]", s[i]});
    q.push_back({"stride[" + k + "]", d[i]});
    q.push_back({"coordinate*stride in mode " + k, span});
    size = smul(size, s[i]);
    hi = sat(hi + (d[i] > 0 ? span : 0));
    lo = sat(lo + (d[i] < 0 ? span : 0));
    q.push_back({"size of modes 0.." + k, size});
    q.push_back({"largest offset of modes 0.." + k, hi});
    q.push_back({"smallest offset of modes 0.." + k, lo});
  }
  return q;
}

// The coordinate where the offset is largest (or smallest) of a concrete layout.
std::vector<int64_t> corner(const ExactModes& m, bool largest) {
  std::vector<int64_t> x;
  for (size_t i = 0; i < m.shape.size(); ++i)
    x.push_back(((m.stride[i] > 0) == largest && m.stride[i] != 0) ? static_cast<int64_t>(m.shape[i] - 1) : 0);
  return x;
}

i128 offset_at(const ExactModes& m, const std::vector<int64_t>& x) {
  i128 off = 0, p;
  for (size_t i = 0; i < x.size(); ++i)
    if (__builtin_mul_overflow(static_cast<i128>(x[i]), m.stride[i], &p) || __builtin_add_overflow(off, p, &off))
      fail(rule::kProveUndecided, "an offset leaves 128 bits");
  return off;
}

// "(s0,s1):(d0,d1)" of exact flat values (for instances whose dims leave int64).
std::string flat_text(const ExactModes& m) {
  std::string s = "(", d = "(";
  for (size_t i = 0; i < m.shape.size(); ++i) {
    s += (i ? "," : "") + i128_string(m.shape[i]);
    d += (i ? "," : "") + i128_string(m.stride[i]);
  }
  return s + "):" + d + ")";
}

// fits over 64-bit bit-vectors within the declared bounds. Counterexample condition: a dim
// expression (of the layout or an assumption) leaves int64 somewhere in the box (then nothing
// can be concluded from the model), or the assumptions hold and a quantity computed from the
// dims leaves int64 or the `bits` range. Unsat: no overflow anywhere in the box, so every term
// equals its integer value and the goal holds within the bounds.
std::vector<z3::expr> fits_bitvector_obligation(z3::context& ctx, BvEncoder& bv, const Layout& l, int bits, const Assumptions& as,
                                                z3::expr& dim_overflow) {
  z3::expr box = ctx.bool_val(true), assume = ctx.bool_val(true), wf = ctx.bool_val(true);
  for (const auto& s : as.symbols) {
    const auto& b = as.bounds.at(s);
    box = box && bv.symbol(s) >= bv.val(*b.lo) && bv.symbol(s) <= bv.val(*b.hi);
  }
  for (const auto& r : as.relations) assume = assume && bv.relation(r);
  const auto sl = flat_leaves(l.shape_ref()), dl = flat_leaves(l.stride());
  std::vector<z3::expr> s, d;
  for (size_t i = 0; i < sl.size(); ++i) {
    s.push_back(bv.leaf(sl[i]));
    d.push_back(bv.leaf(dl[i]));
    wf = wf && s[i] >= bv.val(1);
  }
  for (const auto& c : bv.definedness) wf = wf && c;
  dim_overflow = ctx.bool_val(false);
  for (const auto& f : bv.overflow) dim_overflow = dim_overflow || f;
  const size_t first_quantity_flag = bv.overflow.size();
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1, min = -max - 1;
  z3::expr out = ctx.bool_val(false), size = bv.val(1), hi = bv.val(0), lo = bv.val(0);
  auto outside = [&](const z3::expr& q) { return q > bv.val(max) || q < bv.val(min); };
  for (size_t i = 0; i < s.size(); ++i) {
    z3::expr span = bv.mul(bv.sub(s[i], bv.val(1)), d[i]);
    size = bv.mul(size, s[i]);
    hi = bv.add(hi, z3::ite(d[i] > bv.val(0), span, bv.val(0)));
    lo = bv.add(lo, z3::ite(d[i] < bv.val(0), span, bv.val(0)));
    for (const auto& q : {s[i], d[i], span, size, hi, lo}) out = out || outside(q);
  }
  for (size_t k = first_quantity_flag; k < bv.overflow.size(); ++k) out = out || bv.overflow[k];
  return {box, dim_overflow || (assume && wf && out)};
}

BitvectorOutcome fits_bitvector(z3::context& ctx, const Layout& l, int bits, const Assumptions& as, const Limits& limits,
                                const Smt2Export& out) {
  if (out) {  // the same obligation in plain SMT-LIB
    BvEncoder portable(ctx, true);
    z3::expr ignored = ctx.bool_val(false);
    out(fits_bitvector_obligation(ctx, portable, l, bits, as, ignored), "QF_BV", "fits-int" + std::to_string(bits) + " (z3-bitvector)");
  }
  BvEncoder bv(ctx, false);
  z3::expr dim_overflow = ctx.bool_val(false);
  QueryOutcome q = check(ctx, fits_bitvector_obligation(ctx, bv, l, bits, as, dim_overflow), limits, "QF_BV", "", "");
  BitvectorOutcome r;
  r.result = q.result;
  r.seconds = q.seconds;
  r.reason = q.reason;
  if (q.result != z3::sat) return r;
  r.expression_overflow = q.model->eval(dim_overflow, true).is_true();
  Bindings b;
  for (const auto& [name, e] : bv.symbols()) {
    uint64_t u = 0;
    if (!q.model->eval(e, true).is_numeral_u64(u)) return r;
    b[name] = static_cast<int64_t>(u);
  }
  for (const auto& name : as.symbols)
    if (!b.count(name)) b[name] = *as.bounds.at(name).lo;
  r.bindings = b;
  return r;
}

// in-bounds without a solver (issue 20): every stride's sign shown by positivity, then the
// largest offset (the sum of the spans of the positive strides) shown below E by positivity,
// and no negative stride with an extent above 1.
std::optional<std::string> corner_bounds(const FlatModes& f, const z3::expr& e, const LowerBounds& lower) {
  z3::expr top = e.ctx().int_val(0), bottom = e.ctx().int_val(0);
  for (size_t i = 0; i < f.shape.size(); ++i) {
    const z3::expr span = (f.shape[i] - 1) * f.stride[i];
    if (lower.nonneg(f.stride[i])) top = top + span;
    else if (lower.nonneg(-f.stride[i])) bottom = bottom + span;
    else return std::nullopt;
  }
  if (!lower.nonneg(bottom) || !lower.nonneg(e - 1 - top)) return std::nullopt;
  return "corner-bounds";
}

}  // namespace

ProveResult prove_in_bounds(const Layout& l, const ShapeDim& size, const ProveOptions& o) {
  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  FlatModes f = flat_modes(enc, l, "layout");
  z3::expr e = enc.dim(size);
  GoalSpec g;
  g.goal = "in-bounds";
  g.clause = "§3";
  g.symbols = layout_symbols(l);
  collect_vars(size, g.symbols);
  extents_wellformed(g, f);
  // The offset's extremes over the domain are reached at a corner (each mode at 0 or at its last
  // coordinate by the sign of its stride; extents >= 1), so the obligation needs no coordinate
  // variables (issue 20: with them Z3 timed out on cosize bounds that hold).
  z3::expr top = ctx.int_val(0), bottom = ctx.int_val(0);
  for (size_t i = 0; i < f.shape.size(); ++i) {
    const z3::expr span = (f.shape[i] - 1) * f.stride[i];
    top = top + z3::ite(f.stride[i] > 0, span, ctx.int_val(0));
    bottom = bottom + z3::ite(f.stride[i] < 0, span, ctx.int_val(0));
  }
  g.negated.push_back(bottom < 0 || top >= e);
  g.structural = [&f, e](const std::vector<z3::expr>&, Budget&, const LowerBounds& lower) { return corner_bounds(f, e, lower); };
  // The witness coordinate and its offset, exactly.
  auto report = [l, size](const Bindings& b, const ExactModes& m, const std::vector<int64_t>& xs) -> std::optional<Counterexample> {
    Exact bound = eval_exact(size, b);
    if (!bound.ok()) fail(rule::kProveUndecided, "the size cannot be evaluated at " + to_string(b));
    for (size_t i = 0; i < xs.size(); ++i)
      if (xs[i] < 0 || xs[i] >= m.shape[i]) return std::nullopt;
    const i128 off = offset_at(m, xs);
    if (off >= 0 && off < bound.value) return std::nullopt;
    const std::string layout = m.fit_int64 ? to_string(substitute(l, b)) : flat_text(m);
    IntTuple crd = m.fit_int64 ? unflatten_coord(l.shape_ref(), xs) : IntTuple();
    Counterexample cx;
    cx.json = Json{{"symbols", bindings_json(b)}, {"layout", layout}, {"coord", m.fit_int64 ? to_json(crd) : Json(xs)},
                   {"offset", fits_int64(off) ? Json(static_cast<int64_t>(off)) : Json(i128_string(off))},
                   {"size", fits_int64(bound.value) ? Json(static_cast<int64_t>(bound.value)) : Json(i128_string(bound.value))}};
    cx.text = at(b) + "the layout is " + layout + ": coordinate " + (m.fit_int64 ? coord_to_string(crd) : Json(xs).dump()) +
              " maps to offset " + i128_string(off) + ", outside [0, " + i128_string(bound.value) + ")";
    return cx;
  };
  g.concrete = [&, report](const Bindings& b) -> std::optional<Counterexample> {
    ExactModes m = exact_modes(l, b);
    for (auto v : m.shape)
      if (!fits_int64(v)) fail(rule::kProveUndecided, "an extent leaves int64 at " + to_string(b));
    if (auto cx = report(b, m, corner(m, false))) return cx;
    return report(b, m, corner(m, true));
  };
  g.replay = [&g](const z3::model&, const Bindings& b) { return g.concrete(b); };  // the model's corners
  return run_goal(enc, g, o, budget);
}

ProveResult prove_fits(const Layout& l, int bits, const ProveOptions& o) {
  if (bits != 32 && bits != 64) fail(rule::in(rule::kProveUsage, "§3"), "fits: the width must be 32 or 64 bits");
  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  FlatModes f = flat_modes(enc, l, "layout");
  GoalSpec g;
  g.goal = "fits-int" + std::to_string(bits);
  g.clause = "§3";
  g.symbols = layout_symbols(l);
  extents_wellformed(g, f);
  const i128 max = (static_cast<i128>(1) << (bits - 1)) - 1, min = -max - 1;
  z3::expr zmax = ctx.int_val(static_cast<int64_t>(max)), zmin = ctx.int_val(static_cast<int64_t>(min));
  z3::expr any = ctx.bool_val(false);
  for (const auto& q : quantities(ctx, f)) any = any || q.term > zmax || q.term < zmin;
  g.negated.push_back(any);
  // The dims are evaluated exactly: a dim that leaves int64 is itself the counterexample (the
  // concrete layout cannot even be built).
  auto check_instance = [l, bits, max, min](const Bindings& b) -> std::optional<Counterexample> {
    ExactModes m = exact_modes(l, b);
    const std::string layout = m.fit_int64 ? to_string(substitute(l, b)) : flat_text(m);
    for (const auto& [what, v] : concrete_quantities(m)) {
      if (v <= max && v >= min) continue;
      Counterexample cx;
      cx.json = Json{{"symbols", bindings_json(b)}, {"layout", layout}, {"quantity", what}, {"value", value_string(v)}};
      cx.text = at(b) + "the layout is " + layout + ": " + what + " = " + value_string(v) + " does not fit int" + std::to_string(bits);
      if (m.fit_int64 && (what.rfind("largest", 0) == 0 || what.rfind("smallest", 0) == 0)) {
        IntTuple crd = unflatten_coord(l.shape_ref(), corner(m, what[0] == 'l'));
        cx.json["coord"] = to_json(crd);
        cx.text += " (reached at coordinate " + coord_to_string(crd) + ")";
      }
      return cx;
    }
    return std::nullopt;
  };
  g.replay = [check_instance](const z3::model&, const Bindings& b) { return check_instance(b); };
  g.concrete = check_instance;
  g.bitvector = [&ctx, &l, bits](const Assumptions& as, const Limits& limits, const Smt2Export& out) {
    return fits_bitvector(ctx, l, bits, as, limits, out);
  };
  return run_goal(enc, g, o, budget);
}

}  // namespace tfspec::solver
