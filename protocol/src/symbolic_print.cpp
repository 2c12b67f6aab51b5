#include "symbolic_print.hpp"

#include "symbolic_defined.hpp"

namespace tfspec::protocol {
namespace {

// issue 46 item 2: `required` only with an instance of the case on each side.
constexpr const char* kUndecidedCondition =
    "the solver could neither prove nor refute it in this case, and no instance of the case was found on each side";
constexpr const char* kUndecidedFailing =
    "the solver could neither prove nor refute it in this case; it fails at the instance below, and no instance of the case where it "
    "holds was found";
constexpr const char* kRefutedCondition = "fails at every instance of this case: the formula above is the answer at none of them";
constexpr const char* kUnreached = "  reachable: undecided (no instance of this case was found, and none was proved impossible)\n";

std::string cond_line(const SymCondition& c, const std::string& status, const std::string& text, const std::string& note) {
  std::string s = status;
  s.resize(std::max<size_t>(9, s.size() + 1), ' ');
  return "  " + s + "[" + c.rule + " " + c.clause + "] " + text + note + "\n";
}

std::string everywhere_line(size_t n, const std::set<std::string>& symbols, bool cases) {
  if (n == 0) return "";
  std::string names;
  for (const auto& x : symbols) names += (names.empty() ? "" : ", ") + x;
  return "  + " + std::to_string(n) + (n == 1 ? " condition that holds" : " conditions that hold") + " for every " + names +
         " >= 1" + (cases ? " in this case" : "") + " (listed by --json)\n";
}

std::map<std::string, int64_t> ones(const std::set<std::string>& symbols) {
  std::map<std::string, int64_t> m;
  for (const auto& x : symbols) m[x] = 1;
  return m;
}

// issue 46 item 3: a condition whose divisor can be 0 in its case is printed, and so classified,
// as `q != 0 and ... and C`, which is false where a divisor is 0 (`and` stops there). Classifying
// `C` alone would read such an instance as undefined: neither side, and so `undecided` where the
// printed condition plainly fails (complement (128,M//128):(1,128*N) at M < 128).
solver::Classified classify_defined(BudgetedDecider& dec, const std::vector<SymPred>& when, const std::vector<SymPred>& first, const SymPred& p) {
  if (first.empty()) return dec.classify(when, p);
  std::optional<Bindings> fails;  // an instance of the case where a divisor is 0
  bool nonzero = true;            // every divisor proved non-zero in the case
  for (const auto& q : first) {
    const solver::Classified k = dec.classify(when, q);
    nonzero = nonzero && k.status == "proved";
    if (k.counterexample && !fails) fails = k.counterexample;
  }
  const std::vector<SymPred> defined = joined(when, first);
  if (!fails) {
    const solver::Classified k = dec.classify(defined, p);
    if (nonzero || k.status == "refuted" || k.status == "required") return k;  // where every divisor is non-zero, it is C
    return {"undecided", k.counterexample};
  }
  if (dec.instance(joined(defined, {p}))) return {"required", fails};
  if (dec.satisfiable(joined(defined, {p})) == false) return {"refuted", fails};
  return {"undecided", fails};
}

}  // namespace

Everywhere::Everywhere(const std::set<std::string>& symbols, BudgetedDecider& dec) : dec_(dec), symbols_(symbols), folding_(ones(symbols)) {}

// Interval folding answers most of them (`M >= 1`, `128*(M//128) <= M`) without a solver call.
bool Everywhere::holds(const std::vector<SymPred>& when, const SymPred& p) {
  if (auto d = folding_.decide(when, p)) return *d;
  if (!bare_z3_) {
    bare_z3_.emplace(std::vector<std::string>{}, symbols_);
    bare_z3_->set_deadline(dec_.deadline());
  }
  return dec_.guarded([&] { return bare_z3_->classify(when, p); }).status == "proved";
}

std::string guard_text(const std::vector<SymPred>& when) {
  std::string g;
  for (const auto& p : when) g += (g.empty() ? "" : " and ") + to_string(p);
  return g.empty() ? "(otherwise)" : g;
}

Json guard_json(const std::vector<SymPred>& when) {
  Json j = Json::array();
  for (const auto& p : when) j.push_back(to_string(p));
  return j;
}

PrintedCase print_answer(BudgetedDecider& dec, Everywhere& ev, const std::vector<SymPred>& when, const std::vector<SymCondition>& conditions,
                         const std::string& result_text, const Json& result_json, const std::optional<Bindings>& witness, bool headed,
                         const Replay& replay, CheckedCase& checked, std::vector<Bindings>& found) {
  Json conds = Json::array();
  std::string lines;
  size_t everywhere = 0;
  checked = CheckedCase{when, {}, result_text};
  for (const auto& c : conditions) {
    // `decided`: settled by the decider under this case's guard alone (S4); every other
    // condition is classified here under the assumptions and the guard, never the path.
    // issue 46 item 3: a divisor that can be 0 in this case is said to be non-zero first
    const std::vector<SymPred> first = c.decided ? std::vector<SymPred>{} : undefined_divisors(dec, when, c.pred);
    const solver::Classified k = c.decided ? solver::Classified{"proved", std::nullopt} : classify_defined(dec, when, first, c.pred);
    checked.conditions.push_back({c.pred, k.status});
    if (k.counterexample) found.push_back(*k.counterexample);
    if (k.status == "proved" && ev.holds(when, c.pred)) {
      ++everywhere;
      conds.push_back(Json{{"rule", c.rule}, {"clause", c.clause}, {"predicate", to_string(c.pred)}, {"status", k.status}});
      continue;
    }
    std::string note;
    for (const auto& t : dec.assumptions().texts) note = t == to_string(c.pred) ? "   (assumed)" : note;
    const std::string text = defined_text(first, c.pred);
    Json jc{{"rule", c.rule}, {"clause", c.clause}, {"predicate", text}, {"status", k.status}};
    if (k.status == "undecided") {
      // with a counterexample, an instance on the failing side was found: none where it holds
      const char* why = k.counterexample ? kUndecidedFailing : kUndecidedCondition;
      jc["reason"] = why;
      note += "   (" + std::string(why) + ")";
    }
    if (k.status == "refuted") {
      jc["reason"] = kRefutedCondition;
      note += "   (" + std::string(kRefutedCondition) + ")";
    }
    if (k.counterexample) {
      jc["counterexample"] = *k.counterexample;
      note += "   (fails at " + solver::to_string(*k.counterexample) + ": " + replay(*k.counterexample) + ")";
    }
    lines += cond_line(c, k.status, text, note);
    conds.push_back(jc);
  }
  if (!witness) lines += kUnreached;
  const std::string head = headed ? "when " + guard_text(when) + ":\n" : "";
  return {head + result_text + "\n" + lines + everywhere_line(everywhere, dec.assumptions().symbols, headed),
          Json{{"when", guard_json(when)}, {"result", result_json}, {"conditions", conds}, {"witness", witness ? Json(*witness) : Json(nullptr)}}};
}

// issue 46 item 4: `when ...: refused [rule §clause]`, the refusal's message below.
PrintedCase print_refusal(const RefusalCase& r) {
  const Diagnostic& d = r.refusal;
  const std::string head = r.when.empty() ? "" : "when " + guard_text(r.when) + ": ";  // the only case: no guard
  std::string text = head + "refused [" + d.rule + " " + d.clause + "]\n  " + d.message + "\n";
  if (!r.witness) text += kUnreached;
  return {text, Json{{"when", guard_json(r.when)},
                     {"result", nullptr},
                     {"refused", Json{{"rule", d.rule}, {"clause", d.clause}, {"message", d.message}}},
                     {"conditions", Json::array()},
                     {"witness", r.witness ? Json(*r.witness) : Json(nullptr)}}};
}

}  // namespace tfspec::protocol
