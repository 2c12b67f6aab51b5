// The run loop: handshake, one request per case, unsupported ops never sent.
#include "tfspec/conformance/runner.hpp"

#include <chrono>
#include <fstream>
#include <sstream>

#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

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
    return Reply{protocol::serve_line(reg_, protocol::dump_line(request), stop), ""};
  }
  const protocol::OpRegistry& reg_;
};

}  // namespace

std::unique_ptr<Implementation> in_process(const protocol::OpRegistry& reg) { return std::make_unique<InProcess>(reg); }

Counts Report::totals() const {
  Counts n;
  for (const auto& o : cases) {
    if (o.expected_failure) {
      (o.status == Status::Pass ? n.xpass : n.xfail)++;
      continue;
    }
    switch (o.status) {
      case Status::Pass: ++n.pass; break;
      case Status::Fail: ++n.fail; break;
      case Status::Unsupported: ++n.unsupported; break;
      case Status::Errored: ++n.errored; break;
    }
  }
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
  std::ifstream in(path);
  if (!in) fail(rule::kUsage, "cannot read " + path);
  std::set<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string id;
    if (words >> id) out.insert(id);
  }
  return out;
}

bool selected(const CorpusCase& c, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (f.rfind("§", 0) == 0) {
      // §7 selects §7, §7.1, §7.1.2 (not §70); §7.1 selects §7.1 and §7.1.x.
      if (c.clause == f || c.clause.rfind(f + ".", 0) == 0) return true;
    } else if (c.op == f || c.id.rfind(f, 0) == 0) {
      return true;
    }
  }
  return false;
}

Report run(const std::vector<CorpusCase>& cases, Implementation& impl, const RunOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  Report r;
  const Json hello = impl.start();
  r.implementation = hello.value("implementation", Json::object());
  std::set<std::string> ops;
  for (const auto& op : hello.value("ops", Json::array()))
    if (op.is_string()) ops.insert(op.get<std::string>());
  int64_t seq = 0;
  for (const auto& c : cases) {
    if (!selected(c, opts.filters)) continue;
    CaseOutcome o;
    o.c = &c;
    o.expected_failure = opts.expected_failures.count(c.id) > 0;
    if (!ops.count(c.op)) {
      o.status = Status::Unsupported;
      o.detail = "op not listed in the handshake";
    } else {
      const Reply reply = impl.ask(protocol::case_request(c, ++seq));
      if (!reply.problem.empty()) {
        o.status = Status::Errored;
        o.detail = reply.problem;
      } else {
        auto j = protocol::judge(c, reply.json);
        o.status = j.status;
        o.detail = j.detail;
        o.actual = j.actual;
      }
    }
    r.cases.push_back(std::move(o));
  }
  impl.stop();
  r.restarts = impl.restarts();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

int exit_code(const Report& r) {
  const Counts n = r.totals();
  return n.fail + n.errored == 0 ? 0 : 1;
}

std::string default_corpus_dir() { return TFSPEC_CORPUS_DIR; }

}  // namespace tfspec::conformance
