// Propagation to a fixpoint (spec/PROPAGATION.md "Propagation"): forward from annotated inputs
// first, then forward, sibling and backward together; conflicts are reported or, with
// --insert-reshards, resolved by an explicit reshard whose collectives and cost are reported.
#include <algorithm>
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

  // Forward: a Dynamic result axis whose operands are all known takes the op's result state.
  bool forward(const OpNode& op) {
    bool changed = false;
    for (int a = 0; a < axes(); ++a) {
      AxisState& r = sh[op.result][a];
      if (r.kind != AxisState::Dyn) continue;
      auto in = operand_states(op, a);
      if (std::any_of(in.begin(), in.end(), [](const AxisState& s) { return s.kind == AxisState::Dyn; })) continue;
      r = resolve_at(op, a, in, r).result;
      changed = true;
    }
    return changed;
  }

  // Sibling and backward: Dynamic operand axes take the first candidate states (splits carried
  // over from the known tensors, then Broadcast, then Partial sum / max / min) under which the
  // op has no conflict and gives the known result.
  bool infer_operands(const OpNode& op) {
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
      if (op.kind == OpKind::Reshard) {
        if (res.kind != AxisState::Dyn) sh[op.operands[0]][a] = res, changed = true;
        continue;
      }
      std::vector<std::vector<AxisState>> cands(dyn.size());
      for (size_t k = 0; k < dyn.size(); ++k) {
        auto& c = cands[k];
        auto add = [&](const AxisState& s) {
          if (std::find(c.begin(), c.end(), s) == c.end()) c.push_back(s);
        };
        // A split on any known tensor, moved onto this operand through the factor rule.
        for (int t = -1; t < static_cast<int>(in.size()); ++t) {
          const AxisState& s = t < 0 ? res : in[t];
          if (s.kind != AxisState::Split) continue;
          const auto& tdims = t < 0 ? rule.result : rule.operands[t];
          const DimFactor& df = tdims[s.dim];
          if (rule.factors[df.factor].kind == FactorKind::NeedReplication) continue;
          const int64_t flo = checked_mul(s.lo, df.offset);
          const auto& odims = rule.operands[dyn[k]];
          for (size_t d = 0; d < odims.size(); ++d)
            if (odims[d].factor == df.factor && flo % odims[d].offset == 0) {
              int64_t lo = flo / odims[d].offset;
              if (shapes[dyn[k]][d] % checked_mul(lo, p.mesh.extent(a)) == 0) add(AxisState::split(static_cast<int>(d), lo));
            }
        }
        add(AxisState::broadcast());
        for (const char* r : {"sum", "max", "min"}) add(AxisState::partial(r));
      }
      // The first assignment in candidate order (the lowest operand index varies slowest).
      std::vector<size_t> idx(dyn.size(), 0);
      size_t tries = 0;
      while (tries++ < 4096) {
        auto trial = in;
        for (size_t k = 0; k < dyn.size(); ++k) trial[dyn[k]] = cands[k][idx[k]];
        if (!resolve_at(op, a, trial, res).conflict) {
          for (size_t k = 0; k < dyn.size(); ++k) sh[op.operands[dyn[k]]][a] = trial[dyn[k]];
          changed = true;
          break;
        }
        size_t k = dyn.size();
        while (k > 0 && ++idx[k - 1] == cands[k - 1].size()) idx[--k] = 0;
        if (k == 0) break;
      }
    }
    return changed;
  }

  void fixpoint() {
    for (bool changed = true; changed;) {  // phase 1: forward only, from the annotations
      changed = false;
      for (const auto& op : p.ops) changed |= forward(op);
    }
    for (bool changed = true; changed;) {  // phase 2: forward, sibling and backward
      changed = false;
      for (const auto& op : p.ops) {
        changed |= forward(op);
        changed |= infer_operands(op);
      }
    }
  }

  std::string fresh(const std::string& base) const {
    std::string n = base;
    for (int k = 1; p.shapes.count(n); ++k) n = base + "~" + std::to_string(k);
    return n;
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

Propagation propagate(const Program& prog, bool insert_reshards) {
  Propagation out{prog, {}, {}, {}};
  Program& p = out.program;
  Env env{p, out.shardings, {}};
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

  const size_t limit = 4 * p.ops.size() + 16;
  for (size_t round = 0;; ++round) {
    if (round > limit) fail(rule::kInternal, "reshard insertion did not settle");
    env.fixpoint();
    // The first op with a conflict on some axis.
    bool inserted = false;
    for (size_t j = 0; j < p.ops.size() && !inserted; ++j) {
      OpNode op = p.ops[j];
      std::vector<Resolution> per_axis;
      bool any = false, known = true;
      for (int a = 0; a < axes; ++a) {
        auto in = env.operand_states(op, a);
        const AxisState& r = out.shardings[op.result][a];
        if (r.kind == AxisState::Dyn || std::any_of(in.begin(), in.end(), [](const AxisState& s) { return s.kind == AxisState::Dyn; })) {
          known = false;
          break;
        }
        per_axis.push_back(env.resolve_at(op, a, in, r));
        any |= per_axis.back().conflict.has_value();
      }
      if (!known || !any) continue;
      if (!insert_reshards) {
        std::set<std::pair<std::string, std::string>> seen;
        for (const auto& res : per_axis) {
          if (!res.conflict) continue;
          const std::string value = res.conflict->operand < 0 ? op.result : op.operands[res.conflict->operand];
          if (!seen.insert({value, std::string(res.conflict->rule->id)}).second) continue;
          out.conflicts.push_back({static_cast<size_t>(op.origin), value,
                                   Diagnostic(*res.conflict->rule, res.conflict->message, "ops[" + std::to_string(op.origin) + "]")});
        }
        continue;
      }
      // Insert: operands to the states the op needs on every axis; else the result side. When
      // the needed states do not form one layout (two axes on one factor), report instead.
      try {
        for (size_t i = 0; i < op.operands.size(); ++i) {
          Sharding target;
          for (int a = 0; a < axes; ++a) target.push_back(per_axis[a].operands[i]);
          layout_of(target, p.shapes.at(op.operands[i]), p.mesh);
        }
      } catch (const SpecError& e) {
        out.conflicts.push_back({static_cast<size_t>(op.origin), op.result, e.diagnostic()});
        continue;
      }
      std::vector<OpNode> before;
      bool operand_side = false;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Sharding target;
        for (int a = 0; a < axes; ++a) target.push_back(per_axis[a].operands[i]);
        const std::string v = op.operands[i];
        if (target == out.shardings[v]) continue;
        operand_side = true;
        OpNode rs;
        rs.kind = OpKind::Reshard;
        rs.operands = {v};
        rs.result = env.fresh(v + "@" + std::to_string(op.origin));
        rs.target = layout_of(target, p.shapes.at(v), p.mesh);
        rs.inserted = true;
        rs.origin = op.origin;
        ReshardCost cost = reshard_cost(out.shardings[v], target, p.shapes.at(v), p.mesh);
        out.reshards.push_back({static_cast<size_t>(op.origin), v, sugar_text(out.shardings[v], p.shapes.at(v), p.mesh),
                                sugar_text(target, p.shapes.at(v), p.mesh), cost.collective, cost.elements});
        p.shapes[rs.result] = p.shapes.at(v);
        out.shardings[rs.result] = target;
        env.user[rs.result] = std::vector<bool>(axes, true);
        op.operands[i] = rs.result;
        before.push_back(std::move(rs));
      }
      if (operand_side) {
        p.ops[j] = op;
        p.ops.insert(p.ops.begin() + static_cast<std::ptrdiff_t>(j), before.begin(), before.end());
      } else {  // the result was given another state by its uses: compute, then reshard to it
        Sharding computed;
        for (int a = 0; a < axes; ++a) computed.push_back(per_axis[a].result);
        const std::string v = op.result, tmp = env.fresh(v + "@" + std::to_string(op.origin));
        p.shapes[tmp] = p.shapes.at(v);
        out.shardings[tmp] = computed;
        env.user[tmp] = std::vector<bool>(axes, true);
        OpNode rs;
        rs.kind = OpKind::Reshard;
        rs.operands = {tmp};
        rs.result = v;
        rs.target = layout_of(out.shardings[v], p.shapes.at(v), p.mesh);
        rs.inserted = true;
        rs.origin = op.origin + 1;
        ReshardCost cost = reshard_cost(computed, out.shardings[v], p.shapes.at(v), p.mesh);
        out.reshards.push_back({static_cast<size_t>(rs.origin), v, sugar_text(computed, p.shapes.at(v), p.mesh), sugar_text(out.shardings[v], p.shapes.at(v), p.mesh),
                                cost.collective, cost.elements});
        p.ops[j].result = tmp;
        p.ops.insert(p.ops.begin() + static_cast<std::ptrdiff_t>(j) + 1, rs);
      }
      inserted = true;
    }
    if (!inserted) break;
  }

  // The final check: no Dynamic left (§6), every sharding a valid ShardLayout (§7.1.1).
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
  // One report per (op, value, rule): a conflict seen again in a later round is the same one.
  std::set<std::tuple<std::optional<size_t>, std::string, std::string>> seen;
  std::vector<ConflictReport> unique;
  for (auto& c : out.conflicts)
    if (seen.insert({c.op, c.value, c.diagnostic.rule}).second) unique.push_back(std::move(c));
  out.conflicts = std::move(unique);
  return out;
}

