// Propagation to a fixpoint (spec/PROPAGATION.md "Propagation"): forward from annotated inputs
// first, then forward, sibling and backward together; conflicts are reported or, with
// --insert-reshards, resolved by an explicit reshard whose collectives and cost are reported.
#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

struct Env {
  Program& p;
  std::map<std::string, Sharding>& sh;
  std::map<std::string, std::vector<bool>> user;  // per value and mesh axis: a user annotation
  std::set<std::pair<std::string, int>> forced;    // (value, mesh axis) given its state by phase 3

  int axes() const { return p.mesh.rank(); }
  std::vector<std::vector<int64_t>> in_shapes(const OpNode& op) const {
    std::vector<std::vector<int64_t>> v;
    for (const auto& o : op.operands) v.push_back(p.shapes.at(o));
    return v;
  }
  Resolution resolve_at(const OpNode& op, int a, const std::vector<AxisState>& in, const AxisState& res) const {
    auto shapes = in_shapes(op);
    const auto& rs = p.shapes.at(op.result);
    std::vector<bool> u;
    for (const auto& o : op.operands) u.push_back(user.at(o)[a]);
    return resolve(op, op_rule(op, shapes, rs), shapes, rs, p.mesh.extent(a), in, res, u);
  }
  std::vector<AxisState> operand_states(const OpNode& op, int a) const {
    std::vector<AxisState> v;
    for (const auto& o : op.operands) v.push_back(sh.at(o)[a]);
    return v;
  }
  bool valid(const Sharding& s, const std::string& v) const {
    try {
      layout_of(s, p.shapes.at(v), p.mesh);
      return true;
    } catch (const SpecError&) {
      return false;
    }
  }
  // Whether value v stays a layout with state s on axis a (§7.1.1: one mesh axis per G dim, so
  // two axes never split one factor of v): refinement never takes a state that breaks this.
  bool valid_with(const std::string& v, int a, const AxisState& s) const {
    Sharding t = sh.at(v);
    t[a] = s;
    return valid(t, v);
  }

  // Forward: a Dynamic result axis whose operands are all known takes the op's result state, or
  // Broadcast when that split would overlap another axis's split of the result (the op's
  // conflict is then reported, or resolved by a reshard).
  bool forward(const OpNode& op) {
    bool changed = false;
    for (int a = 0; a < axes(); ++a) {
      if (sh[op.result][a].kind != AxisState::Dyn) continue;
      auto in = operand_states(op, a);
      if (std::any_of(in.begin(), in.end(), [](const AxisState& s) { return s.kind == AxisState::Dyn; })) continue;
      AxisState r = resolve_at(op, a, in, AxisState::dynamic()).result;
      sh[op.result][a] = valid_with(op.result, a, r) ? r : AxisState::broadcast();
      changed = true;
    }
    return changed;
  }

  // The candidate states of a Dynamic operand axis, in order: a split on any known tensor moved
  // onto this operand through the factor rule, then Broadcast, then Partial sum / max / min. A
  // split that would overlap another axis's split of the operand is left out.
  std::vector<AxisState> candidates(const OpNode& op, const OpRule& rule, const std::vector<std::vector<int64_t>>& shapes, int a,
                                    const std::vector<AxisState>& in, const AxisState& res, size_t operand) const {
    std::vector<AxisState> c;
    auto add = [&](const AxisState& s) {
      if (std::find(c.begin(), c.end(), s) == c.end()) c.push_back(s);
    };
    for (int t = -1; t < static_cast<int>(in.size()); ++t) {
      const AxisState& s = t < 0 ? res : in[t];
      if (s.kind != AxisState::Split) continue;
      const DimFactor& df = (t < 0 ? rule.result : rule.operands[t])[s.dim];
      if (rule.factors[df.factor].kind == FactorKind::NeedReplication) continue;
      const int64_t flo = checked_mul(s.lo, df.offset);
      const auto& odims = rule.operands[operand];
      for (size_t d = 0; d < odims.size(); ++d)
        if (odims[d].factor == df.factor && flo % odims[d].offset == 0) {
          const AxisState cand = AxisState::split(static_cast<int>(d), flo / odims[d].offset);
          if (shapes[operand][d] % checked_mul(cand.lo, p.mesh.extent(a)) == 0 && valid_with(op.operands[operand], a, cand)) add(cand);
        }
    }
    add(AxisState::broadcast());
    for (const char* r : {"sum", "max", "min"}) add(AxisState::partial(r));
    return c;
  }

