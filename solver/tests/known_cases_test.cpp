// Known cases of `tfspec prove` (issue 4); expected verdicts are hand-derived from §2/§3/§6.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"
#include "options.hpp"

namespace tfspec::solver {
namespace {

ProveOptions opts(std::vector<std::string> assume = {}) { return testing::deterministic_options(std::move(assume)); }

// §2: (M,N):(1,M) is the compact column-major layout: injective for every M, N >= 1.
TEST(ProveInjective, CompactSymbolicIsProvedForAllValues) {
  auto r = prove_injective(parse_layout("(M,N):(1,M)"), opts());
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  EXPECT_EQ(r.scope, "all values");
  EXPECT_EQ(r.method, "structural");
}

// §2: with K < M, coordinates (K,0) and (0,1) both map to offset K.
TEST(ProveInjective, StrideSmallerThanExtentIsRefuted) {
  auto r = prove_injective(parse_layout("(M,N):(1,K)"), opts({"K < M", "N >= 2"}));
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  const auto& s = r.counterexample["symbols"];
  EXPECT_LT(s["K"].get<int64_t>(), s["M"].get<int64_t>());
}

// §2: (2,2):(2,3) has offsets {0,2,3,5}: injective though not sorted-compact.
TEST(ProveInjective, NonCompactConcreteIsInjective) {
  auto r = prove_injective(parse_layout("(2,2):(2,3)"), opts());
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
}

TEST(ProveInjective, SymbolicNonCompactNeedsTheSolver) {
  // (M,N):(1,M+1): stride M+1 clears the span M of the first mode.
  auto r = prove_injective(parse_layout("(M,N):(1,M+1)"), opts());
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  // (M,N):(2,M): at M = 4, (2,0) and (0,1) share offset 4 (hand derivation: 2*2 == 4).
  auto q = prove_injective(parse_layout("(M,N):(2,M)"), opts({"N >= 2"}));
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
}

// A lower bound below zero (M >= -2) once made the instance search's cap wrap negative, and the
// search skipped every assignment forever, past any time limit (issue 20's padded example).
// Hand derivation: offset i + j*(N+M); with P >= 2, (|N+M|, 0) and (0, 1) (or (0,0) when N+M < 0)
// collide exactly when |N+M| < N, e.g. at M = -1, N = 1: stride 0.
TEST(ProveInjective, PaddingBoundedOnlyFromBelowIsRefuted) {
  auto r = prove_injective(parse_layout("(N,P):(1,N+M)"), opts({"M >= -2"}));
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  const auto& s = r.counterexample["symbols"];
  const int64_t n = s["N"].get<int64_t>(), m = s["M"].get<int64_t>(), p = s["P"].get<int64_t>();
  EXPECT_GE(m, -2);
  EXPECT_GE(p, 2);
  EXPECT_LT(std::abs(n + m), n);
}

TEST(ProveInBounds, CompactLayoutFitsItsSize) {
  auto r = prove_in_bounds(parse_layout("(M,N):(1,M)"), parse_dim("M*N"), opts());
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  auto q = prove_in_bounds(parse_layout("(M,N):(1,M)"), parse_dim("M*N-1"), opts());
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
}

TEST(ProveFits, BoundedDimsFitInt32) {
  // max offset (M-1) + (N-1)*M <= 65536*1024 - 1 < 2^31.
  auto r = prove_fits(parse_layout("(M,N):(1,M)"), 32, opts({"1 <= M <= 65536", "1 <= N <= 1024"}));
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  // 65536 * 65536 = 2^32 does not fit.
  auto q = prove_fits(parse_layout("(M,N):(1,M)"), 32, opts({"1 <= M <= 65536", "1 <= N <= 65536"}));
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
}

// Issue 46 item 8: fits checks the index arithmetic (spec/PROVE.md), the size included, not only
// the offsets. (M,K):(K,1) with M <= 65536, K <= 32768: the largest offset is
// 65535*32768 + 32767 = 2^31 - 1 (fits), the size 65536*32768 = 2^31 (does not): refuted on the
// size. With K <= 32767 the size is 65536*32767 = 2^31 - 65536 and the largest offset smaller: proved.
TEST(ProveFits, TheSizeIsPartOfTheIndexArithmetic) {
  auto q = prove_fits(parse_layout("(M,K):(K,1)"), 32, opts({"M <= 65536", "K <= 32768"}));
  ASSERT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
  EXPECT_EQ(q.counterexample["quantity"], "size of modes 0..1") << q.counterexample;
  EXPECT_EQ(q.counterexample["value"], "2147483648") << q.counterexample;
  auto r = prove_fits(parse_layout("(M,K):(K,1)"), 32, opts({"M <= 65536", "K <= 32767"}));
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
}

TEST(ProveEquivalent, ColumnMajorEqualsItsCoalescedForm) {
  auto r = prove_equivalent(parse_layout("(M,N):(1,M)"), parse_layout("M*N:1"), opts());
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  auto q = prove_equivalent(parse_layout("(M,N):(N,1)"), parse_layout("M*N:1"), opts({"M >= 2", "N >= 2"}));
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
}

TEST(ProveDivides, SugarDivisibility) {
  // D5: 128 | M under M % 128 == 0; 128 does not divide M in general.
  EXPECT_EQ(prove_divides(parse_dim("M"), parse_dim("128"), opts({"M % 128 == 0"})).verdict, Verdict::Proved);
  EXPECT_EQ(prove_divides(parse_dim("M*4"), parse_dim("4"), opts()).verdict, Verdict::Proved);
  auto q = prove_divides(parse_dim("M"), parse_dim("128"), opts());
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
}

}  // namespace
}  // namespace tfspec::solver

