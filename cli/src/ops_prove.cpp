// Prover ops: filled in by the `tfspec prove` work (issue 4).
#include "tfspec/cli/ops.hpp"

namespace tfspec::cli {
void register_prove_ops(OpRegistry&) {}
}  // namespace tfspec::cli
