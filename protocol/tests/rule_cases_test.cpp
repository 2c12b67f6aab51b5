// A case for each catalogue rule that neither the corpus nor another unit test reaches (the
// catalogue test `EveryRuleHasATestOrCorpusCase` lists them). Expected rule ids come from the
// spec clause each input breaks, written beside it.
#include <gtest/gtest.h>

#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/reference/mesh.hpp"
#include "tfspec/reference/shapedim.hpp"

#include "../../reference/tests/test_support.hpp"

#include "serve_support.hpp"

using namespace tfspec;

namespace {
using tfspec::testing::error_id;  // the rule id a statement fails with, or "(no error)"

using tfspec::testing::ask;  // a request line through serve_line (serve_support.hpp)
}  // namespace

// §1: a symbolic dim is an identifier that is not a keyword of the notation.
TEST(RuleCases, BadDimName) {
  EXPECT_EQ(error_id([] { dim_var("o"); }), "bad-dim-name");  // `o` separates composed layouts
  EXPECT_EQ(error_id([] { dim_var("2M"); }), "bad-dim-name");
}

// §1: evaluating M*2 needs a value for M.
TEST(RuleCases, UnboundDim) {
  ShapeDim d = dim_binary(ExprNode::Op::Mul, dim_var("M"), dim_const(2));
  EXPECT_EQ(evaluate(d, {{"M", 3}}), 6);
  EXPECT_EQ(error_id([&] { evaluate(d, {}); }), "unbound-dim");
}

// §2: a JSON argument that is not JSON.
TEST(RuleCases, JsonMalformed) {
  EXPECT_EQ(error_id([] { protocol::arg_from_text(protocol::ParamType::Json, "{\"kind\":"); }), "json-malformed");
}

// §5: a topology is written name(n).
TEST(RuleCases, TopologyText) {
  EXPECT_EQ(error_id([] { parse_mesh("warp(4)x|x=4"); }), "topology-text");
}

// §7: the default data of a 2^13 x 2^12 tensor (2^25 elements) is beyond the reference's limit.
TEST(RuleCases, ResourceLimitIsALimit) {
  Json r = ask(R"J({"seq":1,"op":"shard.distribute","args":{"layout":"shard((8192,4096):(4096,1); B; x=1)","shape":[8192,4096],"storage":"rmem"}})J");
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["rule"], "resource-limit");
  EXPECT_EQ(r["error"]["kind"], "limit");
}

// Protocol: a missing argument and an unknown command.
TEST(RuleCases, ProtocolMissingArgAndUnknownCmd) {
  Json m = ask(R"J({"seq":2,"op":"size","args":{}})J");
  EXPECT_EQ(m["error"]["rule"], "protocol-missing-arg");
  Json c = ask(R"J({"cmd":"frobnicate"})J");
  EXPECT_EQ(c["error"]["rule"], "protocol-unknown-cmd");
}

// Rules that cannot be triggered on purpose from a test: each is a tfspec bug or needs hardware.
// Listed so that the catalogue test sees them named; a change here needs a reason.
//   "internal", "prove-internal"   an internal invariant failed (a tfspec bug)
//   "prove-solver-error"           Z3 raised an exception (out of resources inside Z3)
//   "cuda-error"                   a CUDA runtime error on a real device (bench/gpu-check.sh)
//   "prove-undecided"              raised inside a prover strategy and reported as that
//                                  strategy's UNKNOWN reason, never to the user as an error
TEST(RuleCases, UntriggerableRulesAreDeclaredAsSuch) {
  for (const char* id : {"internal", "prove-internal", "prove-solver-error", "cuda-error", "prove-undecided"}) {
    const RuleId* r = find_rule(id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_TRUE(r->kind == RuleKind::Internal || r->kind == RuleKind::Limit) << id;
  }
}
