// Fuzz target (issue 30): an adapter's reply through the conformance judge. The first byte picks a
// corpus case (every op and answer shape the corpus holds: integers, layouts, symbolic answers,
// violation lists, errors); the rest is the reply line, any JSON at all: huge and unsigned
// numbers, symbolic texts whose normal forms explode, members of the wrong type.
// Findings: a crash, any exception out of judge() (a reply the judge cannot read is an errored
// case, never an exception), a pass of a reply that is not an object, and (issue 44 item 2) a
// pass of a symbolic answer with a `proved` condition that is false: one without symbols
// (`0 > 1`) is evaluated here, apart from the judge, and must hold.
#include <vector>

#include "fuzz_support.hpp"
#include "tfspec/protocol/corpus.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

static const std::vector<protocol::CorpusCase>& cases() {
  static const auto* all = [] {
    auto* v = new std::vector<protocol::CorpusCase>();
    for (const auto& path : protocol::corpus_files(TFSPEC_CORPUS_DIR))
      for (auto& c : protocol::load_corpus_file(path).cases) v->push_back(std::move(c));
    return v;
  }();
  return *all;
}

// A predicate `c1 REL c2` over integers only, evaluated; nullopt where it is not one (a symbol,
// a chain, an unreadable side) or is undefined.
static std::optional<bool> ground_truth(const std::string& text) {
  const size_t at = text.find_first_of("<>=!");
  if (at == std::string::npos) return std::nullopt;
  const bool two = at + 1 < text.size() && text[at + 1] == '=';
  const std::string rel = text.substr(at, two ? 2 : 1), rest = text.substr(at + rel.size());
  if (rel == "=" || rel == "!" || rest.find_first_of("<>=!") != std::string::npos) return std::nullopt;
  try {
    const IntTuple l = parse_inttuple(text.substr(0, at)), r = parse_inttuple(rest);
    if (!l.is_leaf() || !r.is_leaf() || l.is_none() || r.is_none()) return std::nullopt;
    const int64_t x = evaluate(l.as_dim(), {}), y = evaluate(r.as_dim(), {});
    return rel == "==" ? x == y : rel == "!=" ? x != y : rel == "<" ? x < y : rel == "<=" ? x <= y : rel == ">" ? x > y : x >= y;
  } catch (const std::exception&) {
    return std::nullopt;  // a symbol (unbound) or an undefined value: not judged here
  }
}

// Every ground `proved` condition of an answer (at the top and in its cases) is true.
static bool ground_proved_hold(const Json& result) {
  if (!result.is_object()) return true;
  auto ok = [](const Json& conds) {
    if (!conds.is_array()) return true;
    for (const auto& c : conds)
      if (c.is_object() && c.value("status", Json()) == "proved" && c.value("predicate", Json()).is_string())
        if (ground_truth(c["predicate"].get<std::string>()) == false) return false;
    return true;
  };
  if (!ok(result.value("conditions", Json()))) return false;
  const Json cases = result.value("cases", Json());
  if (cases.is_array())
    for (const auto& c : cases)
      if (c.is_object() && !ok(c.value("conditions", Json()))) return false;
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  if (size < 3) return 0;
  const auto& all = cases();
  const protocol::CorpusCase& c = all[(static_cast<size_t>(data[0]) << 8 | data[1]) % all.size()];
  const Json reply = Json::parse(fuzz::text_of(data + 2, size - 2), nullptr, false);
  if (reply.is_discarded()) return 0;  // the runner errors a malformed line before the judge
  const protocol::Judgement j = protocol::judge(c, reply);
  FUZZ_CHECK(reply.is_object() || j.status != protocol::Status::Pass, c.id + ": " + reply.dump());
  if (j.status == protocol::Status::Pass && reply.contains("result"))
    FUZZ_CHECK(ground_proved_hold(reply["result"]), c.id + ": a false proved condition passed: " + reply.dump());
  return 0;
}
