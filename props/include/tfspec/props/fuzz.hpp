// Differential fuzzing of the optimized implementation (gpu/) against the reference: one case
// type for every operation, its text form (the replay string), the two answers and the verdict,
// and the time-bounded RapidCheck driver behind `tfspec fuzz`.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "tfspec/gpu/backend.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::props {

// The operations fuzzed; "all" rotates through them.
const std::vector<std::string>& fuzz_ops();

// One case. Text form (`fuzz_case_text`), fields separated by " # ":
//   offsets # LAYOUT            crd2idx # LAYOUT # c,c,..;c,c,..     gather|scatter # LAYOUT # BUFFER
//   reshard # SHAPE # SRC # SRC_STORAGE # DST # DST_STORAGE # NOISE # DATA
// LAYOUT is Layout / ComposedLayout text, SRC / DST shard(...) text; the source engines are the
// reference's partition of DATA with contributions drawn from NOISE (so Partial sums are lopsided);
// when NOISE % 8 == 7 one value of the last engine is then changed (replicas may disagree).
struct FuzzCase {
  std::string op;
  std::string layout;
  std::vector<std::vector<int64_t>> coords;  // crd2idx: flat coordinates
  int64_t buffer = 0;                        // gather / scatter buffer size
  std::vector<int64_t> shape;                // reshard
  std::string src, dst;
  Storage src_storage = Storage::Rmem, dst_storage = Storage::Rmem;
  uint64_t noise = 0;
  std::vector<int64_t> data;
};
std::string fuzz_case_text(const FuzzCase& c);
FuzzCase parse_fuzz_case(const std::string& text);  // SpecError "usage" on malformed text
void showValue(const FuzzCase& c, std::ostream& os);
// A reshard case's source engines, as both sides receive them (empty when the source is invalid).
Engines fuzz_source_engines(const FuzzCase& c);
// How big a case is (domain size, or logical size for reshard): the progress line's "size".
int64_t fuzz_case_size(const FuzzCase& c);

// Generators (ranks 1-8, nesting, size-1 modes, stride 0, strides near 2^31, composed layouts,
// every attr kind and storage, uneven and aliasing shard layouts that must be refused).
rc::Gen<Layout> gen_fuzz_layout();
rc::Gen<LayoutPtr> gen_fuzz_composed();
rc::Gen<FuzzCase> gen_fuzz_case(const std::string& op);

// An answer: the values (or engines), or a refusal with its rule id.
struct FuzzAnswer {
  std::optional<std::string> rule;
  std::string message;
  std::vector<int64_t> values;
  std::optional<Engines> engines;
};
std::string describe(const FuzzAnswer& a);  // one line, long value lists elided

FuzzAnswer reference_answer(const FuzzCase& c);
FuzzAnswer backend_answer(const FuzzCase& c, gpu::Backend& backend, const gpu::PlanPolicy& policy = {});

// Agree: same values, or refusals with the same rule id. Skip: the reference could not decide
// (a Limit rule other than int64-overflow) or the backend hit a plan limit. Disagree: otherwise.
enum class Verdict { Agree, Skip, Disagree };
struct FuzzCheck {
  Verdict verdict;
  FuzzAnswer reference, backend;
};
FuzzCheck check_fuzz_case(const FuzzCase& c, gpu::Backend& backend, const gpu::PlanPolicy& policy = {});

struct BatchCounts;  // below

