// Errors and diagnostics shared by every reference module.
// A SpecError always names a stable rule id and the spec clause it enforces.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace tfspec {

struct Diagnostic {
  std::string rule;     // stable id, e.g. "split-axis-unique"
  std::string clause;   // e.g. "§6"
  std::string message;  // informational
  std::string path;     // where in the object, e.g. "layout.shape[1]"
};

class SpecError : public std::runtime_error {
 public:
  SpecError(std::string rule, std::string clause, const std::string& message, std::string path = {})
      : std::runtime_error("[" + rule + " " + clause + "] " + message),
        diag_{std::move(rule), std::move(clause), message, std::move(path)} {}
  explicit SpecError(Diagnostic d)
      : std::runtime_error("[" + d.rule + " " + d.clause + "] " + d.message), diag_(std::move(d)) {}
  const std::string& rule() const { return diag_.rule; }
  const std::string& clause() const { return diag_.clause; }
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

[[noreturn]] inline void fail(const std::string& rule, const std::string& clause, const std::string& msg,
                              const std::string& path = {}) {
  throw SpecError(rule, clause, msg, path);
}

}  // namespace tfspec
