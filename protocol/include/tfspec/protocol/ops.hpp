// The operation registry of the wire protocol (spec/PROTOCOL.md): every operation is declared once
// (name, clause, typed parameters, handler over JSON arguments), so the `tfspec` subcommands
// (positional text arguments), `tfspec serve` and the conformance runner reach the same code.
// Each op group registers itself from its own source file; a program links and registers the
// groups it wants (the layout and shard groups need only the reference; prove needs the solver).
#pragma once
#include <functional>
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::protocol {

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
  Param(std::string n, ParamType t, bool opt = false, std::string h = {})
      : name(std::move(n)), type(t), optional(opt), help(std::move(h)) {}
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
  // The process's registry: empty until the program registers its groups (register_*_ops).
  static OpRegistry& instance();
  void add(Op op);
  const Op* find_protocol(std::string_view protocol_name) const;
  const Op* find(std::string_view group, std::string_view name) const;
  Op* find_mutable(std::string_view group, std::string_view name);  // to give an op another form
  const std::vector<Op>& ops() const { return ops_; }

 private:
  std::vector<Op> ops_;
};

// Op names compare with '-' and '_' as one character: `logical-divide` finds `logical_divide`,
// `local_shape` finds `local-shape` (the registry's spelling stays the canonical one in output).
bool same_op_name(std::string_view a, std::string_view b);

// "`composition` takes 2 or 3 arguments (a, tiler, [domain]); 1 given".
std::string arity_message(const Op& op, size_t given);

// Converts positional text arguments to the JSON object an op's handler takes.
Json args_from_text(const Op& op, const std::vector<std::string>& positional);
Json arg_from_text(ParamType type, const std::string& text);

// Helpers for handlers.
const Json& require_arg(const Json& args, const std::string& name);
// A plain Layout argument (ParamType::Layout). A linear layout (X2) is read through its CuTe form
// (to_cute: the same flattened function, exact) when that is a plain Layout; otherwise refused
// with linear-not-cute naming the kind and `op` (issue 44; docs/linear-layouts.md says which ops).
Layout plain_layout_arg(const Json& args, const std::string& name, const std::string& op);
// The result of a check (three outcomes): {"verdict": ok|violation|undecided, "ok", "violations",
// "undecided"}, one "violation: [rule clause] ..." or "undecided: [...]" line each; exit code 1
// when there are violations, else 2 when something could not be decided, else 0.
OpResult check_result(const CheckReport& report);

// A listing of the catalogue's rules whose clause starts with one of `clauses` ("§1", ...; "-"
// for protocol and usage rules), each marked `checked` when it is in `checked`.
OpResult rules_result(std::span<const std::string_view> clauses, const std::vector<const RuleId*>& checked);
inline constexpr std::array<std::string_view, 5> kLayoutClauses = {"§1", "§2", "§3", "§4", "-"};
inline constexpr std::array<std::string_view, 4> kShardClauses = {"§5", "§6", "§7", "§8"};

// One registration function per op group (one source file each). register_prove_ops lives in the
// tfspec_protocol_prove library (it needs the solver): protocol/include/tfspec/protocol/prove_ops.hpp.
void register_layout_ops(OpRegistry& r);
void register_smem_ops(OpRegistry& r);  // layout banks / vector_width (spec/SMEM.md)
void register_linear_ops(OpRegistry& r);  // linear layouts and equivalence (spec/ALGEBRA.md X2)
void register_shard_ops(OpRegistry& r);
// shard.owners and the JAX / DTensor imports and exports (ops_shard_imports.cpp, spec/SHARD.md).
void register_shard_import_ops(OpRegistry& r);
// Shard propagation (spec/PROPAGATION.md): the op `propagate` (links tfspec_propagation).
void register_propagate_ops(OpRegistry& r);
// The multi-GPU reshard plan (spec/MULTIGPU.md): the op `multigpu.reshard-plan` (links tfspec_multigpu).
void register_multigpu_ops(OpRegistry& r);
// The groups that need no solver: layout, shard, propagate and multigpu.
void register_reference_ops(OpRegistry& r);

}  // namespace tfspec::protocol
