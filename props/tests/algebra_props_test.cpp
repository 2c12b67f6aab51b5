// RapidCheck properties of the algebra, each checked pointwise against the definition.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tfspec/props/layout_gen.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;
using namespace tfspec::props;

namespace {

std::vector<int64_t> image(const Layout& l) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < l.size(); ++i) v.push_back(l(i));
  return v;
}

// Independent oracle for composition admissibility, written from the definitions in
// spec/ALGEBRA.md rather than from the implementation's loop: B's flat mode s:d (s>1, d>0) is
// admissible against A's coalesced radix M when (1) d = M0*...*M(i-1) * c with c | M_i (or i
// the last mode), (2) s spans whole digits: with n = M_i / c, s <= n or (n | s and s/n is
// again admissible with stride 1 from digit i+1), (3) the digits that all modes use at each
// position add up to less than its extent (last position: B's image stays below size(A)).
// Here computed by brute force: the digits of B's offsets in A's mixed radix.
bool oracle_admissible(const Layout& a, const Layout& b) {
  Layout ac = coalesce(a);
  std::vector<int64_t> M;
  for (const auto& x : flat_leaves(ac.shape_ref())) M.push_back(x.value());
  auto digits = [&](int64_t x) {
    std::vector<int64_t> dg;
    for (size_t p = 0; p + 1 < M.size(); ++p) {
      dg.push_back(x % M[p]);
      x /= M[p];
    }
    dg.push_back(x);
    return dg;
  };
  auto bs = flat_leaves(b.shape_ref()), bd = flat_leaves(b.stride());
  std::vector<int64_t> use(M.size(), 0);
  for (size_t j = 0; j < bs.size(); ++j) {
    int64_t s = bs[j].value(), d = bd[j].value();
    if (s == 1 || d == 0) continue;
    if (d < 0) return false;
    // The mode's offsets d*t, t < s, must be "digit-separable": the digit vector of d*t must be
    // linear in t's own mixed-radix digits. Brute force: each offset's digits equal the sum of the
    // digits of its parts d*(t % k) + d*k*(t / k) for every split point k dividing the mode.
    std::vector<int64_t> mx(M.size(), 0);
    for (int64_t t = 0; t < s; ++t) {
      auto dg = digits(d * t);
      for (size_t p = 0; p < M.size(); ++p) mx[p] = std::max(mx[p], dg[p]);
    }
    // Left divisibility: the set {d*t} must be a product of per-digit progressions; equivalent to
    // |{d*t}| == prod over digits of (number of distinct digit values), and each digit set an
    // arithmetic progression starting at 0.
    std::vector<std::set<int64_t>> per(M.size());
    for (int64_t t = 0; t < s; ++t) {
      auto dg = digits(d * t);
      for (size_t p = 0; p < M.size(); ++p) per[p].insert(dg[p]);
    }
    int64_t prod = 1;
    for (size_t p = 0; p < M.size(); ++p) {
      const auto& st = per[p];
      int64_t n = static_cast<int64_t>(st.size());
      int64_t step = n > 1 ? *std::next(st.begin()) : 1;
      int64_t k = 0;
      for (int64_t v : st) {
        if (v != k * step) return false;
        ++k;
      }
      if (n > 1 && p + 1 < M.size() && M[p] % step != 0) return false;
      prod *= n;
    }
    if (prod != s) return false;
    for (size_t p = 0; p < M.size(); ++p) use[p] += mx[p];
  }
  for (size_t p = 0; p < M.size(); ++p)
    if (use[p] >= M[p]) return false;
  return true;
}

// The smallest offset >= 0 that L does not reach: no right inverse of L is larger.
int64_t first_missing_offset(const Layout& l) {
  auto v = image(l);
  std::set<int64_t> s(v.begin(), v.end());
  int64_t m = 0;
  while (s.count(m)) ++m;
  return m;
}

// Every ordered factorization of n into factors >= 2 (the empty one for n == 1).
std::vector<std::vector<int64_t>> factorizations(int64_t n) {
  if (n == 1) return {{}};
  std::vector<std::vector<int64_t>> out;
  for (int64_t k = 2; k <= n; ++k)
    if (n % k == 0)
      for (auto rest : factorizations(n / k)) {
        rest.insert(rest.begin(), k);
        out.push_back(rest);
      }
  return out;
}

