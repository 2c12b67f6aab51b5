// The corpus (spec/corpus/*.json) run in process through the protocol library: every case is
// sent as the request `tfspec serve` would receive and its reply judged as the case says. The
// expected values are data written from the spec and hand derivations, never from this code.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "tfspec/protocol/corpus.hpp"
#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#endif
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

namespace tfspec::protocol {
namespace {

const std::string kCorpusDir = std::string(TFSPEC_SOURCE_DIR) + "/spec/corpus";

// Every op group the corpus uses: the reference's (layout, shard) and, where the solver is built,
// the prover's (prove.*) and kernel.check (both in tfspec_protocol_prove). Without it those cases
// are not run.
const OpRegistry& registry() {
  static const OpRegistry reg = [] {
    OpRegistry r;
    register_reference_ops(r);
#ifdef TFSPEC_HAVE_PROVE
    register_prove_ops(r);
    register_kernel_ops(r);
#endif
    return r;
  }();
  return reg;
}

bool runnable(const std::string& op) { return registry().find_protocol(op) != nullptr; }

// spec/corpus/expected-failures.txt: case ids the reference is known to fail, one per line with
// the reason after `#`. Each must still fail (a fixed case is removed from the list).
std::set<std::string> expected_failures() {
  std::set<std::string> out;
  std::ifstream in(kCorpusDir + "/expected-failures.txt");
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string id;
    if (words >> id) out.insert(id);
  }
  return out;
}

TEST(Corpus, EveryFileIsInTheFormat) {
  const auto files = corpus_files(kCorpusDir);
  ASSERT_FALSE(files.empty()) << kCorpusDir;
  std::set<std::string> ids;
  for (const auto& path : files) {
    std::ifstream in(path);
    Json doc;
    ASSERT_NO_THROW(doc = Json::parse(in)) << path;
#ifdef TFSPEC_HAVE_PROVE
    for (const auto& p : validate_corpus_json(doc, &registry())) ADD_FAILURE() << path << ": " << p;
#else
    for (const auto& p : validate_corpus_json(doc, nullptr)) ADD_FAILURE() << path << ": " << p;
#endif
    for (const auto& c : doc["cases"]) {
      if (c.contains("id")) {
        EXPECT_TRUE(ids.insert(c["id"].get<std::string>()).second) << "id " << c["id"] << " repeated in " << path;
      }
    }
  }
}

TEST(Corpus, EveryCasePassesThroughTheProtocol) {
  const auto xfail = expected_failures();
  std::set<std::string> seen_xfail;
  int64_t seq = 0, passed = 0;
  for (const auto& path : corpus_files(kCorpusDir)) {
    CorpusFile f = load_corpus_file(path);
    for (const auto& c : f.cases) {
      if (!runnable(c.op) && (c.op.rfind("prove.", 0) == 0 || c.op.rfind("kernel.", 0) == 0)) continue;  // no solver in this build
      bool stop = false;
      const Json reply = serve_line(registry(), dump_line(case_request(c, ++seq)), stop);
      Judgement j = reply.value("seq", Json()) == seq ? judge(c, reply)
                                                      : Judgement{Status::Errored, "reply echoes seq " + reply.value("seq", Json()).dump(), Json()};
      if (xfail.count(c.id)) {
        seen_xfail.insert(c.id);
        EXPECT_NE(j.status, Status::Pass) << c.id << " (" << path << ") passes now: remove it from expected-failures.txt";
        continue;
      }
      if (j.status == Status::Pass) {
        ++passed;
        continue;
      }
      ADD_FAILURE() << c.id << " (" << path << ", " << c.clause << " " << c.op << "): " << to_string(j.status) << ": " << j.detail
                    << "\n  args " << c.args.dump() << (c.options.empty() ? "" : " options " + c.options.dump());
    }
  }
  for (const auto& id : xfail) EXPECT_TRUE(seen_xfail.count(id)) << "expected-failures.txt names " << id << ", which is no case";
  EXPECT_GT(passed, 0);
}

// The judge itself: a wrong answer is caught however it is wrong.
Json layout(const char* shape, const char* stride) { return Json{{"kind", "layout"}, {"shape", Json::parse(shape)}, {"stride", Json::parse(stride)}}; }

TEST(CorpusJudge, LayoutsCompareByFunctionShapeOrStructure) {
  std::string why;
  // (2,2):(8,1) and ((2,1),2):((8,0),1) are one function over 4 points with different shapes.
  EXPECT_TRUE(same_value(layout("[2,2]", "[8,1]"), layout("[[2,1],2]", "[[8,0],1]"), Compare::Meaning, why));
  EXPECT_FALSE(same_value(layout("[2,2]", "[8,1]"), layout("[[2,1],2]", "[[8,0],1]"), Compare::Function, why));
  EXPECT_TRUE(same_value(layout("[2,2]", "[8,1]"), layout("[2,2]", "[8,1]"), Compare::Exact, why));
  EXPECT_FALSE(same_value(layout("[4]", "[1]"), layout("4", "1"), Compare::Exact, why));
  // One point differs: index 3 maps to 9, not 10.
  EXPECT_FALSE(same_value(layout("[2,2]", "[1,8]"), layout("[2,2]", "[1,9]"), Compare::Meaning, why));
  EXPECT_NE(why.find("index 2"), std::string::npos) << why;
  EXPECT_FALSE(same_value(layout("[2,2]", "[1,8]"), layout("[8]", "[1]"), Compare::Meaning, why));  // size 8 vs 4
  EXPECT_FALSE(same_value(layout("[2,2]", "null"), layout("[2,2]", "[1,2]"), Compare::Meaning, why));
  // Offsets past int64 (a wrong answer's, or partial sums of INT64_MIN strides) are compared, not
  // wrapped: index 2 of 3:INT64_MIN is 2 * INT64_MIN.
  EXPECT_TRUE(same_value(layout("[3]", "[-9223372036854775808]"), layout("[3,1]", "[-9223372036854775808,0]"), Compare::Meaning, why));
  EXPECT_FALSE(same_value(layout("[3]", "[-9223372036854775808]"), layout("[3]", "[0]"), Compare::Meaning, why));
  // Integers: a number and its decimal string are one value; objects compare the expected members.
  EXPECT_TRUE(same_value(Json(5), Json("5"), Compare::Meaning, why));
  EXPECT_TRUE(same_value(Json::parse(R"({"ok":false})"), Json::parse(R"({"ok":false,"extra":1})"), Compare::Meaning, why));
  EXPECT_FALSE(same_value(Json::parse(R"({"ok":false})"), Json::parse(R"({"ok":true})"), Compare::Meaning, why));
  // Violations are a multiset, by the members the case names.
  const Json want = Json::parse(R"({"violations":[{"rule":"a"},{"rule":"b"}]})");
  EXPECT_TRUE(same_value(want, Json::parse(R"({"violations":[{"rule":"b","message":"m"},{"rule":"a"}]})"), Compare::Meaning, why));
  EXPECT_FALSE(same_value(want, Json::parse(R"({"violations":[{"rule":"a"},{"rule":"a"}]})"), Compare::Meaning, why));
  EXPECT_FALSE(same_value(want, Json::parse(R"({"violations":[{"rule":"a"},{"rule":"b"},{"rule":"c"}]})"), Compare::Meaning, why));
}

// Symbolic answers (spec/corpus/README.md "Symbolic answers"): by normal form, in any order; a
// reply may add proved conditions, never a required one; its counterexample must refute.
TEST(CorpusJudge, SymbolicAnswersCompareByMeaningNotPrintOrder) {
  std::string why;
  const Json want = Json::parse(R"({"result":"M*64","conditions":[{"rule":"r","predicate":"N % 64 == 0","status":"required"},
                                                                   {"predicate":"M >= 128","status":"proved"}]})");
  const Json same = Json::parse(R"({"result":"64*M","conditions":[{"predicate":"127 < M","status":"proved"},{"predicate":"1 <= N","status":"proved"},
                                                                   {"rule":"r","predicate":"0 == N%64","status":"required","counterexample":{"N":65}}]})");
  EXPECT_TRUE(same_value(want, same, Compare::Meaning, why)) << why;
  Json extra = same;
  extra["conditions"].push_back(Json::parse(R"({"rule":"r","predicate":"M % 2 == 0","status":"required"})"));
  EXPECT_FALSE(same_value(want, extra, Compare::Meaning, why));
  Json weaker = same;
  weaker["conditions"][0]["status"] = "required";  // 127 < M is M >= 128, which the case says is proved
  EXPECT_FALSE(same_value(want, weaker, Compare::Meaning, why));
  Json bad_cex = same;
  bad_cex["conditions"][2]["counterexample"] = Json{{"N", 128}};  // 64 divides 128: no counterexample
  EXPECT_FALSE(same_value(want, bad_cex, Compare::Meaning, why));
  const Json two = Json::parse(R"({"cases":[{"when":["M == 1"],"result":"1"},{"when":["M != 1","N > 2"],"result":"M"}]})");
  EXPECT_TRUE(same_value(two, Json::parse(R"({"cases":[{"when":["2 < N","M != 1"],"result":"M"},{"when":["1 == M"],"result":1}]})"), Compare::Meaning, why)) << why;
  EXPECT_FALSE(same_value(two, Json::parse(R"({"cases":[{"when":["M != 1","N > 3"],"result":"M"},{"when":["M == 1"],"result":1}]})"), Compare::Meaning, why));
  // Forms equal only under N >= 1 are different predicates, unless the case lists both.
  const Json ne = Json::parse(R"({"conditions":[{"predicate":"N != 1","status":"required"}]})");
  const Json ge = Json::parse(R"({"conditions":[{"predicate":"N >= 2","status":"required"}]})");
  EXPECT_FALSE(same_value(ne, ge, Compare::Meaning, why));
  EXPECT_TRUE(same_value(Json::parse(R"({"conditions":[{"predicate":["N != 1","N >= 2"],"status":"required"}]})"), ge, Compare::Meaning, why)) << why;
  // A tuple result (idx2crd's) compares leaf by leaf by normal form, as one integer does.
  const Json tuple = Json::parse(R"({"result":[1,["1 % N","(1//M + 2) % N"]],"conditions":[]})");
  EXPECT_TRUE(same_value(tuple, Json::parse(R"({"result":[1,["1%N","(2+1//M)%N"]],"conditions":[]})"), Compare::Meaning, why)) << why;
  EXPECT_FALSE(same_value(tuple, Json::parse(R"({"result":[1,["2%N","(1//M+2)%N"]],"conditions":[]})"), Compare::Meaning, why));
  EXPECT_FALSE(same_value(tuple, Json::parse(R"({"result":[1,"1%N"],"conditions":[]})"), Compare::Meaning, why));
}

TEST(CorpusJudge, RepliesAreJudgedByKind) {
  CorpusCase ok, err;
  ok.expect = Json(4);
  err.expect_error = {"extent-positive"};
  EXPECT_EQ(judge(ok, Json::parse(R"({"seq":1,"result":4})")).status, Status::Pass);
  EXPECT_EQ(judge(ok, Json::parse(R"({"seq":1,"result":5})")).status, Status::Fail);
  EXPECT_EQ(judge(ok, Json::parse(R"({"seq":1,"error":{"rule":"extent-positive"}})")).status, Status::Fail);
  EXPECT_EQ(judge(ok, Json::parse(R"({"seq":1,"skipped":{"reason":"no"}})")).status, Status::Unsupported);
  EXPECT_EQ(judge(ok, Json::parse(R"({"seq":1})")).status, Status::Errored);
  EXPECT_EQ(judge(err, Json::parse(R"({"seq":1,"error":{"rule":"extent-positive"}})")).status, Status::Pass);
  EXPECT_EQ(judge(err, Json::parse(R"({"seq":1,"error":{"rule":"parse-error"}})")).status, Status::Fail);
  EXPECT_EQ(judge(err, Json::parse(R"({"seq":1,"result":4})")).status, Status::Fail);
}

TEST(CorpusFormat, ProblemsAreNamed) {
  const Json bad = Json::parse(R"({"format":1,"made_by":"t","cases":[
      {"id":"a","clause":"§3","op":"size","args":{},"expect":1,"note":"","source":"hand"},
      {"id":"a","clause":"§9","op":"nosuch","args":[],"expect":1,"expect_error":"no-such-rule","note":"","source":"guess","colour":1}]})");
  const auto problems = validate_corpus_json(bad, &registry());
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  for (const char* what : {"duplicate id", "clause", "unknown op", "args", "exactly one", "no-such-rule", "source", "colour"})
    EXPECT_NE(all.find(what), std::string::npos) << what << " not reported in:\n" << all;
  EXPECT_FALSE(validate_corpus_json(Json::parse(R"({"format":2,"made_by":"t","cases":[]})"), nullptr).empty());
}

}  // namespace
}  // namespace tfspec::protocol
