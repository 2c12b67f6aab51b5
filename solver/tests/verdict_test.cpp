// Verdicts of `tfspec prove` (first written for issue 9): witness replay, small instances, int64
// overflow as an answer, exact assumptions, decided divisibility, consistency, a hard time limit. Every expected
// verdict is derived by hand in the comment above its check; the tests check the counterexamples
// with their own 128-bit arithmetic, not the prover's.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "options.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {
namespace {

using i128 = __int128;

ProveOptions opts(std::vector<std::string> assume = {}) { return testing::deterministic_options(std::move(assume)); }

int64_t sym(const ProveResult& r, const char* name) { return r.counterexample["symbols"][name].get<int64_t>(); }

// The flat values of a JSON coordinate (nested arrays of ints).
void flat(const Json& j, std::vector<int64_t>& out) {
  if (j.is_array()) {
    for (const auto& x : j) flat(x, out);
  } else {
    out.push_back(j.get<int64_t>());
  }
}

// Checks an injectivity witness against the given flat extents and strides, in 128 bits.
void expect_collision(const ProveResult& r, const std::vector<i128>& s, const std::vector<i128>& d) {
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  std::vector<int64_t> x, y;
  flat(r.counterexample["coords"][0], x);
  flat(r.counterexample["coords"][1], y);
  ASSERT_EQ(x.size(), s.size());
  ASSERT_EQ(y.size(), s.size());
  i128 ox = 0, oy = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_TRUE(x[i] >= 0 && x[i] < s[i] && y[i] >= 0 && y[i] < s[i]) << to_text(r);
    ox += x[i] * d[i];
    oy += y[i] * d[i];
  }
  EXPECT_NE(x, y) << to_text(r);
  EXPECT_TRUE(ox == oy) << to_text(r);
}

// The largest magnitude among the quantities the fits goal bounds (spec/PROVE.md: each extent and
// stride, each (s_k - 1) * d_k, the size and the largest / smallest offset of modes 0..k).
i128 largest_quantity(const std::vector<i128>& s, const std::vector<i128>& d) {
  auto abs = [](i128 v) { return v < 0 ? -v : v; };
  i128 best = 0, size = 1, hi = 0, lo = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const i128 span = (s[i] - 1) * d[i];
    size *= s[i];
    hi += d[i] > 0 ? span : 0;
    lo += d[i] < 0 ? span : 0;
    for (i128 q : {s[i], d[i], span, size, hi, lo}) best = std::max(best, abs(q));
  }
  return best;
}

std::string power(const std::string& base, int factors) {
  std::string s = base;
  for (int i = 1; i < factors; ++i) s += "*" + base;
  return s;
}

// (K,N,K,3):(3,2,3*K*N,1): for N >= 2, (0,1,0,0) and (0,0,0,2) both map to offset 2. Z3's first
// model once had K = 32128, N = 39615 (a layout of 1.2e14 points the reference cannot
// enumerate): the witness itself is replayed now, and small models are asked for first.
TEST(Verdicts, WitnessIsReplayedNotTheWholeLayout) {
  ProveOptions o = opts();
  o.search = false;  // the solver's model, not the instance search
  auto r = prove_injective(parse_layout("(K,N,K,3):(3,2,3*K*N,1)"), o);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  EXPECT_FALSE(r.replay_failed);
  const i128 k = sym(r, "K"), n = sym(r, "N");
  EXPECT_GE(n, 2);
  expect_collision(r, {k, n, k, 3}, {3, 2, 3 * k * n, 1});
  EXPECT_LE(k, 1 << 16) << "small models first";
  EXPECT_EQ(exit_code(r), 1);
}

// (4,M,M):(1,M,4*M): at M = 2 the layout is (4,2,2):(1,2,8) and (2,0,0), (0,1,0) share offset 2.
TEST(Verdicts, SmallInstancesRefuteWithoutDeclaredBounds) {
  auto r = prove_injective(parse_layout("(4,M,M):(1,M,4*M)"), opts());
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  const i128 m = sym(r, "M");
  expect_collision(r, {4, m, m}, {1, m, 4 * m});
}

