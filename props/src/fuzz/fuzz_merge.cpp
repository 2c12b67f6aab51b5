// A fuzz result as JSON and the merge of the ranks' results of a campaign over MPI ranks
// (issue 47). The merge is plain arithmetic over disjoint parts of the seed's case stream: the
// ranks ran different batches, so counts add up and the largest sizes are the largest of the
// parts; the disagreement reported is the one earliest in the stream, which is the one a
// one-process run of the same stream stops at (docs/fuzzing.md "Across MPI ranks").
#include <algorithm>
#include <tuple>

#include "tfspec/props/fuzz.hpp"

namespace tfspec::props {

Json fuzz_result_json(const FuzzResult& r) {
  Json per_op = Json::object();
  for (const auto& [op, s] : r.per_op)
    per_op[op] = {{"cases", s.cases},       {"refusals_agreed", s.refusals}, {"skipped", s.skipped}, {"backend_skipped", s.backend_skipped},
                  {"max_size", s.max_size}, {"max_abs_offset", s.max_abs_value}, {"past_2_31", s.wide}};
  Json j = {{"cases", r.cases}, {"seconds", r.seconds}, {"per_op", per_op}, {"refusals_by_rule", r.refusals_by_rule}, {"finding", nullptr}};
  if (r.disagreement)
    j["finding"] = {{"op", r.op},
                    {"case", r.case_text},
                    {"reference", r.reference_text},
                    {"backend", r.backend_text},
                    {"shrink_steps", r.shrink_steps},
                    {"cases_before", r.cases_before_failure},
                    {"batch", r.failing_batch},
                    {"rank", r.finding_rank}};
  if (!r.more_findings.empty()) j["more_findings"] = r.more_findings;
  return j;
}

FuzzResult fuzz_result_from_json(const Json& j) {
  FuzzResult r;
  r.cases = j.at("cases").get<int64_t>();
  r.seconds = j.at("seconds").get<double>();
  for (const auto& [op, s] : j.at("per_op").items()) {
    FuzzStats& t = r.per_op[op];
    t.cases = s.at("cases").get<int64_t>();
    t.refusals = s.at("refusals_agreed").get<int64_t>();
    t.skipped = s.at("skipped").get<int64_t>();
    t.backend_skipped = s.at("backend_skipped").get<int64_t>();
    t.max_size = s.at("max_size").get<int64_t>();
    t.max_abs_value = s.at("max_abs_offset").get<int64_t>();
    t.wide = s.at("past_2_31").get<int64_t>();
  }
  for (const auto& [rule, n] : j.at("refusals_by_rule").items()) r.refusals_by_rule[rule] = n.get<int64_t>();
  if (const Json& f = j.at("finding"); !f.is_null()) {
    r.disagreement = true;
    r.op = f.at("op").get<std::string>();
    r.case_text = f.at("case").get<std::string>();
    r.reference_text = f.at("reference").get<std::string>();
    r.backend_text = f.at("backend").get<std::string>();
    r.shrink_steps = f.at("shrink_steps").get<int64_t>();
    r.cases_before_failure = f.at("cases_before").get<int64_t>();
    r.failing_batch = f.at("batch").get<int64_t>();
    r.finding_rank = f.at("rank").get<int>();
  }
  return r;
}

namespace {
void add(FuzzStats& into, const FuzzStats& s) {
  into.cases += s.cases;
  into.refusals += s.refusals;
  into.skipped += s.skipped;
  into.backend_skipped += s.backend_skipped;
  into.max_size = std::max(into.max_size, s.max_size);
  into.max_abs_value = std::max(into.max_abs_value, s.max_abs_value);
  into.wide += s.wide;
}
}  // namespace

FuzzResult merge_fuzz(const std::vector<FuzzResult>& parts) {
  FuzzResult m;
  const FuzzResult* first = nullptr;  // the disagreement earliest in the stream
  for (const FuzzResult& p : parts) {
    m.cases += p.cases;
    m.seconds = std::max(m.seconds, p.seconds);
    for (const auto& [op, s] : p.per_op) add(m.per_op[op], s);
    for (const auto& [rule, n] : p.refusals_by_rule) m.refusals_by_rule[rule] += n;
    if (p.disagreement && (!first || p.failing_batch < first->failing_batch)) first = &p;
  }
  if (!first) return m;
  const auto counts = std::make_tuple(m.per_op, m.refusals_by_rule, m.cases, m.seconds);
  m = *first;
  std::tie(m.per_op, m.refusals_by_rule, m.cases, m.seconds) = counts;
  m.more_findings.clear();
  for (const FuzzResult& p : parts)
    if (p.disagreement && &p != first && p.case_text != first->case_text &&
        std::find_if(m.more_findings.begin(), m.more_findings.end(), [&](const std::string& s) { return s.find(p.case_text) != std::string::npos; }) ==
            m.more_findings.end())
      m.more_findings.push_back("rank " + std::to_string(p.finding_rank) + ", " + p.op + " after " + std::to_string(p.cases_before_failure) +
                                " cases of the stream: " + p.case_text);
  return m;
}

int64_t earliest_failing_batch(const std::vector<FuzzResult>& parts) {
  int64_t b = -1;
  for (const FuzzResult& p : parts)
    if (p.disagreement && (b < 0 || p.failing_batch < b)) b = p.failing_batch;
  return b;
}

FuzzResult cut_fuzz(const FuzzResult& r, const std::vector<BatchCounts>& batches, int64_t failing_batch) {
  FuzzResult cut = r;
  cut.per_op.clear();
  cut.refusals_by_rule.clear();
  cut.cases = 0;
  for (const BatchCounts& b : batches) {
    if (b.batch > failing_batch) break;  // in stream order: the rest of this rank's batches lie past the cut too
    if (b.stats.cases == 0) continue;    // a batch a signal emptied: a one-process run lists no op for it
    add(cut.per_op[b.op], b.stats);
    cut.cases += b.stats.cases;
    for (const auto& [rule, n] : b.refusals_by_rule) cut.refusals_by_rule[rule] += n;
  }
  return cut;
}

}  // namespace tfspec::props
