// Translation of reference objects to Z3 terms (done once per goal), and the guarded solver call
// every strategy uses. TOOLING-NOTES (Z3): a fresh non-incremental check may ignore `timeout`, so
// every query runs on tactic("smt").mk_solver() after push(), with an rlimit as well.
#pragma once
#include <z3++.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tfspec/reference/inttuple.hpp"
#include "tfspec/reference/layout.hpp"
#include "tfspec/solver/assumptions.hpp"

namespace tfspec::solver {

// ShapeDim -> Z3 Int term. Floor division and modulo follow the reference (Python semantics:
// the sign follows the divisor); every divisor met is recorded in `definedness` as `!= 0`.
class Encoder {
 public:
  explicit Encoder(z3::context& ctx) : ctx_(ctx) {}
  z3::context& ctx() { return ctx_; }
  z3::expr symbol(const std::string& name);
  z3::expr dim(const ShapeDim& d);
  z3::expr leaf(const IntTuple& leaf, const std::string& path);  // Int | Sym; None fails closed (§1)
  z3::expr relation(const Relation& r);
  // Every non-constant divisor met so far (each must be != 0 where the objects exist).
  const std::vector<ShapeDim>& divisors() const { return divisors_; }
  z3::expr floor_div(const z3::expr& a, const z3::expr& b);
  z3::expr floor_mod(const z3::expr& a, const z3::expr& b);
  const std::map<std::string, z3::expr>& symbols() const { return symbols_; }
  const std::vector<z3::expr>& definedness() const { return definedness_; }
  const std::vector<std::string>& definedness_text() const { return definedness_text_; }

 private:
  z3::context& ctx_;
  std::map<std::string, z3::expr> symbols_;
  std::vector<z3::expr> definedness_;
  std::vector<std::string> definedness_text_;
  std::vector<ShapeDim> divisors_;
};

// A layout's flat modes as Z3 terms (§3: offset = sum of coordinate * stride over the flat modes).
struct FlatModes {
  std::vector<z3::expr> shape, stride;
  std::vector<IntTuple> shape_leaves, stride_leaves;
};
FlatModes flat_modes(Encoder& enc, const Layout& l, const std::string& name);

// The symbols a layout's shape and stride mention.
std::set<std::string> layout_symbols(const Layout& l);
// Substitutes symbol values: every Sym leaf becomes its Int value (SpecError on an unbound one).
IntTuple substitute(const IntTuple& t, const Bindings& b);
Layout substitute(const Layout& l, const Bindings& b);
std::string to_string(const Bindings& b);  // "M=4, N=3"

// The time budget of one verdict (issue 9: `--timeout` is a hard limit for the whole verdict).
// TOOLING-NOTES: Z3 can ignore both `timeout` and `rlimit` inside one long nonlinear step, so a
// watchdog thread interrupts the context (z3::context::interrupt) when a call's share or the
// whole budget runs out; the interrupted check() answers unknown. Loops outside Z3 poll expired(),
// the reading of the assumptions included (issue 19: 20,000 of them took 5 s past the limit).
// `clock` (ProveOptions::clock, tests only) replaces the clock those polls read, so a test can
// show deterministically where the deadline is checked; the watchdog keeps the real clock.
class Budget {
 public:
  using Clock = std::chrono::steady_clock;
  Budget(z3::context& ctx, unsigned total_ms, std::function<Clock::time_point()> clock = {});
  ~Budget();
  Budget(const Budget&) = delete;
  Budget& operator=(const Budget&) = delete;
  double elapsed_s() const;
  unsigned remaining_ms() const;
  bool expired() const { return now() >= deadline_; }
  // A phase's share: `fraction` of what is left, at least min_ms (never more than what is left).
  unsigned share(double fraction, unsigned min_ms = 20) const;
  // Interrupts Z3 at now + ms (or at the deadline, whichever comes first) until disarm().
  void arm(unsigned ms);
  void disarm();
  // Cleared when a query's terms are beyond what Z3 reliably stops on: check() then answers
  // unknown with `z3_refusal` as the reason, without calling Z3.
  bool z3_allowed = true;
  std::string z3_refusal;
  // How many times the watchdog has interrupted Z3: a call during which it grew was stopped by
  // the clock, not by its rlimit.
  unsigned interrupts() const { return interrupts_.load(); }

 private:
  void watch();
  Clock::time_point now() const { return clock_ ? clock_() : Clock::now(); }
  z3::context& ctx_;
  std::function<Clock::time_point()> clock_;
  Clock::time_point start_, deadline_, real_deadline_, armed_until_;
  bool armed_ = false, stop_ = false;
  std::atomic<unsigned> interrupts_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

// Time and resource limits of one solver call.
struct Limits {
  unsigned timeout_ms = 2000;
  unsigned rlimit = 0;       // 0: derived from timeout_ms
  Budget* budget = nullptr;  // when set, the call is interrupted at timeout_ms or the deadline
  // Z3's QF_NIA strategy without its wall-clock steps (encode.cpp nonlinear_tactic), not
  // incremental (its preprocessing tactics first), instead of tactic("smt"): on the symbolic
  // algebra's small nonlinear queries (`K*M % 32` against `M // 32`) it honours the rlimit, where
  // the smt tactic searched past 20 s ignoring rlimit and interrupt.
  bool default_solver = false;
};

struct QueryOutcome {
  z3::check_result result = z3::unknown;
  std::optional<z3::model> model;
  std::string reason;  // Z3's reason_unknown when unknown
  double seconds = 0;
  // Unknown because a wall clock stopped it (Z3's `timeout`, or the watchdog's interrupt), not
  // the rlimit: an outcome that depends on the machine's speed and load.
  bool clock_stop = false;
};

// Checks the conjunction of `assertions` (sat = a counterexample exists). When `smt2_path` is
// non-empty the obligation is also written there in SMT-LIB 2 with `logic` and no named assertions.
QueryOutcome check(z3::context& ctx, const std::vector<z3::expr>& assertions, const Limits& limits,
                   const std::string& logic, const std::string& smt2_path, const std::string& comment);

// Writes an obligation in SMT-LIB 2: `(set-logic LOGIC)`, declarations, unnamed assertions, (check-sat).
// `create` (ProveOptions::smt2_create) creates the file when set; returns the path to report.
// SpecError prove-smt2-write when the file cannot be opened or written (nothing is swallowed).
std::string write_smt2(z3::context& ctx, const std::vector<z3::expr>& assertions, const std::string& logic, const std::string& path,
                       const std::string& comment,
                       const std::function<std::string(const std::string&, const std::string&)>& create = {});

// The polynomial degree of a term (a product adds its factors' degrees; a symbol has degree 1).
unsigned degree(const z3::expr& e);

// Reads an Int term's value from a model; nullopt when it does not fit int64.
std::optional<int64_t> model_int(const z3::model& m, const z3::expr& e);

}  // namespace tfspec::solver
