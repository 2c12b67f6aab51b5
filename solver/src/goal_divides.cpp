// §6 / §7.1.1: a mesh extent D divides a global extent N (Split binding, D8), and D5: the sugar
// `N @ m.a` canonicalizes for a symbolic N exactly when the axis extent divides N.
#include <numeric>

#include "engine.hpp"
#include "exact.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/solver/shard_goal.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {

namespace {

// Structural: in normal form N is D, or a product with D as a factor, or c * ... with D | c, or a
// sum of such terms (M*N + M is a multiple of M).
bool multiple_in_normal_form(const z3::expr& nn, const z3::expr& dd) {
  if (z3::eq(nn, dd)) return true;
  if (nn.is_app() && nn.decl().decl_kind() == Z3_OP_ADD) {
    for (unsigned i = 0; i < nn.num_args(); ++i)
      if (!multiple_in_normal_form(nn.arg(i), dd)) return false;
    return true;
  }
  const bool product = nn.is_app() && nn.decl().decl_kind() == Z3_OP_MUL;
  if (product)
    for (unsigned i = 0; i < nn.num_args(); ++i)
      if (z3::eq(nn.arg(i), dd)) return true;
  int64_t vd = 0, vn = 0;
  if (dd.is_numeral_i64(vd) && vd != 0 && nn.is_numeral_i64(vn)) return vn % vd == 0;
  return dd.is_numeral_i64(vd) && vd != 0 && product && nn.arg(0).is_numeral_i64(vn) && vn % vd == 0;
}

bool syntactic_multiple(const z3::expr& n, const z3::expr& d) {
  z3::params som(n.ctx());
  som.set("som", true);
  return multiple_in_normal_form(n.simplify(som), d.simplify(som));
}

// Residues: an integer polynomial's value mod m depends only on its symbols' values mod m, so
// enumerating the residues of the symbols decides `c | N` for a constant c exactly (m a multiple
// of c). The assumptions filter residue vectors through what they imply mod m: an equation holds
// mod m, and `E % k` (k | m) is known exactly. Ignoring every other assumption only keeps more
// vectors, so the answer stays sound.
struct Residue {
  enum class Kind { Unknown, Exact, Mod } kind = Kind::Unknown;
  i128 v = 0;
};

i128 mod_floor(i128 a, i128 m) {
  i128 r = a % m;
  return (r != 0 && ((r < 0) != (m < 0))) ? r + m : r;
}

Residue residue(const ShapeDim& d, const std::map<std::string, int64_t>& r, int64_t m) {
  using Op = ExprNode::Op;
  using K = Residue::Kind;
  switch (d->op) {
    case Op::Const: return {K::Exact, d->value};
    case Op::Var: return {K::Mod, r.at(d->name)};
    default: break;
  }
  Residue a = residue(d->lhs, r, m), b = residue(d->rhs, r, m);
  if (a.kind == K::Unknown || b.kind == K::Unknown) return {};
  const bool exact = a.kind == K::Exact && b.kind == K::Exact;
  i128 out = 0;
  switch (d->op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul: {
      i128 x = a.v, y = b.v;
      bool ovf = d->op == Op::Add ? __builtin_add_overflow(x, y, &out)
                 : d->op == Op::Sub ? __builtin_sub_overflow(x, y, &out) : __builtin_mul_overflow(x, y, &out);
      if (exact && !ovf) return {K::Exact, out};
      x = mod_floor(x, m), y = mod_floor(y, m);  // both now in [0, m): no overflow below
      out = d->op == Op::Add ? x + y : d->op == Op::Sub ? x - y : x * y;
      return {K::Mod, mod_floor(out, m)};
    }
    case Op::Mod:
      if (b.kind != K::Exact || b.v == 0) return {};
      if (exact) return {K::Exact, mod_floor(a.v, b.v)};
      if (m % static_cast<int64_t>(b.v < 0 ? -b.v : b.v) != 0) return {};
      return {K::Exact, mod_floor(a.v, b.v)};
    case Op::FloorDiv:
      if (!exact || b.v == 0) return {};
      return {K::Exact, (a.v - mod_floor(a.v, b.v)) / b.v};
    default: break;
  }
  return {};
}

// Whether a relation can hold at this residue vector (false only when it certainly cannot).
bool may_hold(const Relation& rel, const std::map<std::string, int64_t>& r, int64_t m) {
  using K = Residue::Kind;
  Residue a = residue(rel.lhs, r, m), b = residue(rel.rhs, r, m);
  if (a.kind == K::Unknown || b.kind == K::Unknown) return true;
  if (a.kind == K::Exact && b.kind == K::Exact) return apply_relation(rel.op, a.v, b.v);
  return rel.op != Rel::Eq || mod_floor(a.v - b.v, m) == 0;
}

void constant_moduli(const ShapeDim& d, std::vector<int64_t>& out) {
  if (!d || d->op == ExprNode::Op::Const || d->op == ExprNode::Op::Var) return;
  if (d->op == ExprNode::Op::Mod && is_const(d->rhs) && *const_value(d->rhs) != 0)
    out.push_back(std::abs(*const_value(d->rhs)));
  constant_moduli(d->lhs, out);
  constant_moduli(d->rhs, out);
}

constexpr int64_t kMaxResidueVectors = int64_t{1} << 16;

std::optional<std::string> by_residues(const std::vector<Division>& ds, const std::vector<std::string>& texts, const Budget& budget) {
  if (budget.expired()) return std::nullopt;
  int64_t m = 1;
  std::set<std::string> vars;
  for (const auto& d : ds) {
    auto c = const_value(d.divisor);
    if (!c || *c == 0) return std::nullopt;
    m = std::lcm(m, std::abs(*c));
    collect_vars(d.extent, vars);
  }
  Assumptions as = make_assumptions(texts, vars, [&budget] { return budget.expired(); });
  if (as.unread) return std::nullopt;
  std::vector<int64_t> moduli;
  for (const auto& rel : as.relations) {
    constant_moduli(rel.lhs, moduli);
    constant_moduli(rel.rhs, moduli);
  }
  const std::vector<std::string> names(as.symbols.begin(), as.symbols.end());
  auto vectors = [&](int64_t mod) {
    i128 n = 1;
    for (size_t i = 0; i < names.size() && n <= kMaxResidueVectors; ++i) n *= mod;
    return n;
  };
  int64_t with_assumptions = m;
  for (auto k : moduli)
    if (vectors(std::lcm(with_assumptions, k)) <= kMaxResidueVectors) with_assumptions = std::lcm(with_assumptions, k);
  m = with_assumptions;
  if (vectors(m) > kMaxResidueVectors) return std::nullopt;
  std::map<std::string, int64_t> r;
  for (const auto& n : names) r[n] = 0;
  const i128 count = vectors(m);
  for (i128 i = 0; i < count; ++i) {
    if (budget.expired()) return std::nullopt;  // each vector: it evaluates every assumption
    i128 rest = i;
    for (const auto& n : names) {
      r[n] = static_cast<int64_t>(rest % m);
      rest /= m;
    }
    bool possible = true;
    for (const auto& rel : as.relations) possible = possible && may_hold(rel, r, m);
    if (!possible) continue;
    for (const auto& d : ds) {
      Residue n = residue(d.extent, r, m);
      if (n.kind == Residue::Kind::Unknown || mod_floor(n.v, *const_value(d.divisor)) != 0) return std::nullopt;
    }
  }
  return "residues";
}

// Issue 19 / spec/PROVE.md "divides": a divisor is a mesh extent (§5, §6), so it exists only as an
// integer >= 1. A divisor without symbols is checked here, before any strategy runs; a symbolic
// one is >= 1 as a well-formedness condition (positive_wellformed below), which every strategy
// and every replay respects, so no strategy ever sees a divisor below 1.
void require_positive_divisors(const std::vector<Division>& ds) {
  for (const auto& d : ds) {
    std::set<std::string> vars;
    collect_vars(d.divisor, vars);
    if (!vars.empty()) continue;
    Exact v = eval_exact(d.divisor, Bindings{});
    if (v.ok() && v.value >= 1) continue;
    const std::string text = tfspec::to_string(d.divisor);
    const std::string value = v.ok() ? i128_string(v.value) : "undefined";
    fail(rule::kProveDivisorNonpositive, "the divisor " + text + (value == text ? "" : " = " + value) +
                                             " is not a mesh extent (an integer >= 1)" + (d.label.empty() ? "" : " (" + d.label + ")"));
  }
}

}  // namespace