// Brute force, independent of the greedy refinement: is i -> f[i] on B's domain a layout over
// some refinement of B's flat shape? Tries every refinement of every mode; the strides are the
// values at the unit coordinates, and every point is compared.
bool is_layout_over_refinement(const Layout& b, const std::vector<int64_t>& f) {
  std::vector<int64_t> bs;
  for (const auto& x : flat_leaves(b.shape_ref())) bs.push_back(x.value());
  std::vector<std::vector<std::vector<int64_t>>> choices;
  for (int64_t s : bs) choices.push_back(factorizations(s));
  std::vector<size_t> pick(bs.size(), 0);
  while (true) {
    std::vector<IntTuple> shape, stride;
    int64_t step = 1;
    for (size_t j = 0; j < bs.size(); ++j) {
      int64_t unit = step;
      for (int64_t k : choices[j][pick[j]]) {
        shape.emplace_back(k);
        stride.emplace_back(f[unit]);
        unit *= k;
      }
      step *= bs[j];
    }
    if (shape.empty()) return true;  // size 1: the constant 0
    Layout cand(IntTuple::tuple(shape), IntTuple::tuple(stride));
    bool all = true;
    for (int64_t i = 0; i < b.size() && all; ++i) all = cand(i) == f[i];
    if (all) return true;
    size_t j = 0;
    while (j < pick.size() && ++pick[j] == choices[j].size()) pick[j++] = 0;
    if (j == pick.size()) return false;
  }
}

}  // namespace

RC_GTEST_PROP(AlgebraProps, CoalescePreservesTheFunction, ()) {
  Layout l = *gen_layout();
  Layout c = coalesce(l);
  RC_ASSERT(c.size() == l.size());
  RC_ASSERT(image(c) == image(l));
  RC_ASSERT(c.depth() <= 1);
}

RC_GTEST_PROP(AlgebraProps, FilterKeepsTheImageSet, ()) {
  Layout l = *gen_layout();
  Layout f = filter(l);
  auto a = image(l), b = image(f);
  RC_ASSERT(std::set<int64_t>(a.begin(), a.end()) == std::set<int64_t>(b.begin(), b.end()));
  for (const auto& d : flat_leaves(f.stride())) RC_ASSERT(d.value() != 0 || f.size() == 1);
}

RC_GTEST_PROP(AlgebraProps, CompositionIsPointwiseWhenAdmissibleAndRefusedExactlyWhenNot, ()) {
  Layout a = *gen_layout(3, 6);
  int64_t n = a.size();
  // B's image mostly inside A's domain: strides up to n, extents small.
  IntTuple bs = *gen_shape(2, 4);
  IntTuple bd = *gen_stride_for(bs, 0, std::min<int64_t>(n, 24));
  Layout b(bs, bd);
  bool expect = oracle_admissible(a, b);
  auto refusal = composition_refusal(a, b);
  RC_CLASSIFY(expect, "admissible");
  RC_ASSERT(expect == !refusal.has_value());
  if (!refusal) {
    Layout r = composition(a, b);
    RC_ASSERT(r.size() == b.size());
    for (int64_t i = 0; i < b.size(); ++i) RC_ASSERT(r(i) == a(b(i)));
  }
}

RC_GTEST_PROP(AlgebraProps, ComplementIsDisjointAndOrdered, ()) {
  Layout l = *gen_injective_layout(3, 6);
  int64_t cot = l.cosize() * *rc::gen::inRange<int64_t>(1, 4);
  Layout c = complement(l, cot);
  // ordered: strides strictly increase along the (coalesced) complement
  auto cs = flat_leaves(c.stride());
  for (size_t i = 1; i < cs.size(); ++i) RC_ASSERT(cs[i - 1].value() < cs[i].value());
  // disjoint: apart from 0, no offset of L is an offset of the complement
  auto li = image(l), ci = image(c);
  std::set<int64_t> ls(li.begin(), li.end());
  for (int64_t v : ci) RC_ASSERT(v == 0 || ls.count(v) == 0);
  // and (L, complement) covers at least the cotarget, injectively
  Layout both = make_layout({l, c});
  RC_ASSERT(is_injective(both).injective);
  RC_ASSERT(both.size() >= cot);
}

