// `tfspec fuzz` over MPI ranks (issue 47; docs/fuzzing.md "Across MPI ranks"). Every rank runs
// its batches of the seed's stream (props::FuzzOptions::rank / ranks: batch b on rank b % R) and
// sends its counts and finding to rank 0, which merges them (props::merge_fuzz) and alone writes
// the reports, with a `ranks:` line and one `lost:` line per rank that sent nothing. A one-process
// run stops at its first disagreement while the other ranks run on, so rank 0 then names the
// earliest failing batch and every rank answers with its counts cut back to it (props::cut_fuzz).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "campaign.hpp"
#include "commands.hpp"
#include "fuzz_command.hpp"
#include "run_control.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {
namespace {

// Rank 0: the ranks' results as one report; `reports` in rank order.
int merged_report(const FuzzArgs& a, ranks::Campaign& c, const std::vector<ranks::RankReport>& reports, double waited) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<props::FuzzResult> parts;
  std::vector<RankCount> counts;
  std::vector<ranks::RankReport> lost;
  std::string unavailable;
  for (const auto& rep : reports) {
    if (!rep.reported) {
      lost.push_back(rep);
      continue;
    }
    const Json j = Json::parse(rep.result);
    if (j.contains("unavailable")) {
      unavailable += (unavailable.empty() ? "" : "; ") + std::string("rank ") + std::to_string(rep.rank) + " on " + rep.host + ": " + j["unavailable"].get<std::string>();
      continue;
    }
    parts.push_back(props::fuzz_result_from_json(j));
    counts.push_back({rep.rank, rep.host, parts.back().cases});
  }
  const Json extra = {{"ranks", ranks_json(counts)}, {"lost", lost_json(lost)}};
  if (!unavailable.empty()) {
    const std::string msg = "backend " + a.backend + " unavailable: " + unavailable;
    std::cout << "fuzz: SKIPPED, " << msg << " (exit " << kUnavailable << ", never a pass)" << std::endl;
    write_junit(a, nullptr, msg);
    Json j = extra;
    j["why"] = msg;
    write_json(a, props::FuzzResult{}, "skipped", j);
    return kUnavailable;
  }
  const props::FuzzResult r = props::merge_fuzz(parts);
  const Json cost = campaign_cost(reports, waited, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const int sig = stop_signal().load();
  if (r.cases == 0 && lost.empty() && !sig)
    fail(rule::kUsage, "no case ran within --seconds " + std::to_string(a.seconds) + " (the budget ended before the first case): nothing was tested");
  const std::string lost_text = lost_lines(lost, "cases");
  const std::string stopped = sig ? "interrupted by signal " + std::to_string(sig) + " after " + std::to_string(r.cases) + " cases"
                                  : (lost.empty() ? "" : std::to_string(lost.size()) + " rank(s) sent no result");
  write_junit(a, &r, "", r.disagreement ? "" : stopped + (lost_text.empty() ? "" : "\n" + lost_text));
  Json j = extra;
  j["campaign"] = cost;
  if (sig) j["signal"] = sig;
  write_json(a, r, r.disagreement ? "disagreement" : (sig ? "interrupted" : (lost.empty() ? verdict_of(r) : "incomplete")), j);
  int code = summary(a, r, sig ? sig : (lost.empty() ? 0 : -1));
  std::cout << ranks_line(counts, "cases") << "\n" << lost_text << std::flush;
  if (!lost.empty() && !r.disagreement && !sig) {
    // one write: under mpiexec this rank's stderr and stdout reach the terminal as separate
    // streams, and a line written piece by piece can be cut by the other stream's lines
    const std::string line = "undecided: [" + std::string(rule::kCampaignRankLost.id) + " -] " + std::to_string(lost.size()) + " of " +
                             std::to_string(reports.size()) + " ranks sent no result: the merged report covers the others' cases only (lost: lines above)\n";
    std::cerr << line << std::flush;
    code = kUnknown;
  }
  if (sig && !r.disagreement) code = stopped_exit_code();
  if (!lost.empty()) c.abort_job(code);  // a rank given up may still hang: end the job
  return code;
}

// Rank 0, after collect(): the campaign's earliest failing batch B (-1: none) goes to every rank
// that reported; with a B, each answers with its counts up to B (a one-process run's stream stops
// there) and its report's result is replaced by that answer. A rank that does not answer within
// the rank timeout is given up as lost (its uncut counts would not be the one-process run's).
void cut_at_first_finding(const FuzzArgs& a, ranks::Campaign& c, std::vector<ranks::RankReport>& reports, const props::FuzzResult& mine,
                          const std::vector<props::BatchCounts>& batches) {
  std::vector<props::FuzzResult> parts;
  std::vector<int> asked;
  bool unavailable = false;  // nothing to merge: the report says why
  for (const auto& rep : reports) {
    if (!rep.reported) continue;
    if (rep.rank != 0) asked.push_back(rep.rank);
    const Json j = Json::parse(rep.result);
    if (j.contains("unavailable")) unavailable = true;
    else parts.push_back(props::fuzz_result_from_json(j));
  }
  if (unavailable) return (void)c.ask("-1", asked, false, a.rank_timeout);  // (every rank reported: it is not merged)
  const int64_t b = props::earliest_failing_batch(parts);
  // " lost": rank 0 will end the job without MPI_Finalize (a lost rank may hang), and so must they.
  const bool lost = std::any_of(reports.begin(), reports.end(), [](const ranks::RankReport& r) { return !r.reported; });
  const auto answers = c.ask(std::to_string(b) + (lost ? " lost" : ""), asked, b >= 0, a.rank_timeout);
  if (b < 0) return;
  reports[0].result = props::fuzz_result_json(props::cut_fuzz(mine, batches, b)).dump();
  for (size_t i = 0; i < asked.size(); ++i) {
    ranks::RankReport& rep = reports[static_cast<size_t>(asked[i])];
    if (answers[i]) rep.result = *answers[i];
    else rep.reported = false, rep.last_note += " (its counts were not cut back to the failing batch " + std::to_string(b) + ": no answer)";
  }
}

// A rank other than 0, its share run: its result to rank 0, then rank 0's word (the cut at the
// campaign's earliest disagreement). Rank 0 gives signs of life while it runs its own share and
// collects; none for the rank timeout and rank 0 is lost: this rank writes its result itself
// (root_lost). A signal while it waits means mpiexec is ending the job, perhaps because rank 0
// died, with SIGKILL a second later: a finding is written at once, in case rank 0 cannot.
int other_rank(const FuzzArgs& a, ranks::Campaign& c, const props::FuzzResult& result, const Json& mine, const std::vector<props::BatchCounts>& batches) {
  const std::string finding = result.disagreement ? "a disagreement in op " + result.op + ": reproduce: " + reproduce(a, result.case_text) : "";
  c.when_stopped(&stop_signal(), [&] {
    if (!finding.empty()) tell_own(c, "finding", finding);
  });
  c.finish(mine.dump(), a.rank_timeout);
  const auto word = c.await_word(a.rank_timeout);  // "B" or "B lost", B = -1: no cut
  if (!word) root_lost(c, std::to_string(result.cases) + " cases, " + (finding.empty() ? std::string("no disagreement") : finding), mine.dump());
  if (std::stoll(*word) >= 0) c.answer(props::fuzz_result_json(props::cut_fuzz(result, batches, std::stoll(*word))).dump(), a.rank_timeout);
  if (word->find("lost") != std::string::npos) c.abort_job(kOk);  // as rank 0 does: MPI_Finalize would wait for the lost rank
  c.when_stopped(nullptr, {});  // its callback refers to this function's locals
  return kOk;  // rank 0 says how the run went
}

}  // namespace

