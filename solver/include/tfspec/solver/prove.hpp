// `tfspec prove`: goals over layouts with symbolic dims (§1-§7), decided by the cheapest strategy
// that applies. Verdicts are PROVED (method; for all values or within the declared bounds),
// REFUTED (a counterexample replayed on the concrete layout by the reference first) or UNKNOWN
// (reason, time spent). Never a guess: encodings and strategies are described in spec/PROVE.md.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec::solver {

struct ProveOptions {
  std::vector<std::string> assume;  // comparison chains, e.g. "M % 128 == 0", "1 <= M <= 65536"
  // The whole verdict (wall clock, a hard limit: a watchdog interrupts Z3); each phase gets a share.
  unsigned timeout_ms = 2000;
  // Z3 resource limit per call; 0 derives it from the call's share of the time. A fixed rlimit
  // with a generous timeout makes a verdict independent of machine load (the tests use that).
  unsigned rlimit = 0;
  std::string smt2_prefix;          // non-empty: write each obligation to PREFIX-NAME.smt2
  // Creates one exported file: gets PREFIX-NAME.smt2 and the text, returns the path to report,
  // throws SpecError. Set by `serve --smt2-dir` (protocol::create_smt2_file: inside the
  // directory, never through a symlink, never over an existing file). Unset: an ordinary file
  // at that path (the CLI's `--smt2`, on the user's own file system; an old file is replaced).
  std::function<std::string(const std::string& file, const std::string& text)> smt2_create;
  int64_t max_instances = 4096;     // largest declared box the exhaustive strategy enumerates
  int64_t search_instances = 2000;  // instances the small-instance search checks before Z3
  int64_t max_search = 200000;      // instances checked in all (the time budget stops it too)
  // Strategies the pipeline may use (all by default; benchmarks and tests isolate one).
  // `search`: the reference on small symbol values (growing boxes) to refute; `exhaustive`: a
  // declared box enumerated completely proves the goal within it.
  bool structural = true, z3_unbounded = true, z3_bitvector = true, z3_bounded = true, exhaustive = true, search = true;
  // Tests only: the clock the time limit's polls read (unset: steady_clock), so that a test can
  // show where the deadline is checked without measuring time. Z3's watchdog keeps the real clock.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

enum class Verdict { Proved, Refuted, Unknown };

struct ProveResult {
  std::string goal;    // "injective", "in-bounds", ...
  std::string clause;  // e.g. "§2"
  Verdict verdict = Verdict::Unknown;
  std::string method;  // the strategy that decided ("structural", "z3-unbounded", ...)
  std::string scope;   // PROVED: "all values" or "within declared bounds"
  std::vector<std::string> assumptions;  // as used, defaults included
  std::vector<std::string> wellformed;   // conditions under which the objects exist (extents >= 1, ...)
  Json counterexample;                   // REFUTED: symbol values and what fails there
  std::string counterexample_text;
  std::string reason;                    // UNKNOWN: why
  std::string hint;                      // UNKNOWN: an assumption that would let a skipped strategy run
  bool replay_failed = false;            // a solver model the reference did not confirm (a bug)
  std::vector<std::string> attempts;     // each strategy tried, with its outcome and time
  std::vector<std::string> smt2_files;
  double seconds = 0;
};

ProveResult prove_injective(const Layout& l, const ProveOptions& o);                         // §2
ProveResult prove_in_bounds(const Layout& l, const ShapeDim& size, const ProveOptions& o);   // §3
ProveResult prove_fits(const Layout& l, int bits, const ProveOptions& o);                    // §3, bits 32 or 64
ProveResult prove_equivalent(const Layout& a, const Layout& b, const ProveOptions& o);       // §3

ProveResult prove_admissible(const Layout& a, const Layout& b, const ProveOptions& o);       // §3
ProveResult prove_divides(const ShapeDim& n, const ShapeDim& d, const ProveOptions& o);      // §6, D5

std::string to_string(Verdict v);  // PROVED / REFUTED / UNKNOWN
Json to_json(const ProveResult& r);
std::string to_text(const ProveResult& r);
int exit_code(const ProveResult& r);  // 0 proved, 1 refuted, 2 unknown, 4 replay failure (a bug)

}  // namespace tfspec::solver
