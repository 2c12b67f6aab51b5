// Issue 30 (reliability round 4), the runner and its judge: a run that answered nothing is
// refused; the judge is not fooled by an unsigned integer, a no-op coalesce or a reply of the
// wrong JSON shape, and never normalises without a bound; a child that stops reading, dies on
// every request or whose stderr copy cannot be written costs a bounded time and is said.
// Plausible wrong implementations of each op (wrong_impl --mutant) fail the corpus and the fuzzer.
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "corpus_support.hpp"
#include "tfspec/conformance/fuzz.hpp"
#include "tfspec/conformance/runner.hpp"

namespace tfspec::conformance {
namespace {

using testing::corpus;
using protocol::Compare;
const protocol::OpRegistry& registry() { return testing::reference_registry(); }

using testing::refusal;

// A Python adapter: the handshake lists `ops` (a JSON array), each request runs `body` with `req`
// in scope, which prints the reply (or does not).
std::string adapter(const std::string& name, const std::string& ops, const std::string& body) {
  const std::string dir = std::filesystem::temp_directory_path() / ("tfspec-round4-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name + ".py";
  std::ofstream(path) << "import json, sys, os, time\n"
                         "OPS = json.loads('" << ops << "')\n"
                         "def reply(j):\n"
                         "    sys.stdout.write(json.dumps(j) + '\\n'); sys.stdout.flush()\n"
                         "for line in sys.stdin:\n"
                         "    if not line.strip(): continue\n"
                         "    req = json.loads(line)\n"
                         "    if req.get('cmd') == 'start':\n"
                         "        reply({'cmd': 'start', 'protocol': 1, 'implementation': {'name': '" << name << "', 'version': '0'}, 'ops': OPS}); continue\n"
                         "    if req.get('cmd') == 'stop': break\n"
                      << body << "\n";
  return std::string(TFSPEC_PYTHON3) + " " + path;
}

#define NEED_PYTHON() \
  if (std::string(TFSPEC_PYTHON3).empty()) GTEST_SKIP() << "no python3 found at configure time"

RunOptions only(std::vector<std::string> filters) {
  RunOptions o;
  o.filters = std::move(filters);
  return o;
}

// ---- item 1: green on nothing ----------------------------------------------------------------

TEST(Round4, ARunThatAnsweredNothingIsRefusedUnlessAllowed) {
  NEED_PYTHON();
  const std::string skip_all = adapter("skip_all", "[\"composition\"]", "    reply({'seq': req['seq'], 'skipped': {'reason': 'not yet'}})");
  auto impl = subprocess(skip_all, 10000);
  const std::string why = refusal([&] { run(corpus(), *impl, only({"g-s3-comp-*"})); });
  EXPECT_NE(why.find("answered none of the"), std::string::npos) << why;
  EXPECT_NE(why.find("--allow-unsupported"), std::string::npos) << why;
  RunOptions allowed = only({"g-s3-comp-*"});
  allowed.allow_unsupported = true;
  auto again = subprocess(skip_all, 10000);
  const Report r = run(corpus(), *again, allowed);
  EXPECT_GT(r.totals().unsupported, 100);
  EXPECT_EQ(r.totals().pass + r.totals().fail + r.totals().errored, 0);
}

TEST(Round4, ANullResultToEverySymbolicCaseTestsNothing) {
  NEED_PYTHON();
  // Every op the corpus names, so no case is unsupported by the handshake alone.
  Json ops = Json::array();
  std::set<std::string> seen;
  for (const auto& c : corpus())
    if (seen.insert(c.op).second) ops.push_back(c.op);
  const std::string null_result = adapter("null_result", ops.dump(), "    reply({'seq': req['seq'], 'result': None})");
  RunOptions o;
  o.tags = {"symbolic"};
  o.filters = {"coalesce", "filter", "size", "cosize"};
  auto impl = subprocess(null_result, 10000);
  const std::string why = refusal([&] { run(corpus(), *impl, o); });
  EXPECT_NE(why.find("answered none of the"), std::string::npos) << why;
}

TEST(Round4, ARunWithOneAnsweredCaseIsNotRefused) {
  // The reference answers everything: its runs are never refused for answering nothing.
  auto impl = in_process(registry());
  const Report r = run(corpus(), *impl, only({"s3-cosize"}));
  EXPECT_GT(r.totals().pass, 0);
}

// ---- item 3: unsigned integers -----------------------------------------------------------------

CorpusCase expecting(const Json& expect, const std::string& op = "cosize", Compare mode = Compare::Meaning) {
  CorpusCase c;
  c.id = "t";
  c.op = op;
  c.expect = expect;
  c.compare = mode;
  return c;
}

TEST(Round4, AnUnsignedIntegerIsNotReadAsSigned) {
  const Json wrapped = Json::parse("18446744073709551611");  // 2^64 - 5
  ASSERT_TRUE(wrapped.is_number_unsigned());
  for (Compare mode : {Compare::Meaning, Compare::Function, Compare::Exact}) {
    EXPECT_EQ(protocol::judge(expecting(-5, "cosize", mode), Json{{"result", wrapped}}).status, Status::Fail);
    EXPECT_EQ(protocol::judge(expecting(Json::array({1, -5}), "shape", mode), Json{{"result", Json::array({1, wrapped})}}).status, Status::Fail);
  }
  // Inside a layout (a stride of -5 against 2^64-5) and as a decimal string.
  const Json expect{{"kind", "layout"}, {"shape", Json::array({2})}, {"stride", Json::array({-5})}};
  Json actual = expect;
  actual["stride"][0] = wrapped;
  EXPECT_EQ(protocol::judge(expecting(expect, "composition"), Json{{"result", actual}}).status, Status::Fail);
  actual["stride"][0] = "18446744073709551611";
  EXPECT_EQ(protocol::judge(expecting(expect, "composition"), Json{{"result", actual}}).status, Status::Fail);
  // The same value written unsigned is the same integer.
  EXPECT_EQ(protocol::judge(expecting(5), Json{{"result", Json::parse("5")}}).status, Status::Pass);
  EXPECT_EQ(protocol::judge(expecting(static_cast<uint64_t>(5)), Json{{"result", 5}}).status, Status::Pass);
}

// ---- item 4: the judge's normal forms are bounded ---------------------------------------------

TEST(Round4, AnExplodingSymbolicAnswerIsJudgedNotNormalisedForever) {
  std::string sum = "(A+B+C+D+E+F+G+H+I+J)", power = sum;
  for (int k = 1; k < 16; ++k) power += "*" + sum;
  const Json expect{{"result", {{"kind", "layout"}, {"shape", "M*N"}, {"stride", 1}}},
                    {"cases", Json::array({{{"when", Json::array()}, {"result", {{"kind", "layout"}, {"shape", "M*N"}, {"stride", 1}}}}})}};
  const Json actual{{"result", {{"kind", "layout"}, {"shape", power}, {"stride", 1}}},
                    {"cases", Json::array({{{"when", Json::array({power + " >= 1"})}, {"result", {{"kind", "layout"}, {"shape", power}, {"stride", 1}}}}})},
                    {"conditions", Json::array({{{"predicate", power + " >= 1"}, {"status", "required"}}})}};
  const auto j = protocol::judge(expecting(expect, "coalesce"), Json{{"result", actual}});
  EXPECT_EQ(j.status, Status::Fail) << j.detail.substr(0, 300);
}

// ---- item 5: replies of the wrong JSON type ------------------------------------------------------

TEST(Round4, RepliesOfTheWrongJsonTypeAreJudgedNotThrown) {
  const CorpusCase c = expecting(4);
  for (const char* reply : {R"({"error":{"rule":7,"message":[1]}})", R"({"error":{"rule":"x","message":5}})", R"({"error":"text"})",
                            R"({"result":{"kind":5}})", R"({"result":[[[]]]})", R"([1,2])", R"("result")", R"({"skipped":5})"}) {
    const auto j = protocol::judge(c, Json::parse(reply));
    EXPECT_NE(j.status, Status::Pass) << reply;
  }
  // A symbolic expected answer against actual members of every wrong type.
  const Json expect{{"result", "M"}, {"cases", Json::array({{{"when", Json::array({"M >= 2"})}, {"result", "M"}}})},
                    {"conditions", Json::array({{{"predicate", "M >= 2"}, {"status", "required"}}})}};
  for (const char* actual : {R"({"result":"M","cases":[5],"conditions":[7]})", R"({"result":"M","cases":[{"when":5,"result":[]}],"conditions":"x"})",
                             R"({"result":"M","cases":"x","conditions":[{"predicate":5,"status":[]}]})",
                             R"({"result":"M","cases":[{"when":["M >= 2"],"result":"M"}],"conditions":[{"predicate":"M >= 2","status":"required","clause":5,"counterexample":"x"}]})"}) {
    const auto j = protocol::judge(expecting(expect, "size"), Json{{"result", Json::parse(actual)}});
    EXPECT_NE(j.status, Status::Pass) << actual;
  }
}

TEST(Round4, WrongTypedRepliesWithTwoJobsAreErroredOrFailedAndTheRunGoesOn) {
  NEED_PYTHON();
  const std::string odd = adapter("odd", "[\"cosize\", \"size\"]",
                                  "    reply({'seq': req['seq'], 'error': {'rule': 7, 'message': [1], 'kind': {}}})");
  auto a = subprocess(odd, 10000), b = subprocess(odd, 10000);
  const Report r = run(corpus(), std::vector<Implementation*>{a.get(), b.get()}, only({"cosize", "size"}));
  EXPECT_EQ(r.totals().pass, 0);
  EXPECT_GT(r.totals().fail + r.totals().errored, 10);
  EXPECT_EQ(exit_code(r), 1);
}

TEST(Round4, AHandshakeWithANonStringCmdIsAnInputError) {
  NEED_PYTHON();
  const std::string dir = std::filesystem::temp_directory_path() / ("tfspec-round4-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cmd5.py") << "import sys\nfor l in sys.stdin:\n    print('{\"cmd\": 5, \"protocol\": 1, \"ops\": []}', flush=True)\n";
  auto impl = subprocess(std::string(TFSPEC_PYTHON3) + " " + dir + "/cmd5.py", 10000);
  const std::string why = refusal([&] { run(corpus(), *impl, only({"s3-cosize"})); });
  EXPECT_NE(why.find("no handshake"), std::string::npos) << why;
}

TEST(Round4, ARerunReportWithANonStringStatusIsReadNotThrown) {
  const std::string path = std::filesystem::temp_directory_path() / ("tfspec-round4-status-" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << R"({"cases":[{"id":"s3-cosize","status":5},{"id":"s3-size","status":"fail"},{"id":7,"status":"fail"}]})";
  const auto ids = failed_ids(path);
  EXPECT_EQ(ids, (std::set<std::string>{"s3-size"}));
  std::ofstream(path) << R"({"cases":[{"id":"s3-cosize","status":{"x":1}}]})";
  EXPECT_NE(refusal([&] { failed_ids(path); }).find("records no failed"), std::string::npos);
  std::filesystem::remove(path);
}

// ---- item 6: a child that stops reading ---------------------------------------------------------

// Answers the handshake, then never reads again.
std::string never_reads() {
  const std::string dir = std::filesystem::temp_directory_path() / ("tfspec-round4-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/never_reads.py") << "import sys, time\nsys.stdin.readline()\n"
                                            "print('{\"cmd\": \"start\", \"protocol\": 1, \"ops\": [\"eval\"]}', flush=True)\n"
                                            "time.sleep(3600)\n";
  return std::string(TFSPEC_PYTHON3) + " " + dir + "/never_reads.py";
}

Json huge_request() { return Json{{"seq", 1}, {"op", "eval"}, {"args", {{"layout", std::string(1 << 20, ' ') + "4:1"}, {"coord", 0}}}}; }

TEST(Round4, ARequestTheChildDoesNotReadCostsTheTimeoutNotTheRun) {
  NEED_PYTHON();
  auto impl = subprocess(never_reads(), 500);
  impl->start();
  const auto t0 = std::chrono::steady_clock::now();
  const Reply r = impl->ask(huge_request());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out) << r.problem;
  EXPECT_NE(r.problem.find("did not read its request"), std::string::npos) << r.problem;
  EXPECT_LT(s, 30.0) << "the write must give up at the timeout";
  impl->stop();
}

// A slow start (an interpreter importing on a busy machine) is not a missing handshake: the
// handshake is waited for at least 10 s whatever --timeout-ms is (docs/conformance.md); the
// requests after it keep their own timeout.
TEST(Round4, ASlowStartIsNotAMissingHandshake) {
  NEED_PYTHON();
  const std::string dir = std::filesystem::temp_directory_path() / ("tfspec-round4-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/slow_start.py") << "import sys, time\ntime.sleep(1.5)\nsys.stdin.readline()\n"
                                           "print('{\"cmd\": \"start\", \"protocol\": 1, \"ops\": [\"eval\"]}', flush=True)\n"
                                           "time.sleep(3600)\n";
  auto impl = subprocess(std::string(TFSPEC_PYTHON3) + " " + dir + "/slow_start.py", 300);
  EXPECT_NO_THROW(impl->start());
  const auto t0 = std::chrono::steady_clock::now();
  const Reply r = impl->ask(Json{{"seq", 1}, {"op", "eval"}, {"args", {{"layout", "4:1"}, {"coord", 0}}}});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out) << r.problem;  // it never answers: the request's 300 ms, not the handshake's floor
  EXPECT_NE(r.problem.find("--timeout-ms"), std::string::npos) << r.problem;
  EXPECT_LT(s, 5.0);
  impl->stop();
}

TEST(Round4, AStopSignalEndsABlockedWrite) {
  NEED_PYTHON();
  auto impl = subprocess(never_reads(), 3'600'000);  // an hour: only the interrupt can end it
  std::atomic<int> flag{0};
  impl->set_interrupt(&flag);
  impl->start();
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    flag = 15;
  });
  const Reply r = impl->ask(huge_request());
  t.join();
  EXPECT_NE(r.problem.find("interrupted by signal 15"), std::string::npos) << r.problem;
  impl->stop();
}

