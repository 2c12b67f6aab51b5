// The corpus covers the spec: every clause §1-§8, every rule id of kind Invariant or Refusal in
// the catalogue (as an expected error or an expected violation), and every decision recorded in
// spec/*.md. A gap fails the build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/reference/catalogue.hpp"

namespace tfspec::conformance {
namespace {

const std::string kSource = TFSPEC_SOURCE_DIR;

// Rules no protocol request can trigger, each with the reason. Keep this list short.
const std::set<std::string_view> kUnreachable = {
    // (none yet: add `"rule-id",  // why` when a rule cannot be reached through the protocol)
};

void collect_rules(const Json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    if (j.contains("rule") && j["rule"].is_string()) out.insert(j["rule"].get<std::string>());
    for (const auto& [k, v] : j.items()) collect_rules(v, out);
  } else if (j.is_array()) {
    for (const auto& v : j) collect_rules(v, out);
  }
}

TEST(Coverage, EveryClauseHasCases) {
  std::set<std::string> top;
  for (const auto& c : load_corpus(kSource + "/spec/corpus")) top.insert(c.clause.substr(0, c.clause.find('.')));
  for (int k = 1; k <= 8; ++k) EXPECT_TRUE(top.count("§" + std::to_string(k))) << "no case for §" << k;
}

TEST(Coverage, EveryInvariantAndRefusalRuleHasACase) {
  std::set<std::string> named;
  for (const auto& c : load_corpus(kSource + "/spec/corpus")) {
    for (const auto& e : c.expect_error) named.insert(e);
    if (c.expect) collect_rules(*c.expect, named);
  }
  for (const RuleId& r : catalogue()) {
    if (r.kind != RuleKind::Invariant && r.kind != RuleKind::Refusal) continue;
    if (kUnreachable.count(r.id)) continue;
    EXPECT_TRUE(named.count(std::string(r.id))) << "no corpus case expects rule " << r.id << " (" << r.clause << ", " << r.summary << ")";
  }
}

TEST(Coverage, EveryDecisionInSpecHasACase) {
  std::set<std::string> recorded;
  for (const auto& c : load_corpus(kSource + "/spec/corpus"))
    for (const auto& d : c.decisions) recorded.insert(d);
  // Decisions are headings `## A1 — ...` / `### D2 — ...` in spec/*.md.
  const std::regex heading(R"(^#+\s+((?:A|D)\d+)\b)");
  std::set<std::string> decisions;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/spec")) {
    if (e.path().extension() != ".md") continue;
    std::ifstream in(e.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, heading)) decisions.insert(m[1]);
  }
  EXPECT_GE(decisions.size(), 10u);
  for (const auto& d : decisions) EXPECT_TRUE(recorded.count(d)) << "decision " << d << " of spec/ has no case (\"decisions\": [\"" << d << "\"])";
}

}  // namespace
}  // namespace tfspec::conformance
