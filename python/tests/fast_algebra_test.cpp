// The Python module's optimized coalesce and complement (python/src/fast_algebra.hpp, issue 31)
// against the reference's (reference/src/layout/algebra.cpp), the independent implementation: on
// random layouts (nested shapes, size-1 modes, stride 0, negative and huge strides, more leaves
// than the fast path takes) the fast path answers exactly the reference's layout, and declines
// exactly where the reference refuses (the module then raises the reference's SpecError) or the
// layout is too long for it. RC_PARAMS pins the seed (tfspec_test).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "fast_algebra.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

namespace fast = python::fast;

// A stride: mostly small, sometimes 0, negative, or large enough to overflow a product.
rc::Gen<int64_t> gen_stride() {
  return rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 65)},
                                          {2, rc::gen::element<int64_t>(0, 1)},
                                          {1, rc::gen::inRange<int64_t>(-9, 0)},
                                          {1, rc::gen::element<int64_t>(int64_t{1} << 40, int64_t{1} << 61, INT64_MAX / 3, INT64_MAX)}});
}

rc::Gen<int64_t> gen_extent() {
  return rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(1, 9)},
                                          {2, rc::gen::just<int64_t>(1)},
                                          {1, rc::gen::element<int64_t>(int64_t{1} << 20, int64_t{1} << 32)}});
}

// A random concrete layout: leaves grouped into nested modes (depth up to 3), each stride either
// drawn or the one that continues the previous mode (s_prev * d_prev: coalesce merges it), so
// that merges, sorts and gaps all happen often. Up to max_leaves leaves.
Layout random_layout(int max_leaves) {
  const int n = *rc::gen::inRange(1, max_leaves + 1);
  std::vector<int64_t> s, d;
  for (int i = 0; i < n; ++i) {
    s.push_back(*gen_extent());
    int64_t next = 0;
    const bool continues = i > 0 && !__builtin_mul_overflow(s[i - 1], d[i - 1], &next) && *rc::gen::inRange(0, 3) == 0;
    d.push_back(continues ? next : *gen_stride());
  }
  // nest: a random bracketing of the leaves, the same for shape and stride. A range of one leaf
  // is that leaf; a longer one is a tuple of the parts between random cuts (every leaf a part of
  // its own where no cut was drawn or at depth 3).
  std::function<std::pair<IntTuple, IntTuple>(int, int, int)> build = [&](int lo, int hi, int depth) {
    if (hi - lo == 1) return std::pair{IntTuple(s[lo]), IntTuple(d[lo])};
    std::vector<int> cuts{lo};
    for (int i = lo + 1; i < hi; ++i)
      if (depth >= 3 || *rc::gen::inRange(0, 2) == 0) cuts.push_back(i);
    if (cuts.size() == 1)
      for (int i = lo + 1; i < hi; ++i) cuts.push_back(i);
    cuts.push_back(hi);
    std::vector<IntTuple> cs, cd;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      auto [a, b] = build(cuts[k], cuts[k + 1], depth + 1);
      cs.push_back(std::move(a));
      cd.push_back(std::move(b));
    }
    return std::pair{IntTuple::tuple(std::move(cs)), IntTuple::tuple(std::move(cd))};
  };
  auto [shape, stride] = build(0, n, 0);
  return Layout(std::move(shape), std::move(stride));
}

size_t leaves(const Layout& l) { return flat_leaves(l.shape_ref()).size(); }

template <class F>
std::optional<Layout> reference_or_refusal(F f, std::string& rule) {
  try {
    return f();
  } catch (const SpecError& e) {
    rule = e.rule();
    return std::nullopt;
  }
}

// The fast path's answer agrees with the reference's: equal layouts, or a decline where the
// reference refuses, or a decline because the layout has more leaves than the fast path takes.
void agree(const Layout& l, const std::optional<fast::Flat>& got, const std::optional<Layout>& want, const std::string& rule) {
  RC_CLASSIFY(!want, "refused: " + rule);
  RC_CLASSIFY(want && leaves(l) > fast::kMaxModes, "too long for the fast path");
  if (got) {
    RC_ASSERT(want.has_value());
    RC_ASSERT(fast::to_layout(*got) == *want);
  } else {
    RC_ASSERT(!want || leaves(l) > fast::kMaxModes);
  }
}