// ---- item 7: crash storms -----------------------------------------------------------------------

TEST(Round4, ACrashStormStopsTheRunAndSaysSo) {
  NEED_PYTHON();
  const std::string dies = adapter("dies", "[\"composition\"]", "    os._exit(3)");
  auto impl = subprocess(dies, 10000);
  const Report r = run(corpus(), *impl, only({"g-s3-comp-*"}));
  EXPECT_NE(r.stopped.find("5 consecutive crashes"), std::string::npos) << r.stopped;
  int asked = 0, not_run = 0;
  for (const auto& o : r.cases) (o.not_run ? not_run : asked) += 1;
  EXPECT_EQ(asked, 5);
  EXPECT_GT(not_run, 100);
  EXPECT_EQ(exit_code(r), 1);
}

TEST(Round4, CrashesOnSomeOpsAloneDoNotStopTheRun) {
  // wrong_impl crashes on `depth` (two cases in a row at most): the run goes on past them.
  auto impl = subprocess(TFSPEC_WRONG_IMPL, 2000);  // its one hang (rank of ()) costs the timeout
  const Report r = run(corpus(), *impl, only({"§1"}));
  EXPECT_TRUE(r.stopped.empty()) << r.stopped;
}

// ---- item 8: JUnit times and the stderr copy ----------------------------------------------------

