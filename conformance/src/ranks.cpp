// A corpus run split over MPI ranks (ranks.hpp).
#include "tfspec/conformance/ranks.hpp"

#include <algorithm>

#include "tfspec/reference/error.hpp"

namespace tfspec::conformance {
namespace {

Status status_named(const std::string& s) {
  for (Status st : {Status::Pass, Status::Fail, Status::Unsupported, Status::Errored})
    if (protocol::to_string(st) == s) return st;
  fail(rule::kUsage, "a rank's report names an unknown status '" + s + "'");
}

}  // namespace

std::set<std::string> share_of(const std::vector<const CorpusCase*>& picked, int rank, int ranks) {
  std::set<std::string> ids;
  for (size_t i = static_cast<size_t>(rank); i < picked.size(); i += static_cast<size_t>(ranks)) ids.insert(picked[i]->id);
  return ids;
}

Json part_json(const Report& r) {
  Json cases = Json::object();
  for (const auto& o : r.cases)
    cases[o.c->id] = {{"status", protocol::to_string(o.status)}, {"expected_failure", o.expected_failure}, {"detail", o.detail},
                      {"actual", o.actual}, {"not_run", o.not_run}, {"seconds", o.seconds}, {"stderr_tail", o.stderr_tail}, {"started", o.started}};
  return {{"implementation", r.implementation}, {"restarts", r.restarts}, {"seconds", r.seconds}, {"stopped", r.stopped}, {"cases", cases}};
}

Report merge_parts(const std::vector<const CorpusCase*>& picked, int ranks, const std::map<int, Json>& parts, const std::map<int, std::string>& lost) {
  Report m;
  for (const auto& [rank, p] : parts) {
    if (m.implementation.is_null() || m.implementation.empty()) m.implementation = p.at("implementation");
    m.restarts += p.at("restarts").get<int>();
    m.seconds = std::max(m.seconds, p.at("seconds").get<double>());
    if (m.stopped.empty() && !p.at("stopped").get<std::string>().empty()) m.stopped = "rank " + std::to_string(rank) + ": " + p.at("stopped").get<std::string>();
  }
  for (size_t i = 0; i < picked.size(); ++i) {
    const int rank = static_cast<int>(i % static_cast<size_t>(ranks));
    CaseOutcome o;
    o.c = picked[i];
    auto part = parts.find(rank);
    const Json* got = part == parts.end() || !part->second.at("cases").contains(o.c->id) ? nullptr : &part->second.at("cases").at(o.c->id);
    if (!got) {
      o.status = Status::Errored;
      o.not_run = true;
      auto why = lost.find(rank);
      o.detail = "not run: " + (why == lost.end() ? "rank " + std::to_string(rank) + " did not report this case" : why->second);
    } else {
      o.status = status_named(got->at("status").get<std::string>());
      o.expected_failure = got->at("expected_failure").get<bool>();
      o.detail = got->at("detail").get<std::string>();
      o.actual = got->at("actual");
      o.not_run = got->at("not_run").get<bool>();
      o.seconds = got->at("seconds").get<double>();
      o.stderr_tail = got->at("stderr_tail").get<std::string>();
      o.started = got->at("started").get<double>();
    }
    m.cases.push_back(std::move(o));
  }
  if (m.stopped.empty() && !lost.empty()) m.stopped = lost.begin()->second;
  return m;
}

}  // namespace tfspec::conformance
