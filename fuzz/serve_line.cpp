// Fuzz target: protocol::serve_line, the JSON-lines server loop body, with the reference op
// groups (layout and shard; prove is left out: Z3 time limits are not what this target tests).
// Findings: a crash, any exception (serve_line never throws), a reply that is not one line of
// valid JSON, or a reply without `seq` / `cmd`.
#include "fuzz_support.hpp"
#include "reference_registry.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

using namespace tfspec;

static const protocol::OpRegistry& registry() { return fuzz::reference_registry(); }

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  std::string line = fuzz::text_of(data, size);
  if (line.find('\n') != std::string::npos) line.resize(line.find('\n'));  // serve reads lines
  bool stop = false;
  Json reply = protocol::serve_line(registry(), line, stop);
  const std::string out = protocol::dump_line(reply);
  FUZZ_CHECK(out.find('\n') == std::string::npos, out);
  Json back = Json::parse(out);  // throws (a finding) if not valid JSON
  FUZZ_CHECK(back.is_object() && (back.contains("seq") || back.contains("cmd")), out);
  return 0;
}
