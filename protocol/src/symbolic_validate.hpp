// Translation validation of a symbolic answer (spec/ALGEBRA.md S9): before `tfspec layout`,
// `serve` or `conform` prints a symbolic result, every case is replayed at concrete instances
// through the concrete reference, which is trusted. At each instance at most one case's guard
// may hold, and where none holds the reference must refuse; where its conditions all hold the instantiated result must be the reference's answer
// as a function; where one fails the reference must refuse; a `proved` condition must hold.
// Any disagreement is a tfspec bug: SpecError `internal` (exit 4) naming the instance.
// Private to ops_symbolic.cpp.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec::protocol {

struct CheckedCondition {
  SymPred pred;
  std::string status;  // proved | required | refuted
};
struct CheckedCase {
  std::vector<SymPred> when;
  std::vector<CheckedCondition> conditions;
  std::string text;  // the result as printed, for the report
  bool refused = false;  // a refusal case (issue 46 item 4): the reference refuses where its guard holds
};

// The concrete reference at an instance: its answer, or that it refused (rule), or that it hit
// one of its limits (int64 overflow, an enumeration limit): then the instance says nothing.
struct ConcreteAnswer {
  bool refused = false, limit = false;
  std::string rule;
  Json result;
  std::string text;
};

// Where the reference answers inside a refusal case of a walk op (D17: CuTe's walk refuses, the
// reference answers past it): the first such instance and the reference's answer there.
struct PastWalk {
  Bindings at;
  std::string answer;
};

struct ValidationStats {
  size_t instances = 0, compared = 0, refusals = 0;
  size_t past = 0;  // where the walk refuses (a failing condition, a refusal case) but the reference answers (D17)
  std::map<size_t, PastWalk> past_walk;  // by refusal case index (issue 46: a printed refusal is checked too)
};

// `differs(k, b, answer)`: "" when case k's result at b is the reference's answer, else how they
// differ; it throws SpecError of kind Limit where the instance overflows (the instance is skipped).
// `sufficient`: the op's conditions are CuTe's walk's (S3): where one fails the reference may
// still answer past the walk (D17), so a failing condition there is not checked for a refusal.
// `total`: the cases cover every instance (refusal cases included), so an instance no guard
// holds at is a bug.
ValidationStats validate_cases(const std::vector<CheckedCase>& cases, bool sufficient, bool total, const std::vector<Bindings>& instances,
                               const std::function<ConcreteAnswer(const Bindings&)>& concrete,
                               const std::function<std::string(size_t, const Bindings&, const Json&)>& differs);

// The comparisons, one per kind of answer: a layout as a function (size, top-level modes' sizes,
// every offset or an even sample of 256 of them), an integer, an IntTuple exactly.
std::string layout_differs(const Layout& symbolic, const Bindings& b, const Json& reference);
std::string dim_differs(const ShapeDim& symbolic, const Bindings& b, const Json& reference);
std::string inttuple_differs(const IntTuple& symbolic, const Bindings& b, const Json& reference);

}  // namespace tfspec::protocol