namespace tfspec::solver {
namespace {

// §3 (reference compose_mode): B's stride 3 meets A's first extent 4, and 3 does not divide 4.
TEST(ProveAdmissible, IssueExampleIsRefused) {
  auto r = prove_admissible(parse_layout("(4,6,8):(2,3,5)"), parse_layout("6:3"), ProveOptions{});
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  EXPECT_EQ(r.counterexample["violation"]["rule"], "composition-stride-divisibility");
}

TEST(ProveAdmissible, SymbolicTileOfAColumn) {
  // (M,N):(1,M) o T:1 with T <= M: B stays inside A's first mode (hand derivation: usage T-1 < M).
  auto r = prove_admissible(parse_layout("(M,N):(1,M)"), parse_layout("T:1"), opts({"T <= M"}));
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  // Without T | M, a tile that spans more than one column is refused (e.g. M=2, T=3).
  auto q = prove_admissible(parse_layout("(M,N):(1,M)"), parse_layout("T:1"), opts({"N >= 2"}));
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
}

}  // namespace
}  // namespace tfspec::solver

namespace tfspec::solver {
namespace {

// An extent M == 0 contradicts §3 (extents >= 1): an input error, never a vacuous PROVED.
TEST(ProveAssumptions, InconsistentAssumptionsAreAnInputError) {
  ProveOptions o;
  o.assume = {"M == 0"};
  try {
    prove_injective(parse_layout("(M,N):(1,M)"), o);
    FAIL() << "expected prove-assumptions-inconsistent";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "prove-assumptions-inconsistent");
  }
}

TEST(ProveAssumptions, SyntaxErrorsNameTheRule) {
  for (const char* bad : {"M +", "M", "M = 3", "<= 4", "M <= 4 <="}) {
    ProveOptions o;
    o.assume = {bad};
    try {
      prove_injective(parse_layout("(M,N):(1,M)"), o);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const SpecError& e) {
      EXPECT_EQ(e.rule(), "prove-assumption-syntax") << bad;
    }
  }
}

// Declared bounds, and the exhaustive strategy deciding where Z3 is not asked to.
TEST(ProveStrategies, ExhaustiveDecidesWithinDeclaredBounds) {
  ProveOptions o;
  o.assume = {"M <= 8", "N <= 8"};
  o.structural = o.z3_unbounded = o.z3_bounded = o.search = false;
  auto r = prove_injective(parse_layout("(M,N):(1,M)"), o);
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  EXPECT_EQ(r.method, "exhaustive");
  EXPECT_EQ(r.scope, "within declared bounds");
  // (M,N):(2,M): at M = N = 2, coordinates (1,0) and (0,1) both map to offset 2.
  auto q = prove_injective(parse_layout("(M,N):(2,M)"), o);
  EXPECT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
  EXPECT_EQ(q.method, "exhaustive");
}

TEST(ProveStrategies, UnknownNamesTheReason) {
  // gcd(M, N) == 1: (M,N):(N,M) is injective, beyond Z3's nonlinear reasoning here. Z3's resource
  // limit (not the wall clock) ends each call, so the reason names z3-unbounded on any machine.
  ProveOptions o = testing::deterministic_options({"M*X - N*Y == 1"});
  o.timeout_ms = 30000;
  o.rlimit = 400000;
  auto r = prove_injective(parse_layout("(M,N):(N,M)"), o);
  EXPECT_EQ(r.verdict, Verdict::Unknown);
  EXPECT_NE(r.reason.find("z3-unbounded"), std::string::npos) << r.reason;
  EXPECT_EQ(exit_code(r), 2);
}

}  // namespace
}  // namespace tfspec::solver

namespace tfspec::solver {
namespace {

// The bit-vector strategy alone (TOOLING-NOTES: overflow over bit-vectors): the same hand-derived
// verdicts as ProveFits.BoundedDimsFitInt32.
TEST(ProveStrategies, OverflowOverBitvectors) {
  ProveOptions o;
  o.structural = o.z3_unbounded = o.z3_bounded = o.exhaustive = o.search = false;
  o.timeout_ms = 20000;  // a wall-clock backstop: a loaded machine must not turn a proof into UNKNOWN
  o.assume = {"1 <= M <= 65536", "1 <= N <= 1024"};
  auto r = prove_fits(parse_layout("(M,N):(1,M)"), 32, o);
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  EXPECT_EQ(r.method, "z3-bitvector");
  o.assume = {"1 <= M <= 65536", "1 <= N <= 65536"};
  auto q = prove_fits(parse_layout("(M,N):(1,M)"), 32, o);
  ASSERT_EQ(q.verdict, Verdict::Refuted) << to_text(q);
  EXPECT_EQ(q.method, "z3-bitvector");
  // int64: (2^31)^2 = 2^62 fits; a rank-3 size of 2^93 does not.
  o.assume = {"1 <= M <= 2147483648", "1 <= N <= 2147483648"};
  EXPECT_EQ(prove_fits(parse_layout("(M,N):(1,M)"), 64, o).verdict, Verdict::Proved);
  o.assume = {"1 <= M <= 2147483648", "1 <= N <= 2147483648", "1 <= K <= 2147483648"};
  EXPECT_EQ(prove_fits(parse_layout("(M,N,K):(1,M,M*N)"), 64, o).verdict, Verdict::Refuted);
}

}  // namespace
}  // namespace tfspec::solver
