// A fuzz campaign split over R ranks (issue 47; docs/fuzzing.md "Across MPI ranks"), without
// MPI: each rank's run of its batches (FuzzOptions::rank / ranks) is made here in turn, and the
// merge of the R results (merge_fuzz) must be the one-process run of the same seed and
// --max-cases: the oracle is the unsplit driver, an independent path through the stream. A
// planted bug must be found as the same shrunk case after the same number of cases of the stream.
#include <gtest/gtest.h>

#include "tfspec/gpu/backend.hpp"
#include "tfspec/gpu/plan.hpp"
#include "tfspec/props/fuzz.hpp"
#include "release_only.hpp"

using namespace tfspec;
using namespace tfspec::props;

namespace {

FuzzResult one_rank(const std::string& op, int64_t max_cases, int rank, int ranks, const gpu::PlanPolicy& policy = {},
                    std::vector<BatchCounts>* batches = nullptr) {
  auto host = gpu::make_host_backend(1);
  FuzzOptions o;
  o.seconds = 120;
  o.seed = 5;
  o.op = op;
  o.max_cases = max_cases;
  o.rank = rank;
  o.ranks = ranks;
  o.batches = batches;
  return run_fuzz(*host, o, policy);
}

FuzzResult split(const std::string& op, int64_t max_cases, int ranks, std::vector<int64_t>& cases, const gpu::PlanPolicy& policy = {}) {
  std::vector<FuzzResult> parts;
  for (int r = 0; r < ranks; ++r) {
    parts.push_back(fuzz_result_from_json(fuzz_result_json(one_rank(op, max_cases, r, ranks, policy))));  // as rank 0 receives it
    cases.push_back(parts.back().cases);
  }
  return merge_fuzz(parts);
}

// The same counts: per op (cases, refusals, skips, largest sizes and offsets), by rule, in all.
void expect_same_counts(const FuzzResult& one, const FuzzResult& merged) {
  EXPECT_EQ(merged.cases, one.cases);
  EXPECT_EQ(merged.refusals_by_rule, one.refusals_by_rule);
  ASSERT_EQ(merged.per_op.size(), one.per_op.size());
  for (const auto& [op, s] : one.per_op) {
    const FuzzStats& m = merged.per_op.at(op);
    EXPECT_EQ(m.cases, s.cases) << op;
    EXPECT_EQ(m.refusals, s.refusals) << op;
    EXPECT_EQ(m.skipped, s.skipped) << op;
    EXPECT_EQ(m.backend_skipped, s.backend_skipped) << op;
    EXPECT_EQ(m.max_size, s.max_size) << op;
    EXPECT_EQ(m.max_abs_value, s.max_abs_value) << op;
    EXPECT_EQ(m.wide, s.wide) << op;
  }
}

}  // namespace

// 1250 cases of the stream are 13 batches of 100 (the last cut to 50): batch b on rank b % R.
// By hand: R=2: batches 0,2,..,12 (7, the cut one among them: 650) and 1,3,..,11 (6: 600);
// R=3: 0,3,6,9,12 (450), 1,4,7,10 (400), 2,5,8,11 (400); R=4: 0,4,8,12 (350), 3 batches each (300).
TEST(FuzzRanks, TheMergedRunIsTheOneProcessRun) {
  TFSPEC_RELEASE_BUILD_ONLY("four campaigns of the same stream compared; ThePlantedBugIsFoundAsInOneProcess covers the merge under ASan");
  const FuzzResult one = one_rank("all", 1250, 0, 1);
  ASSERT_FALSE(one.disagreement);
  ASSERT_EQ(one.cases, 1250);
  const std::vector<std::vector<int64_t>> by_hand = {{1250}, {650, 600}, {450, 400, 400}, {350, 300, 300, 300}};
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::vector<int64_t> cases;
    const FuzzResult merged = split("all", 1250, ranks, cases);
    EXPECT_EQ(cases, by_hand[static_cast<size_t>(ranks - 1)]);
    EXPECT_FALSE(merged.disagreement);
    expect_same_counts(one, merged);
  }
}

