// The runner against the reference (in process and as a subprocess: 100% but the named expected
// failures) and against a deliberately wrong implementation, whose departures must be reported
// exactly, clause by clause, with crashes, hangs and wrong seqs recorded as errored.
#include <gtest/gtest.h>

#include "release_only.hpp"

#include <algorithm>
#include <map>

#include "tfspec/conformance/runner.hpp"
#include "corpus_support.hpp"
#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#endif

namespace tfspec::conformance {
namespace {

using testing::corpus;
using testing::kCorpus;

const protocol::OpRegistry& registry() {
  static const protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
#ifdef TFSPEC_HAVE_PROVE
    protocol::register_prove_ops(r);  // the corpus's prove.* cases
    protocol::register_kernel_ops(r);  // and its kernel.check cases (spec/corpus/k1-kernel.json)
#endif
    return r;
  }();
  return reg;
}

RunOptions with_xfail() {
  RunOptions o;
  o.expected_failures = read_id_list(kCorpus + "/expected-failures.txt");
  return o;
}

void expect_all_pass(const Report& r) {
  const Counts n = r.totals();
  EXPECT_EQ(n.fail, 0);
  EXPECT_EQ(n.errored, 0);
  EXPECT_EQ(n.unsupported, 0);
  EXPECT_EQ(n.xpass, 0);
  EXPECT_EQ(exit_code(r), 0);
  if (n.fail + n.errored) ADD_FAILURE() << text_report(r);
}

TEST(Runner, ReferenceInProcessPassesEverything) {
  TFSPEC_RELEASE_BUILD_ONLY("a whole-corpus replay (the ASan build runs Corpus.EveryCasePassesThroughTheProtocol)");
  auto impl = in_process(registry());
  Report r = run(corpus(), *impl, with_xfail());
  EXPECT_EQ(r.cases.size(), corpus().size());
  expect_all_pass(r);
}

TEST(Runner, ReferenceAsASubprocessPassesEverything) {
  TFSPEC_RELEASE_BUILD_ONLY("a whole-corpus replay (the ASan build runs Corpus.EveryCasePassesThroughTheProtocol)");
  auto impl = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --honest", 20000);
  Report r = run(corpus(), *impl, with_xfail());
  expect_all_pass(r);
  EXPECT_EQ(r.restarts, 0);
}

// What the wrong implementation must get, decided from the cases alone.
Status planted(const CorpusCase& c) {
  auto names_rule = [&](const char* rule) {
    if (!c.expect || !c.expect->is_object() || !c.expect->contains("violations")) return false;
    for (const auto& v : (*c.expect)["violations"])
      if (v.value("rule", "") == rule) return true;
    return false;
  };
  if (c.op == "shard.mesh" || c.op == "complement") return Status::Unsupported;
  if (c.op == "depth" || c.op == "domain_rank" || c.op == "crd2crd") return Status::Errored;
  if (c.op == "rank" && c.args.value("t", Json()) == Json::array()) return Status::Errored;
  if (c.op == "cosize" && c.expect) return Status::Fail;
  if (c.op == "shape_div" && !c.expect_error.empty()) return Status::Fail;
  if (c.op == "shard.check" && names_rule("partial-reduction")) return Status::Fail;
  return Status::Pass;
}

TEST(Runner, WrongImplementationIsCaughtExactly) {
  auto impl = subprocess(TFSPEC_WRONG_IMPL, 4000);  // generous for sanitizer builds: only the planted hang waits it out
  RunOptions opts = with_xfail();
  Report r = run(corpus(), *impl, opts);
  EXPECT_EQ(r.implementation["name"], "wrong-toy");
  std::map<std::string, int> failing_by_clause;
  int crashes = 0;
  for (const auto& o : r.cases) {
    if (o.expected_failure) continue;
    EXPECT_EQ(o.status, planted(*o.c)) << o.c->id << " (" << o.c->op << "): " << o.detail;
    if (o.status == Status::Fail) ++failing_by_clause[o.c->clause];
    if (o.status == Status::Errored) ++crashes;
  }
  // The departures sit in their clauses: §1 (shape_div), §3 (cosize), §6 (partial-reduction).
  EXPECT_GT(failing_by_clause["§1"], 0);
  EXPECT_GT(failing_by_clause["§3"], 0);
  EXPECT_GT(failing_by_clause["§6"], 0);
  EXPECT_EQ(r.restarts, crashes);  // every errored case restarted the process; the run went on
  EXPECT_EQ(exit_code(r), 1);
  const std::string text = text_report(r);
  EXPECT_NE(text.find("FAIL s3-cosize [§3 cosize]"), std::string::npos) << text.substr(0, 3000);
  EXPECT_NE(text.find("expected: 8136"), std::string::npos);
  EXPECT_NE(text.find("ERRORED s1-rank-empty"), std::string::npos);
  const Json j = json_report(r);
  EXPECT_GT(j["summary"]["fail"].get<int>(), 0);
  EXPECT_EQ(j["cases"].size(), r.cases.size());
  const std::string xml = junit_report(r);
  EXPECT_NE(xml.find("<testsuite name=\"§3\""), std::string::npos);
  EXPECT_NE(xml.find("<failure"), std::string::npos);
}

// An implementation of the bare spec reads no swizzle: it answers every request parse-error.
class BareSpec : public Implementation {
 public:
  explicit BareSpec(Json ops, Json body = Json{{"error", {{"rule", "parse-error"}, {"clause", "§1"}, {"message", "no swizzles here"}}}})
      : ops_(std::move(ops)), body_(std::move(body)) {}
  Json start() override { return Json{{"implementation", {{"name", "bare"}}}, {"ops", ops_}}; }
  Reply ask(const Json& request) override {
    Reply r;
    r.json = body_;
    r.json["seq"] = request["seq"];
    return r;
  }
  void stop() override {}

