// What `fuzz` and `conform` share under mpiexec (campaign.hpp).
#include "campaign.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "run_control.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {

bool campaign_wanted(bool mpi_flag) { return mpi_flag || ranks::launched_by_mpi(); }

std::unique_ptr<ranks::Campaign> start_campaign() {
  auto c = std::make_unique<ranks::Campaign>();
  if (!c->root()) {  // rank 0 alone prints; the others' errors would repeat its own
    static std::ostringstream sink;
    std::cout.rdbuf(sink.rdbuf());
    std::cerr.rdbuf(sink.rdbuf());
  }
  return c;
}

void root_lost(ranks::Campaign& c, const std::string& summary, const std::string& result_json) {
  // std::cerr of this rank goes nowhere (start_campaign); one write, so no other line cuts it
  char silent[32];
  std::snprintf(silent, sizeof silent, "%.1f", c.root_silent_seconds());
  const std::string me = "rank " + std::to_string(c.rank()) + " on " + c.host(c.rank());
  const std::string text = "undecided: [" + std::string(rule::kCampaignRankLost.id) + " -] " + me + ": rank 0 on " + c.host(0) +
                           ", which merges the report, gave no sign of life for " + silent +
                            " s (it crashed, was killed or stopped answering): there is no merged report; this rank's own result, unmerged, follows\n" +
                           me + ": " + summary + "\n" + me + " result: " + result_json + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
  c.abort_job(kUnknown);
}

void tell_own(const ranks::Campaign& c, const std::string& what, const std::string& text) {
  const std::string line = "tfspec: rank " + std::to_string(c.rank()) + " on " + c.host(c.rank()) + ", stopped by signal " +
                           std::to_string(stop_signal().load()) + ", writes its own " + what + " in case rank 0 cannot merge it: " + text + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write; this rank's std::cerr goes nowhere (start_campaign)
}

void check_reports_on_root(ranks::Campaign& c, const std::vector<std::string>& paths) {
  if (!c.root()) return;
  try {
    check_report_paths(paths);
  } catch (const std::exception& e) {
    c.abort_job(report_error(e));  // without MPI_Finalize, which would wait for the others' shares
  }
}

void one_device_per_rank(const ranks::Campaign& c) {
  std::vector<std::string> devices;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::stringstream in(v);
    for (std::string d; std::getline(in, d, ',');)
      if (!d.empty()) devices.push_back(d);
  }
  const size_t k = static_cast<size_t>(c.local_rank());
  const std::string mine = devices.empty() ? std::to_string(k) : devices[k % devices.size()];
  setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
}

CampaignFault campaign_fault_from_env() {
  const char* v = std::getenv("TFSPEC_CAMPAIGN_FAULT");
  if (!v) return {};
  const std::string text = v;
  auto bad = [&](const std::string& why) {
    fail(rule::kUsage, "TFSPEC_CAMPAIGN_FAULT='" + text + "': " + why + " (the form is kill:RANK:CASE, hang:RANK:CASE or crash:RANK:CASE)");
  };
  const size_t a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
  if (b == std::string::npos) bad("expected three parts separated by ':'");
  CampaignFault f;
  const std::string kind = text.substr(0, a), rank = text.substr(a + 1, b - a - 1), at = text.substr(b + 1);
  if (kind == "kill") f.kind = CampaignFault::Kind::Kill;
  else if (kind == "hang") f.kind = CampaignFault::Kind::Hang;
  else if (kind == "crash") f.kind = CampaignFault::Kind::Crash;
  else bad("the kind is kill, hang or crash, not '" + kind + "'");
  auto number = [&](const std::string& s, const char* part, long long lo) {
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos || std::stoll(s) < lo)
      bad(std::string(part) + " is an integer from " + std::to_string(lo) + " to 999999999999, not '" + s + "'");
    return std::stoll(s);
  };
  f.rank = static_cast<int>(number(rank, "RANK", 0));
  f.at = number(at, "CASE", 1);
  return f;
}

