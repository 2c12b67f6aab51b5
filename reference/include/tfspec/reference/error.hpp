// Errors and diagnostics shared by every reference module.
// A SpecError always names a stable rule id and the spec clause it enforces; both come from the
// rule catalogue (catalogue.hpp), so a use site cannot spell an id that is not declared.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "tfspec/reference/catalogue.hpp"

namespace tfspec {

struct Diagnostic {
  std::string rule;     // stable id, e.g. "split-axis-unique" (declared in rules.def)
  std::string clause;   // e.g. "§6"
  std::string message;  // informational
  std::string path;     // where in the object, e.g. "layout.shape[1]"

  Diagnostic() = default;
  Diagnostic(RuleRef r, std::string msg, std::string at = {})
      : rule(r.rule->id), clause(r.clause), message(std::move(msg)), path(std::move(at)) {}
  RuleKind kind() const { return rule_kind(rule); }
};

class SpecError : public std::runtime_error {
 public:
  SpecError(RuleRef r, const std::string& message, std::string path = {})
      : SpecError(Diagnostic(r, message, std::move(path))) {}
  explicit SpecError(Diagnostic d)
      : std::runtime_error("[" + d.rule + " " + d.clause + "] " + d.message), diag_(std::move(d)) {}
  const std::string& rule() const { return diag_.rule; }
  const std::string& clause() const { return diag_.clause; }
  const Diagnostic& diagnostic() const { return diag_; }
  RuleKind kind() const { return diag_.kind(); }

 private:
  Diagnostic diag_;
};

[[noreturn]] inline void fail(RuleRef rule, const std::string& msg, const std::string& path = {}) {
  throw SpecError(rule, msg, path);
}

}  // namespace tfspec
