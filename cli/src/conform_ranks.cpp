// `tfspec conform` over MPI ranks (issue 47; docs/conformance.md "Across MPI ranks"): every rank
// runs its share of the selected cases (conformance::share_of), its progress lines travel to
// rank 0 as notes (the heartbeat), and rank 0 merges the shares (conformance::merge_parts) into
// the report of a one-process run, with a `ranks:` line and a `lost:` line per rank that sent
// nothing (its cases errored as not run).
#include "conform_ranks.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "campaign.hpp"
#include "commands.hpp"
#include "run_control.hpp"
#include "tfspec/conformance/html_report.hpp"
#include "tfspec/conformance/ranks.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {
namespace {

using namespace conformance;

// The runner's progress lines, as notes to rank 0 (other ranks) or as the moments rank 0 reads
// the others' notes (printing its own line on stderr every 5 s unless quiet).
class NoteBuf : public std::stringbuf {
 public:
  NoteBuf(ranks::Campaign& c, bool print, CampaignFault fault) : c_(c), print_(print), fault_(fault) {}
  int sync() override {
    std::string text = str();
    str("");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.empty()) return 0;
    if (unsigned long long done = 0; std::sscanf(text.c_str(), "conform: %llu/", &done) == 1) fault_.fire_at(c_.rank(), static_cast<int64_t>(done));
    if (!c_.root()) c_.note(text);
    else {
      c_.read_notes();
      if (print_ && ++lines_ % 25 == 1) std::cerr << text << "\n";
    }
    return 0;
  }

 private:
  ranks::Campaign& c_;
  bool print_;
  CampaignFault fault_;
  int lines_ = 0;
};

Report my_share(const std::vector<CorpusCase>& cases, RunOptions opts, const std::vector<const CorpusCase*>& picked, const ranks::Campaign& c,
                const StartImpls& start, std::ostream& notes) {
  opts.only_ids = share_of(picked, c.rank(), c.size());
  Report r;
  if (opts.only_ids.empty()) return r;  // more ranks than cases
  opts.allow_unsupported = true;  // decided by rank 0 on the merged report
  opts.progress = &notes;
  opts.live = false;
  opts.progress_seconds = Heartbeat::kNoteSeconds;
  auto impls = start();
  std::vector<Implementation*> workers;
  for (auto& impl : impls) workers.push_back(impl.get());
  r = run(cases, workers, opts);
  for (auto& impl : impls)
    if (const std::string p = impl->copy_problem(); !p.empty()) fail(rule::kOutputWrite, p);
  return r;
}

// A rank's share in one line, for a rank that cannot hand it to rank 0: its cases by status.
std::string share_line(const Json& part) {
  if (part.contains("error")) return "stopped with an error: " + part["error"].get<std::string>();
  std::map<std::string, int> by_status;
  for (const auto& [id, c] : part.at("cases").items()) ++by_status[c.value("status", "?")];
  std::string s = std::to_string(part.at("cases").size()) + " cases";
  for (const auto& [status, n] : by_status) s += ", " + std::to_string(n) + " " + status;
  return s;
}

// The cases of a rank's share that failed (not an expected failure), passed where a failure was
// expected (xpass) or errored, by id ("" when none).
std::string not_passed(const Json& part) {
  if (part.contains("error")) return "";
  std::string s;
  for (const auto& [id, c] : part.at("cases").items()) {
    const std::string st = c.value("status", "?");
    const bool expected = c.value("expected_failure", false);
    const std::string what = st == "errored" ? st : (st == "fail" && !expected) ? "fail" : (st == "pass" && expected) ? "xpass" : "";
    if (!what.empty()) s += (s.empty() ? "" : ", ") + id + " (" + what + ")";
  }
  return s.empty() ? "" : "not passed: " + s;
}

