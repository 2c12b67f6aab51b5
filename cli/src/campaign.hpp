// `fuzz` and `conform` under mpiexec (issue 47; docs/fuzzing.md and docs/conformance.md "Across
// MPI ranks"): what the two commands share on top of the rank/merge helper (ranks/): whether a
// run is a campaign, one device a rank, the heartbeat notes to rank 0, the test-only fault, and
// the report lines of the ranks (how many cases each ran, which were lost and what they did last).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tfspec/ranks/ranks.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::cli {

// --mpi was given or an MPI launcher started this process (OMPI_COMM_WORLD_SIZE, PMIX_RANK, ...).
bool campaign_wanted(bool mpi_flag);
// MPI started; ranks other than 0 print nothing from here on (rank 0 prints the merged report);
// their own crash is still told on stderr (install_crash_report).
std::unique_ptr<ranks::Campaign> start_campaign();
// A rank other than 0 that waited for rank 0's word after sending its result, and heard no sign
// of life from rank 0 for the rank timeout (rank 0 crashed, was killed or hangs): with no rank to
// merge, it writes on stderr an undecided campaign-rank-lost line, then its own result, unmerged
// (`summary` in one line, then the JSON: nothing it found is lost), and ends the job (exit 2;
// MPI_Finalize would wait for rank 0).
[[noreturn]] void root_lost(ranks::Campaign& c, const std::string& summary, const std::string& result_json);
// A rank other than 0, stopped by a signal while it waits for rank 0: "tfspec: rank R on HOST,
// stopped by signal S, writes its own WHAT in case rank 0 cannot merge it: TEXT" on stderr.
void tell_own(const ranks::Campaign& c, const std::string& what, const std::string& text);
// Rank 0 alone writes the reports: it checks their paths (check_report_paths) before the run;
// one that cannot be opened is reported and the job ended (exit 3) at once, rather than after
// every rank ran its share. The other ranks do nothing here.
void check_reports_on_root(ranks::Campaign& c, const std::vector<std::string>& paths);
// --backend cuda: one device a rank, the rank's local rank among the devices CUDA_VISIBLE_DEVICES
// lists (or 0, 1, ... when it is unset); set before the backend touches CUDA.
void one_device_per_rank(const ranks::Campaign& c);

// The test-only fault TFSPEC_CAMPAIGN_FAULT=kill:RANK:CASE | hang:RANK:CASE | crash:RANK:CASE:
// rank RANK sends itself SIGKILL, sleeps for ever, or raises SIGSEGV when it starts its
// CASE-th case (1-based; conform: at its first progress note past CASE cases done, one every
// Heartbeat::kNoteSeconds). Read whole; a malformed value is a usage error naming the part.
struct CampaignFault {
  enum class Kind { None, Kill, Hang, Crash } kind = Kind::None;
  int rank = -1;
  int64_t at = 0;
  // On rank RANK, once `cases` reached CASE: the fault (kill and crash do not return, hang never).
  void fire_at(int my_rank, int64_t cases) const;
};
CampaignFault campaign_fault_from_env();

// What a rank tells rank 0 while it runs: every case it starts (its text kept for the crash
// report, the fault applied) and, at most every kNoteSeconds, a note {"cases", "case"}; rank 0
// reads the others' notes instead.
class Heartbeat {
 public:
  static constexpr double kNoteSeconds = 0.2;
  Heartbeat(ranks::Campaign& c, CampaignFault fault);
  void started(const std::string& case_text);
  // A sign of life between cases (a shrink step): the same note or read, at the same pace.
  void alive();
  int64_t cases() const { return cases_; }

 private:
  ranks::Campaign& c_;
  CampaignFault fault_;
  int64_t cases_ = 0;
  std::string last_case_;
  std::chrono::steady_clock::time_point last_;
};
// SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: this rank writes its rank, host and the case it
// started last to stderr, then dies of the signal as it would have.
void install_crash_report(const ranks::Campaign& c);

// The lines every campaign report ends with: "ranks: R (rank 0 on HOST: N cases, ...)", and
// for each rank that did not report, who it was and what it started last.
struct RankCount {
  int rank;
  std::string host;
  int64_t cases;
};
std::string this_host();  // gethostname, "?" when it fails
std::string ranks_line(const std::vector<RankCount>& ranks, const char* unit);
Json ranks_json(const std::vector<RankCount>& ranks);
// One line per rank given up ("" when none), and the same as JSON.
std::string lost_lines(const std::vector<ranks::RankReport>& lost, const char* unit);
Json lost_json(const std::vector<ranks::RankReport>& lost);

// What the merge cost rank 0 (the JSON report's "campaign"): the seconds it waited for the
// others after its own share, the seconds it took to merge, and the bytes of the results.
Json campaign_cost(const std::vector<ranks::RankReport>& reports, double waited, double merged);

}  // namespace tfspec::cli
