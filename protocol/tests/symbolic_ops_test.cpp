// The layout ops' symbolic forms behind the registry (spec/PROTOCOL.md "Symbolic layouts"): what
// the corpus cannot hold (spec/corpus/s9-symbolic.json has the answers): the request's time
// budget, and that the forms wrap only layout ops that are registered.
#include <gtest/gtest.h>

#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "release_only.hpp"

namespace tfspec::protocol {
namespace {

Json ask(const OpRegistry& reg, const std::string& line) {
  bool stop = false;
  return serve_line(reg, line, stop);
}

const OpRegistry& both() {
  static const OpRegistry reg = [] {
    OpRegistry r;
    register_reference_ops(r);
    register_prove_ops(r);
    return r;
  }();
  return reg;
}

// The GEMM divide asks the solver dozens of times (about 15 ms): 1 ms is past its budget, and the
// answer is resource-limit (a Limit: the request may be sent again with more time), not a hang.
TEST(SymbolicOps, ARequestPastItsTimeBudgetIsAResourceLimit) {
  const Json r = ask(both(), R"j({"seq":1,"op":"logical_divide","args":{"a":"(M,N):(1,M)","tiler":{"tiler":["128:1","64:1"]},"timeout_ms":1}})j");
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["rule"], "resource-limit");
  EXPECT_EQ(r["error"]["kind"], "limit");
  for (const char* bad : {"0", "600001", "\"5\""}) {
    const Json e = ask(both(), std::string(R"j({"seq":2,"op":"size","args":{"layout":"(M):(1)","timeout_ms":)j") + bad + "}}");
    EXPECT_EQ(e["error"]["rule"], "prove-usage") << bad << ": " << e;
  }
}

// Registered before the layout group, the prove group has nothing to wrap: the layout ops then
// refuse symbols as the concrete reference does (§1), and answer concrete requests unchanged.
TEST(SymbolicOps, TheFormsWrapOnlyRegisteredLayoutOps) {
  OpRegistry r;
  register_prove_ops(r);
  register_reference_ops(r);
  EXPECT_EQ(ask(r, R"j({"seq":1,"op":"size","args":{"layout":"(M,N):(1,M)"}})j")["error"]["rule"], "needs-concrete");
  EXPECT_EQ(ask(both(), R"j({"seq":1,"op":"size","args":{"layout":"(M,N):(1,M)"}})j")["result"]["result"], "M*N");
  EXPECT_EQ(ask(both(), R"j({"seq":1,"op":"size","args":{"layout":"(3,N):(1,3)"}})j")["result"]["result"], "3*N");
  EXPECT_EQ(ask(both(), R"j({"seq":1,"op":"size","args":{"layout":"(3,4):(1,3)"}})j")["result"], 12);  // concrete: a plain int
  const auto names = symbolic_op_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "zipped_divide"), names.end());
}

// Issue 46 item 7: M*M == 2*N*N has no instance (sqrt 2 is irrational: M/N = sqrt 2 would be
// rational) but Z3 cannot refute it, so the answer is replayed at no instance: undecided (exit 2),
// saying why, not a proof validated at "0 instances".
TEST(SymbolicOps, AnAnswerValidatedAtNoInstanceIsUndecided) {
  const Json args = Json::parse(R"j({"a":"(M,N):(1,M)","tiler":"(2,2):(1,M)","assume":["M*M == 2*N*N"]})j");
  const OpResult r = both().find("layout", "composition")->run(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.json["validated"]["instances"], 0);
  ASSERT_TRUE(r.json.contains("undecided")) << r.json;
  EXPECT_NE(r.text.find("undecided: the answer could not be validated"), std::string::npos) << r.text;
  // One instance is enough: M == 2*N (M=2, N=1) validates and exits 0.
  const Json ok = Json::parse(R"j({"a":"(M,N):(1,M)","tiler":"(2,2):(1,M)","assume":["M == 2*N"]})j");
  EXPECT_EQ(both().find("layout", "composition")->run(ok).exit_code, 0);
}

// Issue 44 item 8: `tiled_product "(M*N):(4)" "(N,1,M*M):(4,M,N)"` under `M <= 64` was
// resource-limit in a fresh server and a 9-case answer after an unrelated request: Z3's QF_NIA
// strategy cut its smt step by the wall clock (2 s) and let nlsat decide where a fast machine ran
// into the rlimit first. Every stop is now the rlimit's, or a named resource-limit: the reply is
// the same in a fresh server, after other requests, and through the op the CLI calls.
Json reply_of(const OpRegistry& reg, const Json& request) {
  Json r = ask(reg, request.dump());
  r.erase("seq");
  return r;
}

Json cli_reply(const OpRegistry& reg, const Json& request) {
  try {
    return Json{{"result", reg.find("layout", request["op"].get<std::string>())->run(request["args"]).json}};
  } catch (const SpecError& e) {
    return Json{{"error", Json{{"rule", e.rule()}}}};
  }
}

TEST(SymbolicOps, TheSameRequestGetsTheSameAnswerInAnySession) {
  TFSPEC_RELEASE_BUILD_ONLY("three full derivations with Z3 (Z3 is not instrumented); the reproducer tests cover the paths under ASan");
  const Json requests[] = {
      Json::parse(R"j({"seq":7,"op":"tiled_product","args":{"a":"(M*N):(4)","tiler":"(N,1,M*M):(4,M,N)","assume":["M <= 64"]}})j"),
      Json::parse(R"j({"seq":7,"op":"zipped_divide","args":{"a":"(M,N):(N,1)","tiler":"(4,2):(2,1)"}})j")};
  const char* earlier[] = {R"j({"seq":1,"op":"logical_divide","args":{"a":"(M,N):(1,M)","tiler":{"tiler":["128:1","64:1"]}}})j",
                           R"j({"seq":2,"op":"complement","args":{"layout":"(4,8):(1,M)","cotarget":4096,"assume":["M % 4 == 0"]}})j"};
  for (const Json& q : requests) {
    OpRegistry fresh;
    register_reference_ops(fresh);
    register_prove_ops(fresh);
    const Json first = reply_of(fresh, q);
    for (const char* e : earlier) ask(both(), e);
    const Json warm = reply_of(both(), q);
    EXPECT_EQ(first, warm) << q;
    const Json cli = cli_reply(both(), q);
    if (first.contains("error")) EXPECT_EQ(cli["error"]["rule"], first["error"]["rule"]) << q;
    else EXPECT_EQ(cli["result"], first["result"]) << q;
  }
}

}  // namespace
}  // namespace tfspec::protocol
#endif
