// The run loop: handshake, one request per case, unsupported ops never sent.
#include "tfspec/conformance/runner.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <mutex>
#include <thread>
#include <sstream>

#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::conformance {
namespace {

class InProcess : public Implementation {
 public:
  explicit InProcess(const protocol::OpRegistry& reg) : reg_(reg) {}
  Json start() override { return answer(Json{{"cmd", "start"}, {"protocol", protocol::kProtocolVersion}}).json; }
  Reply ask(const Json& request) override { return answer(request); }
  void stop() override {}

 private:
  // Through the wire text, as a subprocess would receive it.
  Reply answer(const Json& request) {
    bool stop = false;
    return Reply{protocol::serve_line(reg_, protocol::dump_line(request), stop), "", false, false, ""};
  }
  const protocol::OpRegistry& reg_;
};

}  // namespace

std::unique_ptr<Implementation> in_process(const protocol::OpRegistry& reg) { return std::make_unique<InProcess>(reg); }

std::string outcome_name(const CaseOutcome& o) {
  if (o.expected_failure && !o.not_run) return o.status == Status::Pass ? "xpass" : "xfail";
  return std::string(protocol::to_string(o.status));
}

void Counts::add(const std::string& outcome) {
  if (outcome == "pass") ++pass;
  else if (outcome == "fail") ++fail;
  else if (outcome == "unsupported") ++unsupported;
  else if (outcome == "errored") ++errored;
  else if (outcome == "xfail") ++xfail;
  else if (outcome == "xpass") ++xpass;
}

Counts Report::totals() const {
  Counts n;
  for (const auto& o : cases) n.add(outcome_name(o));
  return n;
}

std::vector<CorpusCase> load_corpus(const std::string& dir) {
  std::vector<CorpusCase> out;
  for (const auto& path : protocol::corpus_files(dir)) {
    auto f = protocol::load_corpus_file(path);
    for (auto& c : f.cases) out.push_back(std::move(c));
  }
  if (out.empty()) fail(rule::kUsage, "no corpus cases in " + dir);
  return out;
}

std::set<std::string> read_id_list(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(rule::kUsage, path + " is a directory, not a file of case ids (one per line)");
  std::ifstream in(path);
  if (!in) fail(rule::kUsage, "cannot read " + path + ": " + std::strerror(errno));
  std::set<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string id;
    if (words >> id) out.insert(id);
  }
  if (in.bad()) fail(rule::kUsage, "cannot read " + path + ": " + std::strerror(errno));
  return out;
}

namespace {

// One filter against one case: a glob (`*`, `?`, `[...]`) matches the whole id, op or clause;
// `§7` a clause and its sub-clauses; otherwise an op name or an id prefix.
bool matches(const CorpusCase& c, const std::string& f) {
  if (f.find_first_of("*?[") != std::string::npos)
    return fnmatch(f.c_str(), c.id.c_str(), 0) == 0 || fnmatch(f.c_str(), c.op.c_str(), 0) == 0 || fnmatch(f.c_str(), c.clause.c_str(), 0) == 0;
  if (f.rfind("§", 0) == 0) return c.clause == f || c.clause.rfind(f + ".", 0) == 0;  // §7 selects §7.1 (not §70)
  return c.op == f || c.id.rfind(f, 0) == 0;
}

}  // namespace

std::set<std::string> failed_ids(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(rule::kUsage, path + " is a directory, not a JSON report (--json)");
  std::ifstream in(path);
  if (!in) fail(rule::kUsage, "cannot read " + path + ": " + std::strerror(errno));
  Json j;
  try {
    j = parse_json_stream(in, path);
  } catch (const Json::exception&) {
    j = Json();  // malformed: refused below as not a report
  }
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array()) fail(rule::kUsage, path + " is not a conform --json report");
  std::set<std::string> out;
  for (const auto& c : j["cases"]) {
    const std::string status = c.is_object() && c.contains("status") && c["status"].is_string() ? c["status"].get<std::string>() : "";
    if ((status == "fail" || status == "errored" || status == "xpass") && c.contains("id") && c["id"].is_string()) out.insert(c["id"].get<std::string>());
  }
  if (out.empty()) fail(rule::kUsage, path + " records no failed, errored or xpass case: nothing to rerun");
  return out;
}

bool selected(const CorpusCase& c, const std::vector<std::string>& filters, const std::vector<std::string>& excludes) {
  for (const auto& x : excludes)
    if (matches(c, x)) return false;
  if (filters.empty()) return true;
  for (const auto& f : filters)
    if (matches(c, f)) return true;
  return false;
}

