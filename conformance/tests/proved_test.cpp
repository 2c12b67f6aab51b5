// Issue 44 item 2: the judge checks the `proved` conditions a reply adds (spec/corpus/README.md
// "Symbolic answers"). The reproducers (the reference's answer plus `0 > 1` proved, or each
// required condition listed again as proved) fail every symbolic case they touch, in process and
// through `wrong_impl --mutant`; true additions still pass; a RapidCheck property over the corpus's
// symbolic cases adds predicates whose truth is known by construction.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <regex>
#include <set>

#include "corpus_support.hpp"
#include "tfspec/conformance/runner.hpp"
#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/prove_ops.hpp"
#endif
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"
#include "release_only.hpp"

namespace tfspec::conformance {
namespace {

#ifdef TFSPEC_HAVE_PROVE
using testing::corpus;

const protocol::OpRegistry& registry() {
  static const protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
    protocol::register_prove_ops(r);
    return r;
  }();
  return reg;
}

bool symbolic_answer(const Json& e) { return e.is_object() && (e.contains("cases") || e.contains("conditions")); }

// The symbolic cases whose expected answer is in the symbolic form, with the reference's reply.
struct Answered {
  const CorpusCase* c;
  Json reply;
};
const std::vector<Answered>& answered() {
  static const std::vector<Answered> out = [] {
    std::vector<Answered> v;
    for (const auto& c : corpus()) {
      if (std::find(c.tags.begin(), c.tags.end(), "symbolic") == c.tags.end() || !c.expect || !symbolic_answer(*c.expect)) continue;
      bool stop = false;
      v.push_back({&c, protocol::serve_line(registry(), protocol::dump_line(protocol::case_request(c, 1)), stop)});
    }
    return v;
  }();
  return out;
}

// `extra` (a condition) added to the conditions at the top (k < 0) or of case k.
Json with_condition(Json reply, const Json& extra, int k) {
  Json& r = reply["result"];
  if (k < 0 || !r.contains("cases") || static_cast<size_t>(k) >= r["cases"].size()) r["conditions"].push_back(extra);
  else r["cases"][k]["conditions"].push_back(extra);
  return reply;
}

Json proved(const std::string& predicate) { return Json{{"rule", "extent-positive"}, {"clause", "§3"}, {"predicate", predicate}, {"status", "proved"}}; }

// The required conditions of an answer, at the top and in its cases.
std::vector<Json> required(const Json& result) {
  std::vector<Json> out;
  auto scan = [&](const Json& conds) {
    for (const auto& c : conds)
      if (c.value("status", "") == "required") out.push_back(c);
  };
  scan(result.value("conditions", Json::array()));
  for (const auto& c : result.value("cases", Json::array())) scan(c.value("conditions", Json::array()));
  return out;
}

// The symbols a case's arguments name (`M`, `N`, `K`: upper-case identifiers in its texts).
std::vector<std::string> symbols(const CorpusCase& c) {
  std::set<std::string> out;
  const std::string text = protocol::case_request(c, 0)["args"].dump();
  static const std::regex name(R"(\b[A-Z][A-Za-z0-9_]*\b)");
  for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) out.insert(it->str());
  return {out.begin(), out.end()};
}

TEST(ProvedConditions, TheReferencePassesAndTheReproducersFail) {
  ASSERT_GE(answered().size(), 40u) << "the corpus lost its symbolic answers";
  int with_required = 0;
  for (const auto& [c, reply] : answered()) {
    ASSERT_EQ(protocol::judge(*c, reply).status, Status::Pass) << c->id << ": " << protocol::judge(*c, reply).detail;
    // Reproducer 1: `0 > 1` claimed proved, at the top and in the first case.
    for (int k : {-1, 0}) {
      const auto j = protocol::judge(*c, with_condition(reply, proved("0 > 1"), k));
      EXPECT_EQ(j.status, Status::Fail) << c->id << " accepts 0 > 1 as proved";
      EXPECT_NE(j.detail.find("is claimed proved, but it fails at"), std::string::npos) << c->id << ": " << j.detail;
    }
    // Reproducer 2: each required condition listed a second time, as proved.
    const auto req = required(reply["result"]);
    if (req.empty()) continue;
    ++with_required;
    Json twice = reply;
    for (const auto& r : req) {
      Json p = r;
      p["status"] = "proved";
      p.erase("counterexample");
      twice = with_condition(twice, p, -1);
    }
    const auto j = protocol::judge(*c, twice);
    EXPECT_EQ(j.status, Status::Fail) << c->id << " accepts a required condition claimed proved";
    EXPECT_NE(j.detail.find("claimed proved"), std::string::npos) << c->id << ": " << j.detail;
  }
  EXPECT_GE(with_required, 6) << "the corpus has fewer symbolic cases with a required condition than expected";
}

