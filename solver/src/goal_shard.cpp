// §7 shard layouts with symbolic extents: every invariant of the shard model for all values.
// The rules that do not depend on symbol values are decided by the reference's check on the
// symbolic object; the value-dependent ones (split-divides, split-extent-canonical,
// split-stride-nonneg, shard-injective, partial-aliased) are encoded for Z3 and every concrete
// instance is decided by check_shard_layout (reference/src/shard_rules.cpp).
#include <set>

#include "engine.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/shard_goal.hpp"

namespace tfspec::solver {
namespace {

constexpr int64_t kMaxMeshInstances = 4096;

// Rules whose verdict does not depend on the symbols' values: one violation refutes for all.
bool value_independent(const std::string& id) {
  for (const RuleId* r : {&rule::kShardAttrsRank, &rule::kSplitAxisRange, &rule::kSplitAxisUnique, &rule::kPartialReduction,
                          &rule::kStrideEmptyNotNone})
    if (id == r->id) return true;
  return false;
}


ShardLayout substitute(const ShardLayout& sl, const Layout& l, const Bindings& b) {
  LayoutPtr concrete = l.materialized() ? std::make_shared<Layout>(solver::substitute(l, b))
                                        : std::make_shared<Layout>(Layout::unmaterialized(solver::substitute(l.shape_ref(), b)));
  return ShardLayout::unchecked(concrete, sl.attrs(), sl.mesh());
}

ProveResult refuted_for_all(const Diagnostic& d) {
  ProveResult r;
  r.goal = "shard";
  r.clause = "§7";
  r.verdict = Verdict::Refuted;
  r.method = "reference";
  r.counterexample = Json{{"symbols", Json::object()}, {"violation", to_json(d)}};
  r.counterexample_text = "for every value: [" + d.rule + " " + d.clause + "] " + d.message;
  r.attempts.push_back("reference: a value-independent rule fails");
  return r;
}

}  // namespace

ProveResult prove_shard(const ShardLayout& sl, std::optional<Storage> storage, const ProveOptions& o) {
  if (sl.layout()->kind() != LayoutKind::Layout)
    fail(rule::kProveShardLayoutKind, "the shard prover takes a plain Layout under the ShardLayout (a ComposedLayout is checked by `tfspec shard check`)");
  const Layout& l = static_cast<const Layout&>(*sl.layout());
  const Mesh& mesh = sl.mesh();
  std::vector<int64_t> ext;
  for (int a = 0; a < mesh.rank(); ++a) ext.push_back(mesh.extent(a));  // §5: static, fails closed otherwise
  if (mesh.size() > kMaxMeshInstances)
    fail(rule::kProveShardMeshSize, "a mesh of " + std::to_string(mesh.size()) + " instances is beyond the prover's engine table");
  ShardCheckOptions copts;
  copts.storage = storage;
  try {
    for (const auto& d : check_shard_layout(sl, copts).violations)
      if (value_independent(d.rule)) return refuted_for_all(d);
  } catch (const SpecError&) {
    // A value-dependent rule needs concrete values (e.g. a symbolic stride): the instances below
    // report every rule, value-independent ones included.
  }

  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  GoalSpec g;
  g.goal = "shard";
  g.clause = "§7";
  g.symbols = l.materialized() ? layout_symbols(l) : std::set<std::string>{};
  const auto gl = flat_leaves(l.shape_ref());
  std::vector<z3::expr> gz;
  for (size_t k = 0; k < gl.size(); ++k) {
    gz.push_back(enc.leaf(gl[k], "layout.shape[" + std::to_string(k) + "]"));
    if (gl[k].is_sym()) {
      collect_vars(gl[k].dim(), g.symbols);
      positive_wellformed(g, gz[k], gl[k].dim());
    }
  }
  std::vector<std::optional<int>> bind(gl.size());  // layout dim -> mesh axis (valid after the rules above)
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (auto* s = std::get_if<Split>(&sl.attrs()[a])) bind[static_cast<size_t>(s->axis)] = static_cast<int>(a);

  z3::expr bad = ctx.bool_val(false), divisible = ctx.bool_val(true);
  for (size_t k = 0; k < gl.size(); ++k) {
    if (!bind[k]) continue;
    z3::expr e = ctx.int_val(ext[static_cast<size_t>(*bind[k])]);
    bad = bad || gz[k] != e;  // split-divides (§6) or split-extent-canonical (§7.1.1)
    divisible = divisible && z3::mod(gz[k], e) == 0;
  }
  if (l.materialized()) {
    FlatModes f = flat_modes(enc, l, "layout");
    for (size_t k = 0; k < gl.size(); ++k)
      if (bind[k]) bad = bad || f.stride[k] < 0;  // split-stride-nonneg (§7.1.2)
    // D3: two (mesh instance, local coordinate) pairs on one engine at one offset.
    const auto instances = row_major_coords(ext);
    auto mesh_point = [&](const std::string& tag, std::vector<z3::expr>& in_range) {
      std::vector<z3::expr> m;
      z3::expr idx = ctx.int_val(0);
      for (size_t a = 0; a < ext.size(); ++a) {
        m.push_back(ctx.int_const(("mesh!" + tag + "!" + std::to_string(a)).c_str()));
        in_range.push_back(m[a] >= 0 && m[a] < ctx.int_val(ext[a]));
        idx = idx * ctx.int_val(ext[a]) + m[a];
      }
      z3::expr engine = ctx.int_val(0);
      for (size_t i = instances.size(); i-- > 0;)
        engine = z3::ite(idx == ctx.int_val(static_cast<int64_t>(i)), ctx.int_val(engine_of(mesh, instances[i], storage.value_or(Storage::Rmem))), engine);
      return std::pair{m, engine};
    };
    auto element = [&](const std::string& tag, const std::vector<z3::expr>& m, std::vector<z3::expr>& in_range) {
      std::vector<z3::expr> gc;
      z3::expr off = ctx.int_val(0);
      for (size_t k = 0; k < gl.size(); ++k) {
        z3::expr c = ctx.int_const(("local!" + tag + "!" + std::to_string(k)).c_str());
        if (bind[k]) {
          z3::expr loc = gz[k] / ctx.int_val(ext[static_cast<size_t>(*bind[k])]);
          in_range.push_back(c >= 0 && c < loc);
          gc.push_back(m[static_cast<size_t>(*bind[k])] * loc + c);
        } else {
          in_range.push_back(c >= 0 && c < gz[k]);
          gc.push_back(c);
        }
        off = off + gc.back() * f.stride[k];
      }
      return std::pair{gc, off};
    };
    std::vector<z3::expr> in_range;
    auto [m1, e1] = mesh_point("a", in_range);
    auto [m2, e2] = mesh_point("b", in_range);
    auto [g1, o1] = element("a", m1, in_range);
    auto [g2, o2] = element("b", m2, in_range);
    z3::expr distinct_coord = ctx.bool_val(false), partial_differs = ctx.bool_val(false);
    for (size_t k = 0; k < g1.size(); ++k) distinct_coord = distinct_coord || g1[k] != g2[k];
    for (size_t a = 0; a < ext.size(); ++a)
      if (std::holds_alternative<Partial>(sl.attrs()[a])) partial_differs = partial_differs || m1[a] != m2[a];
    z3::expr alias = divisible && e1 == e2 && o1 == o2 && (distinct_coord || partial_differs);
    for (const auto& c : in_range) alias = alias && c;
    bad = bad || alias;
  }
  g.negated.push_back(bad);

  auto instance = [&sl, &l, copts](const Bindings& b) -> std::optional<Counterexample> {
    ShardLayout c = substitute(sl, l, b);
    CheckReport report = check_shard_layout(c, copts);
    if (!report.undecided.empty()) throw SpecError(report.undecided.front());  // the instance is undecided, not a counterexample
    for (const auto& d : report.violations) {
      Counterexample cx;
      cx.json = Json{{"symbols", bindings_json(b)}, {"shard_layout", to_string(c)}, {"violation", to_json(d)}};
      cx.text = at(b) + to_string(c) + " violates [" + d.rule + " " + d.clause + "] " + d.message;
      return cx;
    }
    return std::nullopt;
  };
  g.replay = [instance](const z3::model&, const Bindings& b) { return instance(b); };
  g.concrete = instance;
  ProveResult r = run_goal(enc, g, o, budget);
  if (!l.materialized() && r.verdict == Verdict::Proved)
    r.attempts.push_back("strides are un-materialized (S None, §7.1.2): injectivity is decided once they are materialized");
  return r;
}

}  // namespace tfspec::solver