ProveResult prove_divisions(const std::vector<Division>& ds, const ProveOptions& o) {
  require_positive_divisors(ds);
  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  GoalSpec g;
  g.goal = "divides";
  g.clause = "§6";
  std::vector<z3::expr> ns, dvs;
  z3::expr any = ctx.bool_val(false);
  for (const auto& d : ds) {
    ns.push_back(enc.dim(d.extent));
    dvs.push_back(enc.dim(d.divisor));
    collect_vars(d.extent, g.symbols);
    collect_vars(d.divisor, g.symbols);
    for (const auto* x : {&d.extent, &d.divisor})
      if (!is_const(*x)) positive_wellformed(g, enc.dim(*x), *x);
    any = any || enc.floor_mod(ns.back(), dvs.back()) != 0;
  }
  g.negated.push_back(any);
  // Exact (128-bit) values: a remainder is decided even where int64 arithmetic would overflow.
  auto instance = [ds](const Bindings& b) -> std::optional<Counterexample> {
    auto json = [](i128 v) { return fits_int64(v) ? Json(static_cast<int64_t>(v)) : Json(i128_string(v)); };
    for (const auto& d : ds) {
      Exact n = eval_exact(d.extent, b), dv = eval_exact(d.divisor, b);
      if (!n.ok() || !dv.ok()) fail(rule::in(rule::kProveUndecided, "§6"), "the extent or divisor cannot be evaluated at " + to_string(b));
      const i128 vn = n.value, vd = dv.value;
      // Unreachable: a constant divisor is checked up front, a symbolic one is >= 1 wherever
      // the pipeline looks (well-formedness). Reaching it is a tfspec bug, never a verdict.
      if (vd < 1) fail(rule::kProveInternal, "divides: an instance with the divisor " + i128_string(vd) + " < 1 at " + to_string(b));
      if (mod_floor(vn, vd) == 0) continue;
      Counterexample cx;
      cx.json = Json{{"symbols", bindings_json(b)}, {"extent", json(vn)}, {"divisor", json(vd)}, {"remainder", json(mod_floor(vn, vd))}};
      if (!d.label.empty()) cx.json["split"] = d.label;
      cx.text = at(b) + i128_string(vd) + " does not divide " + i128_string(vn) + (d.label.empty() ? "" : " (" + d.label + ")");
      return cx;
    }
    return std::nullopt;
  };
  g.structural = [ns, dvs, ds, &o](const std::vector<z3::expr>&, Budget& budget, const LowerBounds&) -> std::optional<std::string> {
    bool syntactic = true;
    for (size_t i = 0; i < ns.size() && syntactic; ++i) syntactic = syntactic_multiple(ns[i], dvs[i]);
    if (syntactic) return "structural";
    return by_residues(ds, o.assume, budget);
  };
  g.replay = [instance](const z3::model&, const Bindings& b) { return instance(b); };
  g.concrete = instance;
  return run_goal(enc, g, o, budget);
}

