// The layout group's ops on symbolic layouts (spec/ALGEBRA.md S1-S5, spec/PROTOCOL.md "Symbolic
// layouts"): the reference's symbolic result and side conditions, each classified by the solver
// under the request's "assume". In tfspec_protocol_prove, beside the prove group: it needs Z3.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/protocol/ops.hpp"

namespace tfspec::protocol {

// Gives every layout op of `r` that has a symbolic form (symbolic_op_names) that form: a request
// whose layout, tiler or IntTuple arguments hold a symbol, or that carries "assume", answers
// {"result", "cases", "conditions"}; any other request runs the concrete op as before. The
// layout group must be registered first (register_prove_ops calls this at its end).
void register_symbolic_layout_ops(OpRegistry& r);

// The layout ops with a symbolic form, in table order.
std::vector<std::string> symbolic_op_names();

// The "assume" argument: a string or an array of strings (prove-usage otherwise); none: empty.
std::vector<std::string> assume_arg(const Json& args);

// `prove GOAL --of "OP A [TILER]"`: the layout the symbolic algebra derives, with its required
// conditions (they become assumptions of the proof, spec/PROVE.md "Derived layouts").
struct DerivedLayout {
  std::string layout;                   // the derived layout, in text notation
  std::vector<std::string> when;        // its case's guard (assumptions of its proof too)
  std::vector<std::string> conditions;  // its required conditions (assumptions of the proof)
  std::string header;                   // printed before the verdict
  bool vacuous = false;                 // its guard and conditions have no instance (proved): nothing to prove
  std::string dead;                     // a condition that fails at every instance of the case (refuted there):
                                        // the formula is the answer nowhere in it, so nothing is proved of it
};
// One per case of the derivation (one where one formula holds), each replayed against the
// concrete op before it is returned. `timeout_ms` is the derivation's wall-clock last guard.
std::vector<DerivedLayout> derive_layout(const std::string& of, const std::vector<std::string>& assume, int64_t timeout_ms);

}  // namespace tfspec::protocol