// 4:M*M: the largest offset 3*M*M exceeds 2^63 - 1 from M = 1753413057 on (the stride M*M
// itself from M = 3037000500): the overflow is the answer.
TEST(Verdicts, Int64OverflowOfAStrideIsTheCounterexample) {
  auto r = prove_fits(parse_layout("4:M*M"), 64, opts());
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  const i128 m = sym(r, "M");
  EXPECT_GT(largest_quantity({4}, {m * m}), static_cast<i128>(INT64_MAX));
  EXPECT_EQ(exit_code(r), 1);
}

// (2,M):(1,4*M) and (2,M):(1,M*M): the offset (M-1)*4M, resp. (M-1)*M*M, passes 2^63 - 1 for
// large M (and then the concrete layout cannot even be built in int64: 4M or M*M does too);
// (M,N):(1,M): the size M*N does at M = N = 2^32 (beyond the old retry box [-2^20, 2^20]).
TEST(Verdicts, Int64OverflowOfBuildingTheLayoutIsTheCounterexample) {
  auto a = prove_fits(parse_layout("(2,M):(1,4*M)"), 64, opts());
  ASSERT_EQ(a.verdict, Verdict::Refuted) << to_text(a);
  const i128 ma = sym(a, "M");
  EXPECT_GT(largest_quantity({2, ma}, {1, 4 * ma}), static_cast<i128>(INT64_MAX));
  auto b = prove_fits(parse_layout("(2,M):(1,M*M)"), 64, opts());
  ASSERT_EQ(b.verdict, Verdict::Refuted) << to_text(b);
  const i128 mb = sym(b, "M");
  EXPECT_GT(largest_quantity({2, mb}, {1, mb * mb}), static_cast<i128>(INT64_MAX));
  auto c = prove_fits(parse_layout("(M,N):(1,M)"), 64, opts());
  ASSERT_EQ(c.verdict, Verdict::Refuted) << to_text(c);
  const i128 m = sym(c, "M"), n = sym(c, "N");
  EXPECT_GT(largest_quantity({m, n}, {1, m}), static_cast<i128>(INT64_MAX)) << to_text(c);
}

// (2,2):(K,K) with K >= 2^62: (1,0) and (0,1) both map to offset K (the offset 2K of (1,1)
// overflows int64, which must not turn the answer into exit 4).
TEST(Verdicts, OverflowElsewhereInTheLayoutDoesNotStopTheReplay) {
  auto r = prove_injective(parse_layout("(2,2):(K,K)"), opts({"K >= 4611686018427387904"}));
  const i128 k = sym(r, "K");
  EXPECT_GE(k, static_cast<i128>(1) << 62);
  expect_collision(r, {2, 2}, {k, k});
  EXPECT_EQ(exit_code(r), 1);
}

// (M,2):(1,1) with M >= 10^9 and M*10^10 >= 1 (1e19 > 2^63: the assumption overflows int64, yet
// holds): (1,0) and (0,1) both map to offset 1.
TEST(Verdicts, AssumptionsAreEvaluatedExactly) {
  auto r = prove_injective(parse_layout("(M,2):(1,1)"), opts({"M >= 1000000000", "M*10000000000 >= 1"}));
  const i128 m = sym(r, "M");
  EXPECT_GE(m, 1000000000);
  expect_collision(r, {m, 2}, {1, 1});
}

// The unsound PROVED: at M = 3, K = 2 the layout is (2,2,3,3):(1,1,4,12) ((1,0,0,0) and
// (0,1,0,0) share offset 1). The assumption M*2^62 >= 1 overflows int64 for M >= 2 but holds for
// every M >= 1; it used to be read as false, skipping 56 of the 64 instances.
TEST(Verdicts, AnAssumptionBeyondInt64NeverSkipsAnInstance) {
  const Layout l = parse_layout("(2,K,M,3):(1,1+(M-3)*(M-3),2*K*(1+(M-3)*(M-3)),(2*K*(1+(M-3)*(M-3)))*M)");
  const std::vector<std::string> as{"1 <= M <= 8", "1 <= K <= 8", "M*4611686018427387904 >= 1"};
  auto stride1 = [](i128 m) { return 1 + (m - 3) * (m - 3); };
  auto check = [&](const ProveResult& r) {
    const i128 m = sym(r, "M"), k = sym(r, "K");
    expect_collision(r, {2, k, m, 3}, {1, stride1(m), 2 * k * stride1(m), 2 * k * stride1(m) * m});
  };
  check(prove_injective(l, opts(as)));
  ProveOptions only_exhaustive = opts(as);  // the strategy that answered PROVED
  only_exhaustive.structural = only_exhaustive.z3_unbounded = only_exhaustive.z3_bounded = only_exhaustive.search = false;
  auto r = prove_injective(l, only_exhaustive);
  EXPECT_EQ(r.method, "exhaustive");
  check(r);
}

