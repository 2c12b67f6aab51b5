// Options for tests whose verdict must not depend on machine load: Z3's deterministic resource
// limit decides (the budget 2 s of wall time gives on an idle machine), the wall clock only backs
// it up generously (sanitizer builds and a loaded CI machine are many times slower).
#pragma once
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver::testing {

inline ProveOptions deterministic_options(std::vector<std::string> assume = {}) {
  ProveOptions o;
  o.assume = std::move(assume);
  o.timeout_ms = 120000;
  o.rlimit = 4'000'000;
  return o;
}

}  // namespace tfspec::solver::testing