TEST(ProvedConditions, TrueAdditionsPass) {
  for (const auto& [c, reply] : answered()) {
    Json more = with_condition(reply, proved("1 >= 1"), -1);  // true at every instance
    const Json assume = protocol::case_request(*c, 0)["args"].value("assume", Json::array());
    for (const auto& text : assume.is_string() ? Json::array({assume}) : assume)
      more = with_condition(more, proved(text.get<std::string>()), -1);  // an assumption holds at every instance of itself
    for (const auto& s : symbols(*c)) more = with_condition(more, proved("3*" + s + " + 2 >= 5"), 0);  // s >= 1
    const auto j = protocol::judge(*c, more);
    EXPECT_EQ(j.status, Status::Pass) << c->id << ": " << j.detail;
  }
}

// The judge's time is bounded: a list of more than 1,024 conditions is refused, not evaluated
// 4,096 times each; 1,024 true ones still pass.
TEST(ProvedConditions, AnEndlessListIsRefusedNotEvaluated) {
  TFSPEC_RELEASE_BUILD_ONLY("replays the judge on a very long list; TheReferencePassesAndTheReproducersFail covers its paths under ASan");
  const auto& [c, reply] = answered().front();
  Json many = reply;
  while (many["result"]["conditions"].size() < 1024) many = with_condition(many, proved("1 >= 1"), -1);
  EXPECT_EQ(protocol::judge(*c, many).status, Status::Pass) << protocol::judge(*c, many).detail;
  many = with_condition(many, proved("1 >= 1"), -1);
  const auto j = protocol::judge(*c, many);
  EXPECT_EQ(j.status, Status::Fail);
  EXPECT_NE(j.detail.find("more than the 1024 the judge checks"), std::string::npos) << j.detail;
}

// A predicate over one symbol S >= 1 whose truth is known without the judge: `a*S + b >= a + b`
// holds at every instance, `a*S + b < a + b` at none. Added anywhere, the first passes, the
// second fails; a required condition written the other way round (sides swapped) fails too.
RC_GTEST_PROP(ProvedConditions, AddedConditionsAreJudgedByTheirTruth, ()) {
  const auto& all = answered();
  const auto& [c, reply] = all[*rc::gen::inRange<size_t>(0, all.size())];
  const auto names = symbols(*c);
  RC_PRE(!names.empty());
  const std::string s = names[*rc::gen::inRange<size_t>(0, names.size())];
  const int64_t a = *rc::gen::inRange<int64_t>(1, 65), b = *rc::gen::inRange<int64_t>(-100, 101);
  const bool truth = *rc::gen::arbitrary<bool>();
  const int k = *rc::gen::inRange(-1, 2);
  const std::string lhs = std::to_string(a) + "*" + s + (b < 0 ? " - " : " + ") + std::to_string(b < 0 ? -b : b);
  const std::string pred = truth ? lhs + " >= " + std::to_string(a + b) : lhs + " < " + std::to_string(a + b);
  const auto j = protocol::judge(*c, with_condition(reply, proved(pred), k));
  RC_ASSERT((j.status == Status::Pass) == truth);
  const auto req = required(reply["result"]);
  if (!req.empty()) {
    Json p = req[*rc::gen::inRange<size_t>(0, req.size())];
    const std::string t = p["predicate"];
    const size_t at = t.find_first_of("<>=!");
    const bool two = t[at + 1] == '=';
    std::string rel = t.substr(at, two ? 2 : 1);
    rel = rel == "<" ? ">" : rel == ">" ? "<" : rel == "<=" ? ">=" : rel == ">=" ? "<=" : rel;
    p["predicate"] = t.substr(at + rel.size()) + " " + rel + " " + t.substr(0, at);  // rhs REL' lhs: the same predicate
    p["status"] = "proved";
    RC_ASSERT(protocol::judge(*c, with_condition(reply, p, k)).status == Status::Fail);
  }
}

TEST(ProvedConditions, TheMutantsFailTheSymbolicCases) {
  TFSPEC_RELEASE_BUILD_ONLY("replays every symbolic case for two mutants; AddedConditionsAreJudgedByTheirTruth covers the judge under ASan");
  RunOptions o;
  o.tags = {"symbolic"};
  std::set<std::string> symbolic_ids, required_ids;
  for (const auto& [c, reply] : answered()) {
    symbolic_ids.insert(c->id);
    if (!required(reply["result"]).empty()) required_ids.insert(c->id);
  }
  for (const char* name : {"proved-false", "proved-twice"}) {
    auto impl = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --mutant " + name, 20000);
    const Report r = run(corpus(), *impl, o);
    std::set<std::string> failed;
    for (const auto& x : r.cases)
      if (x.status == Status::Fail) failed.insert(x.c->id);
    EXPECT_EQ(failed, std::string(name) == "proved-false" ? symbolic_ids : required_ids) << name;
    EXPECT_EQ(r.totals().errored, 0) << name;
  }
}
#endif

}  // namespace
}  // namespace tfspec::conformance
