// Shared by the fuzz targets: what counts as a finding.
//  - any crash, sanitizer report, or exception other than SpecError (an input error or a
//    refusal must carry a rule id; nlohmann exceptions are findings unless a target says so);
//  - a round trip that is not the identity (FUZZ_CHECK).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(cond, what)                                                   \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s)\n", #cond, (what).c_str()); \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

namespace tfspec::fuzz {

// Inputs longer than this are cut: the parsers' limits are tested by hand (reference/tests).
inline constexpr size_t kMaxInput = 1 << 16;

inline std::string text_of(const unsigned char* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size < kMaxInput ? size : kMaxInput);
}

}  // namespace tfspec::fuzz
