// Rendering of verdicts (text and JSON) and their exit codes (spec/PROVE.md).
#include <cstdio>

#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::Proved: return "PROVED";
    case Verdict::Refuted: return "REFUTED";
    case Verdict::Unknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

int exit_code(const ProveResult& r) {
  if (r.replay_failed) return 4;
  switch (r.verdict) {
    case Verdict::Proved: return 0;
    case Verdict::Refuted: return 1;
    case Verdict::Unknown: return 2;
  }
  return 2;
}

Json to_json(const ProveResult& r) {
  Json j{{"goal", r.goal}, {"clause", r.clause}, {"verdict", to_string(r.verdict)}, {"assumptions", r.assumptions},
         {"wellformed", r.wellformed}, {"attempts", r.attempts}, {"seconds", r.seconds}};
  if (r.verdict == Verdict::Proved) {
    j["method"] = r.method;
    j["scope"] = r.scope;
  }
  if (r.verdict == Verdict::Refuted) {
    j["method"] = r.method;
    j["counterexample"] = r.counterexample;
    j["counterexample"]["text"] = r.counterexample_text;
  }
  if (r.verdict == Verdict::Unknown) j["reason"] = r.reason;
  if (r.verdict == Verdict::Unknown && !r.hint.empty()) j["hint"] = r.hint;
  if (r.replay_failed) j["replay_failed"] = true;
  if (!r.smt2_files.empty()) j["smt2_files"] = r.smt2_files;
  return j;
}

std::string to_text(const ProveResult& r) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f s", r.seconds);
  std::string s = to_string(r.verdict) + " " + r.goal + " (" + r.clause + ")";
  if (r.verdict == Verdict::Proved) s += (r.scope.rfind("within", 0) == 0 ? " " : " for ") + r.scope + ", by " + r.method;
  if (r.verdict == Verdict::Refuted) s += ", by " + r.method;
  s += " [" + std::string(secs) + "]\n";
  std::string as;
  for (const auto& a : r.assumptions) as += (as.empty() ? "" : ", ") + a;
  if (!as.empty()) s += "  assuming " + as + "\n";
  std::string wf;
  for (const auto& w : r.wellformed) wf += (wf.empty() ? "" : ", ") + w;
  if (!wf.empty()) s += "  where the objects exist: " + wf + "\n";
  if (r.verdict == Verdict::Refuted) s += "  counterexample (replayed by the reference): " + r.counterexample_text + "\n";
  if (r.verdict == Verdict::Unknown) s += "  reason: " + r.reason + "\n";
  if (r.verdict == Verdict::Unknown && !r.hint.empty()) s += "  hint: " + r.hint + "\n";
  for (const auto& f : r.smt2_files) s += "  wrote " + f + "\n";
  return s;
}

}  // namespace tfspec::solver
