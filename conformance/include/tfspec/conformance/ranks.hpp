// A corpus run split over MPI ranks (issue 47; docs/conformance.md "Across MPI ranks"): the
// selected cases, in corpus order, dealt round-robin (case i to rank i % R); each rank's report
// as JSON for rank 0; rank 0's merge into the report of one run over the same cases, in corpus
// order, so the text, JSON, JUnit and HTML reports are those of a one-process run (the times
// aside). The transport is the rank/merge helper (ranks/); this file knows only cases.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tfspec/conformance/runner.hpp"

namespace tfspec::conformance {

// The ids of rank `rank`'s share of `picked` (select_cases): every `ranks`-th case from the rank-th.
std::set<std::string> share_of(const std::vector<const CorpusCase*>& picked, int rank, int ranks);
// One rank's report: the implementation, restarts, seconds, why it stopped, and every outcome by id.
Json part_json(const Report& r);
// The ranks' reports as one: the cases of `picked` in order; a case whose rank sent no report is
// errored and not run, its detail `lost[rank]` (why that rank is missing). `parts` by rank.
Report merge_parts(const std::vector<const CorpusCase*>& picked, int ranks, const std::map<int, Json>& parts, const std::map<int, std::string>& lost);

}  // namespace tfspec::conformance
