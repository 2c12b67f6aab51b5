// The time-bounded driver: RapidCheck runs of `batch` cases, one derived seed each, until the
// time or case budget is spent; on a disagreement RapidCheck shrinks the case and the driver
// keeps the last failing (= minimal) one. Batches are dealt round-robin to GTEST shards.
#include <algorithm>
#include <chrono>
#include <limits>

#include <iostream>

#include <rapidcheck/Check.h>
#include <rapidcheck/detail/Configuration.h>

#include "tfspec/props/fuzz.hpp"
#include "tfspec/props/seeds.hpp"

namespace tfspec::props {
namespace {

// RapidCheck prints its configuration ("Using configuration: seed=...") to stderr when first
// loaded; the driver passes its own seeds, so that line would only mislead.
void load_rapidcheck_quietly() {
  std::streambuf* saved = std::cerr.rdbuf(nullptr);
  rc::detail::configuration();
  std::cerr.rdbuf(saved);
}

// One case in the counts of its op and rule; returns its size (the progress line's).
int64_t count_case(FuzzResult& r, const std::string& op, const FuzzCase& c, const FuzzCheck& check) {
  FuzzStats& s = r.per_op[op];
  ++s.cases;
  ++r.cases;
  if (check.reference.rule && check.verdict == Verdict::Agree) {
    ++s.refusals;
    ++r.refusals_by_rule[*check.reference.rule];
  }
  s.skipped += check.verdict == Verdict::Skip;
  s.backend_skipped += check.verdict == Verdict::Skip && !check.reference.rule;
  const int64_t size = fuzz_case_size(c);
  s.max_size = std::max(s.max_size, size);
  if ((op == "offsets" || op == "crd2idx") && check.verdict == Verdict::Agree && !check.reference.rule) {
    const int64_t m = max_abs_offset(check.reference.values);
    s.max_abs_value = std::max(s.max_abs_value, m);
    s.wide += m > std::numeric_limits<int32_t>::max();
  }
  return size;
}

// The failing case so far (each shrink step that still fails replaces it: the last is minimal).
void record_disagreement(FuzzResult& r, const std::string& op, const FuzzCase& c, const FuzzCheck& check) {
  r.disagreement = true;
  r.op = op;
  r.case_text = fuzz_case_text(c);
  r.reference = check.reference;
  r.backend = check.backend;
  r.reference_text = describe(check.reference);
  r.backend_text = describe(check.backend);
}

}  // namespace

int64_t max_abs_offset(const std::vector<int64_t>& values) {
  int64_t m = 0;
  for (int64_t v : values) m = std::max(m, v == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : (v < 0 ? -v : v));
  return m;
}

FuzzResult run_fuzz(gpu::Backend& backend, const FuzzOptions& o, const gpu::PlanPolicy& policy) {
  load_rapidcheck_quietly();
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::vector<std::string> ops = o.op == "all" ? fuzz_ops() : std::vector<std::string>{o.op};
  FuzzResult res;
  double last_report = 0;
  int64_t last_size = 0, cases_at_report = 0;
  const int total = std::max(1, o.total_shards);
  auto stopping = [&] { return o.stop && o.stop->load() != 0; };
  const uint64_t ranks = static_cast<uint64_t>(std::max(1, o.ranks));
  const uint64_t batch = static_cast<uint64_t>(o.batch);
  // Over MPI ranks --max-cases bounds the stream, not the rank: batch b starts at case b * batch.
  auto cases_before = [&](uint64_t b) { return ranks > 1 ? static_cast<int64_t>(b * batch) : res.cases; };
  for (uint64_t b = 0;; ++b) {
    if (elapsed() >= o.seconds || (o.max_cases > 0 && cases_before(b) >= o.max_cases) || stopping()) break;
    if (b % ranks != static_cast<uint64_t>(o.rank)) continue;
    if (static_cast<int>(b % static_cast<uint64_t>(total)) != o.shard_index) continue;
    const std::string op = ops[(b / static_cast<uint64_t>(total)) % ops.size()];
    bool failing = false;  // after the first failure every call is a shrink step
    int64_t in_batch = 0;   // the cases of this batch so far
    FuzzResult* r = &res;
    FuzzResult mine;  // this batch's counts alone (FuzzOptions::batches)
    auto property = [&] {
      if (stopping()) return;  // the rest of the batch passes without a case: it ends at once
      FuzzCase c = *gen_fuzz_case(op);
      if (!failing && o.on_case) o.on_case(b, static_cast<int>(in_batch), c);
      FuzzCheck check = check_fuzz_case(c, backend, policy);
      if (failing) {
        ++r->shrink_steps;
        if (o.on_shrink_step) o.on_shrink_step();
      }
      else {
        ++in_batch;
        last_size = count_case(*r, op, c, check);
        if (o.batches) count_case(mine, op, c, check);
      }
      if (check.verdict == Verdict::Disagree) {
        if (!failing) {
          r->cases_before_failure = cases_before(b) + (ranks > 1 ? in_batch : 0);
          r->failing_batch = static_cast<int64_t>(b);
        }
        failing = true;
        record_disagreement(*r, op, c, check);
        RC_FAIL("the backend disagrees with the reference");
      }
    };
    rc::detail::TestParams params;
    params.seed = props::batch_seed(o.seed, b);
    // The last batch is cut to what --max-cases leaves (a disagreement's shrink steps are not cases).
    params.maxSuccess = o.max_cases > 0 ? static_cast<int>(std::min<int64_t>(o.batch, o.max_cases - cases_before(b))) : o.batch;
    params.maxSize = 100;
    rc::detail::checkProperty(rc::detail::toProperty(property), rc::detail::TestMetadata{}, params);
    if (o.batches) o.batches->push_back({static_cast<int64_t>(b), op, mine.per_op[op], mine.refusals_by_rule});
    if (res.disagreement) break;
    if (o.progress && elapsed() - last_report >= 1.0) {
      const double dt = elapsed() - last_report;
      *o.progress << "fuzz: " << res.cases << " cases, " << static_cast<int64_t>((res.cases - cases_at_report) / dt)
                  << " cases/s, op " << op << ", size " << last_size << ", " << static_cast<int>(elapsed()) << " s" << std::endl;
      last_report = elapsed();
      cases_at_report = res.cases;
    }
  }
  res.seconds = elapsed();
  return res;
}

}  // namespace tfspec::props
