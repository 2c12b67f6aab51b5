// The prove op group (`prove.GOAL`), in its own library because it needs the solver (Z3). It also
// gives the layout group's ops their symbolic forms (symbolic_ops.hpp): register the reference
// ops first.
#pragma once
#include "tfspec/protocol/ops.hpp"

namespace tfspec::protocol {
void register_prove_ops(OpRegistry& r);
}  // namespace tfspec::protocol