namespace {
char g_host[256];
char g_last_case[8192];  // the case this rank started last, for the crash report
int g_rank = 0;

void append(char* buf, size_t& n, size_t cap, const char* s) {
  while (*s && n + 1 < cap) buf[n++] = *s++;
}

extern "C" void crash_report(int sig) {  // async-signal-safe: write(2) of fixed buffers only
  char line[9000];
  size_t n = 0;
  char num[16];
  std::snprintf(num, sizeof num, "%d", g_rank);  // glibc's snprintf of an int does not allocate
  append(line, n, sizeof line, "tfspec: rank ");
  append(line, n, sizeof line, num);
  append(line, n, sizeof line, " on ");
  append(line, n, sizeof line, g_host);
  std::snprintf(num, sizeof num, "%d", sig);
  append(line, n, sizeof line, " crashed (signal ");
  append(line, n, sizeof line, num);
  append(line, n, sizeof line, ") in the case it started last: ");
  append(line, n, sizeof line, g_last_case);
  append(line, n, sizeof line, "\n");
  [[maybe_unused]] ssize_t w = write(2, line, n);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

void install_crash_report(const ranks::Campaign& c) {
  g_rank = c.rank();
  std::snprintf(g_host, sizeof g_host, "%s", c.host(c.rank()).c_str());
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, crash_report);
}

void CampaignFault::fire_at(int my_rank, int64_t cases) const {
  if (kind == Kind::None || rank != my_rank || cases < at) return;
  if (kind == Kind::Kill) std::raise(SIGKILL);
  if (kind == Kind::Crash) std::raise(SIGSEGV);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

Heartbeat::Heartbeat(ranks::Campaign& c, CampaignFault fault) : c_(c), fault_(fault) {}  // last_ at the epoch: the first case sends a note

void Heartbeat::started(const std::string& case_text) {
  ++cases_;
  std::snprintf(g_last_case, sizeof g_last_case, "%s", case_text.c_str());
  last_case_ = case_text;
  fault_.fire_at(c_.rank(), cases_);
  alive();
}

void Heartbeat::alive() {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < (c_.root() ? 0.01 : kNoteSeconds)) return;
  last_ = now;
  if (c_.root()) c_.read_notes();
  else c_.note(Json{{"cases", cases_}, {"case", last_case_}}.dump());
}

std::string this_host() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "?";
}

std::string ranks_line(const std::vector<RankCount>& ranks, const char* unit) {
  std::string s = "ranks: " + std::to_string(ranks.size()) + " (";
  for (size_t k = 0; k < ranks.size(); ++k)
    s += (k ? ", " : "") + std::string("rank ") + std::to_string(ranks[k].rank) + " on " + ranks[k].host + ": " + std::to_string(ranks[k].cases) + " " + unit;
  return s + ")";
}

Json ranks_json(const std::vector<RankCount>& ranks) {
  Json a = Json::array();
  for (const auto& r : ranks) a.push_back({{"rank", r.rank}, {"cases", r.cases}, {"host", r.host}});
  return a;
}

namespace {
// What the last note of a lost rank says: {"cases": N, "case": TEXT} (fuzz) or a progress line.
std::string last_words(const ranks::RankReport& r, const char* unit) {
  if (r.last_note.empty()) return "no note arrived from it (it stopped before its first " + std::string(unit) + ")";
  const Json j = Json::parse(r.last_note, nullptr, false);
  if (j.is_object() && j.contains("cases") && j.contains("case"))
    return "it had started " + std::to_string(j["cases"].get<int64_t>()) + " " + unit + "; the last case it reported starting: " + j["case"].get<std::string>();
  return "its last progress note: " + r.last_note;
}
}  // namespace

std::string lost_lines(const std::vector<ranks::RankReport>& lost, const char* unit) {
  std::string s;
  char silent[32];
  for (const auto& r : lost) {
    std::snprintf(silent, sizeof silent, "%.1f", r.silent_seconds);
    s += "lost: rank " + std::to_string(r.rank) + " on " + r.host + " sent no result (it crashed, was killed or stopped answering; silent for " +
         silent + " s); " + last_words(r, unit) + "\n";
  }
  return s;
}

Json lost_json(const std::vector<ranks::RankReport>& lost) {
  Json a = Json::array();
  for (const auto& r : lost) {
    const Json j = Json::parse(r.last_note, nullptr, false);
    Json e = {{"rank", r.rank}, {"host", r.host}, {"silent_seconds", r.silent_seconds}};
    if (j.is_object() && j.contains("case")) e["cases_started"] = j["cases"], e["last_case"] = j["case"];
    else e["last_note"] = r.last_note;
    a.push_back(e);
  }
  return a;
}

Json campaign_cost(const std::vector<ranks::RankReport>& reports, double waited, double merged) {
  size_t bytes = 0;
  for (const auto& r : reports) bytes += r.result.size();
  return {{"wait_seconds", waited}, {"merge_seconds", merged}, {"result_bytes", bytes}};
}

}  // namespace tfspec::cli
