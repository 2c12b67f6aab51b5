// `tfspec shard from-jax / from-dtensor / owners / to-jax` end to end (issue 33's interface):
// the last line is a ShardLayout every shard op takes; refusals exit 3 with their rule. The
// expected layouts are derived in protocol/tests/imports_test.cpp and spec/SHARD.md I1-I5.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using Ran = tfspec::testing::CommandResult;
using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

std::string last_line(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
}

TEST(ImportsCli, TheIssuesTwoCommandsGiveOneLayout) {
  Ran jax = run_tfspec("shard from-jax --mesh 'x=2,y=4' --spec 'P(\"x\", None)' --shape '(8,16)'");
  Ran dt = run_tfspec("shard from-dtensor --mesh 'x=2,y=4' --placements 'Shard(0),Replicate()' --shape '(8,16)'");
  ASSERT_EQ(jax.rc, 0) << jax.out;
  ASSERT_EQ(dt.rc, 0) << dt.out;
  const std::string layout = last_line(jax.out);
  EXPECT_EQ(layout, "shard((2,4,16):(0,16,1); S(0),B; device(8)|x=2,y=4)");
  EXPECT_EQ(last_line(dt.out), layout);
  // Every shard op takes it: the final-stage check, distribute (rows 0-3 on x=0), owners.
  EXPECT_EQ(run_tfspec("shard check " + shell_quote(layout) + " final rmem '(8,16)'").out, "ok\n");
  Ran dist = run_tfspec("shard distribute " + shell_quote(layout) + " '(8,16)' rmem");
  EXPECT_EQ(dist.rc, 0) << dist.out;
  Ran own = run_tfspec("shard owners " + shell_quote(layout) + " '(8,16)' --json");
  ASSERT_EQ(own.rc, 0) << own.out;
  auto j = tfspec::Json::parse(own.out);
  ASSERT_EQ(j["devices"].size(), 8u);
  // Device 5 is (x,y) = (1,1) (row-major, x*4+y): rows 4-7, elements 64..127, a replica over y.
  const auto& d5 = j["devices"][5];
  EXPECT_EQ(d5["device"], 5);
  EXPECT_EQ(d5["coord"], tfspec::Json::parse("[1,1]"));
  EXPECT_EQ(d5["elements"].size(), 64u);
  EXPECT_EQ(d5["elements"][0], 64);
  EXPECT_EQ(d5["elements"][63], 127);
  EXPECT_EQ(d5["replica"], true);
  EXPECT_EQ(d5["partial"], false);
}

TEST(ImportsCli, RefusalsExitThreeWithTheirRule) {
  Ran uneven = run_tfspec("shard from-dtensor --mesh 2 --placements 'Shard(0)' --shape '(3)'");
  EXPECT_EQ(uneven.rc, 3);
  EXPECT_NE(uneven.out.find("[import-uneven"), std::string::npos) << uneven.out;
  Ran dyn = run_tfspec("shard owners 'shard((2,2):(2,1); D; x=2)' '(4)'");
  EXPECT_EQ(dyn.rc, 3);
  EXPECT_NE(dyn.out.find("[dynamic-unresolved"), std::string::npos) << dyn.out;
  Ran flag = run_tfspec("shard canon 'shard((2):(1); B; x=2)' --spec 'P()'");
  EXPECT_NE(flag.rc, 0);
  EXPECT_NE(flag.out.find("takes no --spec"), std::string::npos) << flag.out;
}