Json to_json(const Propagation& r) {
  const Program& p = r.program;
  Json values = Json::object();
  for (const auto& [name, s] : r.shardings) {
    Json v{{"shape", p.shapes.at(name)}};
    try {
      v["layout"] = sugar_text(s, p.shapes.at(name), p.mesh);
      v["shard"] = to_string(layout_of(s, p.shapes.at(name), p.mesh));
    } catch (const SpecError&) {
      std::string t;
      for (const auto& a : s) t += (t.empty() ? "" : ",") + to_string(a);
      v["layout"] = "(" + t + ")";
    }
    values[name] = v;
  }
  Json reshards = Json::array();
  for (const auto& x : r.reshards)
    reshards.push_back({{"before_op", x.before_op}, {"value", x.value}, {"from", x.from}, {"to", x.to}, {"collective", x.collective}, {"elements", x.elements}});
  Json conflicts = Json::array();
  for (const auto& c : r.conflicts)
    conflicts.push_back({{"op", c.op ? Json(*c.op) : Json(nullptr)}, {"value", c.value}, {"rule", c.diagnostic.rule}, {"clause", c.diagnostic.clause},
                         {"message", c.diagnostic.message}});
  Json ops = Json::array();
  for (const auto& op : p.ops) ops.push_back(op_to_json(op, p.mesh));
  return Json{{"ok", r.ok()}, {"mesh", to_string(p.mesh)}, {"values", values}, {"ops", ops}, {"outputs", p.outputs}, {"reshards", reshards}, {"conflicts", conflicts}};
}