  // Sibling and backward: Dynamic operand axes take the first candidate states under which the
  // op has no conflict and gives the known result. force (phase 3, after the fixpoint): when no
  // candidate is conflict-free, the first ones are taken, and the op's conflict stays, to be
  // reported or resolved by a reshard (never an input error, never an overlapping layout).
  bool infer_operands(const OpNode& op, bool force = false) {
    bool changed = false;
    const auto shapes = in_shapes(op);
    const auto& rs = p.shapes.at(op.result);
    const OpRule rule = op_rule(op, shapes, rs);
    for (int a = 0; a < axes(); ++a) {
      auto in = operand_states(op, a);
      const AxisState& res = sh[op.result][a];
      std::vector<size_t> dyn;
      for (size_t i = 0; i < in.size(); ++i)
        if (in[i].kind == AxisState::Dyn) dyn.push_back(i);
      if (dyn.empty() || (dyn.size() == in.size() && res.kind == AxisState::Dyn)) continue;
      if (op.kind == OpKind::Reshard) {  // any operand state is fine: the target's, if it fits
        if (res.kind != AxisState::Dyn) sh[op.operands[0]][a] = valid_with(op.operands[0], a, res) ? res : AxisState::broadcast(), changed = true;
        continue;
      }
      std::vector<std::vector<AxisState>> cands;
      for (size_t k : dyn) cands.push_back(candidates(op, rule, shapes, a, in, res, k));
      // The first assignment in candidate order (the lowest operand index varies slowest).
      std::vector<size_t> idx(dyn.size(), 0);
      auto assign = [&] {
        for (size_t k = 0; k < dyn.size(); ++k) sh[op.operands[dyn[k]]][a] = cands[k][idx[k]];
        changed = true;
      };
      bool found = false;
      for (size_t tries = 0; tries++ < 4096 && !found;) {
        auto trial = in;
        for (size_t k = 0; k < dyn.size(); ++k) trial[dyn[k]] = cands[k][idx[k]];
        if (!resolve_at(op, a, trial, res).conflict) {
          assign();
          found = true;
          break;
        }
        size_t k = dyn.size();
        while (k > 0 && ++idx[k - 1] == cands[k - 1].size()) idx[--k] = 0;
        if (k == 0) break;
      }
      if (!found && force) {
        std::fill(idx.begin(), idx.end(), 0);
        assign();
        for (size_t k : dyn) forced.insert({op.operands[k], a});
      }
    }
    return changed;
  }

  void fixpoint() {
    for (bool changed = true; changed;) {  // phase 1: forward only, from the annotations
      changed = false;
      for (const auto& op : p.ops) changed |= forward(op);
    }
    for (bool again = true; again;) {
      for (bool changed = true; changed;) {  // phase 2: forward, sibling and backward
        changed = false;
        for (const auto& op : p.ops) {
          changed |= forward(op);
          changed |= infer_operands(op);
        }
      }
      again = false;  // phase 3: a Dynamic axis no conflict-free state fits takes the first candidate
      for (const auto& op : p.ops) {
        again |= forward(op);
        again |= infer_operands(op, true);
      }
    }
  }

  std::string fresh(const std::string& base) const {
    std::string n = base;
    for (int k = 1; p.shapes.count(n); ++k) n = base + "~" + std::to_string(k);
    return n;
  }

