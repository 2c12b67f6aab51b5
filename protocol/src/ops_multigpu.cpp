// The multi-GPU reshard plan (spec/MULTIGPU.md) as the protocol op `multigpu.reshard-plan`; the
// `tfspec reshard-plan` command runs this op, so the CLI's --json and a serve client get one
// answer from one code path.
#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::protocol {
namespace {

// The logical shape: an IntTuple as JSON or text (`(8,1024)`); concrete extents only (§1).
std::vector<int64_t> shape_arg(const Json& a) {
  const Json& j = require_arg(a, "shape");
  const IntTuple t = j.is_string() ? parse_inttuple(j.get<std::string>()) : inttuple_from_json(j);
  std::vector<int64_t> shape;
  for (const auto& leaf : flat_leaves(t)) shape.push_back(require_int(leaf, "a logical extent"));
  return shape;
}

std::string dtype_arg(const Json& a) {
  if (!a.contains("dtype") || a["dtype"].is_null()) return "float32";
  if (!a["dtype"].is_string()) fail(rule::kProtocolBadArgs, "\"dtype\" is a string naming an NCCL datatype");
  const std::string d = a["dtype"].get<std::string>();
  return d.empty() || d == "-" ? "float32" : d;
}

// spec/MULTIGPU.md: the plan, with the dtype as given (it only prices the bytes).
OpResult reshard_plan_op(const Json& a) {
  const std::string dtype = dtype_arg(a);
  const int64_t elem_bytes = multigpu::dtype_bytes(dtype);
  const ShardLayout src = read_shard_layout(require_arg(a, "src"));
  const ShardLayout dst = read_shard_layout(require_arg(a, "dst"));
  const multigpu::Plan plan = multigpu::plan_reshard(src, dst, shape_arg(a), elem_bytes);
  Json j = multigpu::to_json(plan);
  j["dtype"] = dtype;
  return {std::move(j), multigpu::to_text(plan)};
}

}  // namespace

void register_multigpu_ops(OpRegistry& r) {
  const std::string forms = "shard(LAYOUT; ATTRS; MESH) text, sugar `(N @ m.a, ...) on MESH`, or JSON; device topologies only";
  r.add({"multigpu", "reshard-plan", "§7.4",
         "the multi-GPU collective schedule (NCCL) of a reshard between two device meshes' layouts, with bytes per device (spec/MULTIGPU.md)",
         {{"src", ParamType::Text, false, "the source ShardLayout: " + forms},
          {"dst", ParamType::Text, false, "the destination ShardLayout (same forms)"},
          {"shape", ParamType::IntTuple, false, "the logical shape, e.g. (8,1024)"},
          {"dtype", ParamType::Text, true, "an NCCL datatype (default float32): its size prices the bytes"}},
         reshard_plan_op});
}

}  // namespace tfspec::protocol
