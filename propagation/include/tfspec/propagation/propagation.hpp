// Shard propagation (spec/PROPAGATION.md): per-op factor rules, the Partial table, the
// forward / backward fixpoint, conflicts and inserted reshards with their collectives, and the
// self-check that runs a program globally and shard-locally on the reference's reshard semantics.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tfspec/propagation/program.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec::propagation {

// The state of one mesh axis on one value (§6): Dynamic, Broadcast, Partial(reduction), or a
// Split of tensor dim `dim` whose digit range starts at `lo` (the product of the factors of that
// dim inside the split one: lo = 1 splits the innermost factor, lo * extent == shape[dim] the outermost).
struct AxisState {
  enum Kind { Dyn, Bcast, Split, Part } kind = Dyn;
  int dim = -1;
  int64_t lo = 1;
  std::string reduction;
  friend bool operator==(const AxisState&, const AxisState&) = default;
  static AxisState dynamic() { return {}; }
  static AxisState broadcast() { return {Bcast, -1, 1, ""}; }
  static AxisState split(int d, int64_t lo) { return {Split, d, lo, ""}; }
  static AxisState partial(std::string r) { return {Part, -1, 1, std::move(r)}; }
};
std::string to_string(const AxisState& s);
using Sharding = std::vector<AxisState>;  // one per mesh axis

// ShardLayout <-> per-axis states. sharding_of reads the distribution (attrs over G regrouped to
// T.shape, §8 / D2); layout_of builds the canonical ShardLayout (S None, §7.1.2) and fails with
// propagation-split-overlap when two splits of one dim do not nest.
Sharding sharding_of(const ShardLayout& sl, const std::vector<int64_t>& shape);
ShardLayout layout_of(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh);
// The sugar text of a sharding, e.g. `(8 @ m.x, 6) where y=P()` (read back by parse_sugar).
std::string sugar_text(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh);
// Per-instance local logical shape (the split dims divided by their axes' extents).
std::vector<int64_t> local_shape_of(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh);

// ---- the per-op rule, as data (Shardy's OpShardingRule): every tensor dim lies in one factor at
// an offset (the product of the factor's digits inside the dim: 1, except for reshape, whose one
// factor is the flat row-major index); each factor passes through, reduces, or needs replication.
enum class FactorKind { PassThrough, Reduction, NeedReplication };
struct Factor {
  int64_t size;
  FactorKind kind;
  std::string reduction;  // Reduction factors: sum | max | min
};
struct DimFactor {
  int factor;
  int64_t offset;
};
struct OpRule {
  std::vector<Factor> factors;
  std::vector<std::vector<DimFactor>> operands;  // operand i, dim d
  std::vector<DimFactor> result;
};
OpRule op_rule(const OpNode& op, const std::vector<std::vector<int64_t>>& operand_shapes, const std::vector<int64_t>& result_shape);

// ---- one op on one mesh axis of extent n
struct Conflict {
  const RuleId* rule;
  int operand;  // the operand to reshard, or -1 for the result
  std::string message;
};
struct Resolution {
  std::vector<AxisState> operands;  // the states the op needs
  AxisState result;                 // the result state those give
  std::optional<Conflict> conflict; // set when the given states differ from the needed ones
};
// operands: every state known (no Dyn); result: Dyn, or the state propagation gave it. `user`
// marks operands whose state is a user annotation (they lead a conflict's resolution).
Resolution resolve(const OpNode& op, const OpRule& rule, const std::vector<std::vector<int64_t>>& shapes, const std::vector<int64_t>& result_shape,
                   int64_t n, const std::vector<AxisState>& operands, const AxisState& result, const std::vector<bool>& user);
// The Partial table (spec/PROPAGATION.md): the result of an op whose operands are Broadcast or
// Partial on one axis, or the conflict's rule.
struct PartialOutcome {
  std::optional<AxisState> result;
  const RuleId* rule = nullptr;
  std::string message;
};
PartialOutcome partial_rule(const OpNode& op, const std::vector<AxisState>& operands);
// P7: the fewest Partial operands to all-reduce (to Broadcast) so that partial_rule has a result,
// lowest indices first (fewer first, then the lexicographically least set of indices): the
// operand states after the all-reduces and the result state; nullopt when no set does.
std::optional<std::pair<std::vector<AxisState>, AxisState>> fewest_all_reduces(const OpNode& op, const std::vector<AxisState>& operands);

// ---- whole programs
struct ReshardReport {
  size_t before_op;  // index in the annotated program of the op that reads the resharded value
  std::string value, from, to, collective;
  int64_t elements;  // elements moved: the sum over instances of the elements each sends (ring algorithms)
};
struct ConflictReport {
  std::optional<size_t> op;  // nullopt: an input
  std::string value;
  Diagnostic diagnostic;
};
struct Propagation {
  Program program;  // annotated: inserted reshards included
  std::map<std::string, Sharding> shardings;
  std::vector<ReshardReport> reshards;
  std::vector<ConflictReport> conflicts;
  bool ok() const { return conflicts.empty(); }
};
Propagation propagate(const Program& p, bool insert_reshards);

// The collectives that take a value from one sharding to another, axis by axis in mesh order,
// and the elements they move: all-gather (S->B), reduce-scatter (P->S), all-reduce (P->B),
// all-to-all (S->S'); local-slice (B->S) and local-partial (B->P) move nothing.
struct ReshardCost {
  std::string collective;
  int64_t elements = 0;
};
ReshardCost reshard_cost(const Sharding& from, const Sharding& to, const std::vector<int64_t>& shape, const Mesh& mesh);

Json to_json(const Propagation& r);
std::string to_text(const Propagation& r);

// ---- execution: integer tensors, globally and shard-locally
// exp is executed as the strictly increasing non-linear x^3 on integers (spec/PROPAGATION.md).
Tensor eval_op(const OpNode& op, const std::vector<Tensor>& operands, const std::vector<int64_t>& result_shape);
struct CheckResult {
  bool ok = true;
  std::string output;            // the first differing output
  std::vector<int64_t> index;    // its first differing element (logical coordinate)
  int64_t expected = 0, got = 0;
  std::string message;
  std::string rule;              // propagation-check-mismatch when not ok
};
// Runs the annotated program on random integers in [-3, 3] (seeded) globally and per mesh instance
// (inputs distributed or partitioned, inserted reshards through the reference's reshard, outputs
// assembled); needs a conflict-free propagation.
CheckResult check_program(const Propagation& r, uint64_t seed);

}  // namespace tfspec::propagation
