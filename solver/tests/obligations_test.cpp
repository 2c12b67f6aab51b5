// S5 (spec/ALGEBRA.md): Z3 decides the symbolic algebra's branches under the assumptions and
// classifies the conditions. Expected values derived by hand in the comments.
#include <gtest/gtest.h>

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "tfspec/solver/obligations.hpp"

namespace tfspec::solver {
namespace {

SymSummary<Layout> divide(Z3Decider& d, const std::string& a, const std::string& b) {
  const Layout x = parse_layout(a);
  const Tiler t = parse_tiler(b);
  return summarize(explore<Layout>(d, [&](SymExec& ex) { return sym_logical_divide(ex, x, t, DomainPolicy::Strict); }));
}

const SymCondition* find(const SymAnswer<Layout>& a, const std::string& pred) {
  for (const auto& c : a.conditions)
    if (to_string(c.pred) == pred) return &c;
  return nullptr;
}

// logical_divide(M:1, 128:1) = (128, M//128):(1,128) exactly when 128 | M: otherwise the
// complement rounds up to ceil(M/128) copies and the image reaches past M. Z3 sees that the
// other side of `M%128 == 0` refuses on every path, so it is a condition, not a case guard.
TEST(Obligations, DivisibilityIsARequiredConditionWithoutAssumptions) {
  Z3Decider d({"M >= 256"}, {"M"});
  const auto s = divide(d, "M:1", "128:1");
  ASSERT_EQ(s.answers.size(), 1u);
  EXPECT_EQ(to_string(s.answers[0].result), "(128,M//128):(1,128)");
  EXPECT_TRUE(s.answers[0].when.empty());
  const SymCondition* c = find(s.answers[0], "M%128 == 0");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->rule, "composition-image-in-domain");
  const Classified k = d.classify(s.answers[0].when, c->pred);
  EXPECT_EQ(k.status, "required");
  ASSERT_TRUE(k.counterexample.has_value());
  EXPECT_NE(k.counterexample->at("M") % 128, 0);  // an instance where it fails
  EXPECT_GE(k.counterexample->at("M"), 256);      // of the assumptions
}

TEST(Obligations, AnAssumptionDecidesTheBranch) {
  Z3Decider d({"M % 128 == 0", "M >= 256"}, {"M"});
  const auto s = divide(d, "M:1", "128:1");
  ASSERT_EQ(s.answers.size(), 1u);
  EXPECT_TRUE(s.refusals.empty());  // the refusing side is never explored
  EXPECT_EQ(find(s.answers[0], "M%128 == 0"), nullptr);
  for (const auto& c : s.answers[0].conditions) EXPECT_TRUE(c.decided) << to_string(c.pred);
}

// M % 128 == 1 with M >= 2: 128 never divides M, so every path refuses.
TEST(Obligations, AnOpRefusedOnEveryInstanceHasNoAnswer) {
  Z3Decider d({"M % 128 == 1", "M >= 2"}, {"M"});
  const auto s = divide(d, "M:1", "128:1");
  EXPECT_TRUE(s.answers.empty());
  ASSERT_FALSE(s.refusals.empty());
  EXPECT_EQ(s.refusals[0].refusal->rule, "composition-image-in-domain");
  const auto x = d.instance({});
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->at("M") % 128, 1);
}

TEST(Obligations, ARefutedConditionIsClassifiedSo) {
  Z3Decider d({"M % 4 == 2"}, {"M"});
  const Classified k = d.classify({}, {parse_inttuple("M % 4").as_dim(), SymRel::Eq, dim_const(0)});
  EXPECT_EQ(k.status, "refuted");
  EXPECT_EQ(d.classify({}, {dim_var("M"), SymRel::Ge, dim_const(1)}).status, "proved");  // the default bound
}

