// `tfspec conform`: the corpus (spec/corpus/) against an implementation, clause by clause.
//   --impl reference        the reference, in process
//   --impl "CMD ARGS"       a subprocess speaking spec/PROTOCOL.md on stdin/stdout
// Exit codes: 0 nothing failed, errored or passed unexpectedly (expected failures and unsupported
// ops aside), 1 some case failed, errored or XPASSed (or was not run: the run stopped), 3 bad
// usage / corpus / report file, an empty selection, stale expected failures, an implementation
// that does not start, supports none of the selected ops or answers none of the selected cases
// (unless --allow-unsupported), an --impl-stderr copy that could not be written; 128+N stopped by
// signal N.
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "campaign.hpp"
#include "commands.hpp"
#include "conform_ranks.hpp"
#include "run_control.hpp"
#include "tfspec/conformance/fuzz.hpp"
#include "tfspec/conformance/html_report.hpp"
#include "tfspec/conformance/runner.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::cli {
namespace {

struct ConformArgs {
  std::string impl = "reference";
  std::string corpus;
  std::vector<std::string> filters, excludes, tags, exclude_tags;
  std::string xfail, json, junit, html, stderr_path, rerun_failed;
  int timeout_ms = 10000;
  int jobs = 1;
  int max_consecutive_timeouts = conformance::kDefaultMaxConsecutiveTimeouts;
  int max_consecutive_crashes = conformance::kDefaultMaxConsecutiveCrashes;
  bool impl_given = false;
  double deadline = 0;
  bool quiet = false;
  bool allow_unsupported = false;
  bool fuzz = false;
  double seconds = 10;
  uint64_t seed = 1;
  std::vector<std::string> fuzz_ops;
  bool mpi = false;
  double rank_timeout = 30;
};

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// --fuzz: generated cases against the reference; the first disagreement shrunk and reproduced.
int fuzz(const ConformArgs& a) {
  using namespace conformance;
  if (a.impl == "reference") fail(rule::kUsage, "--fuzz compares an implementation with the reference: give --impl CMD");
  auto impl = subprocess(a.impl, a.timeout_ms, a.stderr_path);
  FuzzOptions o;
  o.seconds = a.seconds;
  o.seed = a.seed;
  o.ops = a.fuzz_ops;
  o.stop = &stop_signal();
  catch_stop_signals();
  impl->set_interrupt(&stop_signal());
  const FuzzOutcome r = conform_fuzz(protocol::OpRegistry::instance(), *impl, o);
  if (const std::string p = impl->copy_problem(); !p.empty()) fail(rule::kOutputWrite, p);
  std::cout << "fuzz: " << r.cases << " cases in " << static_cast<int>(r.seconds) << " s, " << r.agreed << " agreed, " << r.skipped
            << " skipped (unsupported or undecided by the reference)\n";
  if (const int sig = stop_signal().load()) {
    std::cout << "fuzz: INTERRUPTED by signal " << sig << (r.disagreement ? " (the disagreement below may be partly shrunk)" : ", no disagreement so far") << "\n";
    if (!r.disagreement) return stopped_exit_code();
  }
  // A run that asked nothing tested nothing: never a pass.
  if (r.cases == 0) fail(rule::kUsage, "no case ran within --seconds " + std::to_string(a.seconds) + ": nothing was tested");
  // Every case skipped (the implementation answered `skipped`, or the reference could not decide)
  // compared nothing: never a pass, as a corpus run that answered nothing (issue 30).
  if (!r.disagreement && r.agreed == 0 && !a.allow_unsupported)
    fail(rule::kUsage, "all " + std::to_string(r.cases) + " generated cases were skipped: nothing was compared; --allow-unsupported accepts such a run");
  if (!r.disagreement) return kOk;
  std::cout << "DISAGREEMENT after " << r.shrink_steps << " shrink steps: " << r.why << "\n"
            << "  request:   " << protocol::dump_line(r.request) << "\n"
            << "  reference: " << protocol::dump_line(r.reference) << "\n"
            << "  impl:      " << protocol::dump_line(r.impl) << "\n"
            << "reproduce: printf '%s\\n' " << shell_quote(R"({"cmd":"start","protocol":1})") << " "
            << shell_quote(protocol::dump_line(r.request)) << " | " << a.impl << "\n";
  return stop_signal().load() ? stopped_exit_code() : kViolations;
}

int conform(const ConformArgs& a) {
  using namespace conformance;
  if (a.fuzz && campaign_wanted(a.mpi)) fail(rule::kUsage, "conform --fuzz runs in one process: under mpiexec, split corpus runs (without --fuzz) or `tfspec fuzz`");
  if (a.fuzz) {
    check_report_paths({a.json, a.junit, a.html});
    return fuzz(a);
  }
  // Over MPI ranks (conform_ranks.cpp) rank 0 alone prints, from here on.
  std::unique_ptr<ranks::Campaign> campaign = campaign_wanted(a.mpi) ? start_campaign() : nullptr;
  if (campaign) check_reports_on_root(*campaign, {a.json, a.junit, a.html});
  else check_report_paths({a.json, a.junit, a.html});
  // A CI script that forgot --impl must not read like a pass of its own implementation.
  if (a.impl == "reference")
    std::cout << "conform: testing tfspec's built-in reference implementation" << (a.impl_given ? "" : " (no --impl given; --impl \"CMD\" tests yours)")
              << "\n";
  const std::string dir = a.corpus.empty() ? default_corpus_dir() : a.corpus;
  const auto cases = load_corpus(dir);
  RunOptions opts;
  opts.filters = a.filters;
  opts.excludes = a.excludes;
  opts.tags = a.tags;
  opts.exclude_tags = a.exclude_tags;
  if (!a.rerun_failed.empty()) opts.only_ids = failed_ids(a.rerun_failed);
  if (!a.quiet) {
    opts.progress = &std::cerr;
    opts.live = isatty(2);
    opts.progress_seconds = opts.live ? 0.2 : 5;
  }
  if (!a.xfail.empty()) opts.expected_failures = read_id_list(a.xfail);
  opts.max_consecutive_timeouts = a.max_consecutive_timeouts;
  opts.max_consecutive_crashes = a.max_consecutive_crashes;
  opts.deadline_seconds = a.deadline;
  opts.allow_unsupported = a.allow_unsupported;
  opts.interrupted = &stop_signal();
  catch_stop_signals();
  // --jobs N: N adapter processes; the in-process reference runs on one thread.
  auto start = [&a] {
    std::vector<std::unique_ptr<Implementation>> impls;
    const int n = a.impl == "reference" ? 1 : a.jobs;
    for (int k = 0; k < n; ++k)
      impls.push_back(a.impl == "reference" ? in_process(protocol::OpRegistry::instance()) : subprocess(a.impl, a.timeout_ms, a.stderr_path));
    return impls;
  };
  if (campaign) return run_conform_campaign(*campaign, cases, opts, start, {a.json, a.junit, a.html, a.quiet, a.rank_timeout});
  std::vector<std::unique_ptr<Implementation>> impls = start();
  std::vector<Implementation*> workers;
  for (auto& impl : impls) workers.push_back(impl.get());
  const Report report = run(cases, workers, opts);
  std::cout << text_report(report, !a.quiet) << std::flush;
  if (!a.json.empty()) write_report_file(a.json, json_report(report).dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  if (!a.junit.empty()) write_report_file(a.junit, junit_report(report));
  if (!a.html.empty()) write_report_file(a.html, html_report(report));
  for (auto& impl : impls)  // --impl-stderr that could not be written whole: never a silent loss
    if (const std::string p = impl->copy_problem(); !p.empty()) fail(rule::kOutputWrite, p);
  if (stop_signal().load() != 0) return stopped_exit_code();
  return exit_code(report) == 0 ? kOk : kViolations;
}

}  // namespace

void add_conform_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ConformArgs>();
  auto* sub = app.add_subcommand("conform", "Run the conformance corpus against an implementation (spec/corpus, spec/PROTOCOL.md)");
  sub->add_option("--impl", a->impl, "`reference` (in process) or a command speaking the protocol on stdin/stdout, e.g. \"python3 my_impl.py\"")
      ->each([a](const std::string&) { a->impl_given = true; });
  sub->add_option("--corpus", a->corpus, "the corpus directory (default: this source tree's spec/corpus)");
  sub->add_option("--filter", a->filters,
                  "run only cases matching a clause (§7, §7.1.2), an op (composition), an id prefix, or a glob over id, op or clause ('s3-*', 'shard.*'); repeatable");
  sub->add_option("--exclude", a->excludes, "skip the cases matching this (same forms as --filter); repeatable");
  sub->add_option("--tag", a->tags, "run only cases carrying this corpus tag (e.g. limit); repeatable");
  sub->add_option("--exclude-tag", a->exclude_tags, "skip the cases carrying this corpus tag (e.g. symbolic, extension); repeatable");
  sub->add_option("--rerun-failed", a->rerun_failed, "run only the cases a previous --json report marks fail, errored or xpass");
  sub->add_option("--jobs,-j", a->jobs,
                  "run N implementation processes at once, 1 to 64 (default 1); the report is the same, in corpus order (the in-process reference uses one)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--timeout-ms", a->timeout_ms, "per-case reply timeout for a subprocess, >= 1 (default 10000)")
      ->check(integer_in(1, 86'400'000, "a number of milliseconds from 1 to 86400000 (a day)"));
  sub->add_option("--max-consecutive-timeouts", a->max_consecutive_timeouts,
                  "stop after this many consecutive timed-out cases, the rest reported as not run (default 5; 0: never)")
      ->check(integer_in(0, 1'000'000'000, "an integer from 0 to 10^9"));
  sub->add_option("--max-consecutive-crashes", a->max_consecutive_crashes,
                  "stop after this many consecutive cases on which the implementation died instead of answering, the rest reported as not run (default 5; 0: never)")
      ->check(integer_in(0, 1'000'000'000, "an integer from 0 to 10^9"));
  sub->add_option("--deadline", a->deadline, "stop starting cases after this many seconds, the rest reported as not run")->check(positive_seconds());
  sub->add_flag("--allow-unsupported", a->allow_unsupported,
                "accept a run that tested nothing: the implementation supports none of the selected ops, or answers none of the selected cases (all skipped)");
  sub->add_option("--xfail", a->xfail,
                  "expected failures: case ids, one per line (# comments); they do not fail the run, but one that passes (XPASS) does, and an id that names no case is an error");
  sub->add_option("--json", a->json, "write the report as JSON to this file");
  sub->add_option("--junit", a->junit, "write the report as JUnit XML to this file");
  sub->add_option("--html", a->html, "write the report as one self-contained HTML file (per-clause table, failures expandable, layout answers drawn)");
  sub->add_option("--impl-stderr", a->stderr_path, "also append the implementation's stderr to this file (its last lines are shown with each errored case)");
  sub->add_flag("--quiet", a->quiet, "print only the per-clause table");
  sub->add_flag("--mpi", a->mpi, "split the selected cases over the MPI ranks (implied when mpiexec started tfspec): rank 0 prints the merged report");
  sub->add_option("--rank-timeout", a->rank_timeout, "under MPI: give up a rank that sent nothing for this many seconds, at least 1 (default 30)")
      ->check(rank_timeout_seconds());
  sub->add_flag("--fuzz", a->fuzz, "generated cases checked against the reference instead of the corpus; the first disagreement is shrunk");
  sub->add_option("--seconds", a->seconds, "--fuzz: time budget in seconds, 0.001 to 1e7 (default 10)")->check(positive_seconds());
  sub->add_option("--seed", a->seed, "--fuzz: seed, 0 to 2^64-1 (the run is reproducible by seed)")->check(integer_in(0, ~0ULL, "an integer from 0 to 2^64-1"));
  sub->add_option("--fuzz-op", a->fuzz_ops, "--fuzz: only these ops (default: size cosize eval coalesce filter injective complement composition logical_divide logical_product); repeatable");
  sub->callback([a, &exit_code] { exit_code = reported([&] { return conform(*a); }); });
}

}  // namespace tfspec::cli
