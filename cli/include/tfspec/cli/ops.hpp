// The operation registry shared by the `tfspec` subcommands and `tfspec serve`: every reference
// operation is declared once (name, clause, typed parameters, handler over JSON arguments), so
// the command line (positional text arguments) and the JSON-lines protocol reach the same code.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::cli {

// How a positional text argument becomes a JSON argument.
enum class ParamType {
  Layout,     // text notation of a Layout -> layout JSON
  AnyLayout,  // Layout | ComposedLayout | (once registered) ShardLayout
  Int,        // int64 -> number
  Coord,      // an int or a coordinate tuple (with `_` wildcards) -> JSON
  IntTuple,   // text notation -> JSON
  Tiler,      // a layout, or a by-mode tuple `(T0,T1,...)` -> {"tiler":[...]} or layout JSON
  Text,       // passed through as a JSON string
  Json,       // parsed as JSON
};

struct Param {
  std::string name;
  ParamType type;
  bool optional = false;
  std::string help;
};

struct OpResult {
  Json json;          // the `result` member of the protocol reply / `--json` output
  std::string text;   // the human rendering; its last line is the result in text notation
  int exit_code = 0;  // for checks: 1 when violations were found
};

struct Op {
  std::string group;  // "layout", "shard", "prove": the subcommand that exposes it
  std::string name;   // e.g. "composition"
  std::string clause; // spec clause, e.g. "§3"
  std::string summary;
  std::vector<Param> params;
  std::function<OpResult(const Json& args)> run;  // throws SpecError on refusal

  // The protocol name: `name` for the layout group, `group.name` otherwise.
  std::string protocol_name() const { return group == "layout" ? name : group + "." + name; }
};

class OpRegistry {
 public:
  static OpRegistry& instance();  // registers every built-in group on first use
  void add(Op op);
  const Op* find_protocol(std::string_view protocol_name) const;
  const Op* find(std::string_view group, std::string_view name) const;
  const std::vector<Op>& ops() const { return ops_; }

 private:
  std::vector<Op> ops_;
};

// Converts positional text arguments to the JSON object an op's handler takes.
Json args_from_text(const Op& op, const std::vector<std::string>& positional);
Json arg_from_text(ParamType type, const std::string& text);

// Helpers for handlers.
const Json& require_arg(const Json& args, const std::string& name);
Json diag_json(const Diagnostic& d);
// The result of a check: {"ok", "violations"} and one "violation: [rule clause] ..." line each;
// exit code 1 when there are violations.
OpResult check_result(const std::vector<Diagnostic>& diags);

// One registration function per op group (one source file each).
void register_layout_ops(OpRegistry& r);
void register_shard_ops(OpRegistry& r);
void register_prove_ops(OpRegistry& r);

}  // namespace tfspec::cli
