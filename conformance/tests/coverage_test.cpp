// The corpus covers the spec: every clause §1-§8, every rule id of the catalogue and every decision
// recorded in spec/*.md has at least one positive and one negative case, as spec/corpus/README.md
// ("Coverage") defines them. Internal rules are exempt by kind, rules raised only by modules no
// protocol op runs (gpu/, draw/, multigpu/) by that scan, and the few others no request can reach
// are listed with their reasons in spec/corpus/coverage-exemptions.txt. A gap fails the build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tfspec/conformance/runner.hpp"
#include "corpus_support.hpp"
#include "tfspec/reference/catalogue.hpp"

namespace tfspec::conformance {
namespace {

const std::string kSource = TFSPEC_SOURCE_DIR;

using testing::corpus;

void collect_rules(const Json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    if (j.contains("rule") && j["rule"].is_string()) out.insert(j["rule"].get<std::string>());
    for (const auto& [k, v] : j.items()) collect_rules(v, out);
  } else if (j.is_array()) {
    for (const auto& v : j) collect_rules(v, out);
  }
}

// The rules an expected result names (violations, undecided): empty for a plain answer.
std::set<std::string> named_rules(const CorpusCase& c) {
  std::set<std::string> out;
  if (c.expect) collect_rules(*c.expect, out);
  return out;
}

// Negative: the case expects an error or names a violation / undecided rule.
bool negative(const CorpusCase& c) { return !c.expect || !named_rules(c).empty(); }

// The rules a case is negative for: its one expected error (an array of alternatives pins none),
// or the rules its expected result names.
std::set<std::string> negative_for(const CorpusCase& c) {
  if (!c.expect) return c.expect_error.size() == 1 ? std::set<std::string>{c.expect_error[0]} : std::set<std::string>{};
  return named_rules(c);
}

struct Tally {
  int positive = 0, negative = 0;
};

// spec/corpus/coverage-exemptions.txt: `rule-id  # reason`.
std::map<std::string, std::string> exemptions() {
  std::map<std::string, std::string> out;
  std::ifstream in(kSource + "/spec/corpus/coverage-exemptions.txt");
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    std::istringstream words(line.substr(0, hash));
    std::string id;
    if (words >> id) out[id] = hash == std::string::npos ? "" : line.substr(hash + 1);
  }
  return out;
}

// The rules the protocol can raise: those whose catalogue constant (`rule::kName`) is used in the
// sources of a module behind the protocol's ops (kernel/ is behind kernel.check). A rule raised
// only elsewhere (gpu/'s CUDA errors, draw/, multigpu/) is reached by no request, so no case can
// hold it.
std::set<std::string> rules_behind_the_protocol() {
  std::map<std::string, std::string> id_of;  // kName -> id
  {
    std::ifstream in(kSource + "/reference/include/tfspec/reference/rules.def");
    const std::regex def(R"re(^\s*RULE\((k\w+),\s*"([^"]+)")re");
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, def)) id_of[m[1]] = m[2];
  }
  std::set<std::string> used;
  const std::regex word(R"(\bk[A-Z]\w*)");
  for (const char* mod : {"reference", "solver", "propagation", "protocol", "kernel"}) {
    for (const char* part : {"/src", "/include"}) {
      const std::filesystem::path dir = kSource + "/" + mod + part;
      if (!std::filesystem::is_directory(dir)) continue;
      for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file() || e.path().filename() == "rules.def") continue;
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        const std::string body = text.str();
        for (std::sregex_iterator it(body.begin(), body.end(), word), end; it != end; ++it)
          if (auto f = id_of.find(it->str()); f != id_of.end()) used.insert(f->second);
      }
    }
  }
  return used;
}

TEST(Coverage, EveryClauseHasPositiveAndNegativeCases) {
  std::map<std::string, Tally> by_clause;
  for (const auto& c : corpus()) {
    Tally& t = by_clause[c.clause.substr(0, c.clause.find('.'))];
    (negative(c) ? t.negative : t.positive)++;
  }
  for (int k = 1; k <= 8; ++k) {
    const Tally t = by_clause["§" + std::to_string(k)];
    EXPECT_GT(t.positive, 0) << "no positive case (an answer without violations) for §" << k;
    EXPECT_GT(t.negative, 0) << "no negative case (an expected error or violation) for §" << k;
  }
}

