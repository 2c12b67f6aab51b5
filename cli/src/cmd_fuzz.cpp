// `tfspec fuzz`: differential fuzzing of the optimized implementation (gpu/, host or CUDA
// backend) against the reference, with shrinking and a one-line reproduce command.
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "campaign.hpp"
#include "commands.hpp"
#include "fuzz_command.hpp"
#include "run_control.hpp"
#include "tfspec/props/fuzz.hpp"

namespace tfspec::cli {
namespace {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += (static_cast<unsigned char>(c) < 0x20 && c != '\n') ? '?' : c;
    }
  }
  return o;
}

// GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, as GoogleTest reads them; a malformed pair is a usage error.
void read_shards(props::FuzzOptions& o) {
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  if (!total && !index) return;
  if (!total || !index) fail(rule::kUsage, "set both GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX, or neither");
  try {
    o.total_shards = std::stoi(total);
    o.shard_index = std::stoi(index);
  } catch (const std::exception&) {
    fail(rule::kUsage, "GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX are not integers");
  }
  if (o.total_shards < 1 || o.shard_index < 0 || o.shard_index >= o.total_shards)
    fail(rule::kUsage, "GTEST_SHARD_INDEX must lie in [0, GTEST_TOTAL_SHARDS)");
  if (const char* status = std::getenv("GTEST_SHARD_STATUS_FILE")) std::ofstream(status).put('\n');  // we honour sharding
}

}  // namespace

void check_fuzz_names(const FuzzArgs& a) {
  if (a.backend != "host" && a.backend != "cuda" && a.backend != "cuda-emu") fail(rule::kUsage, "--backend is host, cuda or cuda-emu, not '" + a.backend + "'");
  if (a.op != "all" && std::find(props::fuzz_ops().begin(), props::fuzz_ops().end(), a.op) == props::fuzz_ops().end())
    fail(rule::kUsage, "--op is all, offsets, crd2idx, gather, scatter or reshard, not '" + a.op + "'");
}

std::string verdict_of(const props::FuzzResult& r) {
  if (r.disagreement) return "disagreement";
  int64_t skipped = 0;
  for (const auto& [op, s] : r.per_op) skipped += s.skipped;
  return r.cases > 0 && skipped == r.cases ? "undecided" : "pass";
}