  // The op's resolution on every axis when every state around it is known and some axis has a
  // conflict; nullopt otherwise.
  std::optional<std::vector<Resolution>> conflicted(const OpNode& op) const {
    std::vector<Resolution> per_axis;
    bool any = false;
    for (int a = 0; a < axes(); ++a) {
      auto in = operand_states(op, a);
      const AxisState& r = sh.at(op.result)[a];
      if (r.kind == AxisState::Dyn || std::any_of(in.begin(), in.end(), [](const AxisState& s) { return s.kind == AxisState::Dyn; })) return std::nullopt;
      per_axis.push_back(resolve_at(op, a, in, r));
      any |= per_axis.back().conflict.has_value();
    }
    if (!any) return std::nullopt;
    return per_axis;
  }

  Sharding operand_target(const std::vector<Resolution>& per_axis, size_t i) const {
    Sharding t;
    for (const auto& r : per_axis) t.push_back(r.operands[i]);
    return t;
  }
  Sharding result_target(const std::vector<Resolution>& per_axis) const {
    Sharding t;
    for (const auto& r : per_axis) t.push_back(r.result);
    return t;
  }
  bool layouts(const OpNode& op, const std::vector<Resolution>& per_axis) const {
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (!valid(operand_target(per_axis, i), op.operands[i])) return false;
    return valid(result_target(per_axis), op.result);
  }

  // The states the op needs, as layouts. Each axis's own lead (resolve) can ask one tensor to
  // split one factor by two axes (no layout, §7.1.1); then one operand leads on every axis (the
  // other operands' splits set aside), in operand order, and last none: with no split left only
  // Broadcast and Partial remain, which is always a layout.
  std::vector<Resolution> needs(const OpNode& op, std::vector<Resolution> per_axis) const {
    if (layouts(op, per_axis)) return per_axis;
    for (size_t lead = 0; lead <= op.operands.size(); ++lead) {
      per_axis.clear();
      for (int a = 0; a < axes(); ++a) {
        auto in = operand_states(op, a);
        for (size_t i = 0; i < in.size(); ++i)
          if (i != lead && in[i].kind == AxisState::Split) in[i] = AxisState::broadcast();
        per_axis.push_back(resolve_at(op, a, in, AxisState::dynamic()));
      }
      if (layouts(op, per_axis)) return per_axis;
    }
    fail(rule::kInternal, to_string(op.kind) + ": no resolution of its conflict is a layout");
  }
};

std::string axis_label(const Mesh& mesh, int a) { return mesh.names() ? (*mesh.names())[a] : "axes[" + std::to_string(a) + "]"; }

}  // namespace

ReshardCost reshard_cost(const Sharding& from, const Sharding& to, const std::vector<int64_t>& shape, const Mesh& mesh) {
  ReshardCost c;
  Sharding cur = from;
  const int64_t instances = mesh.size(), total = num_elements(shape);
  for (size_t a = 0; a < from.size(); ++a) {
    if (from[a] == to[a] || to[a].kind == AxisState::Dyn || from[a].kind == AxisState::Dyn) continue;
    const int64_t n = mesh.extent(static_cast<int>(a));
    int64_t local = total;
    for (size_t b = 0; b < cur.size(); ++b)
      if (cur[b].kind == AxisState::Split) local /= mesh.extent(static_cast<int>(b));
    const int64_t ring = checked_mul(checked_mul(instances, n - 1), local);  // each instance sends (n-1) * local
    std::string name;
    int64_t moved = 0;
    const auto f = from[a].kind, t = to[a].kind;
    if (f == AxisState::Split && t == AxisState::Split) name = "all-to-all", moved = ring / n;
    else if (f == AxisState::Split) name = "all-gather", moved = ring;
    else if (f == AxisState::Part && t == AxisState::Split) name = "reduce-scatter", moved = ring / n;
    else if (f == AxisState::Part) name = "all-reduce", moved = checked_mul(2, ring / n);
    else if (t == AxisState::Split) name = "local-slice";
    else name = "local-partial";
    c.collective += (c.collective.empty() ? "" : " + ") + name + "(" + axis_label(mesh, static_cast<int>(a)) + ")";
    c.elements = checked_add(c.elements, moved);
    cur[a] = to[a];
  }
  if (c.collective.empty()) c.collective = "none";
  return c;
}

