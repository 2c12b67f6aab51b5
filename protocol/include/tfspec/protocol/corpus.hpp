// The conformance corpus as data (spec/corpus/README.md): case files, their validation against
// the format, the request a case sends and how a reply is judged against the case's expectation.
// It lives beside the wire format because a case *is* a request plus the reply it expects; the
// runner (conformance/) and the corpus gtest (protocol/tests/corpus_test.cpp) share it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/protocol/ops.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::protocol {

inline constexpr int kCorpusFormat = 1;

// How a result is compared with the expected value (spec/corpus/README.md).
enum class Compare { Meaning, Function, Exact };

struct CorpusCase {
  std::string id;       // stable, unique across the corpus
  std::string clause;   // "§3", "§7.1.2", ...
  std::string op;       // protocol op name
  Json args = Json::object();
  std::optional<Json> expect;              // the `result` member expected
  std::vector<std::string> expect_error;   // or: any of these rule ids
  std::string note;
  std::string source;   // hand | spec | brute-force | property
  Compare compare = Compare::Meaning;
  Json options = Json::object();           // e.g. {"domain":"extend"}; sent merged into args
  std::vector<std::string> decisions;      // decisions of spec/ the case records (D3, A1, ...)
  std::vector<std::string> tags;           // free-form (`limit`, ...): `tfspec conform --tag`
  std::string file;     // the case file it came from (for messages)
};

struct CorpusFile {
  std::string path;
  std::string made_by;
  std::vector<CorpusCase> cases;
};

// Every problem of one case file against the format (empty when valid). `reg` (optional) checks
// that each op is known; rule ids in expect_error are checked against the catalogue.
std::vector<std::string> validate_corpus_json(const Json& doc, const OpRegistry* reg);
// Reads one case file (throws SpecError json-malformed / json-type when it is not in the format).
CorpusFile load_corpus_file(const std::string& path);
// Every *.json file of a directory, sorted by name.
std::vector<std::string> corpus_files(const std::string& dir);

// The request line a case sends: {"seq": seq, "op": op, "args": args + options}.
Json case_request(const CorpusCase& c, int64_t seq);

enum class Status { Pass, Fail, Unsupported, Errored };
std::string_view to_string(Status s);

struct Judgement {
  Status status;
  std::string detail;  // why it failed (empty on pass)
  Json actual;         // the reply's result or error member (null when none)
};

// Judges a reply object (already checked to echo the right seq) against the case.
Judgement judge(const CorpusCase& c, const Json& reply);

// Whether `actual` means `expected` under `mode`; `why` says where they differ.
bool same_value(const Json& expected, const Json& actual, Compare mode, std::string& why);

}  // namespace tfspec::protocol
