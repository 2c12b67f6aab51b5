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

// A request's budget (spec/PROTOCOL.md "Symbolic layouts"). It is counted in work, not time
// (issue 37): at most `budget` solver queries (`budget`, default kDefaultBudget; the paths are
// bounded by kSymbolicCaseLimit and each query by Z3's rlimit), so the same request gets the same
// answer on any machine, however loaded. Past it the op stops with resource-limit (kind Limit).
// A wall-clock limit (`timeout_ms`, default 60 s) stays only as a last guard, for a solver query
// that ignores its rlimit, and says so.
class BudgetedDecider : public Decider {
 public:
  static constexpr int64_t kDefaultBudget = 20000;
  // `knob`: how the caller sets the wall-clock guard, named in the refusal.
  // `advice`: what the refusal tells the caller after naming the guard (by default: why a
  // query may have outlived its limit, and to raise `knob`).
  BudgetedDecider(solver::Z3Decider& d, int64_t ms, std::string knob = "timeout_ms", int64_t budget = kDefaultBudget, std::string advice = "")
      : inner_(d), ms_(ms), budget_(budget), knob_(std::move(knob)),
        advice_(advice.empty() ? "a solver query did not stop at its resource limit, or the machine is very slow; raise " + knob_ : std::move(advice)),
        deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(ms)) {
    inner_.set_deadline(deadline_);
  }
  std::optional<bool> decide(const std::vector<SymPred>& path, const SymPred& p) override {
    check();
    return guarded([&] { return inner_.decide(path, p); });
  }
  solver::Classified classify(const std::vector<SymPred>& context, const SymPred& p) {
    check();
    return guarded([&] { return inner_.classify(context, p); });
  }
  // The searches for witnesses and validation instances run past no limit either (issue 46 item 5).
  std::optional<Bindings> instance(const std::vector<SymPred>& context, bool nonlinear = true) {
    check_clock();
    return guarded([&] { return inner_.instance(context, nonlinear); });
  }
  const solver::Assumptions& assumptions() const { return inner_.assumptions(); }
  const std::vector<Bindings>& pool() const { return inner_.pool(); }
  std::optional<bool> satisfiable(const std::vector<SymPred>& context) {
    check_clock();
    return guarded([&] { return inner_.satisfiable(context); });
  }
  int queries() const { return inner_.queries(); }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }
  // A query the deadline cut (solver::Z3Decider::set_deadline) is this guard's refusal, named
  // with its knob, whatever the query said; an answer reached past the deadline is not given.
  template <class F>
  auto guarded(F f) -> decltype(f()) {
    try {
      auto r = f();
      check_clock();
      return r;
    } catch (const SpecError& e) {
      if (e.kind() == RuleKind::Limit) check_clock();
      throw;
    }
  }

 private:
  void check() const {
    if (inner_.queries() >= budget_)
      fail(rule::kResourceLimit, "the symbolic operation spent its budget of " + std::to_string(budget_) +
                                     " solver queries (budget, --budget); add assumptions that decide its branches, or raise the budget");
    check_clock();
  }
  void check_clock() const {
    if (std::chrono::steady_clock::now() >= deadline_)
      fail(rule::kResourceLimit, "the symbolic operation ran past its wall-clock last guard of " + std::to_string(ms_) + " ms (" + knob_ +
                                     ") before its work budget ran out: " + advice_);
  }
  solver::Z3Decider& inner_;
  int64_t ms_, budget_;
  std::string knob_, advice_;
  std::chrono::steady_clock::time_point deadline_;
};

// `budget`: an integer in [1, 10000000] (solver queries); kDefaultBudget when absent.
int64_t budget_arg(const Json& args);
// `timeout_ms`: an integer in [1, 600000], as for the prove ops; 60000 when absent (the last guard).
int64_t timeout_arg(const Json& args);

}  // namespace tfspec::protocol