// A planted bug (the host backend told to treat Partial axes as broadcast: the reduction
// dropped): every split finds the disagreement a one-process run finds, the same shrunk case
// after the same number of cases of the stream, whichever rank ran its batch.
TEST(FuzzRanks, ThePlantedBugIsFoundAsInOneProcess) {
  gpu::PlanPolicy drop_reduction;
  drop_reduction.axis_kind = [](const ShardAttr& a) { return std::holds_alternative<Split>(a) ? gpu::kAxisSplit : gpu::kAxisBroadcast; };
  const FuzzResult one = one_rank("reshard", 3000, 0, 1, drop_reduction);
  ASSERT_TRUE(one.disagreement) << "the planted bug survived " << one.cases << " cases";
  for (int ranks = 2; ranks <= 4; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::vector<int64_t> cases;
    const FuzzResult merged = split("reshard", 3000, ranks, cases, drop_reduction);
    ASSERT_TRUE(merged.disagreement);
    EXPECT_EQ(merged.case_text, one.case_text);
    EXPECT_EQ(merged.cases_before_failure, one.cases_before_failure);
    EXPECT_EQ(merged.shrink_steps, one.shrink_steps);
    EXPECT_EQ(merged.reference_text, one.reference_text);
    EXPECT_EQ(merged.backend_text, one.backend_text);
    EXPECT_EQ(merged.failing_batch, one.failing_batch);
  }
}

// Issue 47: a disagreement stops a one-process run, while the other ranks of a campaign run on
// (they do not hear of it). Rank 0 names the earliest failing batch B and every rank cuts its
// counts back to its batches up to B (cut_fuzz): the merged counts are then the one-process
// run's exactly, the ranks' case counts summing to it. The split runs past the finding (checked:
// without the cut the ranks ran more cases than the one-process run), so the cut is exercised.
// With --op all the ops take turns by batch, so the planted bug (reshard only) first shows in the
// first reshard batch (4 for seed 5): every rank has whole batches before it.
TEST(FuzzRanks, ADisagreementCutsTheCountsAsInOneProcess) {
  gpu::PlanPolicy drop_reduction;
  drop_reduction.axis_kind = [](const ShardAttr& a) { return std::holds_alternative<Split>(a) ? gpu::kAxisSplit : gpu::kAxisBroadcast; };
  const FuzzResult one = one_rank("all", 3000, 0, 1, drop_reduction);
  ASSERT_TRUE(one.disagreement) << "the planted bug survived " << one.cases << " cases";
  // A one-process run stops at the failing case, inside the failing batch (batches of 100).
  EXPECT_EQ(one.cases, one.cases_before_failure);
  ASSERT_GT(one.cases, one.failing_batch * 100);
  ASSERT_LE(one.cases, one.failing_batch * 100 + 100);
  ASSERT_GE(one.failing_batch, 3) << "every rank should have run a whole batch before the failing one";
  for (int ranks = 2; ranks <= 3; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::vector<FuzzResult> parts;
    std::vector<std::vector<BatchCounts>> batches(static_cast<size_t>(ranks));
    int64_t uncut = 0;
    for (int r = 0; r < ranks; ++r) {
      parts.push_back(fuzz_result_from_json(fuzz_result_json(one_rank("all", 3000, r, ranks, drop_reduction, &batches[static_cast<size_t>(r)]))));
      uncut += parts.back().cases;
    }
    EXPECT_GT(uncut, one.cases) << "no rank ran past the finding: the cut was not exercised";
    const int64_t b = earliest_failing_batch(parts);
    ASSERT_EQ(b, one.failing_batch);
    int64_t sum = 0;
    for (int r = 0; r < ranks; ++r) {
      parts[static_cast<size_t>(r)] = cut_fuzz(parts[static_cast<size_t>(r)], batches[static_cast<size_t>(r)], b);
      // By hand: rank r ran batches r, r + R, ... ; up to B those are the full batches before B
      // (100 cases each) and, on B's rank, B itself up to the failing case.
      int64_t expect = 0;
      for (int64_t k = r; k <= b; k += ranks) expect += k < b ? 100 : one.cases_before_failure - b * 100;
      EXPECT_EQ(parts[static_cast<size_t>(r)].cases, expect) << "rank " << r;
      sum += parts[static_cast<size_t>(r)].cases;
    }
    EXPECT_EQ(sum, one.cases);
    const FuzzResult merged = merge_fuzz(parts);
    ASSERT_TRUE(merged.disagreement);
    EXPECT_EQ(merged.case_text, one.case_text);
    EXPECT_EQ(merged.cases_before_failure, one.cases_before_failure);
    expect_same_counts(one, merged);
  }
}
