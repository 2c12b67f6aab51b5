// The propagation program (spec/PROPAGATION.md "Program format"): a mesh, annotated inputs, a
// list of ops in SSA form and the outputs. Parsing fails closed with a rule id and the JSON path
// of the offending member (program-format, program-name, program-op, program-shape,
// program-layout); every op's result shape is inferred here.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/json_text.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::propagation {

// Elementwise unary (linear: neg, scale; monotone non-linear: exp, relu), binary (add, sub, mul,
// max), matmul (batched when rank > 2), reduce, transpose, reshape, broadcast_in_dim, slice,
// concat and the explicit reshard.
enum class OpKind { Neg, Scale, Exp, Relu, Add, Sub, Mul, Max, Matmul, Reduce, Transpose, Reshape, BroadcastInDim, Slice, Concat, Reshard };
std::string to_string(OpKind k);

struct OpNode {
  OpKind kind = OpKind::Neg;
  std::vector<std::string> operands;
  std::string result;
  int64_t constant = 1;               // scale
  std::string reduction = "sum";      // reduce: sum | max | min
  std::vector<int64_t> axes;          // reduce
  std::vector<int64_t> perm;          // transpose: result dim i is operand dim perm[i]
  std::vector<int64_t> shape;         // reshape, broadcast_in_dim: the result shape
  std::vector<int64_t> dims;          // broadcast_in_dim: operand dim i -> result dim dims[i]
  std::vector<int64_t> start, limit;  // slice (unit stride)
  int64_t dim = 0;                    // concat
  std::optional<ShardLayout> target;  // reshard: the user's target layout
  bool inserted = false;              // a reshard inserted by --insert-reshards
  int64_t origin = -1;                // index in the program as written (inserted ops: the op they precede)
};

struct Input {
  std::string name;
  std::vector<int64_t> shape;
  std::optional<ShardLayout> layout;  // nullopt: "?" (Dynamic on every mesh axis)
};

struct Program {
  Mesh mesh;
  std::vector<Input> inputs;
  std::vector<OpNode> ops;
  std::vector<std::string> outputs;
  std::map<std::string, std::vector<int64_t>> shapes;  // every value's logical shape
};

// The deepest nesting of a program's JSON: its objects around a JSON shard layout, whose
// IntTuples nest up to kMaxDepth (the bound the protocol's request reader uses too).
inline constexpr int kMaxProgramDepth = kMaxJsonDepth;  // the one limit of json_text.hpp
// The program's JSON from its text: program-format when it is not JSON, nesting-too-deep (at
// "$") when it nests deeper than kMaxProgramDepth; the deep value is never built.
Json read_program_json(const std::string& text);
// Parses and checks a program; result shapes are inferred (infer_shape).
Program parse_program(const Json& j);
// The result shape of an op from its operands' shapes; SpecError(program-shape / program-op) at `path`.
std::vector<int64_t> infer_shape(const OpNode& op, const std::vector<std::vector<int64_t>>& operands, const std::string& path);
// The JSON form of one op (as the program format writes it).
Json op_to_json(const OpNode& op, const Mesh& mesh);
int64_t num_elements(const std::vector<int64_t>& shape);

}  // namespace tfspec::propagation