namespace {

std::string joined(const std::vector<std::string>& words, size_t at_most = 10) {
  std::string s;
  for (size_t i = 0; i < words.size() && i < at_most; ++i) s += (i ? ", " : "") + words[i];
  if (words.size() > at_most) s += ", … (" + std::to_string(words.size()) + " in all)";
  return s;
}

void progress_line(const RunOptions& opts, size_t done, const Counts& n, size_t total, double seconds, bool last) {
  char line[160];
  std::snprintf(line, sizeof line, "conform: %zu/%zu cases, %d failed, %d errored, %d xpass, %.0f s", done, total, n.fail, n.errored, n.xpass,
                seconds);
  if (opts.live) *opts.progress << "\r" << line << "\x1b[K" << (last ? "\n" : "") << std::flush;
  else *opts.progress << line << "\n" << std::flush;
}

bool tagged(const CorpusCase& c, const std::vector<std::string>& tags, const std::vector<std::string>& excluded) {
  for (const auto& t : excluded)
    if (std::find(c.tags.begin(), c.tags.end(), t) != c.tags.end()) return false;
  if (tags.empty()) return true;
  for (const auto& t : tags)
    if (std::find(c.tags.begin(), c.tags.end(), t) != c.tags.end()) return true;
  return false;
}

// The refusals that need no implementation: an empty selection, a stale expected failure.
std::vector<const CorpusCase*> selection(const std::vector<CorpusCase>& cases, const RunOptions& opts) {
  std::vector<const CorpusCase*> out;
  std::set<std::string> ids;
  for (const auto& c : cases) {
    ids.insert(c.id);
    if (selected(c, opts.filters, opts.excludes) && tagged(c, opts.tags, opts.exclude_tags) && (opts.only_ids.empty() || opts.only_ids.count(c.id)))
      out.push_back(&c);
  }
  if (out.empty())
    fail(rule::kUsage, "no case matches --filter " + (opts.filters.empty() ? std::string("(none)") : joined(opts.filters)) +
                           (opts.excludes.empty() ? std::string() : " --exclude " + joined(opts.excludes)) + (opts.tags.empty() ? std::string() : " --tag " + joined(opts.tags)) +
                           (opts.exclude_tags.empty() ? std::string() : " --exclude-tag " + joined(opts.exclude_tags)) + " (" + std::to_string(cases.size()) +
                           " cases; a filter is a clause such as §7.1, an op such as composition, a case id prefix, or a glob such as 's3-*')");
  std::vector<std::string> stale;
  for (const auto& id : opts.expected_failures)
    if (!ids.count(id)) stale.push_back(id);
  if (!stale.empty())
    fail(rule::kUsage, "the expected failures name " + std::to_string(stale.size()) + " case id(s) that are not in the corpus (stale or misspelt): " + joined(stale));
  return out;
}

void refuse_if_nothing_supported(const std::vector<const CorpusCase*>& picked, const std::set<std::string>& ops, const std::vector<Implementation*>& impls) {
  for (const CorpusCase* c : picked)
    if (ops.count(c->op)) return;
  for (Implementation* impl : impls) impl->stop();
  fail(rule::kUsage, "the implementation supports none of the " + std::to_string(picked.size()) + " selected cases' ops (its handshake lists " +
                         (ops.empty() ? std::string("no ops") : std::to_string(ops.size()) + " other ops") +
                         "): nothing would be tested; --allow-unsupported accepts such a run");
}

// A run in which no selected case was answered tested nothing: every case unsupported (answered
// `skipped`, not listed in the handshake, or answered without the symbolic form a symbolic case
// needs). A run in which some case errored or was not run is already a failure (exit 1).
void refuse_if_nothing_answered(const Report& r) {
  int unsupported = 0, unlisted = 0;
  for (const auto& o : r.cases) {
    if (o.status != Status::Unsupported) return;
    ++unsupported;
    if (o.detail == "op not listed in the handshake") ++unlisted;
  }
  fail(rule::kUsage, "the implementation answered none of the " + std::to_string(unsupported) + " selected cases (" + std::to_string(unsupported - unlisted) +
                         " skipped or unsupported by its answer, " + std::to_string(unlisted) +
                         " of ops its handshake does not list): nothing was tested; --allow-unsupported accepts such a run");
}

// Why the run stops before the next case, or "".
std::string stop_reason(const RunOptions& opts, int consecutive_timeouts, int consecutive_crashes, double elapsed) {
  if (opts.interrupted && opts.interrupted->load() != 0)
    return "interrupted by signal " + std::to_string(opts.interrupted->load());
  if (opts.max_consecutive_timeouts > 0 && consecutive_timeouts >= opts.max_consecutive_timeouts)
    return "stopped after " + std::to_string(consecutive_timeouts) + " consecutive timeouts (the implementation no longer answers; --max-consecutive-timeouts)";
  if (opts.max_consecutive_crashes > 0 && consecutive_crashes >= opts.max_consecutive_crashes)
    return "stopped after " + std::to_string(consecutive_crashes) +
           " consecutive crashes (the implementation dies on every request; each would cost a restart; --max-consecutive-crashes)";
  if (opts.deadline_seconds > 0 && elapsed >= opts.deadline_seconds) {
    char s[96];
    std::snprintf(s, sizeof s, "the deadline of %g s was reached (--deadline)", opts.deadline_seconds);
    return s;
  }
  return "";
}

bool has_tag(const CorpusCase& c, const char* tag) { return std::find(c.tags.begin(), c.tags.end(), tag) != c.tags.end(); }

// Why a failed case is unsupported rather than failed, or nullopt. An `extension` case (spec/ALGEBRA.md
// Extensions, spec/SMEM.md) whose input the implementation cannot read: the bare spec has no
// swizzles. A `symbolic` case (spec/ALGEBRA.md S1-S5) that the implementation refuses as it refuses
// any symbolic extent (needs-concrete, an unreadable argument or "assume"), or answers without the
// symbolic form (it ignored "assume"): the spec's ops need concrete integers (§1).
std::optional<std::string> unreadable(const CorpusCase& c, const Json& reply) {
  const Json err = reply.is_object() ? reply.value("error", Json()) : Json();
  const std::string rule = err.is_object() && err.contains("rule") && err["rule"].is_string() ? err["rule"].get<std::string>() : "";
  const bool unread = rule == rule::kParseError.id || rule == rule::kUnknownLayoutKind.id || rule == rule::kJsonType.id;
  if (has_tag(c, "extension") && unread) return "extension case: the implementation does not read its input (" + rule + ")";
  if (!has_tag(c, "symbolic")) return std::nullopt;
  if (unread || rule == rule::kNeedsConcrete.id || rule == rule::kProtocolBadArgs.id)
    return "symbolic case: the implementation does not take symbolic layouts or \"assume\" (" + rule + ")";
  const Json res = reply.is_object() ? reply.value("result", Json()) : Json();
  if (err.is_null() && !(res.is_object() && (res.contains("cases") || res.contains("conditions"))))
    return std::string("symbolic case: the implementation answered without the symbolic form (it ignores \"assume\")");
  return std::nullopt;
}

CaseOutcome ask_case(const CorpusCase& c, Implementation& impl, int64_t seq, bool& timed_out, bool& crashed) {
  CaseOutcome o;
  o.c = &c;
  const auto t0 = std::chrono::steady_clock::now();
  const Reply reply = impl.ask(protocol::case_request(c, seq));
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.stderr_tail = reply.stderr_tail;
  timed_out = reply.timed_out;
  crashed = reply.crashed;
  if (!reply.problem.empty()) {
    o.status = Status::Errored;
    o.detail = reply.problem;
  } else {
    auto j = protocol::judge(c, reply.json);  // a reply of any JSON shape is judged, never thrown
    o.status = j.status;
    o.detail = j.detail;
    o.actual = j.actual;
    if (o.status == Status::Fail)
      if (auto why = unreadable(c, reply.json)) {
        o.status = Status::Unsupported;
        o.detail = *why;
      }
  }
  if (o.status != Status::Errored) o.stderr_tail.clear();  // kept where it explains something
  return o;
}

}  // namespace

