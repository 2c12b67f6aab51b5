// Differential properties: every operation of the host backend equals the reference element by
// element and refuses exactly where (and with the rule id with which) the reference refuses. And
// the fuzzer's self-test: deliberately wrong backends, compiled only into this file, are each
// caught within a fixed budget and shrunk to a small case.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <limits>
#include <set>

#include "tfspec/props/fuzz.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::props {
namespace {

void expect_agreement(const std::string& op) {
  static auto host = gpu::make_host_backend(2);
  FuzzCase c = *gen_fuzz_case(op);
  FuzzCheck r = check_fuzz_case(c, *host);
  RC_CLASSIFY(r.reference.rule.has_value(), "refused");
  RC_CLASSIFY(r.verdict == Verdict::Skip, "undecided");
  if (r.verdict == Verdict::Disagree)
    RC_FAIL("case " + fuzz_case_text(c) + "\nreference " + describe(r.reference) + "\nhost      " + describe(r.backend));
}

RC_GTEST_PROP(FuzzHost, OffsetTablesEqualTheReference, ()) { expect_agreement("offsets"); }
RC_GTEST_PROP(FuzzHost, BatchedCrd2idxEqualsTheReference, ()) { expect_agreement("crd2idx"); }
RC_GTEST_PROP(FuzzHost, GatherEqualsTheReference, ()) { expect_agreement("gather"); }
RC_GTEST_PROP(FuzzHost, ScatterEqualsTheReference, ()) { expect_agreement("scatter"); }
RC_GTEST_PROP(FuzzHost, ReshardEqualsTheReference, ()) { expect_agreement("reshard"); }

// The vectorized run path is exercised: about a third of the generated reshard pairs share a
// contiguous run (ReshardPlan::run > 1), with runs of several lengths.
TEST(FuzzGenerators, ReshardPairsOftenShareAContiguousRun) {
  int with_run = 0, valid = 0;
  std::set<int64_t> lengths;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    FuzzCase c = gen_fuzz_case("reshard")(rc::Random(seed), 50).value();
    try {
      gpu::ReshardPlan rp = gpu::compile_reshard(parse_shard_layout(c.src), c.src_storage, parse_shard_layout(c.dst), c.dst_storage, c.shape);
      ++valid;
      if (rp.run > 1) ++with_run, lengths.insert(rp.run);
    } catch (const SpecError&) {
    }
  }
  EXPECT_GE(with_run, valid / 5) << with_run << " of " << valid << " valid pairs";
  EXPECT_GE(lengths.size(), 3u);
}

