// §7 shard layouts with symbolic extents: every invariant of the shard model for all values.
// The rules that do not depend on symbol values are decided by the reference's check on the
// symbolic object; the value-dependent ones (split-divides, split-extent-canonical,
// split-stride-nonneg, shard-injective, partial-aliased) are encoded for Z3 and every concrete
// instance is decided by check_shard_layout (reference/src/shard/shard_rules.cpp).
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

// The symbolic extents of the layout's dims, each positive where the objects exist, and which
// mesh axis splits each dim (valid once the value-independent rules hold).
struct ShardEncoding {
  std::vector<IntTuple> leaves;
  std::vector<z3::expr> extent;
  std::vector<std::optional<int>> axis_of;
  std::vector<int64_t> mesh_extent;
};

ShardEncoding encode_extents(Encoder& enc, GoalSpec& g, const ShardLayout& sl, const Layout& l) {
  ShardEncoding s;
  const Mesh& mesh = sl.mesh();
  for (int a = 0; a < mesh.rank(); ++a) s.mesh_extent.push_back(mesh.extent(a));  // §5: static, fails closed otherwise
  s.leaves = flat_leaves(l.shape_ref());
  for (size_t k = 0; k < s.leaves.size(); ++k) {
    s.extent.push_back(enc.leaf(s.leaves[k], "layout.shape[" + std::to_string(k) + "]"));
    if (s.leaves[k].is_sym()) {
      collect_vars(s.leaves[k].dim(), g.symbols);
      positive_wellformed(g, s.extent[k], s.leaves[k].dim());
    }
  }
  s.axis_of.resize(s.leaves.size());
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (auto* sp = std::get_if<Split>(&sl.attrs()[a])) s.axis_of[static_cast<size_t>(sp->axis)] = static_cast<int>(a);
  return s;
}

// One (mesh instance, local coordinate) pair of §7's D3, as Z3 terms named by `tag`.
struct EnginePoint {
  std::vector<z3::expr> mesh, global;
  z3::expr engine, offset;
};

EnginePoint engine_point(z3::context& ctx, const ShardEncoding& s, const FlatModes& f, const ShardLayout& sl,
                         std::optional<Storage> storage, const std::string& tag, std::vector<z3::expr>& in_range) {
  const auto& ext = s.mesh_extent;
  std::vector<z3::expr> m;
  z3::expr idx = ctx.int_val(0);
  for (size_t a = 0; a < ext.size(); ++a) {
    m.push_back(ctx.int_const(("mesh!" + tag + "!" + std::to_string(a)).c_str()));
    in_range.push_back(m[a] >= 0 && m[a] < ctx.int_val(ext[a]));
    idx = idx * ctx.int_val(ext[a]) + m[a];
  }
  const auto instances = row_major_coords(ext);
  z3::expr engine = ctx.int_val(0);
  for (size_t i = instances.size(); i-- > 0;)
    engine = z3::ite(idx == ctx.int_val(static_cast<int64_t>(i)),
                     ctx.int_val(engine_of(sl.mesh(), instances[i], storage.value_or(Storage::Rmem))), engine);
  std::vector<z3::expr> gc;
  z3::expr off = ctx.int_val(0);
  for (size_t k = 0; k < s.leaves.size(); ++k) {
    z3::expr c = ctx.int_const(("local!" + tag + "!" + std::to_string(k)).c_str());
    if (s.axis_of[k]) {
      z3::expr loc = s.extent[k] / ctx.int_val(ext[static_cast<size_t>(*s.axis_of[k])]);
      in_range.push_back(c >= 0 && c < loc);
      gc.push_back(m[static_cast<size_t>(*s.axis_of[k])] * loc + c);
    } else {
      in_range.push_back(c >= 0 && c < s.extent[k]);
      gc.push_back(c);
    }
    off = off + gc.back() * f.stride[k];
  }
  return EnginePoint{m, gc, engine, off};
}

// The negated goal: some value-dependent rule fails (split-divides §6, split-extent-canonical
// §7.1.1, split-stride-nonneg §7.1.2, or D3's aliasing on one engine).
z3::expr violation(z3::context& ctx, Encoder& enc, const ShardEncoding& s, const ShardLayout& sl, const Layout& l,
                   std::optional<Storage> storage) {
  z3::expr bad = ctx.bool_val(false), divisible = ctx.bool_val(true);
  for (size_t k = 0; k < s.leaves.size(); ++k) {
    if (!s.axis_of[k]) continue;
    z3::expr e = ctx.int_val(s.mesh_extent[static_cast<size_t>(*s.axis_of[k])]);
    bad = bad || s.extent[k] != e;
    divisible = divisible && z3::mod(s.extent[k], e) == 0;
  }
  if (!l.materialized()) return bad;
  FlatModes f = flat_modes(enc, l, "layout");
  for (size_t k = 0; k < s.leaves.size(); ++k)
    if (s.axis_of[k]) bad = bad || f.stride[k] < 0;
  std::vector<z3::expr> in_range;
  EnginePoint p = engine_point(ctx, s, f, sl, storage, "a", in_range);
  EnginePoint q = engine_point(ctx, s, f, sl, storage, "b", in_range);
  z3::expr distinct_coord = ctx.bool_val(false), partial_differs = ctx.bool_val(false);
  for (size_t k = 0; k < p.global.size(); ++k) distinct_coord = distinct_coord || p.global[k] != q.global[k];
  for (size_t a = 0; a < s.mesh_extent.size(); ++a)
    if (std::holds_alternative<Partial>(sl.attrs()[a])) partial_differs = partial_differs || p.mesh[a] != q.mesh[a];
  z3::expr alias = divisible && p.engine == q.engine && p.offset == q.offset && (distinct_coord || partial_differs);
  for (const auto& c : in_range) alias = alias && c;
  return bad || alias;
}

}  // namespace

ProveResult prove_shard(const ShardLayout& sl, std::optional<Storage> storage, const ProveOptions& o) {
  if (sl.layout()->kind() != LayoutKind::Layout)
    fail(rule::kProveShardLayoutKind, "the shard prover takes a plain Layout under the ShardLayout (a ComposedLayout is checked by `tfspec shard check`)");
  const Layout& l = static_cast<const Layout&>(*sl.layout());
  for (int a = 0; a < sl.mesh().rank(); ++a) (void)sl.mesh().extent(a);  // §5: static, fails closed otherwise
  if (sl.mesh().size() > kMaxMeshInstances)
    fail(rule::kProveShardMeshSize, "a mesh of " + std::to_string(sl.mesh().size()) + " instances is beyond the prover's engine table");
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
  const ShardEncoding s = encode_extents(enc, g, sl, l);
  g.negated.push_back(violation(ctx, enc, s, sl, l, storage));

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
