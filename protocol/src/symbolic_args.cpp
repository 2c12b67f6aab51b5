// The arguments the layout ops' symbolic forms read besides the op's own (spec/PROTOCOL.md
// "Symbolic layouts"): `assume`, shared with the prove ops, and `timeout_ms`.
#include "symbolic_budget.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"

namespace tfspec::protocol {

int64_t timeout_arg(const Json& a) {
  if (!a.contains("timeout_ms")) return 60000;
  const Json& t = a["timeout_ms"];
  if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 600000) fail(rule::kProveUsage, "\"timeout_ms\" is an integer in [1, 600000]");
  return t.get<int64_t>();
}

int64_t budget_arg(const Json& a) {
  if (!a.contains("budget")) return BudgetedDecider::kDefaultBudget;
  const Json& t = a["budget"];
  if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 10000000)
    fail(rule::kProveUsage, "\"budget\" (solver queries) is an integer in [1, 10000000]");
  return t.get<int64_t>();
}

std::vector<std::string> assume_arg(const Json& a) {
  std::vector<std::string> out;
  if (!a.is_object() || !a.contains("assume")) return out;
  const Json& as = a["assume"];
  if (as.is_string()) {
    out.push_back(as.get<std::string>());
  } else if (as.is_array()) {
    for (const auto& x : as) {
      if (!x.is_string()) fail(rule::in(rule::kProveUsage, "§1"), "\"assume\" holds strings such as \"M % 128 == 0\"");
      out.push_back(x.get<std::string>());
    }
  } else {
    fail(rule::in(rule::kProveUsage, "§1"), "\"assume\" is a string or an array of strings");
  }
  return out;
}

}  // namespace tfspec::protocol
