// `tfspec conform --fuzz`: generated cases (the props generators) asked of an implementation and
// of the reference; the first disagreement is shrunk by RapidCheck and reported with a one-line
// reproduction. Time-bounded and reproducible by seed.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "tfspec/conformance/runner.hpp"

namespace tfspec::conformance {

struct FuzzOptions {
  double seconds = 10;
  uint64_t seed = 1;
  int batch = 50;                 // cases per RapidCheck run (one derived seed each)
  std::vector<std::string> ops;   // empty: every op fuzz_ops() lists
  const std::atomic<int>* stop = nullptr;  // non-zero (a signal handler's flag): stop before the next case
};

struct FuzzOutcome {
  int64_t cases = 0, agreed = 0, skipped = 0, shrink_steps = 0;
  bool disagreement = false;
  Json request;          // the shrunk request
  Json reference, impl;  // both replies to it
  std::string why;
  double seconds = 0;
};

const std::vector<std::string>& conform_fuzz_ops();
FuzzOutcome conform_fuzz(const protocol::OpRegistry& reference, Implementation& impl, const FuzzOptions& opts);

}  // namespace tfspec::conformance