std::string to_text(const Propagation& r) {
  const Program& p = r.program;
  auto shape_text = [](const std::vector<int64_t>& s) {
    std::string t = "(";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
    return t + ")";
  };
  auto layout = [&](const std::string& v) {
    try {
      return sugar_text(r.shardings.at(v), p.shapes.at(v), p.mesh);
    } catch (const SpecError& e) {
      return std::string("<") + e.rule() + ">";
    }
  };
  std::string t = "mesh " + to_string(p.mesh) + "\n";
  for (const auto& in : p.inputs) t += "input " + in.name + " " + shape_text(in.shape) + " : " + layout(in.name) + "\n";
  for (size_t j = 0; j < p.ops.size(); ++j) {
    const auto& op = p.ops[j];
    std::string args;
    for (const auto& o : op.operands) args += (args.empty() ? "" : ", ") + o;
    t += "[" + std::to_string(j) + "] " + op.result + " = " + to_string(op.kind) + "(" + args + ")" + (op.inserted ? " (inserted)" : "") + " " +
         shape_text(p.shapes.at(op.result)) + " : " + layout(op.result) + "\n";
  }
  std::string outs;
  for (const auto& o : p.outputs) outs += (outs.empty() ? "" : ", ") + o;
  t += "outputs " + outs + "\n";
  for (const auto& x : r.reshards)
    t += "reshard before op " + std::to_string(x.before_op) + ": " + x.value + " " + x.from + " -> " + x.to + " by " + x.collective + ", " +
         std::to_string(x.elements) + " elements\n";
  for (const auto& c : r.conflicts)
    t += "conflict" + (c.op ? " at op " + std::to_string(*c.op) : std::string()) + " (" + c.value + "): [" + c.diagnostic.rule + " " + c.diagnostic.clause + "] " +
         c.diagnostic.message + "\n";
  t += r.ok() ? "ok: every value has a layout, no conflict\n" : std::to_string(r.conflicts.size()) + " conflict(s)\n";
  return t;
}

}  // namespace tfspec::propagation
