// The conformance runner: the corpus (spec/corpus/) against an implementation that speaks the
// protocol of spec/PROTOCOL.md, in process (the reference) or as a subprocess (anyone's), with
// per-clause reports. The runner owns robustness: a timeout, a crash, a malformed or missing
// line or a wrong seq is recorded for that case as errored, the process restarted, the run goes on.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tfspec/protocol/corpus.hpp"
#include "tfspec/protocol/ops.hpp"

namespace tfspec::conformance {

using protocol::CorpusCase;
using protocol::Status;

// One reply, or why there is none (`problem` non-empty: the case is errored).
struct Reply {
  Json json;
  std::string problem;
};

class Implementation {
 public:
  virtual ~Implementation() = default;
  // The `start` handshake: {"cmd":"start","protocol":1,"implementation":{...},"ops":[...]};
  // throws SpecError (usage) when the implementation cannot be started or answers no handshake.
  virtual Json start() = 0;
  // One request line, one reply line.
  virtual Reply ask(const Json& request) = 0;
  // Ends the session (`stop`); safe to call twice.
  virtual void stop() = 0;
  // Subprocess restarts after errored cases (0 in process).
  virtual int restarts() const { return 0; }
};

// The registry's ops answered by serve_line, in this process.
std::unique_ptr<Implementation> in_process(const protocol::OpRegistry& reg);
// `/bin/sh -c COMMAND` with the protocol on its stdin/stdout (stderr goes to stderr_path, or is
// discarded); each reply must arrive within timeout_ms.
std::unique_ptr<Implementation> subprocess(const std::string& command, int timeout_ms, const std::string& stderr_path = "/dev/null");

struct CaseOutcome {
  const CorpusCase* c = nullptr;
  Status status = Status::Errored;
  bool expected_failure = false;  // listed in the expected-failures file
  std::string detail;
  Json actual;
};

struct Counts {
  int pass = 0, fail = 0, unsupported = 0, errored = 0, xfail = 0, xpass = 0;
};

struct Report {
  Json implementation;  // the handshake's implementation member
  std::vector<CaseOutcome> cases;
  int restarts = 0;
  double seconds = 0;
  Counts totals() const;
};

struct RunOptions {
  // A case runs when it matches any filter (none: every case): a clause prefix (`§7`, `§7.1`),
  // an op name (`composition`, `shard.check`) or a case id prefix.
  std::vector<std::string> filters;
  std::set<std::string> expected_failures;
};

// Every case file of a directory (validated against the format; SpecError when one is not).
std::vector<CorpusCase> load_corpus(const std::string& dir);
// Case ids, one per line, `#` starts a comment.
std::set<std::string> read_id_list(const std::string& path);
bool selected(const CorpusCase& c, const std::vector<std::string>& filters);

Report run(const std::vector<CorpusCase>& cases, Implementation& impl, const RunOptions& opts);

// The per-clause table, then each failure and errored case with its id, args, expected and actual.
std::string text_report(const Report& r, bool list_failures = true);
// {"implementation", "summary": {pass, fail, errored, unsupported, ...}, "clauses": {...},
//  "cases": [{"id","clause","op","status", "expected"?, "actual"?, "detail"?}]}
Json json_report(const Report& r);
// JUnit XML: one testsuite per clause, one testcase per case.
std::string junit_report(const Report& r);
// 0 when nothing failed or errored (expected failures aside), else 1.
int exit_code(const Report& r);

// The corpus directory of the source tree this binary was built from.
std::string default_corpus_dir();

}  // namespace tfspec::conformance