TEST(Coverage, EveryRuleHasPositiveAndNegativeCases) {
  // A rule's guarded ops are the ops of its negative cases; a positive case is an answer of one of
  // them that does not name the rule (the rule held and the op answered).
  std::map<std::string, std::set<std::string>> guarded;
  std::map<std::string, Tally> by_rule;
  for (const auto& c : corpus())
    for (const auto& r : negative_for(c)) {
      by_rule[r].negative++;
      guarded[r].insert(c.op);
    }
  for (const auto& c : corpus()) {
    if (!c.expect) continue;
    const auto named = named_rules(c);
    for (const auto& [r, ops] : guarded)
      if (ops.count(c.op) && !named.count(r)) by_rule[r].positive++;
  }
  const auto exempt = exemptions();
  const auto reachable = rules_behind_the_protocol();
  EXPECT_GT(reachable.size(), 50u) << "the scan of the protocol's modules found too few rule constants";
  std::set<std::string> ids;
  for (const RuleId& r : catalogue()) {
    const std::string id(r.id);
    ids.insert(id);
    const Tally t = by_rule[id];
    if (r.kind == RuleKind::Internal || exempt.count(id) || !reachable.count(id)) {
      // An exemption that is no longer needed is stale: remove it.
      EXPECT_FALSE(t.negative > 0 && t.positive > 0) << id << " is exempt but has both cases: remove it from coverage-exemptions.txt";
      continue;
    }
    EXPECT_GT(t.negative, 0) << "no negative case for rule " << id << " (" << r.clause << ", " << to_string(r.kind) << ": " << r.summary
                             << "): a case with \"expect_error\": \"" << id << "\" or a violation naming it";
    EXPECT_GT(t.positive, 0) << "no positive case for rule " << id << ": an answered case of an op its negative cases use ("
                             << [&] {
                                  std::string s;
                                  for (const auto& op : guarded[id]) s += (s.empty() ? "" : ", ") + op;
                                  return s;
                                }()
                             << ")";
  }
  for (const auto& [id, why] : exempt) {
    EXPECT_TRUE(ids.count(id)) << "coverage-exemptions.txt names " << id << ", which is no rule of the catalogue";
    EXPECT_NE(why.find_first_not_of(" \t"), std::string::npos) << "coverage-exemptions.txt: " << id << " has no reason after '#'";
  }
  // Issue 19 added three rules of serve and propagation that no in-process request reaches.
  EXPECT_LE(exempt.size(), 10u) << "keep the exemptions short";
}

TEST(Coverage, EveryDecisionInSpecHasPositiveAndNegativeCases) {
  std::map<std::string, Tally> recorded;
  for (const auto& c : corpus())
    for (const auto& d : c.decisions) (negative(c) ? recorded[d].negative : recorded[d].positive)++;
  // Decisions are headings `## A1 — ...` / `### D2 — ...` / `## P6 — ...` in spec/*.md, a
  // heading that names one in parentheses (`## Propagation (P8: ...)`), or a bold bullet
  // `- **P2** ...` (PROPAGATION.md's Partial table).
  const std::regex heading(R"(^(?:#+\s+((?:A|D|P)\d+)\b|#+.*\((P\d+):|- \*\*(P\d+)\*\*))");
  std::set<std::string> decisions;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/spec")) {
    if (e.path().extension() != ".md") continue;
    std::ifstream in(e.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, heading)) decisions.insert(m[1].matched ? m[1] : m[2].matched ? m[2] : m[3]);
  }
  EXPECT_GE(decisions.size(), 10u);
  for (const auto& d : decisions) {
    const Tally t = recorded[d];
    EXPECT_GT(t.positive, 0) << "decision " << d << " of spec/ has no positive case (an answer, \"decisions\": [\"" << d << "\"])";
    EXPECT_GT(t.negative, 0) << "decision " << d << " of spec/ has no negative case (an expected error or violation, \"decisions\": [\"" << d << "\"])";
  }
}

}  // namespace
}  // namespace tfspec::conformance