int merged_report(const std::vector<const CorpusCase*>& picked, const RunOptions& opts, ranks::Campaign& c,
                  const std::vector<ranks::RankReport>& reports, const ConformOutputs& out, double waited) {
  const auto t0 = std::chrono::steady_clock::now();
  std::map<int, Json> parts;
  std::map<int, std::string> why_lost;
  std::vector<ranks::RankReport> lost;
  std::vector<RankCount> counts;
  for (const auto& rep : reports) {
    const Json part = rep.reported ? Json::parse(rep.result) : Json();
    if (!rep.reported || part.contains("error")) {
      lost.push_back(rep);
      why_lost[rep.rank] = "rank " + std::to_string(rep.rank) + " on " + rep.host +
                           (rep.reported ? " stopped with an error: " + part["error"].get<std::string>()
                                         : " sent no result (it crashed, was killed or stopped answering)");
      if (rep.reported) lost.back().last_note = "error: " + part["error"].get<std::string>();
      continue;
    }
    parts[rep.rank] = part;
    counts.push_back({rep.rank, rep.host, static_cast<int64_t>(parts[rep.rank].at("cases").size())});
  }
  const Report report = merge_parts(picked, c.size(), parts, why_lost);
  const int sig = stop_signal().load();
  if (!opts.allow_unsupported && !sig && lost.empty()) refuse_if_untested(report);
  std::cout << text_report(report, !out.quiet) << ranks_line(counts, "cases") << "\n" << lost_lines(lost, "cases") << std::flush;
  Json j = json_report(report);
  j["ranks"] = ranks_json(counts);
  j["lost"] = lost_json(lost);
  j["campaign"] = campaign_cost(reports, waited, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (!out.json.empty()) write_report_file(out.json, j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  if (!out.junit.empty()) write_report_file(out.junit, junit_report(report));
  if (!out.html.empty()) write_report_file(out.html, html_report(report));
  int code = exit_code(report) == 0 ? kOk : kViolations;
  const Counts n = report.totals();
  if (!lost.empty() && n.fail + n.xpass == 0) {
    // one write: under mpiexec this rank's stderr and stdout reach the terminal as separate
    // streams, and a line written piece by piece can be cut by the other stream's lines
    const std::string line = "undecided: [" + std::string(rule::kCampaignRankLost.id) + " -] " + std::to_string(lost.size()) + " of " +
                             std::to_string(reports.size()) + " ranks sent no result: their cases are errored as not run (lost: lines above)\n";
    std::cerr << line << std::flush;
    code = kUnknown;
  }
  if (sig) code = stopped_exit_code();
  if (!lost.empty()) c.abort_job(code);  // a rank given up may still hang: end the job
  return code;
}

}  // namespace

int run_conform_campaign(ranks::Campaign& campaign, const std::vector<CorpusCase>& cases, RunOptions opts, const StartImpls& start,
                         const ConformOutputs& out) {
  ranks::Campaign* c = &campaign;
  const CampaignFault fault = campaign_fault_from_env();
  install_crash_report(*c);
  const std::vector<const CorpusCase*> picked = select_cases(cases, opts);
  NoteBuf buf(*c, !out.quiet, fault);
  std::ostream notes(&buf);
  Json mine;
  try {
    mine = part_json(my_share(cases, opts, picked, *c, start, notes));
  } catch (const SpecError& e) {
    if (c->root()) {  // its error is the run's; the others, told, end with it rather than wait for a lost rank 0
      std::vector<int> others;
      for (int r = 1; r < c->size(); ++r) others.push_back(r);
      c->ask("merging", others, false, out.rank_timeout);
      throw;
    }
    mine = {{"error", "[" + e.rule() + " " + e.clause() + "] " + e.diagnostic().message}};  // rank 0 tells it
  }
  if (!c->root()) {
    const std::string text = mine.dump(-1, ' ', false, Json::error_handler_t::replace);
    // A signal while it waits: the job is ending, perhaps because rank 0 died (fuzz_ranks.cpp's
    // other_rank): cases that did not pass are written at once, in case rank 0 cannot.
    c->when_stopped(&stop_signal(), [&] {
      if (const std::string bad = not_passed(mine); !bad.empty()) tell_own(*c, "share", share_line(mine) + "; " + bad);
    });
    c->finish(text, out.rank_timeout);
    // Rank 0's word "merging" comes once every rank reported (fuzz_ranks.cpp says why it is awaited).
    if (!c->await_word(out.rank_timeout)) root_lost(*c, share_line(mine), text);
    c->when_stopped(nullptr, {});  // its callback refers to this function's locals
    return kOk;  // rank 0 says how the run went
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto reports = c->collect(mine.dump(-1, ' ', false, Json::error_handler_t::replace), out.rank_timeout, &stop_signal(), 0.5);
  std::vector<int> reported;
  for (const auto& rep : reports)
    if (rep.rank != 0 && rep.reported) reported.push_back(rep.rank);
  c->ask("merging", reported, false, out.rank_timeout);
  return merged_report(picked, opts, *c, reports, out, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace tfspec::cli
