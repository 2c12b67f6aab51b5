// `tfspec conform` over MPI ranks (conform_ranks.cpp; docs/conformance.md "Across MPI ranks").
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/ranks/ranks.hpp"

namespace tfspec::cli {

struct ConformOutputs {
  std::string json, junit, html;
  bool quiet = false;
  double rank_timeout = 30;
};
using StartImpls = std::function<std::vector<std::unique_ptr<conformance::Implementation>>()>;
// Each rank runs its share of the selected cases with implementations from `start`; rank 0
// merges the shares and alone prints and writes the reports. The exit code of the run.
int run_conform_campaign(ranks::Campaign& c, const std::vector<conformance::CorpusCase>& cases, conformance::RunOptions opts, const StartImpls& start,
                         const ConformOutputs& out);

}  // namespace tfspec::cli
