// The prove op group (`prove.GOAL`), in its own library because it needs the solver (Z3).
#pragma once
#include "tfspec/protocol/ops.hpp"

namespace tfspec::protocol {
void register_prove_ops(OpRegistry& r);
}  // namespace tfspec::protocol
