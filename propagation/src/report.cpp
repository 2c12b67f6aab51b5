// The reports of a propagation (spec/PROPAGATION.md "Exit codes"): the JSON form and the text.
#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {

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