// The 64-bit path is exercised: a fixed-seed run of 600 offsets cases answers offsets past
// INT32_MAX (the generators draw strides near 2^31), which no 32-bit plan could hold, and the run
// reports it. max_abs_offset saturates INT64_MIN's magnitude instead of overflowing.
TEST(FuzzGenerators, OffsetsPast2To31AreTestedAndCounted) {
  EXPECT_EQ(max_abs_offset({3, -7, 2}), 7);
  EXPECT_EQ(max_abs_offset({std::numeric_limits<int64_t>::min()}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(max_abs_offset({}), 0);
  auto host = gpu::make_host_backend(1);
  FuzzOptions o;
  o.seconds = 60;
  o.max_cases = 600;
  o.op = "offsets";
  FuzzResult r = run_fuzz(*host, o);
  ASSERT_FALSE(r.disagreement) << r.case_text;
  const FuzzStats& s = r.per_op.at("offsets");
  EXPECT_GT(s.wide, 0) << "no offsets case reached past 2^31";
  EXPECT_GT(s.max_abs_value, int64_t{std::numeric_limits<int32_t>::max()});
  EXPECT_GT(s.max_size, 1);
}

// The CUDA backend, every operation, against the reference: on a device (gpu-check.sh; skipped
// with the CUDA error named without one) and on the emulated grid (cuda-emu, issue 23: the same
// kernel source, in every CI run).
class FuzzCuda : public testing::TestWithParam<std::string> {};
TEST_P(FuzzCuda, EveryOperationAgreesWithTheReference) {
  auto cuda = gpu::make_backend(GetParam());
  if (auto why = cuda->unavailable()) GTEST_SKIP() << "no usable CUDA device: " << *why;
  FuzzOptions o;
  o.seconds = 30;
  o.max_cases = GetParam() == "cuda" ? 2500 : 800;  // emulated: CI's fuzz_cuda_emu_slice runs more
  o.seed = 20261130;
  FuzzResult r = run_fuzz(*cuda, o);
  EXPECT_FALSE(r.disagreement) << r.case_text << "\nreference " << describe(r.reference) << "\n" << GetParam() << " " << describe(r.backend);
  EXPECT_EQ(r.cases, o.max_cases);
}
INSTANTIATE_TEST_SUITE_P(Kernels, FuzzCuda, testing::Values("cuda", "cuda-emu"),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param == "cuda" ? "device" : "emulated"; });

TEST(FuzzCaseText, RoundTrips) {
  for (const char* t : {"offsets # (2,(3,4)):(1,(2,6))", "crd2idx # (4,8):(8,1) # 1,2;3,7", "gather # (2,3):(3,1) # 7",
                        "reshard # (6) # shard((6):(1); B; x=2) # rmem # shard((6):(1); P(\"max\"); x=3) # rmem # 5 # 1,2,3,4,5,6"})
    EXPECT_EQ(fuzz_case_text(parse_fuzz_case(t)), t);
}

// ---- deliberately wrong backends (never compiled into tfspec itself)

gpu::FastDivmod32 off_by_one_div32(uint32_t d) {
  gpu::FastDivmod32 f = gpu::make_fast_divmod32(d);
  if (d >= 2) --f.multiplier;  // floor instead of ceil: n*m/2^(31+l) drops below n/d at multiples of d
  return f;
}
gpu::IndexMode int32_when_the_size_fits(const gpu::PlanBounds& b) {
  return b.domain_size <= INT32_MAX ? gpu::kIndex32 : gpu::kIndex64;  // forgets the strides
}
gpu::AxisKind partial_as_broadcast(const ShardAttr& a) {
  return std::holds_alternative<Split>(a) ? gpu::kAxisSplit : gpu::kAxisBroadcast;  // drops the reduction
}

int64_t run_one_too_long(int64_t a, int64_t b) {
  const int64_t r = gpu::common_run_of(a, b);
  return r > 1 ? r + 1 : r;  // a contiguous run one element longer than both sides have
}

struct Mutant {
  const char* name;
  const char* op;
  gpu::PlanPolicy policy;
};

void PrintTo(const Mutant& m, std::ostream* os) { *os << m.name; }

class WrongBackend : public testing::TestWithParam<Mutant> {};

// Budget: found within 3000 cases (a few seconds), and shrunk to a case a person reads at once.
TEST_P(WrongBackend, IsCaughtAndShrunk) {
  const Mutant& m = GetParam();
  auto host = gpu::make_host_backend(1);
  FuzzOptions o;
  o.seconds = 60;
  o.max_cases = 3000;
  o.seed = 1;
  o.op = m.op;
  FuzzResult r = run_fuzz(*host, o, m.policy);
  ASSERT_TRUE(r.disagreement) << m.name << " survived " << r.cases << " cases";
  EXPECT_LE(r.cases_before_failure, 3000);
  FuzzCase c = parse_fuzz_case(r.case_text);
  EXPECT_LE(fuzz_case_size(c), 24) << r.case_text;
  if (c.op != "reshard") {
    EXPECT_LE(flat_leaves(parse_any_layout(c.layout)->shape()).size(), 3u) << r.case_text;
  }
  std::cout << "[ " << m.name << " ] caught after " << r.cases_before_failure << " cases, " << r.shrink_steps
            << " shrink steps: " << r.case_text << "\n  reference " << describe(r.reference) << "\n  wrong     " << describe(r.backend)
            << "\n";
  // The shrunk case replays to the same disagreement, and the real backend agrees on it.
  EXPECT_EQ(check_fuzz_case(c, *host, m.policy).verdict, Verdict::Disagree);
  EXPECT_EQ(check_fuzz_case(c, *host).verdict, Verdict::Agree);
}

gpu::PlanPolicy with_div32(decltype(gpu::PlanPolicy::div32) f) {
  gpu::PlanPolicy p;
  p.div32 = f;
  return p;
}
gpu::PlanPolicy with_mode(decltype(gpu::PlanPolicy::index_mode) f) {
  gpu::PlanPolicy p;
  p.index_mode = f;
  return p;
}
gpu::PlanPolicy with_run(decltype(gpu::PlanPolicy::common_run) f) {
  gpu::PlanPolicy p;
  p.common_run = f;
  return p;
}
gpu::PlanPolicy with_kind(decltype(gpu::PlanPolicy::axis_kind) f) {
  gpu::PlanPolicy p;
  p.axis_kind = f;
  return p;
}

std::string mutant_name(const testing::TestParamInfo<Mutant>& i) {
  static const char* const names[] = {"OffByOneDivmod", "Int32Index", "DroppedPartial", "RunOffByOne"};
  return names[i.index];
}

INSTANTIATE_TEST_SUITE_P(Mutants, WrongBackend,
                         testing::Values(Mutant{"off-by-one fast-division multiplier", "offsets", with_div32(off_by_one_div32)},
                                         Mutant{"32-bit index where 64 bits are needed", "offsets", with_mode(int32_when_the_size_fits)},
                                         Mutant{"dropped Partial reduction", "reshard", with_kind(partial_as_broadcast)},
                                         Mutant{"contiguous run one element too long", "reshard", with_run(run_one_too_long)}),
                         mutant_name);

}  // namespace
}  // namespace tfspec::props