 private:
  Json ops_, body_;
};

// spec/ALGEBRA.md Extensions: cases tagged `extension` whose input the implementation cannot read
// are unsupported, never failed; the same reply to a case of the spec itself is a failure.
TEST(Runner, ExtensionCasesABareImplementationCannotReadAreUnsupported) {
  std::vector<CorpusCase> cases;
  for (const auto& c : corpus())
    if (std::find(c.tags.begin(), c.tags.end(), "extension") != c.tags.end() || c.id == "s4-apply") cases.push_back(c);
  Json ops = Json::array();
  for (const auto& c : cases) ops.push_back(c.op);
  BareSpec impl(ops);
  RunOptions o;
  o.allow_unsupported = true;
  const Report r = run(cases, impl, o);
  ASSERT_GT(r.cases.size(), 30u);
  for (const auto& oc : r.cases)
    EXPECT_EQ(oc.status, oc.c->id == "s4-apply" ? Status::Fail : Status::Unsupported) << oc.c->id << ": " << oc.detail;
}

// spec/ALGEBRA.md S1-S5: an implementation without symbolic shapes refuses them as §1 says
// (needs-concrete) or answers without the symbolic form (it ignores "assume"): the `symbolic`
// cases are then unsupported, never failed; the same replies to a concrete case fail it.
TEST(Runner, SymbolicCasesAnImplementationWithoutSymbolsCannotReadAreUnsupported) {
  std::vector<CorpusCase> cases;
  for (const auto& c : corpus())
    if (std::find(c.tags.begin(), c.tags.end(), "symbolic") != c.tags.end() || c.id == "s4-apply") cases.push_back(c);
  Json ops = Json::array();
  for (const auto& c : cases) ops.push_back(c.op);
  RunOptions o;
  o.allow_unsupported = true;
  for (const Json& body : {Json{{"error", {{"rule", "needs-concrete"}, {"clause", "§1"}}}}, Json{{"result", 8}}}) {
    BareSpec impl(ops, body);
    const Report r = run(cases, impl, o);
    ASSERT_GT(r.cases.size(), 15u);
    for (const auto& oc : r.cases)
      EXPECT_EQ(oc.status, oc.c->id == "s4-apply" ? Status::Fail : Status::Unsupported) << body << " " << oc.c->id << ": " << oc.detail;
  }
  o.exclude_tags = {"symbolic"};  // --exclude-tag symbolic: only s4-apply runs
  BareSpec impl(ops);
  EXPECT_EQ(run(cases, impl, o).cases.size(), 1u);
}

TEST(Runner, FiltersSelectByClauseOpOrId) {
  CorpusCase c;
  c.id = "s7-sugar";
  c.clause = "§7.1.1";
  c.op = "shard.canon";
  EXPECT_TRUE(selected(c, {"§7"}));
  EXPECT_TRUE(selected(c, {"§7.1"}));
  EXPECT_FALSE(selected(c, {"§7.2"}));
  EXPECT_TRUE(selected(c, {"shard.canon"}));
  EXPECT_TRUE(selected(c, {"s7-"}));
  EXPECT_FALSE(selected(c, {"§1", "composition"}));
}

TEST(Runner, AnImplementationThatDoesNotStartIsAUsageError) {
  auto impl = subprocess("exit 3", 500);
  EXPECT_THROW(run(corpus(), *impl, {}), SpecError);
}

}  // namespace
}  // namespace tfspec::conformance

namespace tfspec::conformance {
namespace {

// docs/conformance.md's worked example: conformance/examples/layout_adapter.py, and its `--broken` copy
// (cosize one short). Whatever the honest adapter gets wrong, the broken one must fail exactly
// those cases plus the cosize cases the honest one passes, and nothing else changes.
TEST(PythonAdapter, BrokenCopyFailsExactlyThePlantedCases) {
  const std::string python = TFSPEC_PYTHON3;
  if (python.empty()) GTEST_SKIP() << "no python3 found at configure time";
  const std::string adapter = python + " " + TFSPEC_SOURCE_DIR + "/conformance/examples/layout_adapter.py";
  auto honest = subprocess(adapter, 20000);
  auto broken = subprocess(adapter + " --broken", 20000);
  const Report good = run(corpus(), *honest, {});
  const Report bad = run(corpus(), *broken, {});
  ASSERT_EQ(good.cases.size(), bad.cases.size());
  EXPECT_EQ(good.totals().errored, 0);
  EXPECT_GT(good.totals().pass, 1000);  // a real part of the corpus, not a stub
  int planted = 0;
  for (size_t i = 0; i < good.cases.size(); ++i) {
    const auto& g = good.cases[i];
    const auto& b = bad.cases[i];
    const bool cosize_case = g.c->op == "cosize" && g.c->expect && g.status == Status::Pass;
    if (cosize_case) {
      ++planted;
      EXPECT_EQ(b.status, Status::Fail) << g.c->id;
    } else {
      EXPECT_EQ(b.status, g.status) << g.c->id << ": " << b.detail;
    }
  }
  EXPECT_GT(planted, 50);
  EXPECT_EQ(exit_code(bad), 1);
}

}  // namespace
}  // namespace tfspec::conformance
