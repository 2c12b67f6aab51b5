// `tfspec reshard-plan SRC DST SHAPE [--json] [--dtype T]`: the collective schedule (NCCL's
// vocabulary) of a reshard between two ShardLayouts whose mesh instances are devices, with the
// bytes each device sends and receives (spec/MULTIGPU.md). SRC / DST: shard(...) text, sugar
// with `on MESH`, or JSON; SHAPE: the logical shape, e.g. '(8,1024)'.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cli {
namespace {

struct ReshardPlanArgs {
  std::string src, dst, shape;
  std::string dtype = "float32";
  bool json = false;
};

std::vector<int64_t> shape_arg(const std::string& text) {
  std::vector<int64_t> shape;
  for (const auto& leaf : flat_leaves(parse_inttuple(text))) shape.push_back(require_int(leaf, "a logical extent"));
  return shape;
}

int run(const ReshardPlanArgs& a) {
  const int64_t elem_bytes = multigpu::dtype_bytes(a.dtype);
  const ShardLayout src = read_shard_layout(Json(a.src));
  const ShardLayout dst = read_shard_layout(Json(a.dst));
  const multigpu::Plan plan = multigpu::plan_reshard(src, dst, shape_arg(a.shape), elem_bytes);
  if (a.json) {
    Json j = multigpu::to_json(plan);
    j["dtype"] = a.dtype;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << multigpu::to_text(plan);
  }
  return kOk;
}

}  // namespace

void add_reshard_plan_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ReshardPlanArgs>();
  auto* sub = app.add_subcommand("reshard-plan", "The multi-GPU collective schedule (NCCL) of a reshard between two device meshes' layouts");
  sub->add_option("src", a->src, "the source ShardLayout: shard(...) text, sugar '... on MESH', or JSON")->required();
  sub->add_option("dst", a->dst, "the destination ShardLayout (same forms)")->required();
  sub->add_option("shape", a->shape, "the logical shape, e.g. '(8,1024)'")->required();
  sub->add_option("--dtype", a->dtype, "the element type, an NCCL datatype (default float32): its size prices the bytes");
  sub->add_flag("--json", a->json, "print the plan as JSON (schema in spec/MULTIGPU.md)");
  sub->callback([a, &exit_code] {
    exit_code = reported([&] { return run(*a); });
  });
}

}  // namespace tfspec::cli