namespace {

// A sharding's sugar text, or its per-axis states when it is not a layout (a report never throws).
std::string text_of(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh) {
  try {
    return sugar_text(s, shape, mesh);
  } catch (const SpecError&) {
    std::string t;
    for (const auto& a : s) t += (t.empty() ? "" : ",") + to_string(a);
    return "(" + t + ")";
  }
}

// A reshard of `from` (state `have`) to `target`, named `to`, inserted before op `before`, and
// its report (the value as the program names it, the collectives and the elements moved).
OpNode make_reshard(Env& env, Propagation& out, const std::string& value, const std::string& from, const std::string& to, const Sharding& have,
                    const Sharding& target, int64_t before) {
  Program& p = env.p;
  const auto& shape = p.shapes.at(from);
  OpNode rs;
  rs.kind = OpKind::Reshard;
  rs.operands = {from};
  rs.result = to;
  rs.target = layout_of(target, shape, p.mesh);
  rs.inserted = true;
  rs.origin = before;
  const ReshardCost cost = reshard_cost(have, target, shape, p.mesh);
  out.reshards.push_back({static_cast<size_t>(before), value, text_of(have, shape, p.mesh), text_of(target, shape, p.mesh),
                          cost.collective, cost.elements});
  return rs;
}

// P7, one pass in program order (near linear: every conflicted op is handled in the same pass;
// handling one op changes no state another op sees): an op with a conflict gets reshards of its
// operands to the states it needs, or, when its operands already have them, its result is
// computed under a fresh name and resharded to the state its uses gave it. Returns whether
// anything was inserted (the next pass then checks the ops again).
bool insert_pass(Env& env, Propagation& out) {
  Program& p = env.p;
  const int axes = p.mesh.rank();
  std::vector<OpNode> next;
  next.reserve(p.ops.size());
  bool inserted = false;
  for (OpNode& op : p.ops) {
    auto conflict = env.conflicted(op);
    if (!conflict) {
      next.push_back(std::move(op));
      continue;
    }
    inserted = true;
    const std::vector<Resolution> per_axis = env.needs(op, *conflict);
    bool operand_side = false;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const std::string v = op.operands[i];
      const Sharding target = env.operand_target(per_axis, i);
      if (target == out.shardings.at(v)) continue;
      operand_side = true;
      const std::string name = env.fresh(v + "@" + std::to_string(op.origin));
      p.shapes[name] = p.shapes.at(v);
      next.push_back(make_reshard(env, out, v, v, name, out.shardings.at(v), target, op.origin));
      out.shardings[name] = target;
      env.user[name] = std::vector<bool>(axes, true);
      op.operands[i] = name;
    }
    if (operand_side) {
      next.push_back(std::move(op));
      continue;
    }
    const Sharding computed = env.result_target(per_axis);
    const std::string v = op.result, tmp = env.fresh(v + "@" + std::to_string(op.origin));
    p.shapes[tmp] = p.shapes.at(v);
    out.shardings[tmp] = computed;
    env.user[tmp] = std::vector<bool>(axes, true);
    const int64_t after = op.origin + 1;
    op.result = tmp;
    next.push_back(std::move(op));
    next.push_back(make_reshard(env, out, v, tmp, v, computed, out.shardings.at(v), after));
  }
  p.ops = std::move(next);
  return inserted;
}

