// The solver's side of the layout algebra on symbolic shapes (spec/ALGEBRA.md S5): a Decider that
// answers the reference's branches with Z3 under the user's assumptions, and the classification
// of each condition: proved, refuted, or required (with an instance where it fails).
#pragma once
#include <chrono>
#include <z3++.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tfspec/reference/symbolic.hpp"
#include "tfspec/solver/assumptions.hpp"
#include "tfspec/solver/encode.hpp"

namespace tfspec::solver {

struct Classified {
  std::string status;                    // "proved" | "refuted" | "required" | "undecided"
  std::optional<Bindings> counterexample;  // an instance of the assumptions where the predicate fails
};

class Z3Decider : public Decider {
 public:
  // `symbols`: those of the operation's arguments (each >= 1 unless an assumption bounds it).
  // Each query is bounded by Z3's resource limit `rlimit` (deterministic: the same answer on any
  // machine, issue 37) and, as a last guard only, by `query_ms` of wall-clock time: a query the
  // clock stops ends the operation with resource-limit (issue 44 item 8), never a different answer.
  // `constants`: the integers the problem names, for the instance pool (instances.hpp) that
  // witnesses both sides of a branch before any solver call.
  Z3Decider(const std::vector<std::string>& assume, const std::set<std::string>& symbols, unsigned query_ms = kQueryGuardMs,
            unsigned rlimit = kDefaultQueryRlimit, const std::set<int64_t>& constants = {});
  static constexpr unsigned kDefaultQueryRlimit = 200000;
  // A query that honours the rlimit spends at most about 0.3 s of CPU time (measured); the guard
  // leaves room for a machine loaded tenfold before the clock, not the rlimit, could end it.
  static constexpr unsigned kQueryGuardMs = 10000;
  static constexpr unsigned kSearchGuardMs = 1000;  // a model search's last guard (obligations.cpp)
  std::optional<bool> decide(const std::vector<SymPred>& path, const SymPred& p) override;
  // p under the assumptions and `context` (a case's guards).
  Classified classify(const std::vector<SymPred>& context, const SymPred& p);
  // Whether the assumptions have an instance: true, false (proved), nullopt (unknown).
  std::optional<bool> satisfiable(const std::vector<SymPred>& context = {});
  // An instance of the assumptions (and context), for a refusal on every path. `nonlinear`:
  // whether Z3 may search where the query is nonlinear; a validation instance (only an extra
  // instance to replay at) does not: Z3's smt tactic ignored its interrupt for seconds on a
  // nonlinear `%` (issue 46 item 5), so such a search takes the pool's instances only.
  std::optional<Bindings> instance(const std::vector<SymPred>& context, bool nonlinear = true);
  const Assumptions& assumptions() const { return assumptions_; }
  int queries() const { return queries_; }
  // The whole operation's wall-clock guard (issue 46 item 5): no query runs past it (its own
  // guard is cut to what is left), so the operation ends within its limit plus one interrupt.
  void set_deadline(std::chrono::steady_clock::time_point t) { deadline_ = t; }
  // The instance pool: bindings of every symbol that satisfy the assumptions (instances.hpp).
  const std::vector<Bindings>& pool() const { return pool_; }

 private:
  z3::expr encode(const SymPred& p);
  // sat / unsat / unknown of assumptions ∧ context ∧ extra
  QueryOutcome query(const std::vector<SymPred>& context, const z3::expr& extra, bool searching = false, bool nonlinear_search = true);
  z3::expr defined_and(const SymPred& p);
  struct Relaxed {
    std::vector<SymPred> context;   // linear predicates implied by the case's context
    SymPred p;                      // the predicate asked, read with the values the context fixes
    std::vector<ShapeDim> divisors; // its divisors, likewise
    std::vector<z3::expr> lemmas;   // facts about the abstracted terms, true at every instance
  };
  std::optional<Relaxed> linear_part(const std::vector<SymPred>& context, const SymPred& p);
  std::map<std::string, std::pair<int64_t, int64_t>> symbol_ranges(const std::vector<SymPred>& context) const;
  std::optional<Bindings> focused_instance(const std::vector<SymPred>& context, const SymPred& p);
  static constexpr size_t kFocusedTries = 20000;
  bool relaxed_unsat(const Relaxed& r, bool side);
  void add_lemmas(Relaxed& out);
  void add_quotient_lemmas(Relaxed& out, const std::set<std::string>& used);
  bool relaxation_empty(const std::vector<SymPred>& context);
  ShapeDim abstracted(const ShapeDim& e);
  ShapeDim abstracted_product(const ShapeDim& e);
  static constexpr const char* kAbstractPrefix = "nonlinear_term_";
  static constexpr int64_t kQuotientLemmaMax = 4096;  // `c // f`, `c % f`: about 2*sqrt(c) lemmas each
  std::map<std::string, std::string> abstractions_;  // a nonlinear term's text -> its fresh symbol
  std::map<std::string, std::vector<ShapeDim>> products_;  // a fresh symbol of a product -> its factors
  std::map<std::string, std::pair<int64_t, ShapeDim>> const_mods_;  // a fresh symbol of `c % f` -> c, f
  std::map<std::string, std::pair<int64_t, ShapeDim>> const_divs_;  // a fresh symbol of `c // f` -> c, f
  std::map<std::string, int64_t> lower_bounds(const std::vector<SymPred>& path) const;
  std::optional<Bindings> model_bindings(const z3::model& m);
  std::optional<Bindings> side(const QueryOutcome& q, const std::vector<SymPred>& context, const SymPred& p, bool want);
  z3::context ctx_;
  Encoder enc_{ctx_};
  Assumptions assumptions_;
  std::vector<z3::expr> base_;
  unsigned query_ms_, rlimit_;
  int queries_ = 0;
  std::map<std::string, std::optional<bool>> decided_;
  const std::vector<size_t>& survivors(const std::vector<SymPred>& path);
  std::vector<Bindings> pool_;
  std::vector<std::pair<std::string, std::vector<size_t>>> filters_;
  std::unique_ptr<Budget> watchdog_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

}  // namespace tfspec::solver