ProveResult prove_divides(const ShapeDim& n, const ShapeDim& d, const ProveOptions& o) { return prove_divisions({{n, d, ""}}, o); }

std::vector<Division> split_divisions(const ShardLayout& sl) {
  std::vector<Division> out;
  const auto g = flat_leaves(sl.shape());
  const auto mesh = sl.mesh().extents();
  for (size_t a = 0; a < sl.attrs().size(); ++a) {
    const auto* s = std::get_if<Split>(&sl.attrs()[a]);
    if (!s) continue;
    if (s->axis < 0 || s->axis >= static_cast<int64_t>(g.size()))
      fail(rule::kSplitAxisRange, "Split(" + std::to_string(s->axis) + ") outside [0, " + std::to_string(g.size()) + ")");
    if (a >= mesh.size()) fail(rule::kShardAttrsRank, "more attrs than mesh axes");
    const IntTuple& n = g[static_cast<size_t>(s->axis)];
    if (n.is_none() || mesh[a].is_none()) fail(rule::kNeedsConcrete, "a launch-provided (None) extent cannot be proved divisible");
    out.push_back({n.as_dim(), mesh[a].as_dim(), "Split(" + std::to_string(s->axis) + ") on mesh axis " + std::to_string(a)});
  }
  return out;
}

std::vector<Division> sugar_divisions(const Sugar& sugar, const Mesh& mesh) {
  std::vector<Division> out;
  for (const auto& e : sugar.entries) {
    if (!e.mesh_axis) continue;
    if (e.extent.is_none()) fail(rule::kNeedsConcrete, "a launch-provided (None) extent cannot be proved divisible");
    const int a = *e.mesh_axis;
    out.push_back({e.extent.as_dim(), dim_const(mesh.extent(a)),
                   "`" + leaf_text(e.extent) + " @ mesh axis " + std::to_string(a) + "` (extent " + std::to_string(mesh.extent(a)) + ")"});
  }
  return out;
}

}  // namespace tfspec::solver
