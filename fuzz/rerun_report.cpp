// Fuzz target (issue 30): `conform --rerun-failed REPORT`, the reader of a previous --json report.
// Any bytes in the file: the ids it returns or a SpecError (usage) naming why, nothing else.
#include <unistd.h>

#include <fstream>

#include "fuzz_support.hpp"
#include "tfspec/conformance/runner.hpp"

using namespace tfspec;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  static const std::string path = "/tmp/tfspec-fuzz-rerun-" + std::to_string(getpid()) + ".json";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << fuzz::text_of(data, size);
  try {
    const auto ids = conformance::failed_ids(path);
    FUZZ_CHECK(!ids.empty(), std::string("an empty id set is refused, not returned"));
  } catch (const SpecError&) {
  }
  return 0;
}
