// `tfspec fuzz`'s arguments and reports, shared by the one-process run (cmd_fuzz.cpp) and the
// run split over MPI ranks (fuzz_ranks.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "tfspec/gpu/plan.hpp"
#include "tfspec/props/fuzz.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::cli {

struct FuzzArgs {
  std::string backend = "host";
  double seconds = 10;
  uint64_t seed = 1;
  std::string op = "all";
  std::string replay, junit, json;
  bool replay_given = false;
  int64_t max_cases = 0;
  bool quiet = false;
  bool mpi = false;
  double rank_timeout = 30;
};

// The op and backend names, checked before any backend starts.
void check_fuzz_names(const FuzzArgs& a);
// The summary lines on stdout and the verdict's exit code; `stopped_by`: the signal that ended the
// run (0: none; -1: a campaign that lost a rank, so no pass).
int summary(const FuzzArgs& a, const props::FuzzResult& r, int stopped_by);
// `stopped`: why the run ended early or tested nothing (an error testcase), "" when neither.
void write_junit(const FuzzArgs& a, const props::FuzzResult* r, const std::string& skipped, const std::string& stopped = "");
// --json: the run's counts and finding (props::fuzz_result_json) with the run's settings, its
// verdict, and `extra` merged in (a campaign's "ranks" and "lost").
std::string verdict_of(const props::FuzzResult& r);  // disagreement, undecided (every case skipped) or pass
void write_json(const FuzzArgs& a, const props::FuzzResult& r, const std::string& verdict, const Json& extra);
// The test-only planted bug TFSPEC_FUZZ_PLANT=drop-reduction (the backend's plans treat Partial
// axes as Broadcast: the reduction dropped, as props' tests plant it), so that a one-process run
// and a run over MPI ranks can be shown to stop at the same disagreement with the same counts;
// unset: the default policy. Any other value is a usage error.
gpu::PlanPolicy planted_policy();
// The one-line command that replays a case (printed with every disagreement).
std::string reproduce(const FuzzArgs& a, const std::string& case_text);
// The run split over MPI ranks (docs/fuzzing.md "Across MPI ranks").
int run_fuzz_campaign(const FuzzArgs& a);

}  // namespace tfspec::cli
