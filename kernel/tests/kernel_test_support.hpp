// What the kernel tests share: one finding of a report by check and subject, and its rule id.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tfspec/kernel/check.hpp"

namespace tfspec::kernel {

// The finding of `check` about `subject`; a test failure (and a placeholder) where there is none.
inline const Finding& finding(const KernelReport& r, const std::string& check, const std::string& subject) {
  for (const Finding& f : r.findings)
    if (f.check == check && f.subject == subject) return f;
  static const Finding none{"(none)", "(none)", Outcome::Skipped, nullptr, "no such finding", Json::object()};
  ADD_FAILURE() << "no " << check << " finding for " << subject;
  return none;
}

inline std::string rule_of(const Finding& f) { return f.rule ? std::string(f.rule->id) : ""; }

}  // namespace tfspec::kernel
