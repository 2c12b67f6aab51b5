// §6 / §7.1.1: a mesh extent D divides a global extent N (Split binding, D8), and D5: the sugar
// `N @ m.a` canonicalizes for a symbolic N exactly when the axis extent divides N.
#include "engine.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/solver/shard_goal.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {

namespace {

// Structural: in normal form N is D, or a product with D as a factor, or c * ... with D | c.
bool syntactic_multiple(const z3::expr& n, const z3::expr& d) {
  z3::params som(n.ctx());
  som.set("som", true);
  z3::expr nn = n.simplify(som), dd = d.simplify(som);
  if (z3::eq(nn, dd)) return true;
  const bool product = nn.is_app() && nn.decl().decl_kind() == Z3_OP_MUL;
  if (product)
    for (unsigned i = 0; i < nn.num_args(); ++i)
      if (z3::eq(nn.arg(i), dd)) return true;
  int64_t vd = 0, vn = 0;
  if (dd.is_numeral_i64(vd) && vd != 0 && nn.is_numeral_i64(vn)) return vn % vd == 0;
  return dd.is_numeral_i64(vd) && vd != 0 && product && nn.arg(0).is_numeral_i64(vn) && vn % vd == 0;
}

}  // namespace

ProveResult prove_divisions(const std::vector<Division>& ds, const ProveOptions& o) {
  z3::context ctx;
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
      if (!is_const(*x)) {
        g.wellformed.push_back(enc.dim(*x) >= 1);
        g.wellformed_text.push_back(to_string(*x) + " >= 1");
      }
    any = any || enc.floor_mod(ns.back(), dvs.back()) != 0;
  }
  g.negated.push_back(any);
  auto instance = [ds](const Bindings& b) -> std::optional<Counterexample> {
    for (const auto& d : ds) {
      int64_t vn = evaluate(d.extent, b), vd = evaluate(d.divisor, b);
      if (vd >= 1 && floor_mod(vn, vd) == 0) continue;
      Counterexample cx;
      cx.json = Json{{"symbols", bindings_json(b)}, {"extent", vn}, {"divisor", vd}, {"remainder", vd == 0 ? vn : floor_mod(vn, vd)}};
      if (!d.label.empty()) cx.json["split"] = d.label;
      cx.text = at(b) + std::to_string(vd) + " does not divide " + std::to_string(vn) + (d.label.empty() ? "" : " (" + d.label + ")");
      return cx;
    }
    return std::nullopt;
  };
  g.structural = [ns, dvs](const std::vector<z3::expr>&) -> std::optional<std::string> {
    for (size_t i = 0; i < ns.size(); ++i)
      if (!syntactic_multiple(ns[i], dvs[i])) return std::nullopt;
    return "structural";
  };
  g.replay = [instance](const z3::model&, const Bindings& b) { return instance(b); };
  g.concrete = instance;
  return run_goal(enc, g, o);
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
      fail("split-axis-range", "§6", "Split(" + std::to_string(s->axis) + ") outside [0, " + std::to_string(g.size()) + ")");
    if (a >= mesh.size()) fail("shard-attrs-rank", "§7.2", "more attrs than mesh axes");
    const IntTuple& n = g[static_cast<size_t>(s->axis)];
    if (n.is_none() || mesh[a].is_none()) fail("needs-concrete", "§1", "a launch-provided (None) extent cannot be proved divisible");
    out.push_back({n.as_dim(), mesh[a].as_dim(), "Split(" + std::to_string(s->axis) + ") on mesh axis " + std::to_string(a)});
  }
  return out;
}

std::vector<Division> sugar_divisions(const Sugar& sugar, const Mesh& mesh) {
  std::vector<Division> out;
  for (const auto& e : sugar.entries) {
    if (!e.mesh_axis) continue;
    if (e.extent.is_none()) fail("needs-concrete", "§1", "a launch-provided (None) extent cannot be proved divisible");
    const int a = *e.mesh_axis;
    out.push_back({e.extent.as_dim(), dim_const(mesh.extent(a)),
                   "`" + leaf_text(e.extent) + " @ mesh axis " + std::to_string(a) + "` (extent " + std::to_string(mesh.extent(a)) + ")"});
  }
  return out;
}

}  // namespace tfspec::solver