// Issue 44's reproducers, end to end. Item 1: a one-element placement list keeps its keyword
// (Partial(reduce_op='max') is P("max"), not the sum), and torch's one-tuple print form is read.
TEST(ImportsCli, OneElementPlacementListsInEveryBracketForm) {
  for (const char* form : {"[Partial(reduce_op='max')]", "(Partial(reduce_op='max'),)", "Partial(reduce_op='max')"}) {
    Ran r = run_tfspec("shard from-dtensor --mesh dp=2 --placements " + shell_quote(form) + " --shape '(8,)'");
    EXPECT_EQ(r.rc, 0) << form << "\n" << r.out;
    EXPECT_EQ(last_line(r.out), "shard((8):(1); P(\"max\"); device(2)|dp=2)") << form;
  }
  for (const char* form : {"[Shard(dim=0)]", "(Shard(dim=0),)", "(Shard(dim=0))"}) {
    Ran r = run_tfspec("shard from-dtensor --mesh dp=2 --placements " + shell_quote(form) + " --shape '(8,)'");
    EXPECT_EQ(r.rc, 0) << form << "\n" << r.out;
    EXPECT_EQ(r.out, "local shape (4) on each of 2 devices\nshard((2,4):(0,1); S(0); device(2)|dp=2)\n") << form;
  }
}

// Item 4: mixed Partial reductions are refused as DTensor refuses them; torch 2.15's `sf=` is
// split_factor (rank 0 of _StridedShard(0, 2) on 2 ranks holds pieces 0 and 2 of 4: 0,1,4,5).
TEST(ImportsCli, MixedPartialsAndStridedShardsSfSpelling) {
  Ran mixed = run_tfspec("shard from-dtensor --mesh 2,2 --placements \"Partial('sum'), Partial('min')\" --shape '(8,)'");
  EXPECT_EQ(mixed.rc, 3) << mixed.out;
  EXPECT_NE(mixed.out.find("[import-partial-reduction §6] mesh dims 0 and 1 are Partial('sum') and Partial('min')"), std::string::npos) << mixed.out;
  Ran sf = run_tfspec("shard from-dtensor --mesh 2 --placements '[_StridedShard(dim=0, sf=2)]' --shape '(8,)'");
  ASSERT_EQ(sf.rc, 0) << sf.out;
  EXPECT_EQ(last_line(sf.out), "shard((2,2,2):(2,0,1); S(1); device(2)|2)");
  Ran own = run_tfspec("shard owners " + shell_quote(last_line(sf.out)) + " '(8)'");
  EXPECT_EQ(own.out, "device 0 coord (0): 0,1,4,5\ndevice 1 coord (1): 2,3,6,7\n");
}

// Item 12: a JAX mesh on devices 4..7 (docs/imports.md's --devices) is a slice of device(8);
// owners names devices 4..7. An empty array is refused with its rule and I7.
TEST(ImportsCli, SubMeshesAndEmptyArrays) {
  Ran sub = run_tfspec("shard from-jax --mesh x=4 --spec \"P('x')\" --shape '(8,)' --devices 4,5,6,7");
  ASSERT_EQ(sub.rc, 0) << sub.out;
  EXPECT_EQ(last_line(sub.out), "shard((4,2):(0,1); S(0); device(8)|x=4|layout=None o 4 o (4):(1))");
  Ran own = run_tfspec("shard owners " + shell_quote(last_line(sub.out)) + " '(8)'");
  EXPECT_EQ(own.out, "device 4 coord (0): 0,1\ndevice 5 coord (1): 2,3\ndevice 6 coord (2): 4,5\ndevice 7 coord (3): 6,7\n");
  Ran empty = run_tfspec("shard from-jax --mesh x=2 --spec \"P('x')\" --shape '(0,)'");
  EXPECT_EQ(empty.rc, 3) << empty.out;
  EXPECT_NE(empty.out.find("[extent-positive §1] an empty array (extent 0) has no ShardLayout"), std::string::npos) << empty.out;
  EXPECT_NE(empty.out.find("spec/SHARD.md I7"), std::string::npos) << empty.out;
}

TEST(ImportsCli, ToJaxPrintsTheLibrarysArguments) {
  Ran r = run_tfspec("shard to-jax 'shard((2,2,2):(0,0,1); S(1),S(0); x=2,y=2)' '(8)'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "--mesh x=2,y=2\n--devices 0,1,2,3\nP(('y', 'x'))\n");
}

}  // namespace