TEST(Round4, JUnitTimesWithJobsAddUpToTheWallTimeAtMost) {
  auto a = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --honest", 20000), b = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --honest", 20000),
       c = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --honest", 20000);
  const Report r = run(corpus(), std::vector<Implementation*>{a.get(), b.get(), c.get()}, only({"§3"}));
  const std::string xml = junit_report(r);
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "junit.xml", nullptr, XML_PARSE_NONET);
  ASSERT_NE(doc, nullptr);
  double suites = 0, cases = 0;
  for (xmlNodePtr s = xmlDocGetRootElement(doc)->children; s; s = s->next) {
    if (s->type != XML_ELEMENT_NODE) continue;
    xmlChar* t = xmlGetProp(s, BAD_CAST "time");
    suites += std::stod(reinterpret_cast<char*>(t));
    xmlFree(t);
    for (xmlNodePtr k = s->children; k; k = k->next)
      if (k->type == XML_ELEMENT_NODE && xmlStrEqual(k->name, BAD_CAST "testcase")) {
        xmlChar* ct = xmlGetProp(k, BAD_CAST "time");
        cases += std::stod(reinterpret_cast<char*>(ct));
        xmlFree(ct);
      }
  }
  xmlFreeDoc(doc);
  EXPECT_LE(suites, r.seconds + 0.01);
  EXPECT_NEAR(suites, cases, 0.01 + 1e-6 * static_cast<double>(r.cases.size()));
  double exchanges = 0;
  for (const auto& o : r.cases) exchanges += o.seconds;
  EXPECT_GT(suites, 0);
  EXPECT_LE(suites, exchanges + 1e-6);
}

