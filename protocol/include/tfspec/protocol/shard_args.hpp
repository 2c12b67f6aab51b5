// The arguments of `shard.check` and `shard.assemble` as the registry reads them, exported so the
// CLI's `--draw` pictures read them once, the same way (protocol/src/ops_shard.cpp).
#pragma once

#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/reshard.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::protocol {

struct ShardCheckArgs {
  ShardLayout layout;
  ShardCheckOptions options;
};
// layout, mesh, stage (analysis | final), storage, shape; text "-" means "not given".
ShardCheckArgs read_shard_check_args(const Json& args);

struct AssembleArgs {
  Engines engines;
  ShardLayout layout;
  std::vector<int64_t> shape;
};
// layout, mesh, shape, engines.
AssembleArgs read_assemble_args(const Json& args);

}  // namespace tfspec::protocol
