// Fuzz target (issue 30): an adapter's reply through the conformance judge. The first byte picks a
// corpus case (every op and answer shape the corpus holds: integers, layouts, symbolic answers,
// violation lists, errors); the rest is the reply line, any JSON at all: huge and unsigned
// numbers, symbolic texts whose normal forms explode, members of the wrong type.
// Findings: a crash, any exception out of judge() (a reply the judge cannot read is an errored
// case, never an exception), a pass of a reply that is not an object.
#include <vector>

#include "fuzz_support.hpp"
#include "tfspec/protocol/corpus.hpp"

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

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  if (size < 3) return 0;
  const auto& all = cases();
  const protocol::CorpusCase& c = all[(static_cast<size_t>(data[0]) << 8 | data[1]) % all.size()];
  const Json reply = Json::parse(fuzz::text_of(data + 2, size - 2), nullptr, false);
  if (reply.is_discarded()) return 0;  // the runner errors a malformed line before the judge
  const protocol::Judgement j = protocol::judge(c, reply);
  FUZZ_CHECK(reply.is_object() || j.status != protocol::Status::Pass, c.id + ": " + reply.dump());
  return 0;
}