TEST(Round4, AnImplStderrCopyThatCannotBeWrittenIsSaid) {
  NEED_PYTHON();
  const std::string noisy = adapter("noisy", "[\"cosize\"]", "    sys.stderr.write('x' * 100 + '\\n'); sys.stderr.flush()\n    reply({'seq': req['seq'], 'result': 1})");
  auto impl = subprocess(noisy, 10000, "/dev/full");
  const Report r = run(corpus(), *impl, only({"cosize"}));
  EXPECT_NE(impl->copy_problem().find("cannot write --impl-stderr /dev/full"), std::string::npos) << impl->copy_problem();
}

// ---- item 2: the judge by what each op promises, and a mutant per op ------------------------------

TEST(Round4, CoalesceAndFilterAreJudgedByTheirCanonicalForm) {
  CorpusCase c = expecting(Json{{"kind", "layout"}, {"shape", Json::array({2, 6, 6, 6})}, {"stride", Json::array({1, 2, 12, 72})}}, "coalesce");
  // Hand derivation: 2:1 then 6:2 (2 = 2*1) then 6:12 (12 = 12*1) then 6:72: one mode 432:1.
  EXPECT_EQ(protocol::judge(c, Json{{"result", {{"kind", "layout"}, {"shape", 432}, {"stride", 1}}}}).status, Status::Pass);
  EXPECT_EQ(protocol::judge(c, Json{{"result", {{"kind", "layout"}, {"shape", Json::array({432})}, {"stride", Json::array({1})}}}}).status, Status::Pass);
  const auto noop = protocol::judge(c, Json{{"result", *c.expect}});
  EXPECT_EQ(noop.status, Status::Fail);
  EXPECT_NE(noop.detail.find("canonical form 432:1"), std::string::npos) << noop.detail;
  EXPECT_EQ(protocol::judge(c, Json{{"result", {{"kind", "layout"}, {"shape", Json::array({12, 36})}, {"stride", Json::array({1, 12})}}}}).status, Status::Fail);
  EXPECT_EQ(protocol::judge(c, Json{{"result", {{"kind", "layout"}, {"shape", Json::array({Json::array({432})})}, {"stride", Json::array({Json::array({1})})}}}}).status,
            Status::Fail)
      << "nested: not flat";
  // Size 1: 1:0. Filter drops stride-0 modes: (2,4,3):(1,0,2) -> (2,3):(1,2) -> 6:1.
  CorpusCase units = expecting(Json{{"kind", "layout"}, {"shape", 1}, {"stride", 0}}, "coalesce");
  EXPECT_EQ(protocol::judge(units, Json{{"result", {{"kind", "layout"}, {"shape", 1}, {"stride", 0}}}}).status, Status::Pass);
  EXPECT_EQ(protocol::judge(units, Json{{"result", {{"kind", "layout"}, {"shape", Json::array({1, 1})}, {"stride", Json::array({3, 5})}}}}).status, Status::Fail);
  CorpusCase f = expecting(Json{{"kind", "layout"}, {"shape", Json::array({2, 3})}, {"stride", Json::array({1, 2})}}, "filter");
  EXPECT_EQ(protocol::judge(f, Json{{"result", {{"kind", "layout"}, {"shape", 6}, {"stride", 1}}}}).status, Status::Pass);
  EXPECT_EQ(protocol::judge(f, Json{{"result", {{"kind", "layout"}, {"shape", Json::array({2, 3})}, {"stride", Json::array({1, 2})}}}}).status, Status::Fail);
  // By-mode (a profile): each mode canonical, the rank kept.
  CorpusCase p = expecting(Json{{"kind", "layout"}, {"shape", Json::array({6, 4})}, {"stride", Json::array({1, 6})}}, "coalesce");
  p.args = Json{{"profile", Json::array({1, 1})}};
  EXPECT_EQ(protocol::judge(p, Json{{"result", *p.expect}}).status, Status::Pass);
  EXPECT_EQ(protocol::judge(p, Json{{"result", {{"kind", "layout"}, {"shape", 24}, {"stride", 1}}}}).status, Status::Fail);
  EXPECT_EQ(protocol::judge(p, Json{{"result", {{"kind", "layout"}, {"shape", Json::array({Json::array({2, 3}), 4})}, {"stride", Json::array({Json::array({1, 2}), 6})}}}}).status,
            Status::Fail);
}