// The linear relaxation (spec/ALGEBRA.md S5, issue 46 items 1-2): where Z3 cannot decide a side
// under a nonlinear context, the case is asked again with fixed values substituted, common
// factors cancelled and nonlinear terms abstracted. Each expectation is derived by hand.
SymPred pred(const std::string& l, SymRel r, const std::string& rhs) { return {parse_dim(l), r, parse_dim(rhs)}; }

// 64 <= M and 64 >= M fix M = 64, and then 2*(K*64*N % 32) is 0 for every K, N: the guard
// `2*(K*M*N%32) != 0` has no instance (tiled_divide ((M,2),N,K):... 64:1 printed three such
// cases as `reachable: undecided` before).
TEST(Obligations, BoundsThatMeetFixASymbolAndEmptyACase) {
  Z3Decider d({}, {"K", "M", "N"});
  const std::vector<SymPred> g{pred("2*(K*M*N%32)", SymRel::Ne, "0"), pred("64", SymRel::Le, "M"), pred("64", SymRel::Ge, "M")};
  EXPECT_EQ(d.satisfiable(g), std::optional<bool>{false});
  EXPECT_FALSE(d.instance(g).has_value());
}

// 64 | M implies 32 | K*M*N (a product is a multiple of c where a factor is), against the guard
// `K*M*N % 32 != 0`: M%64 == 0 fails at every instance of the case (refuted, not undecided);
// M = 1, K = N = 1 is an instance of the case, so it is not vacuous.
TEST(Obligations, AProductIsAMultipleWhereAFactorIs) {
  Z3Decider d({}, {"K", "M", "N"});
  const std::vector<SymPred> g{pred("2*(K*M*N%32)", SymRel::Ne, "0"), pred("64", SymRel::Lt, "M")};
  EXPECT_EQ(d.classify(g, pred("M%64", SymRel::Eq, "0")).status, "refuted");
}

// Where t = M*N is not a multiple of 64, ceil(t/64)*64 > t, so 64*((t+63)//64)-1 < t fails at
// every instance (t = 64q + r, 0 < r < 64: 64(q+1)-1 >= 64q + r); the relaxation reads M*N as
// one unknown and decides it linearly (logical_divide (M,N):(1,M) (4,8):(2,8), M % 16 == 0).
TEST(Obligations, AProductReadAsOneUnknownDecidesALinearFact) {
  Z3Decider d({"M % 16 == 0"}, {"M", "N"});
  const std::vector<SymPred> g{pred("M*N%64", SymRel::Ne, "0"), pred("N", SymRel::Ne, "1")};
  EXPECT_EQ(d.classify(g, pred("64*((M*N+63)//64)-1", SymRel::Lt, "M*N")).status, "refuted");
}

// 32 % M == 0 with 4 < M < 32 leaves M = 8 or 16 (32's divisors), and then M*N = 8N or 16N; with
// N % 4 == 0 that is a multiple of 32, against the guard M*N % 32 != 0: the condition fails at
// every instance of the case (logical_divide (M,N):(N,1) (4,8):(1,4), N % 4 == 0).
TEST(Obligations, AConstantModuloASymbolLeavesItsDivisors) {
  Z3Decider d({"N % 4 == 0", "N >= 8"}, {"M", "N"});
  const std::vector<SymPred> g{pred("M*N%32", SymRel::Ne, "0"), pred("4", SymRel::Lt, "M"), pred("8", SymRel::Gt, "M//4")};
  EXPECT_EQ(d.classify(g, pred("32%M", SymRel::Eq, "0")).status, "refuted");
}