void write_json(const FuzzArgs& a, const props::FuzzResult& r, const std::string& verdict, const Json& extra) {
  if (a.json.empty()) return;
  Json j = {{"backend", a.backend}, {"op", a.op}, {"seed", a.seed}, {"verdict", verdict}};
  j.update(props::fuzz_result_json(r));
  if (r.disagreement) j["finding"]["reproduce"] = reproduce(a, r.case_text);
  j.update(extra);
  write_report_file(a.json, j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
}

void write_junit(const FuzzArgs& a, const props::FuzzResult* r, const std::string& skipped, const std::string& stopped) {
  if (a.junit.empty()) return;
  std::ostringstream out;
  const auto& ops = a.op == "all" ? props::fuzz_ops() : std::vector<std::string>{a.op};
  const int failures = r && r->disagreement ? 1 : 0;
  const int errors = stopped.empty() ? 0 : 1;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"tfspec-fuzz\" tests=\"" << ops.size() + errors
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << (skipped.empty() ? 0 : ops.size()) << "\" time=\""
      << (r ? r->seconds : 0.0) << "\">\n";
  for (const auto& op : ops) {
    out << "  <testcase classname=\"fuzz." << a.backend << "\" name=\"" << op << "\">";
    if (!skipped.empty()) {
      out << "<skipped message=\"" << xml_escape(skipped) << "\"/>";
    } else if (r) {
      auto it = r->per_op.find(op);
      const props::FuzzStats s = it == r->per_op.end() ? props::FuzzStats{} : it->second;
      if (r->disagreement && r->op == op)
        out << "<failure message=\"the " << a.backend << " backend disagrees with the reference\">"
            << xml_escape("case: " + r->case_text + "\nreference: " + r->reference_text + "\n" + a.backend + ": " + r->backend_text +
                          "\nreproduce: " + reproduce(a, r->case_text))
            << "</failure>";
      out << "<system-out>cases " << s.cases << ", refusals agreed " << s.refusals << ", undecided " << s.skipped << "</system-out>";
    }
    out << "</testcase>\n";
  }
  if (errors)
    out << "  <testcase classname=\"fuzz." << a.backend << "\" name=\"run\"><error message=\"" << xml_escape(stopped) << "\"/></testcase>\n";
  out << "</testsuite>\n</testsuites>\n";
  write_report_file(a.junit, out.str());
}

int summary(const FuzzArgs& a, const props::FuzzResult& r, int stopped_by) {
  if (stopped_by > 0)  // -1: a campaign that lost a rank (fuzz_ranks.cpp): no signal, yet no pass
    std::cout << "fuzz: INTERRUPTED by signal " << stopped_by << ": the summary of the cases that ran (exit " << 128 + stopped_by << ")\n";
  if (r.disagreement) {
    std::cout << "fuzz: DISAGREEMENT in " << r.op << " after " << r.cases_before_failure << " cases (shrunk in " << r.shrink_steps
              << " steps)\n  case:      " << r.case_text << "\n  reference: " << r.reference_text << "\n  "
              << std::left << std::setw(11) << (a.backend + ":") << r.backend_text << "\n  reproduce: "
              << reproduce(a, r.case_text) << std::endl;
    for (const auto& more : r.more_findings) std::cout << "  also:      " << more << std::endl;
    return kViolations;
  }
  std::ostringstream per_op;
  int64_t refusals = 0, skipped = 0, backend_skipped = 0;
  for (const auto& [op, s] : r.per_op) {
    per_op << (per_op.tellp() > 0 ? ", " : "") << op << " " << s.cases;
    refusals += s.refusals;
    skipped += s.skipped;
    backend_skipped += s.backend_skipped;
  }
  // A run in which every case was skipped compared nothing: undecided, never a pass.
  if (!stopped_by && r.cases > 0 && skipped == r.cases) {
    std::cout << "fuzz: UNDECIDED, all " << r.cases << " cases skipped (" << backend_skipped << " by the backend, " << skipped - backend_skipped
              << " undecided by the reference): nothing was compared (exit " << kUnknown << ", never a pass)" << std::endl;
    return kUnknown;
  }
  std::cout << "fuzz: " << (stopped_by ? "no disagreement so far" : "PASS") << ", " << r.cases << " cases in " << std::fixed << std::setprecision(1) << r.seconds << " s, no disagreement ("
            << per_op.str() << "; " << refusals << " refusals agreed, " << skipped - backend_skipped << " undecided by the reference, "
            << backend_skipped << " the backend could not decide)" << std::endl;
  // How far the cases reached: sizes, and offsets past 2^31 (no 32-bit plan holds them, so the
  // backend's 64-bit path answered; issue 13 asks for both).
  std::cout << "fuzz: largest cases:";
  const char* sep = " ";
  for (const auto& [op, s] : r.per_op) {
    std::cout << sep << op << " size " << s.max_size;
    if (op == "offsets" || op == "crd2idx") std::cout << " |offset| " << s.max_abs_value << " (" << s.wide << " cases past 2^31)";
    sep = "; ";
  }
  std::cout << std::endl;
  if (!r.refusals_by_rule.empty()) {
    std::cout << "fuzz: refusals agreed by rule:";
    for (const auto& [rule, n] : r.refusals_by_rule) std::cout << " " << rule << " " << n;
    std::cout << std::endl;
  }
  return kOk;
}

std::string reproduce(const FuzzArgs& a, const std::string& case_text) {
  return "tfspec fuzz --backend " + a.backend + " --replay '" + case_text + "'";
}

gpu::PlanPolicy planted_policy() {
  gpu::PlanPolicy p;
  const char* v = std::getenv("TFSPEC_FUZZ_PLANT");
  if (!v) return p;
  if (std::string(v) != "drop-reduction") fail(rule::kUsage, "TFSPEC_FUZZ_PLANT='" + std::string(v) + "': the only planted bug is drop-reduction (a test-only setting)");
  p.axis_kind = [](const ShardAttr& x) { return std::holds_alternative<Split>(x) ? gpu::kAxisSplit : gpu::kAxisBroadcast; };
  return p;
}

namespace {

int run(const FuzzArgs& a) {
  // Over MPI ranks (fuzz_ranks.cpp): the device is chosen before the backend starts.
  if (!a.replay_given && campaign_wanted(a.mpi)) return run_fuzz_campaign(a);
  std::unique_ptr<gpu::Backend> backend = gpu::make_backend(a.backend);
  if (!backend) fail(rule::kUsage, "--backend is host, cuda or cuda-emu, not '" + a.backend + "'");
  if (a.op != "all" && std::find(props::fuzz_ops().begin(), props::fuzz_ops().end(), a.op) == props::fuzz_ops().end())
    fail(rule::kUsage, "--op is all, offsets, crd2idx, gather, scatter or reshard, not '" + a.op + "'");
  if (auto why = backend->unavailable()) {
    const std::string msg = "backend " + a.backend + " unavailable: " + *why;
    std::cout << "fuzz: SKIPPED, " << msg << " (exit " << kUnavailable << ", never a pass)" << std::endl;
    write_junit(a, nullptr, msg);
    write_json(a, props::FuzzResult{}, "skipped", {{"why", msg}, {"ranks", ranks_json({{0, this_host(), 0}})}});
    return kUnavailable;
  }
  if (a.replay_given) {
    props::FuzzCase c = props::parse_fuzz_case(a.replay);
    props::FuzzCheck r = props::check_fuzz_case(c, *backend);
    std::cout << "case:      " << props::fuzz_case_text(c) << "\nreference: " << props::describe(r.reference) << "\n"
              << std::left << std::setw(11) << (a.backend + ":") << props::describe(r.backend) << "\n";
    if (r.verdict == props::Verdict::Skip) {
      // Nothing was compared: the reference or the backend could not decide (a limit, or a layout
      // kind the backend does not implement). Undecided, exit 2: never a pass.
      std::cout << "fuzz: SKIP, undecided by the " << (r.reference.rule ? "reference" : "backend") << ": nothing was compared (exit " << kUnknown
                << ", never a pass)" << std::endl;
      return kUnknown;
    }
    std::cout << "fuzz: " << (r.verdict == props::Verdict::Agree ? "AGREE" : "DISAGREE") << std::endl;
    return r.verdict == props::Verdict::Disagree ? kViolations : kOk;
  }
  check_report_paths({a.json, a.junit});
  props::FuzzOptions o;
  o.seconds = a.seconds;
  o.seed = a.seed;
  o.op = a.op;
  o.max_cases = a.max_cases;
  o.progress = a.quiet ? nullptr : &std::cout;
  o.stop = &stop_signal();
  read_shards(o);
  catch_stop_signals();
  std::cout << "fuzz: backend " << a.backend << ", op " << a.op << ", seed " << a.seed << ", shard " << o.shard_index << "/"
            << o.total_shards << ", " << a.seconds << " s" << std::endl;
  props::FuzzResult r = props::run_fuzz(*backend, o, planted_policy());
  if (const int sig = stop_signal().load()) {
    write_junit(a, &r, "", "interrupted by signal " + std::to_string(sig) + " after " + std::to_string(r.cases) + " cases");
    write_json(a, r, "interrupted", {{"signal", sig}, {"ranks", ranks_json({{0, this_host(), r.cases}})}});
    summary(a, r, sig);
    return stopped_exit_code();
  }
  // A run that executed no case tested nothing: never a pass.
  if (r.cases == 0) {
    const std::string why = "no case ran within --seconds " + std::to_string(a.seconds) + " (the budget ended before the first case): nothing was tested";
    write_junit(a, &r, "", why);
    fail(rule::kUsage, why);
  }
  write_junit(a, &r, "");
  write_json(a, r, verdict_of(r), {{"ranks", ranks_json({{0, this_host(), r.cases}})}});
  return summary(a, r, 0);
}

}  // namespace

void add_fuzz_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<FuzzArgs>();
  auto* sub = app.add_subcommand("fuzz", "Differential fuzzing of the optimized backends against the reference (shrinks any disagreement)");
  sub->add_option("--backend", a->backend, "host, cuda (a device) or cuda-emu (the CUDA kernels on an emulated grid)")->capture_default_str();
  sub->add_option("--seconds", a->seconds, "time budget, > 0")->capture_default_str()->check(positive_seconds());
  sub->add_option("--seed", a->seed, "base seed, 0 to 2^64-1 (each batch derives its own)")->capture_default_str()->check(integer_in(0, ~0ULL, "an integer from 0 to 2^64-1"));
  sub->add_option("--op", a->op, "all, offsets, crd2idx, gather, scatter or reshard")->capture_default_str();
  sub->add_option("--max-cases", a->max_cases, "run at most this many cases, >= 1 (default: the time budget only)")
      ->check(integer_in(1, ~0ULL >> 1, "an integer >= 1"));
  auto* replay = sub->add_option("--replay", a->replay, "run one case given in its text form (printed with every disagreement)")
                     ->check(non_empty("give the case text printed with a disagreement"));
  sub->add_option("--junit", a->junit, "write a JUnit XML report");
  sub->add_option("--json", a->json, "write the counts, the verdict and any disagreement as JSON to this file");
  sub->add_flag("--quiet", a->quiet, "no progress lines");
  sub->add_flag("--mpi", a->mpi, "split the run over the MPI ranks (implied when mpiexec started tfspec): rank 0 prints the merged report");
  sub->add_option("--rank-timeout", a->rank_timeout, "under MPI: give up a rank that sent nothing for this many seconds, at least 1 (default 30)")
      ->check(rank_timeout_seconds());
  sub->callback([a, replay, &exit_code] {
    a->replay_given = replay->count() > 0;
    exit_code = reported([&] { return run(*a); });
  });
}

}  // namespace tfspec::cli
