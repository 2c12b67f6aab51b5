// `tfspec kernel check`: the checks of spec/KERNEL.md over a pipeline description, each with one
// of three outcomes (ok, violation, undecided; malformed input is a SpecError), each violation
// naming the first offending thread, value and element.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/kernel/pipeline.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::kernel {

enum class Outcome { Ok, Violation, Undecided, Skipped };  // Skipped: another finding says why

struct Finding {
  std::string check;    // coverage, agreement, banks, width, global, bounds, footprint
  std::string subject;  // what was checked: "A g2s", "C mma", "B s2r", "M % 128 == 0"
  Outcome outcome = Outcome::Ok;
  const RuleId* rule = nullptr;  // the rule a violation or undecided answer reports
  std::string message;
  Json detail = Json::object();  // thread, value, element, wavefronts, ... as data
  std::string loc = {};  // the source location of the op checked (kernels read from an IR), else empty
};

struct KernelOptions {
  std::optional<int64_t> smem_limit;  // bytes; unset: the architecture's (smem_limit_for)
  unsigned prove_timeout_ms = 2000;   // per bounds condition that needs the prover
};

struct KernelReport {
  std::string name, arch;
  std::vector<Finding> findings;
  double seconds = 0;
  int exit_code() const;  // 1 any violation, else 2 any undecided, else 0
};

// Shared memory one CTA may use by default: sm80 164 KiB, sm86/sm89 100 KiB, sm90 228 KiB (the
// per-SM capacities; see spec/KERNEL.md for the per-block opt-in maximum, 1 KiB less).
std::optional<int64_t> smem_limit_for(const std::string& arch);

KernelReport check_pipeline(const Pipeline& p, const KernelOptions& o = {});

Json to_json(const KernelReport& r);
std::string to_text(const KernelReport& r);

// The checks, one family per file (check.cpp runs them in this order).
void check_coverage(const Pipeline& p, std::vector<Finding>& out);
void check_agreement(const Pipeline& p, std::vector<Finding>& out);
void check_banks(const Pipeline& p, std::vector<Finding>& out);
void check_bounds(const Pipeline& p, const KernelOptions& o, std::vector<Finding>& out);
void check_footprint(const Pipeline& p, const KernelOptions& o, std::vector<Finding>& out);

}  // namespace tfspec::kernel
