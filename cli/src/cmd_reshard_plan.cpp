// `tfspec reshard-plan SRC DST SHAPE [--json] [--dtype T]`: the collective schedule (NCCL's
// vocabulary) of a reshard between two ShardLayouts whose mesh instances are devices, with the
// bytes each device sends and receives (spec/MULTIGPU.md). SRC / DST: shard(...) text, sugar
// with `on MESH`, or JSON; SHAPE: the logical shape, e.g. '(8,1024)'.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {
namespace {

struct ReshardPlanArgs {
  std::string src, dst, shape;
  std::string dtype = "float32";
  bool json = false;
};

// One code path with `tfspec serve`: the protocol op `multigpu.reshard-plan` builds the plan and
// its JSON (protocol/src/ops_multigpu.cpp).
int run(const ReshardPlanArgs& a) {
  const protocol::Op* op = protocol::OpRegistry::instance().find("multigpu", "reshard-plan");
  if (!op) fail(rule::kInternal, "the multigpu.reshard-plan op is not registered");
  const protocol::OpResult r = op->run(Json{{"src", a.src}, {"dst", a.dst}, {"shape", a.shape}, {"dtype", a.dtype}});
  if (a.json) std::cout << protocol::dump_line(r.json) << "\n";
  else std::cout << r.text;
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
