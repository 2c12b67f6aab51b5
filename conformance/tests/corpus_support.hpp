// What the conformance tests share: the corpus, loaded once per test binary, and a registry of the
// reference's own ops (layout, shard, propagate, multigpu; no solver).
#pragma once
#include <string>
#include <vector>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/protocol/ops.hpp"

namespace tfspec::conformance::testing {

inline const std::string kCorpus = std::string(TFSPEC_SOURCE_DIR) + "/spec/corpus";

inline const std::vector<CorpusCase>& corpus() {
  static const auto cases = load_corpus(kCorpus);
  return cases;
}

inline const protocol::OpRegistry& reference_registry() {
  static const protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
    return r;
  }();
  return reg;
}

// The SpecError message of `body`, or "" when it throws none.
template <class F>
std::string refusal(F&& body) {
  try {
    body();
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tfspec::conformance::testing
