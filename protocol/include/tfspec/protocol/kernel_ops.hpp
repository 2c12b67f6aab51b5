// The kernel op group (`kernel.check`, spec/KERNEL.md), in tfspec_protocol_prove beside the prove
// group: the pipeline's bounds conditions need the solver.
#pragma once
#include <cstdint>
#include <string>

#include "tfspec/protocol/ops.hpp"

namespace tfspec::protocol {
void register_kernel_ops(OpRegistry& r);
// The op's "smem_limit" argument read as bytes (a number, or "232448", "227KiB"); the CLI's
// --smem-limit reads the same way. `what` names the argument in an error, which is `bad`.
int64_t smem_limit_bytes(const Json& j, const std::string& what, const RuleId& bad);
}  // namespace tfspec::protocol
