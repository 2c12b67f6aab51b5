// `kernel check`: the five check families in order, the footprint (check 5), and the report.
#include "tfspec/kernel/check.hpp"

#include <chrono>

#include "tfspec/kernel/partition.hpp"

namespace tfspec::kernel {
namespace {

std::string kib(int64_t bytes) {
  const int64_t whole = bytes / 1024, rest = bytes % 1024;
  return std::to_string(bytes) + " B (" + std::to_string(whole) + (rest == 0 ? "" : "." + std::to_string(rest * 100 / 1024)) + " KiB)";
}

const char* outcome_name(Outcome o) {
  return o == Outcome::Ok ? "ok" : o == Outcome::Violation ? "violation" : o == Outcome::Undecided ? "undecided" : "skipped";
}

}  // namespace

std::optional<int64_t> smem_limit_for(const std::string& arch) {
  if (arch == "sm80") return 164 * 1024;
  if (arch == "sm86" || arch == "sm89") return 100 * 1024;
  if (arch == "sm90" || arch == "sm90a") return 228 * 1024;
  return std::nullopt;
}

// Each operand's buffer: stages - 1 stage strides and the last stage's cosize (a packed buffer,
// stride = cosize: stages x cosize; a padded one, CUTLASS's sgemm: 2 x 1056 + 1052 elements).
void check_footprint(const Pipeline& p, const KernelOptions& o, std::vector<Finding>& out) {
  const SmemMap ma = smem_map(p.a, p.bm, p.bk), mb = smem_map(p.b, p.bn, p.bk);
  const int64_t stride_a = stage_stride_of(p.a, ma.cosize), stride_b = stage_stride_of(p.b, mb.cosize);
  const int64_t a = stride_a * p.a.bits / 8, b = stride_b * p.b.bits / 8;       // bytes from one stage to the next
  const int64_t last = (ma.cosize * p.a.bits + mb.cosize * p.b.bits) / 8;       // the last stage's bytes
  const int64_t stage = a + b, total = stage * (p.stages - 1) + last;
  Finding f{"footprint", "smem", Outcome::Ok, nullptr, "", {{"A_bytes", a}, {"B_bytes", b}, {"stage_bytes", stage}, {"stages", p.stages}, {"total_bytes", total}}};
  const std::optional<int64_t> limit = o.smem_limit ? o.smem_limit : smem_limit_for(p.arch);
  std::string what = "per stage " + kib(stage) + " (A " + std::to_string(a) + " + B " + std::to_string(b) + "), " + std::to_string(p.stages) + " stages " + kib(total);
  if (last != stage) {
    what += " (padded stages: A's " + std::to_string(stride_a) + " and B's " + std::to_string(stride_b) + " elements apart, the last stage ends at its cosize, A " +
            std::to_string(ma.cosize) + " and B " + std::to_string(mb.cosize) + ")";
    f.detail["A_buffer_bytes"] = ((p.stages - 1) * stride_a + ma.cosize) * p.a.bits / 8;
    f.detail["B_buffer_bytes"] = ((p.stages - 1) * stride_b + mb.cosize) * p.b.bits / 8;
  }
  if (!limit) {
    f.message = what + "; no limit known for arch '" + p.arch + "' (give --smem-limit)";
  } else if (total <= *limit) {
    f.message = what + " <= " + kib(*limit);
    f.detail["limit_bytes"] = *limit;
  } else {
    f.outcome = Outcome::Violation;
    f.rule = &rule::kKernelSmemFootprint;
    const int64_t fit = *limit < last ? 0 : (*limit - last) / stage + 1;
    f.message = what + " > the limit " + kib(*limit) + " (at most " + std::to_string(fit) + " stages fit)";
    f.detail["limit_bytes"] = *limit;
  }
  out.push_back(std::move(f));
}

int KernelReport::exit_code() const {
  bool undecided = false;
  for (const Finding& f : findings) {
    if (f.outcome == Outcome::Violation) return 1;
    undecided = undecided || f.outcome == Outcome::Undecided;
  }
  return undecided ? 2 : 0;
}

KernelReport check_pipeline(const Pipeline& p, const KernelOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  KernelReport r{p.name, p.arch, {}, p.notes, 0};
  check_coverage(p, r.findings);
  check_agreement(p, r.findings);
  check_banks(p, r.findings);
  check_bounds(p, o, r.findings);
  check_footprint(p, o, r.findings);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

Json to_json(const KernelReport& r) {
  Json j{{"kernel", r.name}, {"arch", r.arch}, {"exit", r.exit_code()}, {"findings", Json::array()}};
  for (const Finding& f : r.findings) {
    Json x{{"check", f.check}, {"subject", f.subject}, {"outcome", outcome_name(f.outcome)}, {"message", f.message}, {"detail", f.detail}};
    if (f.rule) x["rule"] = std::string(f.rule->id), x["clause"] = std::string(f.rule->clause);
    x["loc"] = f.loc;  // every finding has one (empty where its input gives none): the --json fields of every frontend
    j["findings"].push_back(std::move(x));
  }
  // The findings that are not ok, by rule (a conformance case names them; spec/PROTOCOL.md).
  j["violations"] = Json::array();
  j["undecided"] = Json::array();
  for (const Finding& f : r.findings) {
    if (f.outcome != Outcome::Violation && f.outcome != Outcome::Undecided) continue;
    Json x{{"check", f.check}, {"subject", f.subject}};
    if (f.rule) x["rule"] = std::string(f.rule->id), x["clause"] = std::string(f.rule->clause);
    j[f.outcome == Outcome::Violation ? "violations" : "undecided"].push_back(std::move(x));
  }
  if (!r.notes.empty()) j["notes"] = r.notes;
  const int e = r.exit_code();
  j["result"] = e == 0 ? "ok" : e == 1 ? "violation" : "undecided";
  return j;
}

std::string to_text(const KernelReport& r) {
  std::string s = "kernel " + r.name + " (" + r.arch + ")\n";
  for (const std::string& n : r.notes) s += "note: " + n + "\n";
  int64_t bad = 0, open = 0;
  for (const Finding& f : r.findings) {
    std::string head = outcome_name(f.outcome);
    head.resize(10, ' ');
    std::string check = f.check;
    check.resize(10, ' ');
    s += head + check + f.subject + (f.loc.empty() ? "" : " at " + f.loc) + ": " + f.message;
    if (f.rule) s += " [" + std::string(f.rule->id) + " " + std::string(f.rule->clause) + "]";
    s += "\n";
    bad += f.outcome == Outcome::Violation ? 1 : 0;
    open += f.outcome == Outcome::Undecided ? 1 : 0;
  }
  const int e = r.exit_code();
  s += e == 0 ? "result: ok (" + std::to_string(r.findings.size()) + " checks)\n"
              : "result: " + std::to_string(bad) + " violation" + (bad == 1 ? "" : "s") + ", " + std::to_string(open) + " undecided\n";
  return s;
}

}  // namespace tfspec::kernel
