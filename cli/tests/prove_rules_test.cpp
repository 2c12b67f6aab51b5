// The prove group's input rules, one case each through the binary (expected ids: spec/PROVE.md).
#include <gtest/gtest.h>

#include "run_tfspec.hpp"

using tfspec::testing::CommandResult;
using tfspec::testing::run_tfspec;

namespace {
void expect_rule(const std::string& args, int rc, const std::string& rule) {
  CommandResult r = run_tfspec(args);
  EXPECT_EQ(r.rc, rc) << args << "\n" << r.out;
  EXPECT_NE(r.out.find("[" + rule + " "), std::string::npos) << args << "\n" << r.out;
}
}  // namespace

// in-bounds takes one buffer size E, not a tuple.
TEST(ProveRules, Usage) { expect_rule("prove in-bounds '(M,2):(1,M)' --size '(2,3)'", 3, "prove-usage"); }

// The shard goal's engine table covers plain layouts under the ShardLayout only.
TEST(ProveRules, ShardLayoutKind) {
  expect_rule("prove shard 'shard(None o 0 o (4,2):(2,1); S(0),B; x=2,y=2)'", 3, "prove-shard-layout-kind");
}

// 8192 mesh instances are beyond the prover's engine table: a limit (exit 2), not an input error.
TEST(ProveRules, ShardMeshSizeIsALimit) {
  expect_rule("prove shard 'shard((8192):(1); S(0); x=8192)'", 2, "prove-shard-mesh-size");
}

// --smt2 into a directory that does not exist.
TEST(ProveRules, Smt2Write) {
  expect_rule("prove injective '(M,N):(1,M)' --smt2 /nonexistent-tfspec-dir/x", 3, "prove-smt2-write");
}

// Issue 19: a divisor is a mesh extent (>= 1). Before, `-3 | 6` was REFUTED while its JSON said
// remainder 0, and `0 | 0` printed "0 does not divide 0".
TEST(ProveRules, DivisorNonPositive) {
  expect_rule("prove divides -- 6 -3", 3, "prove-divisor-nonpositive");
  expect_rule("prove divides 0 0", 3, "prove-divisor-nonpositive");
  expect_rule("prove divides 'M*3' -3 --assume 'M == 3037000499'", 3, "prove-divisor-nonpositive");
  expect_rule("prove divides 'M*3' -3 --assume 'M*M == 1000000000000'", 3, "prove-divisor-nonpositive");
}
