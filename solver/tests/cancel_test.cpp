// The common-factor cancellation the decider asserts beside a nonlinear divisibility guard
// (solver/src/cancel.hpp, spec/ALGEBRA.md S5, issue 46 item 2). Expected forms are factored by
// hand in the comments; each is also checked against the original at every M in 1..400 where the
// original is defined (an independent brute force of the equivalence).
#include <gtest/gtest.h>

#include "../src/cancel.hpp"
#include "tfspec/reference/notation.hpp"

namespace {
using namespace tfspec;

SymPred mod_pred(const std::string& x, const std::string& y, SymRel rel) {
  return SymPred{sym_mod(parse_dim(x), parse_dim(y)), rel, sym(0)};
}

void agree_on_range(const SymPred& p, const SymPred& c) {
  for (int64_t m = 1; m <= 400; ++m) {
    const Bindings b{{"M", m}};
    // defined: the divisor is non-zero (the context asserts it wherever p holds)
    if (evaluate(p.lhs->rhs, b) == 0) continue;
    EXPECT_EQ(holds(p, b), holds(c, b)) << to_string(p) << " vs " << to_string(c) << " at M=" << m;
  }
}

// 3M^2-2M-1 = (M-1)(3M+1) and 4M-4 = 4(M-1): the shared factor M-1 cancels, leaving 4 | 3M+1.
TEST(Cancel, TheLogicalProductGuardBecomesLinear) {
  const SymPred p = mod_pred("3*M*M-2*M-1", "4*M-4", SymRel::Eq);
  const auto c = solver::cancelled(p);
  ASSERT_TRUE(c);
  EXPECT_EQ(to_string(*c), "(3*M+1)%4 == 0");
  agree_on_range(p, *c);
  const SymPred q = mod_pred("3*M*M-2*M-1", "4*M-4", SymRel::Ne);
  const auto cq = solver::cancelled(q);
  ASSERT_TRUE(cq);
  EXPECT_EQ(to_string(*cq), "(3*M+1)%4 != 0");
  agree_on_range(q, *cq);
}

// (M+1)(M+2)(M+3) = M^3+6M^2+11M+6 and 2(M+1)(M+2) = 2M^2+6M+4: the gcd is (M+1)(M+2), leaving
// (M+3) % 2. And M^2-1 = (M-1)(M+1) over 2M+2 = 2(M+1): (M-1) % 2.
TEST(Cancel, AQuadraticCommonFactorCancels) {
  const SymPred p = mod_pred("M*M*M+6*M*M+11*M+6", "2*M*M+6*M+4", SymRel::Eq);
  const auto c = solver::cancelled(p);
  ASSERT_TRUE(c) << to_string(p);
  EXPECT_EQ(to_string(*c), "(M+3)%2 == 0");
  agree_on_range(p, *c);
  const SymPred q = mod_pred("M*M-1", "2*M+2", SymRel::Eq);
  const auto cq = solver::cancelled(q);
  ASSERT_TRUE(cq) << to_string(q);
  EXPECT_EQ(to_string(*cq), "(M-1)%2 == 0");
  agree_on_range(q, *cq);
}

// No common factor (M^2+1 and 4M-4 are coprime), a constant divisor (already linear), two
// symbols, a floor division inside, and a relation other than == / != 0: left alone.
TEST(Cancel, OnlyOneSymbolPolynomialsWithACommonFactorAreRewritten) {
  EXPECT_FALSE(solver::cancelled(mod_pred("M*M+1", "4*M-4", SymRel::Eq)));
  EXPECT_FALSE(solver::cancelled(mod_pred("3*M*M-2*M-1", "4", SymRel::Eq)));
  EXPECT_FALSE(solver::cancelled(mod_pred("M*N-N", "4*M-4", SymRel::Eq)));
  EXPECT_FALSE(solver::cancelled(mod_pred("M*(M//2)", "2*M", SymRel::Eq)));
  EXPECT_FALSE(solver::cancelled(SymPred{sym_mod(parse_dim("M*M-M"), parse_dim("2*M-2")), SymRel::Lt, sym(1)}));
}

// Coefficients past the bound (2^62) are not rewritten rather than overflowing.
TEST(Cancel, HugeCoefficientsAreLeftAlone) {
  EXPECT_FALSE(solver::cancelled(mod_pred("4611686018427387904*M*M-M", "2*M", SymRel::Eq)));
}

}  // namespace