// (2,2):(1,5-M), 1 <= M <= 4, M^40 > 0 (2^80 at M = 4: beyond int64, true for every M >= 1):
// strides 4, 3, 2 are injective, M = 4 gives (2,2):(1,1). The only counterexample is M = 4.
TEST(Verdicts, AnAssumptionBeyondInt64IsEvaluatedNotAnExit4) {
  for (bool search : {true, false}) {
    ProveOptions o = opts({"1 <= M <= 4", power("M", 40) + " > 0"});
    o.search = search;
    auto r = prove_injective(parse_layout("(2,2):(1,5-M)"), o);
    ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
    EXPECT_EQ(sym(r, "M"), 4);
    expect_collision(r, {2, 2}, {1, 1});
  }
}

// Residues decide c | N: M(M+1)(M+2) holds a multiple of 2 and of 3 among three consecutive
// integers; M even gives M*M = 4(M/2)^2; M*N + M = M(N+1).
TEST(Verdicts, DivisibilityByAConstantIsDecided) {
  auto a = prove_divides(parse_dim("M*(M+1)*(M+2)"), parse_dim("6"), opts());
  EXPECT_EQ(a.verdict, Verdict::Proved) << to_text(a);
  EXPECT_EQ(a.scope, "all values");
  ProveOptions o;  // the default wall-clock budget of 2 s: decided well within it
  o.assume = {"M % 2 == 0"};
  auto b = prove_divides(parse_dim("M*M"), parse_dim("4"), o);
  EXPECT_EQ(b.verdict, Verdict::Proved) << to_text(b);
  EXPECT_EQ(b.method, "residues");
  auto c = prove_divides(parse_dim("M*N+M"), parse_dim("M"), opts());
  EXPECT_EQ(c.verdict, Verdict::Proved) << to_text(c);
  // M*(M+1) is not always a multiple of 6: at M = 2 it is 6, at M = 3 it is 12, at M = 1 it is 2.
  auto d = prove_divides(parse_dim("M*(M+1)"), parse_dim("6"), opts());
  ASSERT_EQ(d.verdict, Verdict::Refuted) << to_text(d);
  const int64_t m = sym(d, "M");
  EXPECT_NE(m * (m + 1) % 6, 0);
}

void expect_inconsistent(const std::string& layout, std::vector<std::string> assume) {
  try {
    auto r = prove_injective(parse_layout(layout), opts(std::move(assume)));
    ADD_FAILURE() << "expected prove-assumptions-inconsistent, got " << to_text(r);
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "prove-assumptions-inconsistent") << e.what();
  }
}

// 1 == 2 is false; M <= 0 contradicts the default M >= 1; M < 0 and M > 5 contradict each other.
// A concrete layout (no symbol) is no exception.
TEST(Verdicts, NeverAVerdictUnderAssumptionsThatCannotHold) {
  expect_inconsistent("4:1", {"1 == 2"});
  expect_inconsistent("4:1", {"M <= 0"});
  expect_inconsistent("(2,2):(1,1)", {"M < 0", "M > 5"});
}

// M*X - N*Y == 1 with M = 2A and N = 2B: the left side is even, so the assumptions never hold;
// the goal must not be PROVED (an input error, or UNKNOWN saying consistency is undecided).
TEST(Verdicts, UndecidedConsistencyIsNoProof) {
  ProveOptions o = opts({"M*X - N*Y == 1", "M == 2*A", "N == 2*B"});
  o.timeout_ms = 1000;
  o.rlimit = 0;
  try {
    auto r = prove_injective(parse_layout("(M,N):(1,M)"), o);
    EXPECT_EQ(r.verdict, Verdict::Unknown) << to_text(r);
    EXPECT_NE(r.reason.find("only if the assumptions can hold"), std::string::npos) << r.reason;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "prove-assumptions-inconsistent");
  }
}