int run_fuzz_campaign(const FuzzArgs& a) {
  check_fuzz_names(a);
  if (std::getenv("GTEST_TOTAL_SHARDS"))
    fail(rule::kUsage, "GTEST_TOTAL_SHARDS and MPI ranks would both split the run: unset GTEST_TOTAL_SHARDS under mpiexec");
  const CampaignFault fault = campaign_fault_from_env();
  auto c = start_campaign();
  check_reports_on_root(*c, {a.json, a.junit});
  install_crash_report(*c);
  if (a.backend == "cuda") one_device_per_rank(*c);
  std::unique_ptr<gpu::Backend> backend = gpu::make_backend(a.backend);
  props::FuzzOptions o;
  o.seconds = a.seconds;
  o.seed = a.seed;
  o.op = a.op;
  o.max_cases = a.max_cases;
  o.rank = c->rank();
  o.ranks = c->size();
  o.progress = a.quiet || !c->root() ? nullptr : &std::cout;
  o.stop = &stop_signal();
  Heartbeat beat(*c, fault);
  o.on_case = [&beat](uint64_t, int, const props::FuzzCase& k) { beat.started(props::fuzz_case_text(k)); };
  o.on_shrink_step = [&beat] { beat.alive(); };
  std::vector<props::BatchCounts> batches;
  o.batches = &batches;
  catch_stop_signals();
  const gpu::PlanPolicy policy = planted_policy();
  props::FuzzResult result;
  Json mine;
  if (auto why = backend->unavailable()) {
    mine = {{"unavailable", *why}};
  } else {
    std::cout << "fuzz: backend " << a.backend << ", op " << a.op << ", seed " << a.seed << ", " << c->size() << " MPI ranks, " << a.seconds << " s"
              << std::endl;
    result = props::run_fuzz(*backend, o, policy);
    mine = props::fuzz_result_json(result);
  }
  if (!c->root()) return other_rank(a, *c, result, mine, batches);
  const auto t0 = std::chrono::steady_clock::now();
  auto reports = c->collect(mine.dump(), a.rank_timeout, &stop_signal(), 0.5);
  cut_at_first_finding(a, *c, reports, result, batches);
  return merged_report(a, *c, reports, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace tfspec::cli
