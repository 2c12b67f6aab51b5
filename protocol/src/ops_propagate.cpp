// Shard propagation (spec/PROPAGATION.md) as the protocol op `propagate`: the program as JSON
// (or as a JSON text), optional insert_reshards, and check with a seed. The result is the
// annotated program ({values, ops, reshards, conflicts}); exit code 1 on conflicts or on a
// --check difference, malformed programs fail with a program-* rule and the JSON path.
#include "tfspec/propagation/propagation.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::protocol {
namespace {

bool flag(const Json& a, const char* name) {
  if (!a.contains(name) || a[name].is_null()) return false;
  const Json& v = a[name];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string() && (v == "true" || v == "1")) return true;
  if (v.is_string() && (v == "false" || v == "0" || v == "-")) return false;
  fail(rule::kProtocolBadArgs, std::string("\"") + name + "\" is true or false");
}

OpResult propagate_op(const Json& a) {
  const Json& arg = require_arg(a, "program");
  // A program given as text is parsed with the nesting bound (never built deeper).
  const propagation::Program prog =
      arg.is_string() ? propagation::parse_program(propagation::read_program_json(arg.get<std::string>())) : propagation::parse_program(arg);
  const propagation::Propagation r = propagation::propagate(prog, flag(a, "insert_reshards"));
  OpResult out{propagation::to_json(r), propagation::to_text(r), r.ok() ? 0 : 1};
  if (!flag(a, "check") || !r.ok()) return out;
  uint64_t seed = 1;
  if (a.contains("seed") && !a["seed"].is_null()) {
    const Json& s = a["seed"];
    if (s.is_number_unsigned()) seed = s.get<uint64_t>();
    else if (s.is_string() && !s.get<std::string>().empty() && s.get<std::string>().find_first_not_of("0123456789") == std::string::npos)
      seed = std::stoull(s.get<std::string>());
    else fail(rule::kProtocolBadArgs, "\"seed\" is a non-negative integer");
  }
  const propagation::CheckResult c = propagation::check_program(r, seed);
  Json cj{{"ok", c.ok}, {"seed", seed}, {"outputs", r.program.outputs.size()}};
  if (!c.ok) {
    const Diagnostic d(rule::kPropagationCheckMismatch,
                       c.message.empty() ? "output " + c.output + " differs: global " + std::to_string(c.expected) + ", shard-local " + std::to_string(c.got)
                                         : c.message);
    cj.update({{"output", c.output}, {"index", c.index}, {"expected", c.expected}, {"got", c.got}, {"rule", d.rule}, {"clause", d.clause}, {"message", d.message}});
    std::string idx;
    for (int64_t i : c.index) idx += (idx.empty() ? "" : ",") + std::to_string(i);
    out.text += "check: [" + d.rule + " " + d.clause + "] " + d.message + (c.index.empty() ? "" : " at (" + idx + ")") + " (seed " + std::to_string(seed) + ")\n";
    out.exit_code = 1;
  } else {
    out.text += "check: every output equals the global program, shard-locally on " + std::to_string(r.program.mesh.size()) + " instances (seed " +
                std::to_string(seed) + ")\n";
  }
  out.json["check"] = cj;
  return out;
}

}  // namespace

void register_propagate_ops(OpRegistry& r) {
  r.add({"layout", "propagate", "§7.4",
         "shard propagation over a tensor program (spec/PROPAGATION.md): the annotated program, inserted reshards, conflicts; check runs it",
         {{"program", ParamType::Json, false, "the program {mesh, inputs, ops, outputs} (JSON)"},
          {"insert_reshards", ParamType::Text, true, "true: resolve conflicts by inserted reshards"},
          {"check", ParamType::Text, true, "true: run globally and shard-locally and compare"},
          {"seed", ParamType::Text, true, "seed of the --check data (default 1)"}},
         propagate_op});
}

}  // namespace tfspec::protocol
