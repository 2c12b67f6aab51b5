// The judge checks every `proved` condition of a symbolic answer (spec/corpus/README.md "Symbolic
// answers", issue 44 item 2). A proved condition restricts nothing only when it is true: a reply
// may add proved conditions to the case's, but each must hold at every instance of the
// assumptions and its case's guard (spec/ALGEBRA.md S5). The judge has no solver; it evaluates
// each proved predicate at a deterministic pool of instances (small values, the problem's
// constants and their neighbours and multiples, every counterexample of the case and the reply)
// that satisfy the assumptions and the guard. A condition false at one of them is a failure that
// names the instance; a predicate it cannot read cannot be checked and fails too.
#include <algorithm>
#include <cstdint>
#include <regex>
#include <set>
#include <vector>

#include "corpus_symbolic.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec::protocol {
namespace {

constexpr size_t kPoolCap = 4096;         // instances tried per case (beyond: a deterministic sample)
constexpr size_t kMostProved = 1024;      // proved conditions one list may claim (the judge's time is bounded)
constexpr int64_t kLargestValue = int64_t{1} << 40;

struct Relation {
  ShapeDim lhs, rhs;
  std::string rel;
};
using Chain = std::vector<Relation>;  // `1 <= M <= 64`: every relation of the chain

std::optional<ShapeDim> dim_of(const std::string& text) {
  try {
    const IntTuple t = parse_inttuple(text);
    if (!t.is_leaf() || t.is_none()) return std::nullopt;
    return t.as_dim();
  } catch (const SpecError&) {
    return std::nullopt;
  }
}

// A predicate or an assumption in prove's syntax (a chain `e1 op e2 [op e3 ...]`); nullopt when
// it is none. Expressions hold no `<`, `>`, `=` or `!`, so the relations split the text.
std::optional<Chain> read_chain(const std::string& text) {
  std::vector<std::string> parts, rels;
  size_t from = 0;
  for (size_t at = text.find_first_of("<>=!"); at != std::string::npos; at = text.find_first_of("<>=!", from)) {
    const bool two = at + 1 < text.size() && text[at + 1] == '=';
    const std::string rel = text.substr(at, two ? 2 : 1);
    if (rel == "=" || rel == "!") return std::nullopt;
    parts.push_back(text.substr(from, at - from));
    rels.push_back(rel);
    from = at + rel.size();
  }
  parts.push_back(text.substr(from));
  if (rels.empty()) return std::nullopt;
  Chain out;
  for (size_t i = 0; i < rels.size(); ++i) {
    auto l = dim_of(parts[i]), r = dim_of(parts[i + 1]);
    if (!l || !r) return std::nullopt;
    out.push_back({*l, *r, rels[i]});
  }
  return out;
}

// Defined and true at b (an undefined operand, a division by zero or an overflow, is not true).
bool chain_holds(const Chain& c, const Bindings& b) {
  try {
    for (const auto& p : c) {
      const int64_t l = evaluate(p.lhs, b), r = evaluate(p.rhs, b);
      const bool ok = p.rel == "==" ? l == r : p.rel == "!=" ? l != r : p.rel == "<" ? l < r : p.rel == "<=" ? l <= r : p.rel == ">" ? l > r : l >= r;
      if (!ok) return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void symbols_of(const Chain& c, std::set<std::string>& out) {
  for (const auto& p : c) collect_vars(p.lhs, out), collect_vars(p.rhs, out);
}

// The integer literals a text names (`M % 128 == 0`: 128, 0), for the pool.
void constants_of(const std::string& text, std::set<int64_t>& out) {
  static const std::regex number(R"(\d{1,12})");
  for (std::sregex_iterator it(text.begin(), text.end(), number), end; it != end; ++it) out.insert(std::stoll(it->str()));
}

std::vector<std::string> texts_of(const Json& j) {
  std::vector<std::string> out;
  if (j.is_string()) out.push_back(j.get<std::string>());
  if (j.is_array())
    for (const auto& x : j)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

// A counterexample {"M": 3, ...} as bindings (integers only).
std::optional<Bindings> bindings_of(const Json& x) {
  if (!x.is_object()) return std::nullopt;
  Bindings b;
  for (const auto& [k, v] : x.items())
    if (v.is_number_integer()) b[k] = v.get<int64_t>();
  return b;
}

// What the instances of one case must satisfy, and the pool's ingredients.
struct Problem {
  std::vector<Chain> assumptions;
  std::set<std::string> symbols;
  std::set<int64_t> constants;
  std::vector<Bindings> counterexamples;
};

// Candidate values of one symbol: 1..12, each constant c >= 1 with c-1, c+1, 2c, 3c, 4c, 2c±1.
std::vector<int64_t> candidate_values(const std::set<int64_t>& constants) {
  std::set<int64_t> v;
  for (int64_t i = 1; i <= 12; ++i) v.insert(i);
  for (int64_t c : constants)
    if (c >= 1 && c <= kLargestValue)
      for (int64_t x : {c - 1, c, c + 1, 2 * c, 3 * c, 4 * c, 2 * c - 1, 2 * c + 1})
        if (x >= 1) v.insert(x);
  return {v.begin(), v.end()};
}

uint64_t mix(uint64_t x) {  // splitmix64: a fixed sample, the same on every run
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A symbol's candidates that satisfy the chains naming no other symbol (`M % 128 == 0`, `M >= 256`),
// so that the combinations are instances more often than not.
std::vector<int64_t> values_of(const std::string& name, const std::vector<int64_t>& values, const std::vector<Chain>& chains) {
  std::vector<int64_t> out;
  for (int64_t v : values) {
    const Bindings b{{name, v}};
    bool ok = true;
    for (const auto& c : chains) {
      std::set<std::string> names;
      symbols_of(c, names);
      if (names.size() == 1 && names.count(name) && !chain_holds(c, b)) ok = false;
    }
    if (ok) out.push_back(v);
  }
  return out;
}

// The pool: every combination of candidate values when there are at most kPoolCap, else a fixed
// sample of kPoolCap; then the counterexamples, a symbol they leave out bound to 1.
std::vector<Bindings> pool(const Problem& p, const std::vector<Chain>& guard) {
  const std::vector<int64_t> values = candidate_values(p.constants);
  std::vector<Chain> chains = p.assumptions;
  chains.insert(chains.end(), guard.begin(), guard.end());
  std::vector<std::pair<std::string, std::vector<int64_t>>> axes;
  uint64_t total = 1;
  for (const auto& n : p.symbols) {
    axes.emplace_back(n, values_of(n, values, chains));
    if (axes.back().second.empty()) axes.back().second.push_back(1);
    total = total > kPoolCap ? total : total * axes.back().second.size();
  }
  const bool all = total <= kPoolCap;
  std::vector<Bindings> out;
  for (uint64_t i = 0; i < (all ? total : kPoolCap); ++i) {
    Bindings b;
    uint64_t rest = all ? i : mix(i);
    for (const auto& [n, vs] : axes) {
      b[n] = vs[rest % vs.size()];
      rest = all ? rest / vs.size() : mix(rest);
    }
    out.push_back(std::move(b));
  }
  for (Bindings b : p.counterexamples) {
    for (const auto& n : p.symbols) b.emplace(n, 1);
    out.push_back(std::move(b));
  }
  return out;
}

std::string instance_text(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += (s.empty() ? "" : ", ") + k + " = " + std::to_string(v);
  return s.empty() ? "(no symbol)" : s;
}

// The first text of a guard entry (a string, or an array of equivalent forms).
std::vector<Chain> guard_of(const Json& when, bool& readable) {
  std::vector<Chain> out;
  if (!when.is_array()) return out;
  for (const auto& g : when) {
    const auto texts = texts_of(g);
    const auto c = texts.empty() ? std::nullopt : read_chain(texts.front());
    if (!c) readable = false;
    else out.push_back(*c);
  }
  return out;
}

// Every proved condition of `conds` at every pool instance where the assumptions and `guard` hold.
bool proved_hold(const Json& conds, const std::vector<Chain>& guard, Problem p, std::string& why) {
  if (!conds.is_array()) return true;
  std::vector<std::pair<const Json*, Chain>> proved;
  if (conds.size() > kMostProved)
    return why = std::to_string(conds.size()) + " conditions in one list, more than the " + std::to_string(kMostProved) + " the judge checks", false;
  for (const auto& c : conds) {
    if (!c.is_object() || c.value("status", Json()) != "proved") continue;
    const Json pred = c.value("predicate", Json());
    const auto chain = pred.is_string() ? read_chain(pred.get<std::string>()) : std::nullopt;
    if (!chain) return why = "condition " + c.dump() + " is claimed proved, but its predicate cannot be read, so it cannot be checked", false;
    symbols_of(*chain, p.symbols);
    constants_of(pred.get<std::string>(), p.constants);
    proved.emplace_back(&c, *chain);
  }
  if (proved.empty()) return true;
  for (const auto& g : guard) symbols_of(g, p.symbols);
  for (const Bindings& b : pool(p, guard)) {
    if (!std::all_of(p.assumptions.begin(), p.assumptions.end(), [&](const Chain& a) { return chain_holds(a, b); })) continue;
    if (!std::all_of(guard.begin(), guard.end(), [&](const Chain& g) { return chain_holds(g, b); })) continue;
    for (const auto& [c, chain] : proved)
      if (!chain_holds(chain, b))
        return why = "condition " + c->dump() + " is claimed proved, but it fails at " + instance_text(b) +
                     ", an instance of the assumptions" + (guard.empty() ? "" : " and the case's guard") +
                     " (a proved condition must hold at every such instance)", false;
  }
  return true;
}

// The case's assumptions, symbols, constants and counterexamples (the expected answer's and the
// reply's); nullopt when an assumption cannot be read (the pool could then hold non-instances).
std::optional<Problem> problem_of(const CorpusCase& c, const Json& reply) {
  Problem p;
  const Json args = case_request(c, 0)["args"];
  for (const auto& text : texts_of(args.value("assume", Json()))) {
    auto chain = read_chain(text);
    if (!chain) return std::nullopt;
    symbols_of(*chain, p.symbols);
    constants_of(text, p.constants);
    p.assumptions.push_back(std::move(*chain));
  }
  constants_of(args.dump(), p.constants);
  // A counterexample sits at most 4 levels down (cases[i].conditions[j].counterexample); the
  // scan stops at 6, so a reply nested deeper costs no stack.
  auto scan = [&](const Json& answer, int depth, auto&& self) -> void {
    if (depth > 6) return;
    if (answer.is_object()) {
      if (answer.contains("counterexample"))
        if (auto b = bindings_of(answer["counterexample"])) p.counterexamples.push_back(*b);
      for (const auto& [k, v] : answer.items()) self(v, depth + 1, self);
    } else if (answer.is_array()) {
      for (const auto& v : answer) self(v, depth + 1, self);
    }
  };
  if (c.expect) scan(*c.expect, 0, scan);
  scan(reply, 0, scan);
  return p;
}

}  // namespace

bool proved_conditions_hold(const CorpusCase& c, const Json& reply, std::string& why) {
  if (!c.expect || !is_symbolic_answer(*c.expect) || !reply.is_object()) return true;
  const auto p = problem_of(c, reply);
  if (!p) return true;
  const Json cases = reply.value("cases", Json());
  const bool pinned = c.expect->contains("cases");  // the expected answer pins the cases' guards
  bool readable = true;
  // The top level is the single case's (spec/PROTOCOL.md): its guard where the cases are pinned.
  std::vector<Chain> top;
  if (pinned && cases.is_array() && cases.size() == 1 && cases[0].is_object()) top = guard_of(cases[0].value("when", Json()), readable);
  if (readable && !proved_hold(reply.value("conditions", Json()), top, *p, why)) return false;
  if (!cases.is_array()) return true;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].is_object()) continue;
    readable = true;
    const auto guard = guard_of(cases[i].value("when", Json()), readable);
    if (readable && !proved_hold(cases[i].value("conditions", Json()), guard, *p, why))
      return why = "case " + std::to_string(i) + " (when " + cases[i].value("when", Json()).dump() + "): " + why, false;
  }
  return true;
}

}  // namespace tfspec::protocol