// 64//M <= 2 with M < 64: 64//M is 3 for M = 17..21 and larger below, so M >= 22; 64 % M == 0
// there leaves M = 32, and then K*M*N is a multiple of 32, against the guard K*M*N % 32 != 0:
// the condition fails at every instance of the case (tiled_divide ((M,2),N,K):((1,M*N*K),M,M*N)
// 64:1). Instances of the case exist: M = 22, K = N = 1 (22 % 32 != 0, 64//22 = 2).
TEST(Obligations, AConstantOverASymbolIsPiecewiseLinear) {
  Z3Decider d({}, {"K", "M", "N"});
  const std::vector<SymPred> g{pred("2*(K*M*N%32)", SymRel::Ne, "0"), pred("64", SymRel::Gt, "M"), pred("64//M", SymRel::Le, "2")};
  EXPECT_EQ(d.classify(g, pred("64%M", SymRel::Eq, "0")).status, "refuted");
  // and the other way: 64//M >= 3 with 64 % M == 0 leaves M <= 21, a divisor of 64: 1 .. 16,
  // so 64 % M == 0 is not refuted where M = 16 is allowed (16*K*N % 32 != 0 at K = N = 1)
  const std::vector<SymPred> h{pred("2*(K*M*N%32)", SymRel::Ne, "0"), pred("64", SymRel::Gt, "M"), pred("64//M", SymRel::Ge, "3")};
  EXPECT_NE(d.classify(h, pred("64%M", SymRel::Eq, "0")).status, "refuted");
}

// M == K*M*N with factors >= 1 leaves K = N = 1, so 2*K*M*N is 2*M (the relaxation reads
// 2*K*M*N as 2 times the one unknown of K*M*N, and a product equal to one factor has the others
// 1). 64*ceil(2M/64) - 1 < 2M holds exactly where 64 | 2M, i.e. 32 | M, against the guard
// K*M*N % 32 != 0, i.e. M % 32 != 0: it fails at every instance of the case (M = 2, K = N = 1 is one).
TEST(Obligations, AProductEqualToOneFactorHasTheOthersOne) {
  Z3Decider d({}, {"K", "M", "N"});
  const std::vector<SymPred> g{pred("2*(K*M*N%32)", SymRel::Ne, "0"), pred("M", SymRel::Ne, "1"), pred("M", SymRel::Eq, "K*M*N")};
  EXPECT_EQ(d.classify(g, pred("64*((2*K*M*N+63)//64)-1", SymRel::Lt, "2*M")).status, "refuted");
}

// With K == 1, 64 > M and 64//M <= 2 (M in 22..63) and K*M*N % 32 == 0, 64 % M == 0 holds at
// M = 32, N = 2 (64 % 32 == 0; 32*2 = 64, a multiple of 32, 64//32 = 2 != 1, 32 != 64) and fails
// at M = 24, N = 4 (64 % 24 = 16; 96 % 32 == 0, 96//32 = 3, 24 != 96): `required`, the instances
// found by the search inside each symbol's bounds where the pool's draw over three symbols misses.
TEST(Obligations, InstancesInsideTheBoundsOfTheCaseMakeAConditionRequired) {
  Z3Decider d({}, {"K", "M", "N"});
  const std::vector<SymPred> g{pred("2*(K*M*N%32)", SymRel::Eq, "0"), pred("K*M*N//32", SymRel::Ne, "1"), pred("M", SymRel::Ne, "1"), pred("M", SymRel::Ne, "K*M*N"),
                               pred("N", SymRel::Ne, "1"), pred("K", SymRel::Eq, "1"), pred("64", SymRel::Gt, "M"), pred("64//M", SymRel::Le, "2")};
  const Classified k = d.classify(g, pred("64%M", SymRel::Eq, "0"));
  EXPECT_EQ(k.status, "required");
  ASSERT_TRUE(k.counterexample.has_value());
  const Bindings& x = *k.counterexample;  // a real instance of the case where 64 % M != 0
  EXPECT_EQ(x.at("K"), 1);
  EXPECT_GE(x.at("M"), 22);
  EXPECT_LT(x.at("M"), 64);
  EXPECT_NE(64 % x.at("M"), 0);
  EXPECT_EQ(x.at("M") * x.at("N") % 32, 0);
}

}  // namespace
}  // namespace tfspec::solver