// Without --insert-reshards: every conflicted op's conflicts, one per (value, rule).
void report_conflicts(const Env& env, Propagation& out) {
  for (const OpNode& op : env.p.ops) {
    auto per_axis = env.conflicted(op);
    if (!per_axis) continue;
    std::set<std::pair<std::string, std::string>> seen;
    for (int a = 0; a < env.axes(); ++a) {
      const Resolution& res = (*per_axis)[a];
      if (!res.conflict) continue;
      const std::string value = res.conflict->operand < 0 ? op.result : op.operands[res.conflict->operand];
      if (!seen.insert({value, std::string(res.conflict->rule->id)}).second) continue;
      std::string why = res.conflict->message;
      if (env.forced.count({value, a}))
        why += " (mesh axis " + axis_label(env.p.mesh, a) + " of " + value + " was Dynamic and no state of it is free of conflict here; a split would bind a factor of " +
               value + " to two axes or disagree with another tensor)";
      out.conflicts.push_back({static_cast<size_t>(op.origin), value, Diagnostic(*res.conflict->rule, why, "ops[" + std::to_string(op.origin) + "]")});
    }
  }
}

// The final check: no Dynamic left (§6), every sharding a valid ShardLayout (§7.1.1); one
// report per (op, value, rule).
void final_check(const Program& p, Propagation& out) {
  const int axes = p.mesh.rank();
  std::map<std::string, std::optional<size_t>> producer;
  for (const auto& in : p.inputs) producer[in.name] = std::nullopt;
  for (const auto& op : p.ops) producer[op.result] = static_cast<size_t>(op.origin);
  for (const auto& [name, s] : out.shardings) {
    std::string dyn;
    for (int a = 0; a < axes; ++a)
      if (s[a].kind == AxisState::Dyn) dyn += (dyn.empty() ? "" : ", ") + axis_label(p.mesh, a);
    const std::string where = producer[name] ? "ops[" + std::to_string(*producer[name]) + "]" : "inputs." + name;
    if (!dyn.empty())
      out.conflicts.push_back({producer[name], name, Diagnostic(rule::kDynamicUnresolved, name + ": mesh axis " + dyn + " is still Dynamic (nothing determines it)", where)});
    try {
      layout_of(s, p.shapes.at(name), p.mesh);
    } catch (const SpecError& e) {
      out.conflicts.push_back({producer[name], name, e.diagnostic()});
    }
  }
  std::set<std::tuple<std::optional<size_t>, std::string, std::string>> seen;
  std::vector<ConflictReport> unique;
  for (auto& c : out.conflicts)
    if (seen.insert({c.op, c.value, c.diagnostic.rule}).second) unique.push_back(std::move(c));
  out.conflicts = std::move(unique);
}

}  // namespace

Propagation propagate(const Program& prog, bool insert_reshards) {
  Propagation out{prog, {}, {}, {}};
  Program& p = out.program;
  Env env{p, out.shardings, {}, {}};
  const int axes = p.mesh.rank();
  for (const auto& in : p.inputs) {
    out.shardings[in.name] = in.layout ? sharding_of(*in.layout, in.shape) : Sharding(axes);
    env.user[in.name] = std::vector<bool>(axes, in.layout.has_value());
  }
  for (const auto& op : p.ops) {
    Sharding s(axes);
    std::vector<bool> u(axes, false);
    if (op.kind == OpKind::Reshard) {
      s = sharding_of(*op.target, p.shapes.at(op.result));
      for (int a = 0; a < axes; ++a) u[a] = s[a].kind != AxisState::Dyn;
    }
    out.shardings[op.result] = s;
    env.user[op.result] = u;
  }
  // An op is resharded on its operand side in one pass and, if its result still differs, on its
  // result side in the next: a handful of passes; the bound only guards against a bug.
  const size_t limit = 4 * p.ops.size() + 16;
  for (size_t round = 0;; ++round) {
    if (round > limit) fail(rule::kInternal, "reshard insertion did not settle");
    env.fixpoint();
    if (!insert_reshards) {
      report_conflicts(env, out);
      break;
    }
    if (!insert_pass(env, out)) break;
  }
  final_check(p, out);
  return out;
}

}  // namespace tfspec::propagation
