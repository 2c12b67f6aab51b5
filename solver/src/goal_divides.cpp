// §6 / §7.1.1: a mesh extent D divides a global extent N (Split binding), and D5: the sugar
// `N @ m.a` canonicalizes for a symbolic N exactly when the axis extent divides N.
#include "engine.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {

ProveResult prove_divides(const ShapeDim& n, const ShapeDim& d, const ProveOptions& o) {
  z3::context ctx;
  Encoder enc(ctx);
  z3::expr zn = enc.dim(n), zd = enc.dim(d);
  GoalSpec g;
  g.goal = "divides";
  g.clause = "§6";
  collect_vars(n, g.symbols);
  collect_vars(d, g.symbols);
  if (!is_const(d)) {
    g.wellformed.push_back(zd >= 1);
    g.wellformed_text.push_back(to_string(d) + " >= 1");
  }
  if (!is_const(n)) {
    g.wellformed.push_back(zn >= 1);
    g.wellformed_text.push_back(to_string(n) + " >= 1");
  }
  g.negated.push_back(enc.floor_mod(zn, zd) != 0);
  auto instance = [n, d](const Bindings& b) -> std::optional<Counterexample> {
    int64_t vn = evaluate(n, b), vd = evaluate(d, b);
    if (vd >= 1 && floor_mod(vn, vd) == 0) return std::nullopt;
    Counterexample cx;
    cx.json = Json{{"symbols", bindings_json(b)}, {"extent", vn}, {"divisor", vd}, {"remainder", vd == 0 ? vn : floor_mod(vn, vd)}};
    cx.text = at(b) + std::to_string(vd) + " does not divide " + std::to_string(vn);
    return cx;
  };
  // Structural: in normal form N is D, or a product with D as a factor, or c * ... with D | c.
  g.structural = [zn, zd](const std::vector<z3::expr>&) -> std::optional<std::string> {
    z3::expr nn = zn.simplify(), dd = zd.simplify();
    if (z3::eq(nn, dd)) return "structural";
    if (nn.is_app() && nn.decl().decl_kind() == Z3_OP_MUL)
      for (unsigned i = 0; i < nn.num_args(); ++i)
        if (z3::eq(nn.arg(i), dd)) return "structural";
    int64_t vd = 0, vn = 0;
    if (dd.is_numeral_i64(vd) && vd != 0 && nn.is_app() && nn.decl().decl_kind() == Z3_OP_MUL && nn.arg(0).is_numeral_i64(vn) && vn % vd == 0)
      return "structural";
    return std::nullopt;
  };
  g.replay = [instance](const z3::model&, const Bindings& b) { return instance(b); };
  g.concrete = instance;
  return run_goal(enc, g, o);
}

}  // namespace tfspec::solver
