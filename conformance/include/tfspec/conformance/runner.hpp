// The conformance runner: the corpus (spec/corpus/) against an implementation that speaks the
// protocol of spec/PROTOCOL.md, in process (the reference) or as a subprocess (anyone's), with
// per-clause reports. The runner owns robustness: a timeout, a crash, a malformed or missing
// line or a wrong seq is recorded for that case as errored, the process restarted, the run goes on.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tfspec/protocol/corpus.hpp"
#include "tfspec/protocol/ops.hpp"

namespace tfspec::conformance {

using protocol::CorpusCase;
using protocol::Status;

// One reply, or why there is none (`problem` non-empty: the case is errored).
struct Reply {
  Json json;
  std::string problem;
  bool timed_out = false;    // no reply within the per-case timeout
  bool crashed = false;      // the implementation ended (or closed its input) instead of replying
  std::string stderr_tail;   // the last lines the implementation wrote to stderr during this case
};

class Implementation {
 public:
  virtual ~Implementation() = default;
  // The `start` handshake: {"cmd":"start","protocol":1,"implementation":{...},"ops":[...]};
  // throws SpecError (usage) when the implementation cannot be started or answers no handshake.
  virtual Json start() = 0;
  // One request line, one reply line.
  virtual Reply ask(const Json& request) = 0;
  // Ends the session (`stop`); safe to call twice.
  virtual void stop() = 0;
  // Subprocess restarts after errored cases (0 in process).
  virtual int restarts() const { return 0; }
  // No reply is awaited past this instant (the run's --deadline): a case in flight then ends as
  // timed out, so the deadline holds within a restart rather than a whole per-case timeout.
  virtual void set_deadline(std::chrono::steady_clock::time_point) {}
  // A signal number set by a handler (SIGINT, SIGTERM): a write or a wait in progress gives up
  // at once, so a stop request is never blocked behind an implementation that stopped reading.
  virtual void set_interrupt(const std::atomic<int>*) {}
  // Why the copy of its stderr (--impl-stderr) is incomplete, or "" when every byte was written.
  virtual std::string copy_problem() const { return ""; }
};

// The registry's ops answered by serve_line, in this process.
std::unique_ptr<Implementation> in_process(const protocol::OpRegistry& reg);
// `/bin/sh -c COMMAND` with the protocol on its stdin/stdout; each reply must arrive within
// timeout_ms. Its stderr is read by the runner: the last kStderrTailLines lines written during a
// case travel with that case's reply, and every line is also appended to stderr_path when given.
// A command that cannot start (not found, not executable, no handshake) is a SpecError (usage)
// naming why, with the exit status and the stderr tail.
inline constexpr int kStderrTailLines = 20;
std::unique_ptr<Implementation> subprocess(const std::string& command, int timeout_ms, const std::string& stderr_path = "");

struct CaseOutcome {
  const CorpusCase* c = nullptr;
  Status status = Status::Errored;
  bool expected_failure = false;  // listed in the expected-failures file
  std::string detail;
  Json actual;
  bool not_run = false;      // errored because the run stopped before it (consecutive timeouts, deadline)
  double seconds = 0;        // wall time of the exchange
  std::string stderr_tail;   // the implementation's stderr during the case (errored cases keep it)
  double started = -1;       // when the exchange began, in seconds from the run's start (-1: never asked)
};

// What a case counts as in every report (text, JSON, JUnit, HTML): pass, fail, errored,
// unsupported, xfail (an expected failure that failed, errored or was unsupported) or xpass (an
// expected failure that passed: a failure of the run). A case not run is errored, listed or not.
std::string outcome_name(const CaseOutcome& o);

struct Counts {
  int pass = 0, fail = 0, unsupported = 0, errored = 0, xfail = 0, xpass = 0;
  void add(const std::string& outcome);
};

struct Report {
  Json implementation;  // the handshake's implementation member
  std::vector<CaseOutcome> cases;
  int restarts = 0;
  double seconds = 0;
  std::string stopped;  // why the run stopped early (the cases after it are errored, not_run); "" when it did not
  Counts totals() const;
};

inline constexpr int kDefaultMaxConsecutiveTimeouts = 5;
inline constexpr int kDefaultMaxConsecutiveCrashes = 5;

struct RunOptions {
  // A case runs when it matches any filter (none: every case) and no exclude: a clause prefix
  // (`§7`, `§7.1`), an op name (`composition`, `shard.check`), a case id prefix, or a glob
  // (`*`, `?`, `[..]`; fnmatch) matched against the whole id, op or clause (`s3-*`, `shard.*`).
  std::vector<std::string> filters;
  std::vector<std::string> excludes;
  std::vector<std::string> tags;  // when given, only cases carrying one of these corpus tags
  std::vector<std::string> exclude_tags;  // never cases carrying one of these (`symbolic`, `extension`, `limit`)
  std::set<std::string> only_ids;  // when given, only these case ids (--rerun-failed)
  // A progress line (cases done of all, failures so far, seconds) every progress_seconds, on
  // `progress` when set; `live` rewrites one line in place (a terminal).
  std::ostream* progress = nullptr;
  double progress_seconds = 5;
  bool live = false;
  std::set<std::string> expected_failures;
  // Stop after this many consecutive timed-out cases (the implementation no longer answers);
  // the remaining cases are errored as not run. 0: never stop.
  int max_consecutive_timeouts = kDefaultMaxConsecutiveTimeouts;
  // Stop after this many consecutive cases on which the implementation died (or closed its
  // input) instead of answering: a crash storm costs a restart per case. 0: never stop.
  int max_consecutive_crashes = kDefaultMaxConsecutiveCrashes;
  double deadline_seconds = 0;   // stop starting cases after this much wall time (0: none)
  // Accept a run in which the implementation supports none of the selected ops, or answers none
  // of the selected cases (every one `skipped` or answered without the symbolic form).
  bool allow_unsupported = false;
  const std::atomic<int>* interrupted = nullptr;  // a signal number set by a handler: stop before the next case
};

// Every case file of a directory (validated against the format; SpecError when one is not).
std::vector<CorpusCase> load_corpus(const std::string& dir);
// Case ids, one per line, `#` starts a comment.
std::set<std::string> read_id_list(const std::string& path);
// The ids of the cases a JSON report (json_report) marks fail, errored or xpass.
std::set<std::string> failed_ids(const std::string& report_path);
bool selected(const CorpusCase& c, const std::vector<std::string>& filters, const std::vector<std::string>& excludes = {});

// Refuses (SpecError, usage) before any case runs: a selection that matches no case, an expected
// failure that names no case of `cases`, and (after the handshake, unless allow_unsupported) an
// implementation that supports none of the selected cases' ops. After the run, unless
// allow_unsupported, a run in which no selected case was answered (every case unsupported: the
// implementation tested nothing) is refused the same way.
Report run(const std::vector<CorpusCase>& cases, Implementation& impl, const RunOptions& opts);
// The same run over several implementations at once (`--jobs N`: N adapter processes), one
// worker thread each taking the next case; the report lists the cases in corpus order, so it is
// the report of a one-implementation run (the elapsed times aside). The first handshake names
// the implementation and its ops; every implementation is started before any case runs.
Report run(const std::vector<CorpusCase>& cases, const std::vector<Implementation*>& impls, const RunOptions& opts);

// The per-clause table, then each failure and errored case with its id, args, expected and actual.
std::string text_report(const Report& r, bool list_failures = true);
// {"implementation", "summary": {pass, fail, errored, unsupported, ...}, "clauses": {...},
//  "cases": [{"id","clause","op","status", "expected"?, "actual"?, "detail"?}]}
Json json_report(const Report& r);
// JUnit XML: one testsuite per clause, one testcase per case. Each second of the run is shared
// among the cases in flight then (--jobs N runs N at once), so the times add up to the run's wall
// time, never more.
std::string junit_report(const Report& r);
// What run() checks before and after a run, for a run split over MPI ranks (ranks.hpp): the
// selected cases in corpus order (refusing an empty selection or stale expected failures), and
// the refusal of a run in which no selected case was answered.
std::vector<const CorpusCase*> select_cases(const std::vector<CorpusCase>& cases, const RunOptions& opts);
void refuse_if_untested(const Report& r);
// 0 when nothing failed, errored or passed unexpectedly (an XPASS is a failure), else 1.
int exit_code(const Report& r);

// The corpus directory of the source tree this binary was built from.
std::string default_corpus_dir();

}  // namespace tfspec::conformance
