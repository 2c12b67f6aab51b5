// The time budget of a symbolic layout op (spec/PROTOCOL.md "Symbolic layouts"), and the request
// arguments the symbolic forms read besides the op's own: `assume` and `timeout_ms`. Private to
// ops_symbolic.cpp and symbolic_args.cpp.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/solver/obligations.hpp"

namespace tfspec::protocol {

// A request's time budget (spec/PROTOCOL.md "Symbolic layouts": `timeout_ms`, default 10 s): each
// solver query is bounded, but an op may ask thousands (64 paths of a rank-6 composition), so
// `serve` would hang on one line. Past the budget the op stops with resource-limit (kind Limit).
class BudgetedDecider : public Decider {
 public:
  // `knob`: how the caller sets the budget, named in the refusal.
  BudgetedDecider(solver::Z3Decider& d, int64_t ms, std::string knob = "timeout_ms")
      : inner_(d), ms_(ms), knob_(std::move(knob)), deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(ms)) {}
  std::optional<bool> decide(const std::vector<SymPred>& path, const SymPred& p) override {
    check();
    return inner_.decide(path, p);
  }
  solver::Classified classify(const std::vector<SymPred>& context, const SymPred& p) {
    check();
    return inner_.classify(context, p);
  }
  std::optional<Bindings> instance(const std::vector<SymPred>& context) { return inner_.instance(context); }
  const std::vector<Bindings>& pool() const { return inner_.pool(); }
  const solver::Assumptions& assumptions() const { return inner_.assumptions(); }

 private:
  void check() const {
    if (std::chrono::steady_clock::now() > deadline_)
      fail(rule::kResourceLimit, "the symbolic operation ran past its time budget of " + std::to_string(ms_) + " ms (" + knob_ +
                                     "); add assumptions that decide its branches, or raise " + knob_);
  }
  solver::Z3Decider& inner_;
  int64_t ms_;
  std::string knob_;
  std::chrono::steady_clock::time_point deadline_;
};

// `timeout_ms`: an integer in [1, 600000], as for the prove ops; 10000 when absent.
int64_t timeout_arg(const Json& args);

}  // namespace tfspec::protocol