struct Mutant {
  const char* name;
  const char* op;
};
constexpr Mutant kMutants[] = {{"coalesce-noop", "coalesce"},
                               {"coalesce-two", "coalesce"},
                               {"filter-no-coalesce", "filter"},
                               {"complement-multiple", "complement"},
                               {"cosize-last", "cosize"}};

std::string mutant_command(const Mutant& m) { return std::string(TFSPEC_WRONG_IMPL) + " --mutant " + m.name; }

TEST(Round4, EveryMutantFailsTheCorpus) {
  for (const Mutant& m : kMutants) {
    auto impl = subprocess(mutant_command(m), 20000);
    const Report r = run(corpus(), *impl, only({m.op}));
    int failed = 0;
    for (const auto& o : r.cases)
      if (o.status == Status::Fail) ++failed;
    EXPECT_GT(failed, 0) << m.name << " passed every " << m.op << " case of the corpus";
    EXPECT_EQ(r.totals().errored, 0) << m.name;
  }
}

TEST(Round4, EveryMutantIsFoundByTheFuzzer) {
  for (const Mutant& m : kMutants) {
    auto impl = subprocess(mutant_command(m), 20000);
    FuzzOptions o;
    o.seconds = 30;  // an upper bound: each is found in a fraction of it (the run stops at the first)
    o.seed = 1;
    o.ops = {m.op};
    const FuzzOutcome r = conform_fuzz(registry(), *impl, o);
    EXPECT_TRUE(r.disagreement) << m.name << ": " << r.cases << " cases agreed";
    if (r.disagreement) {
      EXPECT_EQ(r.request["op"], m.op) << m.name;
    }
  }
}

TEST(Round4, TheHonestServerAgreesWhereTheMutantsDoNot) {
  // The generators' new inputs (chains, negative and zero strides, gapped injective layouts)
  // are judged by the same judge: the reference served as a subprocess agrees with itself.
  auto impl = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --honest", 20000);
  FuzzOptions o;
  o.seconds = 2;
  o.seed = 3;
  o.ops = {"coalesce", "filter", "complement", "cosize", "eval"};
  const FuzzOutcome r = conform_fuzz(registry(), *impl, o);
  EXPECT_FALSE(r.disagreement) << r.request.dump() << ": " << r.why;
  EXPECT_GT(r.agreed, 50);
}

}  // namespace
}  // namespace tfspec::conformance