namespace {

// What the workers of one run share: the cases, the outcomes by case index (so the report's
// order is the corpus order whatever the number of workers), and, under the mutex, the stop
// state and the progress counts.
struct RunState {
  RunState(const RunOptions& o, const std::vector<const CorpusCase*>& p, const std::set<std::string>& k, std::chrono::steady_clock::time_point t)
      : opts(o), picked(p), ops(k), t0(t), out(p.size()), next_progress(o.progress_seconds) {}
  const RunOptions& opts;
  const std::vector<const CorpusCase*>& picked;
  const std::set<std::string>& ops;
  std::chrono::steady_clock::time_point t0;
  std::vector<CaseOutcome> out;
  std::atomic<size_t> next{0};
  std::mutex m;
  std::string stopped;
  int consecutive_timeouts = 0;
  int consecutive_crashes = 0;
  size_t done = 0;
  Counts counts;
  double next_progress = 0;
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

// One case of the run, asked of `impl` unless the run stopped or the op is not supported.
CaseOutcome one_case(RunState& s, const CorpusCase& c, Implementation& impl, int64_t& seq) {
  std::string stopped;
  {
    std::lock_guard<std::mutex> lock(s.m);
    if (s.stopped.empty()) s.stopped = stop_reason(s.opts, s.consecutive_timeouts, s.consecutive_crashes, s.elapsed());
    stopped = s.stopped;
  }
  CaseOutcome o;
  o.c = &c;
  if (!stopped.empty()) {
    o.status = Status::Errored;
    o.not_run = true;
    o.detail = "not run: " + stopped;
  } else if (!s.ops.count(c.op)) {
    o.status = Status::Unsupported;
    o.detail = "op not listed in the handshake";
  } else {
    bool timed_out = false, crashed = false;
    const double started = s.elapsed();
    o = ask_case(c, impl, ++seq, timed_out, crashed);
    o.started = started;
    std::lock_guard<std::mutex> lock(s.m);
    s.consecutive_timeouts = timed_out ? s.consecutive_timeouts + 1 : 0;
    s.consecutive_crashes = crashed ? s.consecutive_crashes + 1 : 0;
  }
  o.expected_failure = s.opts.expected_failures.count(c.id) > 0;
  return o;
}

// A worker takes the next case index until none is left; each has its own implementation.
void worker(RunState& s, Implementation& impl) {
  int64_t seq = 0;
  for (size_t i; (i = s.next++) < s.picked.size();) {
    CaseOutcome o = one_case(s, *s.picked[i], impl, seq);
    std::lock_guard<std::mutex> lock(s.m);
    s.counts.add(outcome_name(o));
    s.out[i] = std::move(o);
    ++s.done;
    if (s.opts.progress && s.elapsed() >= s.next_progress) {
      progress_line(s.opts, s.done, s.counts, s.picked.size(), s.elapsed(), false);
      s.next_progress = s.elapsed() + s.opts.progress_seconds;
    }
  }
}

}  // namespace

Report run(const std::vector<CorpusCase>& cases, Implementation& impl, const RunOptions& opts) {
  return run(cases, std::vector<Implementation*>{&impl}, opts);
}

Report run(const std::vector<CorpusCase>& cases, const std::vector<Implementation*>& impls, const RunOptions& opts) {
  if (impls.empty()) fail(rule::kUsage, "no implementation to run");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<const CorpusCase*> picked = selection(cases, opts);
  Report r;
  for (Implementation* impl : impls) {
    if (opts.deadline_seconds > 0)
      impl->set_deadline(t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(opts.deadline_seconds)));
    impl->set_interrupt(opts.interrupted);
  }
  // Every worker's handshake; the first names the implementation and its ops for the report.
  const Json hello = impls[0]->start();
  for (size_t k = 1; k < impls.size(); ++k) impls[k]->start();
  r.implementation = hello.value("implementation", Json::object());
  std::set<std::string> ops;
  for (const auto& op : hello.value("ops", Json::array()))
    if (op.is_string()) ops.insert(op.get<std::string>());
  if (!opts.allow_unsupported) refuse_if_nothing_supported(picked, ops, impls);
  RunState s(opts, picked, ops, t0);
  if (impls.size() == 1) {
    worker(s, *impls[0]);
  } else {
    std::vector<std::thread> threads;
    for (Implementation* impl : impls) threads.emplace_back([&s, impl] { worker(s, *impl); });
    for (auto& t : threads) t.join();
  }
  r.cases = std::move(s.out);
  r.stopped = s.stopped;
  if (opts.progress && opts.live) progress_line(opts, s.done, s.counts, picked.size(), s.elapsed(), true);  // the final count, the line ended
  for (Implementation* impl : impls) {
    impl->stop();
    r.restarts += impl->restarts();
  }
  r.seconds = s.elapsed();
  if (!opts.allow_unsupported && !(opts.interrupted && opts.interrupted->load() != 0)) refuse_if_nothing_answered(r);
  return r;
}

std::vector<const CorpusCase*> select_cases(const std::vector<CorpusCase>& cases, const RunOptions& opts) { return selection(cases, opts); }
void refuse_if_untested(const Report& r) { refuse_if_nothing_answered(r); }

int exit_code(const Report& r) {
  const Counts n = r.totals();
  return n.fail + n.errored + n.xpass == 0 ? 0 : 1;
}

std::string default_corpus_dir() { return TFSPEC_CORPUS_DIR; }

}  // namespace tfspec::conformance
