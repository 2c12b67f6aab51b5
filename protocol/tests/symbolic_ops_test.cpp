// The layout ops' symbolic forms behind the registry (spec/PROTOCOL.md "Symbolic layouts"): what
// the corpus cannot hold (spec/corpus/s9-symbolic.json has the answers): the request's time
// budget, and that the forms wrap only layout ops that are registered.
#include <gtest/gtest.h>

#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"

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

}  // namespace
}  // namespace tfspec::protocol
#endif