struct FuzzOptions {
  double seconds = 10;
  uint64_t seed = 1;
  std::string op = "all";
  int shard_index = 0, total_shards = 1;  // GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS
  // A campaign over MPI ranks (issue 47): batch b of the seed's stream is run by rank b % ranks,
  // and --max-cases bounds the whole stream (its first max_cases cases), so the ranks' batches
  // together are exactly the batches of a one-process run (docs/fuzzing.md "Across MPI ranks").
  int rank = 0, ranks = 1;
  int64_t max_cases = 0;                  // at most this many cases (exact); 0: until the time is up
  int batch = 100;                        // cases per RapidCheck run (one seed each)
  std::ostream* progress = nullptr;       // a progress line about once a second
  const std::atomic<int>* stop = nullptr;  // non-zero (a signal handler's flag): stop before the next case
  // Called as each case starts (not for shrink steps): its batch, its index in the batch, the case.
  std::function<void(uint64_t batch, int index, const FuzzCase&)> on_case;
  // Called at each shrink step of a disagreement (a campaign's sign of life while it shrinks).
  std::function<void()> on_shrink_step;
  // When set, each batch this run ran (in order) with its own counts.
  std::vector<BatchCounts>* batches = nullptr;
};
struct FuzzStats {
  int64_t cases = 0, refusals = 0, skipped = 0;
  int64_t backend_skipped = 0;  // of `skipped`: the backend could not decide (backend-unsupported, its own limits) where the reference did
  int64_t max_size = 0;       // the largest fuzz_case_size of the op's cases
  int64_t max_abs_value = 0;  // offsets / crd2idx: the largest |offset| the reference answered
  int64_t wide = 0;           // offsets / crd2idx: cases with an offset past INT32_MAX (a 32-bit plan cannot hold it: the 64-bit path ran)
};
// One batch's counts (a campaign over MPI ranks keeps them, FuzzOptions::batches): a one-process
// run stops at its first disagreement, so the merge cuts every rank's counts back to the batches
// of the stream up to the failing one (cut_fuzz).
struct BatchCounts {
  int64_t batch = 0;
  std::string op;
  FuzzStats stats;
  std::map<std::string, int64_t> refusals_by_rule;
};
// The largest |v| of an answer's offsets (saturating at INT64_MAX for INT64_MIN).
int64_t max_abs_offset(const std::vector<int64_t>& values);
struct FuzzResult {
  std::map<std::string, FuzzStats> per_op;
  std::map<std::string, int64_t> refusals_by_rule;  // agreed refusals, by the rule id both gave
  int64_t cases = 0;
  double seconds = 0;
  bool disagreement = false;
  // the shrunk case, when there is a disagreement
  std::string op, case_text;
  FuzzAnswer reference, backend;
  int64_t shrink_steps = 0;
  int64_t cases_before_failure = 0;
  std::string reference_text, backend_text;  // describe(reference), describe(backend): what the reports print
  int64_t failing_batch = -1;                // the batch of the disagreement (its place in the seed's stream)
  int finding_rank = 0;                      // the rank that found it (a campaign over MPI ranks)
  std::vector<std::string> more_findings;    // a merged campaign: the other ranks' distinct disagreements, one line each
};
FuzzResult run_fuzz(gpu::Backend& backend, const FuzzOptions& options, const gpu::PlanPolicy& policy = {});

// A result as JSON (the `fuzz --json` report's counts and finding; what a rank sends rank 0) and
// back (fuzz_merge.cpp).
Json fuzz_result_json(const FuzzResult& r);
FuzzResult fuzz_result_from_json(const Json& j);
// The ranks' results as one: counts summed, sizes the largest, the time the longest; the
// disagreement is the one earliest in the seed's stream (the one a one-process run stops at),
// the others' distinct ones listed in more_findings.
FuzzResult merge_fuzz(const std::vector<FuzzResult>& parts);
// A rank's counts cut back to the stream a one-process run covers when it stops at a disagreement
// in batch `failing_batch`: the batches up to it (the failing batch itself was run only by the
// rank that found it, up to the failing case), summed from `batches`; the finding and the time are
// r's. Every count of r comes from `batches`, so a rank without batches past the cut is unchanged.
FuzzResult cut_fuzz(const FuzzResult& r, const std::vector<BatchCounts>& batches, int64_t failing_batch);
// The failing batch merge_fuzz reports (the earliest in the stream), -1 when no part disagreed.
int64_t earliest_failing_batch(const std::vector<FuzzResult>& parts);

}  // namespace tfspec::props