double seconds_of(const std::function<void()>& f) {
  auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// --timeout is a hard limit for the whole verdict. gcd(M, N) == 1 makes (M,N):(N,M) injective
// (number theory Z3 does not do): UNKNOWN, within the limit plus a margin. M^32 as a stride: at
// M = 4 it is 2^64 (REFUTED), and Z3's term is big; either way the answer comes in time.
TEST(Verdicts, TheTimeoutIsAHardLimit) {
  ProveOptions o;
  o.timeout_ms = 500;
  o.assume = {"M*X - N*Y == 1"};
  ProveResult r;
  double s = seconds_of([&] { r = prove_injective(parse_layout("(M,N):(N,M)"), o); });
  EXPECT_EQ(r.verdict, Verdict::Unknown) << to_text(r);
  EXPECT_LT(s, 0.5 + 1.0) << to_text(r);
  ProveOptions p;
  p.timeout_ms = 500;
  double t = seconds_of([&] { r = prove_fits(parse_layout("(M,4):(1," + power("M", 32) + ")"), 64, p); });
  EXPECT_LT(t, 0.5 + 1.0) << to_text(r);
  EXPECT_NE(r.verdict, Verdict::Proved) << to_text(r);
  p.search = false;  // Z3 alone on the big term: interrupted by the watchdog
  t = seconds_of([&] { r = prove_fits(parse_layout("(M,4):(1," + power("M", 32) + ")"), 64, p); });
  EXPECT_LT(t, 0.5 + 1.0) << to_text(r);
  EXPECT_NE(r.verdict, Verdict::Proved) << to_text(r);
}

// (M,M):(1,M) needs M >= 1 once; every phase tried is listed with its time.
TEST(Verdicts, ConditionsOnceAndPhasesListed) {
  auto r = prove_injective(parse_layout("(M,M):(1,M)"), opts());
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
  EXPECT_EQ(r.wellformed, std::vector<std::string>{"M >= 1"});
  // (M,N):(1,M+1): the stride M+1 clears the span M-1 of the first mode (structural), after the
  // small-instance search found nothing.
  auto q = prove_injective(parse_layout("(M,N):(1,M+1)"), opts());
  EXPECT_EQ(q.verdict, Verdict::Proved) << to_text(q);
  ASSERT_GE(q.attempts.size(), 2u);
  for (const auto& a : q.attempts) EXPECT_NE(a.find(" ms"), std::string::npos) << a;
}

const char* kNames[] = {"A", "B", "C", "D", "E", "F", "G", "H"};

// Compact column-major, rank 8, every extent symbolic; `last` replaces the last stride.
std::string rank8(const std::string& last = "") {
  std::string s = "(", d = "(", prod = "1";
  for (int i = 0; i < 8; ++i) {
    s += (i ? "," : "") + std::string(kNames[i]);
    d += std::string(i ? "," : "") + (i == 7 && !last.empty() ? last : prod);
    prod = prod == "1" ? kNames[i] : prod + "*" + kNames[i];
  }
  return s + "):" + d + ")";
}

// Rank 8 with 8 symbols: compact is injective (each stride is the product of the smaller
// extents); with the last stride A the modes 0 and 7 collide as soon as A >= 2 and H >= 2:
// (1,0,...,0) and (0,...,0,1) both map to offset A.
TEST(Verdicts, Rank8WithEightSymbolsIsDecided) {
  ProveOptions o;
  EXPECT_EQ(prove_injective(parse_layout(rank8()), o).verdict, Verdict::Proved);
  auto r = prove_injective(parse_layout(rank8("A")), o);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  std::vector<i128> s, d;
  i128 prod = 1;
  for (int i = 0; i < 8; ++i) {
    s.push_back(sym(r, kNames[i]));
    d.push_back(i == 7 ? s[0] : prod);
    prod *= s.back();
  }
  expect_collision(r, s, d);
}

}  // namespace
}  // namespace tfspec::solver