RC_GTEST_PROP(python_fast_algebra, coalesce_is_the_references, ()) {
  const Layout l = random_layout(*rc::gen::element(4, 8, 40));
  std::string rule;
  const auto want = reference_or_refusal([&] { return coalesce(l); }, rule);
  const auto f = fast::flat(l);
  RC_ASSERT(f.has_value() == (leaves(l) <= fast::kMaxModes));
  agree(l, f ? fast::coalesce(*f) : std::nullopt, want, rule);
}

RC_GTEST_PROP(python_fast_algebra, complement_is_the_references, ()) {
  const Layout l = random_layout(*rc::gen::element(3, 6, 40));
  const bool explicit_cotarget = *rc::gen::inRange(0, 4) != 0;
  const int64_t cotarget = *rc::gen::weightedOneOf<int64_t>({{5, rc::gen::inRange<int64_t>(1, 4097)},
                                                             {1, rc::gen::inRange<int64_t>(-3, 1)},
                                                             {1, rc::gen::element<int64_t>(INT64_MAX, int64_t{1} << 62)}});
  std::string rule;
  const auto want = reference_or_refusal([&] { return explicit_cotarget ? complement(l, cotarget) : complement(l); }, rule);
  const auto f = fast::flat(l);
  std::optional<fast::Flat> got;
  if (f) {
    const auto cot = explicit_cotarget ? std::optional<int64_t>(cotarget) : fast::cosize(*f);
    if (cot) got = fast::complement(*f, *cot);
  }
  agree(l, got, want, rule);
}

RC_GTEST_PROP(python_fast_algebra, apply_is_the_references, ()) {
  const Layout l = random_layout(*rc::gen::element(3, 6, 12));
  const auto f = fast::flat(l);
  RC_PRE(f.has_value());
  int64_t size = INT64_MAX;  // the reference's size, where it fits int64
  try {
    size = l.size();
  } catch (const SpecError&) {
  }
  const int64_t i = *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, std::min<int64_t>(size, 1 << 20))},
                                                      {1, rc::gen::element<int64_t>(-1, size, INT64_MAX)}});
  std::optional<int64_t> want;
  try {
    want = l(i);
  } catch (const SpecError&) {
  }
  const auto got = fast::apply(f->shape, f->stride, f->n, i);
  RC_CLASSIFY(!want, "refused");
  RC_CLASSIFY(want && !got, "declined, the reference answers");
  if (got) {
    RC_ASSERT(want == got);
  } else if (want) {
    // A decline only costs speed (the module then asks the reference); it may happen only where
    // the terms' magnitudes add up past int64: some stride beyond 2^40 here.
    bool huge = false;
    for (size_t k = 0; k < f->n; ++k) huge = huge || f->stride[k] > (int64_t{1} << 40) || f->stride[k] < -(int64_t{1} << 40);
    RC_ASSERT(huge);
  }
}

// Hand-derived values (pycute's rules, §3), independent of both implementations.
TEST(python_fast_algebra, hand_derived_cases) {
  auto co = [](const char* t) { return to_string(fast::to_layout(*fast::coalesce(*fast::flat(parse_layout(t))))); };
  auto cm = [](const char* t, int64_t c) { return fast::complement(*fast::flat(parse_layout(t)), c); };
  EXPECT_EQ(co("(2,(1,6)):(1,(6,2))"), "12:1");               // 2:1 then 6:2 continues it (2*1 = 2)
  EXPECT_EQ(co("(4,8,16):(8,1,32)"), "(4,8,16):(8,1,32)");    // 4*8 != 1, 8*1 != 32
  EXPECT_EQ(co("(1,1):(3,5)"), "1:0");                        // nothing left
  EXPECT_EQ(co("(2,3):(0,0)"), "6:0");                        // 2*0 == 0, the next stride: merged
  EXPECT_EQ(to_string(fast::to_layout(*cm("4:2", 16))), "(2,2):(1,8)");  // the gap 2:1, then 8 up to 16
  EXPECT_EQ(to_string(fast::to_layout(*cm("(4,8,16):(8,1,32)", 8192))), "16:512");  // 8:1, 4:8, 16:32 fill 0..511
  EXPECT_FALSE(cm("4:2", 0));           // complement-cotarget
  EXPECT_FALSE(cm("(2,2):(1,1)", 8));   // complement-disjoint: the second 2:1 starts below the span 2
  EXPECT_FALSE(cm("4:-1", 8));          // complement-negative-stride
}

}  // namespace
}  // namespace tfspec