RC_GTEST_PROP(AlgebraProps, RightInverseIsIdentityOnItsDomain, ()) {
  Layout l = *gen_injective_layout();
  Layout r = right_inverse(l);
  for (int64_t i = 0; i < r.size(); ++i) RC_ASSERT(l(r(i)) == i);
}

RC_GTEST_PROP(AlgebraProps, LeftInverseUndoesTheLayout, ()) {
  Layout l = *gen_injective_layout();
  Layout li = left_inverse(l);
  for (int64_t i = 0; i < l.size(); ++i) RC_ASSERT(li(l(i)) == i);
}

RC_GTEST_PROP(AlgebraProps, LogicalDivideSizesAndPointwise, ()) {
  Layout a = *gen_injective_layout(3, 4);
  Layout t = *gen_tiler_for(a.size());
  Layout d;
  try {
    d = logical_divide(a, Tiler(t));
  } catch (const SpecError& e) {
    RC_DISCARD(e.rule());
  }
  RC_ASSERT(d.size() == a.size());
  // mode 0 is the tile: d(i, 0) == a(t(i))
  Layout tile = d.mode(0);
  RC_ASSERT(tile.size() == t.size());
  for (int64_t i = 0; i < t.size(); ++i) RC_ASSERT(tile(i) == a(t(i)));
  // and the whole is a permutation of a's offsets
  auto x = image(d), y = image(a);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  RC_ASSERT(x == y);
}

RC_GTEST_PROP(AlgebraProps, LogicalProductSizesAndPointwise, ()) {
  Layout a = *gen_injective_layout(2, 4);
  Layout b = *gen_injective_layout(2, 3);
  Layout p;
  try {
    p = logical_product(a, Tiler(b));
  } catch (const SpecError& e) {
    // e.g. A=(1,2):(1,2), B=3:1: complement(A, 6) = (2,2):(1,4) holds 0,1,4,5, and its first
    // three offsets 0,1,4 are no layout: the composition is refused, never approximated.
    RC_ASSERT(e.rule().rfind("composition-", 0) == 0);
    RC_DISCARD(e.rule());
  }
  RC_ASSERT(p.size() == a.size() * b.size());
  Layout first = p.mode(0);
  for (int64_t i = 0; i < a.size(); ++i) RC_ASSERT(first(i) == a(i));  // mode 0 is A itself
  RC_ASSERT(is_injective(p).injective);  // A's copies never overlap
}

RC_GTEST_PROP(AlgebraProps, TextAndJsonRoundTrip, ()) {
  Layout l = *gen_layout();
  RC_ASSERT(parse_layout(to_string(l)) == l);
  RC_ASSERT(layout_from_json(Json::parse(to_json(l).dump())) == l);
}

RC_GTEST_PROP(AlgebraProps, InjectivityAgreesWithBruteForce, ()) {
  Layout l = *gen_layout(4, 5);
  auto img = image(l);
  std::set<int64_t> s(img.begin(), img.end());
  bool brute = static_cast<int64_t>(s.size()) == l.size();
  InjectivityResult r = is_injective(l);
  RC_ASSERT(r.injective == brute);
  if (!r.injective) {
    RC_ASSERT(r.witness.has_value());
    RC_ASSERT(!(r.witness->first == r.witness->second));
    RC_ASSERT(l.apply(r.witness->first) == l.apply(r.witness->second));
  }
}

