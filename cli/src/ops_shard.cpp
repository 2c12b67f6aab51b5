// Shard-model ops (§5-§7): filled in by the shard-model work (issue 3).
#include "tfspec/cli/ops.hpp"

namespace tfspec::cli {
void register_shard_ops(OpRegistry&) {}
}  // namespace tfspec::cli