RC_GTEST_PROP(AlgebraProps, InversesSatisfyTheirLawsAndAreMaximal, ()) {
  const Layout l = *gen_layout(4, 6);
  const Layout r = right_inverse(l);
  for (int64_t i = 0; i < r.size(); ++i) RC_ASSERT(l(r(i)) == i);
  // Maximal: no right inverse reaches past the first offset L misses, and when filter(L) is
  // injective R reaches it. (Where L overlaps itself a larger one may exist: spec/ALGEBRA.md A8.)
  const int64_t missing = first_missing_offset(l);
  RC_ASSERT(r.size() <= missing);
  const bool separable = is_injective(filter(l)).injective;
  RC_CLASSIFY(separable, "filter(L) injective");
  if (separable) RC_ASSERT(r.size() == missing);
  try {
    const Layout li = left_inverse(l);
    RC_ASSERT(li.size() >= l.cosize());  // defined on every offset of L
    for (int64_t i = 0; i < l.size(); ++i) RC_ASSERT(l(li(l(i))) == l(i));
  } catch (const SpecError& e) {
    RC_ASSERT(e.rule() == "complement-disjoint" || e.rule() == "left-inverse-gaps");
  }
}

RC_GTEST_PROP(AlgebraProps, MaxCommonVectorIsTheLongestPrefixThatCorresponds, ()) {
  const Layout a = *gen_layout(3, 6), b = *gen_layout(3, 6);
  RC_PRE(is_injective(filter(b)).injective);  // else b^-1 is a choice (CuTe takes R's)
  std::map<int64_t, int64_t> first_index;     // offset -> smallest index of b reaching it
  for (int64_t j = b.size() - 1; j >= 0; --j) first_index[b(j)] = j;
  int64_t n = 0;
  while (first_index.count(n) && first_index[n] < a.size() && a(first_index[n]) == n) ++n;
  RC_ASSERT(max_common_vector(a, b) == n);
}

namespace {
// composition(a, b) answers exactly when brute force finds A∘B a layout over a refinement of B's
// shape (and, under strict, B stays in A's domain); its answer is A(B(i)) at every i.
void check_composition_against_brute_force(const Layout& a, const Layout& b, bool extend) {
  const DomainPolicy policy = extend ? DomainPolicy::Extend : DomainPolicy::Strict;
  // A continued past the last mode of coalesce(A) (D15 extend), as pycute's crd2idx spills.
  const Layout ac = coalesce(a);
  std::vector<int64_t> f;
  int64_t outside = 0;
  for (int64_t i = 0; i < b.size(); ++i) {
    outside += b(i) >= a.size();
    f.push_back(crd2idx(IntTuple(b(i)), ac.shape_ref(), ac.stride()));
  }
  const bool answerable = is_layout_over_refinement(b, f) && (extend || outside == 0);
  RC_CLASSIFY(answerable, "answerable");
  RC_CLASSIFY(answerable && composition_refusal(a, b, policy), "beyond the walk");
  try {
    const Layout r = composition(a, b, policy);
    RC_ASSERT(answerable);
    for (int64_t i = 0; i < b.size(); ++i) RC_ASSERT(r(i) == f[i]);
    RC_ASSERT(composition_outside(a, b) == outside);
  } catch (const SpecError& e) {
    RC_ASSERT(!answerable);
    if (!extend && outside > 0) RC_ASSERT(e.rule() == "composition-image-in-domain");
  }
}
}  // namespace

RC_GTEST_PROP(AlgebraProps, CompositionAnswersExactlyWhenTheFunctionIsALayout, ()) {
  const Layout a = *gen_layout(3, 6);
  const IntTuple bs = *gen_shape(2, 6);
  const Layout b(bs, *gen_stride_for(bs, 0, std::min<int64_t>(a.size(), 24)));
  check_composition_against_brute_force(a, b, *rc::gen::arbitrary<bool>());
}

// The same where the walk mostly refuses: A's first mode m is large and B's strides do not
// divide it, so the answers come from the fallback.
RC_GTEST_PROP(AlgebraProps, CompositionPastTheWalkAgreesWithBruteForce, ()) {
  const int64_t m = *rc::gen::inRange<int64_t>(3, 13), k = *rc::gen::inRange<int64_t>(1, 5);
  const Layout a(IntTuple::tuple({IntTuple(m), IntTuple(k)}), IntTuple::tuple({IntTuple(1), IntTuple(*rc::gen::inRange<int64_t>(m, 64))}));
  const IntTuple bs = *gen_shape(2, 6);
  const Layout b(bs, *gen_stride_for(bs, 2, m + 2));
  check_composition_against_brute_force(a, b, *rc::gen::arbitrary<bool>());
}
