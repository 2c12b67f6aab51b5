// X2 linear layouts (spec/ALGEBRA.md, Extensions; issue 32). Every op is checked against its
// definition by brute force over random layouts: the expected values here are computed point by
// point from the named-dim definition (vectors over out-dims, XOR per out-dim), never from the
// flattened bases the implementation works on, and never by calling the op under test twice.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "test_support.hpp"
#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {
namespace {

using Named = std::map<std::string, int64_t>;

// The definition, written independently of linear.cpp: named inputs -> named outputs, each out-dim
// the XOR of its entries in the bases the input bits select.
Named apply_named(const LinearLayout& l, const Named& in) {
  Named out;
  for (const auto& o : l.outs()) out[o.name] = 0;
  for (const auto& d : l.ins()) {
    const int64_t x = in.count(d.name) ? in.at(d.name) : 0;
    for (size_t b = 0; b < d.bases.size(); ++b)
      if ((x >> b) & 1)
        for (size_t o = 0; o < l.outs().size(); ++o) out[l.outs()[o].name] ^= d.bases[b][o];
  }
  return out;
}

// Flat index -> named inputs (first in-dim least significant), named outputs -> flat value
// (first out-dim fastest): the flattening of spec/ALGEBRA.md X2 written out with sizes.
Named unflatten_in(const LinearLayout& l, int64_t i) {
  Named n;
  for (const auto& d : l.ins()) {
    const int64_t size = int64_t{1} << d.bases.size();
    n[d.name] = i % size;
    i /= size;
  }
  return n;
}
int64_t flatten_out(const LinearLayout& l, const Named& v) {
  int64_t f = 0, scale = 1;
  for (const auto& o : l.outs()) {
    f += v.at(o.name) * scale;
    scale *= o.size;
  }
  return f;
}

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  int64_t below(int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); }
  // Random dims named from `names`, random sizes, total bits <= max_bits; bases random in range.
  std::vector<LinearOutDim> outs(const std::vector<std::string>& names, int max_bits) {
    std::vector<LinearOutDim> o;
    for (const auto& n : names) {
      const int b = static_cast<int>(below(std::max(1, max_bits / static_cast<int>(names.size())) + 1));
      o.push_back({n, int64_t{1} << b});
    }
    return o;
  }
  LinearLayout layout(const std::vector<std::string>& ins, const std::vector<LinearOutDim>& outs, int max_in_bits, bool sparse = false) {
    std::vector<LinearInDim> d;
    for (const auto& n : ins) {
      LinearInDim x{n, {}};
      const int bits = static_cast<int>(below(std::max(1, max_in_bits / static_cast<int>(ins.size())) + 1));
      for (int b = 0; b < bits; ++b) {
        std::vector<int64_t> v;
        for (const auto& o : outs) v.push_back(sparse && below(3) == 0 ? 0 : below(o.size));
        x.bases.push_back(v);
      }
      d.push_back(x);
    }
    return LinearLayout(d, outs);
  }
};

TEST(Linear, ApplyIsTheXorOfTheSelectedBasesFlattened) {
  Gen g(1);
  for (int trial = 0; trial < 200; ++trial) {
    const auto outs = g.outs({"dim0", "dim1"}, 8);
    const LinearLayout l = g.layout({"register", "lane", "warp"}, outs, 9);
    for (int64_t i = 0; i < l.size(); ++i) {
      ASSERT_EQ(l.apply(IntTuple(i)), flatten_out(l, apply_named(l, unflatten_in(l, i)))) << to_string(l) << " at " << i;
    }
  }
}

TEST(Linear, InjectiveSurjectiveAndCosizeAgreeWithEnumeration) {
  Gen g(2);
  for (int trial = 0; trial < 300; ++trial) {
    const auto outs = g.outs({"a", "b"}, 6);
    const LinearLayout l = g.layout({"x", "y"}, outs, 6, trial % 2 == 0);
    std::map<int64_t, int64_t> first;  // value -> the first index reaching it
    std::optional<int64_t> collision;  // the smallest index whose value an earlier index has
    for (int64_t i = 0; i < l.size(); ++i) {
      const int64_t v = flatten_out(l, apply_named(l, unflatten_in(l, i)));
      if (!first.count(v)) first[v] = i;
      else if (!collision && v == 0) collision = i;  // linear: a collision exists iff some i > 0 maps to 0
    }
    const bool injective = static_cast<int64_t>(first.size()) == l.size();
    int64_t out_size = 1;
    for (const auto& o : outs) out_size *= o.size;
    EXPECT_EQ(l.injective(), injective) << to_string(l);
    EXPECT_EQ(l.surjective(), static_cast<int64_t>(first.size()) == out_size) << to_string(l);
    EXPECT_EQ(l.max_value(), first.rbegin()->first) << to_string(l);
    EXPECT_EQ(l.kernel_witness(), collision) << to_string(l);
    const InjectivityResult r = is_injective(static_cast<const LayoutBase&>(l));
    EXPECT_EQ(r.injective, injective);
    if (!injective) {
      ASSERT_TRUE(r.witness);
      EXPECT_EQ(l.apply(r.witness->first), l.apply(r.witness->second));
      EXPECT_NE(r.witness->first, r.witness->second);
    }
  }
}

TEST(Linear, ComposeIsOuterAfterInner) {
  Gen g(3);
  for (int trial = 0; trial < 200; ++trial) {
    const auto mid = g.outs({"p", "q"}, 6);
    const LinearLayout inner = g.layout({"x", "y"}, mid, 6);
    // outer's in-dims: inner's out-dims in the other order, each at least as large
    std::vector<LinearInDim> ins;
    const auto outs = g.outs({"z"}, 5);
    for (const std::string n : {"q", "p"}) {
      const int64_t need = n == "p" ? mid[0].size : mid[1].size;
      int bits = 0;
      while ((int64_t{1} << bits) < need) ++bits;
      bits += static_cast<int>(g.below(2));
      LinearInDim d{n, {}};
      for (int b = 0; b < bits; ++b) d.bases.push_back({g.below(outs[0].size)});
      ins.push_back(d);
    }
    const LinearLayout outer(ins, outs);
    const LinearLayout c = compose(inner, outer);
    for (int64_t i = 0; i < inner.size(); ++i) {
      const Named mid_value = apply_named(inner, unflatten_in(inner, i));
      ASSERT_EQ(c.apply(IntTuple(i)), flatten_out(outer, apply_named(outer, mid_value))) << to_string(inner) << " then " << to_string(outer);
    }
  }
  EXPECT_THROW(compose(LinearLayout({{"x", {{3}}}}, {{"y", 4}}), LinearLayout({{"y", {{1}}}}, {{"z", 2}})), SpecError);  // y: 4 > 2
}

TEST(Linear, InverseAndPseudoInverseAreRightInversesPickingTheSmallestPreimage) {
  Gen g(4);
  int surjective = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto outs = g.outs({"o0", "o1"}, 4);
    const LinearLayout l = g.layout({"i0", "i1"}, outs, 7);
    if (!l.surjective()) {
      EXPECT_THROW(pseudo_invert(l), SpecError);
      continue;
    }
    ++surjective;
    const LinearLayout b = pseudo_invert(l);
    std::map<int64_t, int64_t> smallest;  // value -> smallest preimage (flat index)
    for (int64_t i = l.size() - 1; i >= 0; --i) smallest[flatten_out(l, apply_named(l, unflatten_in(l, i)))] = i;
    for (int64_t y = 0; y < b.size(); ++y) {
      // b's in-dims are l's out-dims, its out-dims l's in-dims: y read as named l-outputs
      const Named x = apply_named(b, unflatten_in(b, y));
      const int64_t xi = flatten_out(b, x);
      EXPECT_EQ(flatten_out(l, apply_named(l, x)), y) << to_string(l);
      EXPECT_EQ(xi, smallest.at(y)) << to_string(l) << " at " << y;
    }
    if (l.invertible()) {
      const LinearLayout inv = invert(l);
      for (int64_t i = 0; i < l.size(); ++i) EXPECT_EQ(inv.apply(IntTuple(l.apply(IntTuple(i)))), i);
    } else {
      EXPECT_THROW(invert(l), SpecError);
    }
  }
  EXPECT_GT(surjective, 50);  // the generator reaches the interesting case
}

TEST(Linear, ProductIsTritonsDirectProduct) {
  // Hand: identity1D(4, i, o) * identity1D(8, i, o2) = (x % 4, x / 4) over [0, 32) (Triton's doc).
  const LinearLayout a({{"i", {{1}, {2}}}}, {{"o1", 4}});
  const LinearLayout b({{"i", {{1}, {2}, {4}}}}, {{"o2", 8}});
  const LinearLayout p = product(a, b);
  for (int64_t x = 0; x < 32; ++x) EXPECT_EQ(apply_named(p, {{"i", x}}), (Named{{"o1", x % 4}, {"o2", x / 4}}));
  // Hand: zeros1D(2, i, o) * identity1D(4, i, o): x / 2 over [0, 8).
  const LinearLayout z({{"i", {{0}}}}, {{"o", 1}});
  const LinearLayout id({{"i", {{1}, {2}}}}, {{"o", 4}});
  const LinearLayout q = product(z, id);
  for (int64_t x = 0; x < 8; ++x) EXPECT_EQ(q.apply(IntTuple(x)), x / 2);
  // Shared out-dim: inner's value plus outer's scaled by inner's size, on disjoint inputs.
  Gen g(5);
  for (int trial = 0; trial < 100; ++trial) {
    const LinearLayout u = g.layout({"r", "s"}, g.outs({"d"}, 4), 4);
    const LinearLayout v = g.layout({"s", "t"}, g.outs({"d", "e"}, 4), 4);
    const LinearLayout w = product(u, v);
    for (int64_t i = 0; i < w.size(); ++i) {
      const Named in = unflatten_in(w, i);
      // in-dim s: u's bits low, v's bits high
      Named iu{{"r", in.at("r")}, {"s", in.at("s") % (int64_t{1} << u.ins()[1].bases.size())}};
      Named iv{{"s", in.at("s") >> u.ins()[1].bases.size()}, {"t", in.at("t")}};
      const Named ou = apply_named(u, iu), ov = apply_named(v, iv);
      const Named ow = apply_named(w, in);
      EXPECT_EQ(ow.at("d"), ou.at("d") + u.outs()[0].size * ov.at("d"));  // disjoint bit fields: + is XOR
      EXPECT_EQ(ow.at("e"), ov.at("e"));
    }
  }
}

TEST(Linear, ReshapeAndTransposeKeepTheNamedOrFlatFunction) {
  Gen g(6);
  for (int trial = 0; trial < 100; ++trial) {
    const LinearLayout l = g.layout({"a", "b", "c"}, g.outs({"x", "y"}, 6), 6);
    const LinearLayout t = transpose_ins(l, {"c", "a", "b"});
    for (int64_t i = 0; i < l.size(); ++i) EXPECT_EQ(apply_named(t, unflatten_in(l, i)), apply_named(l, unflatten_in(l, i)));
    const LinearLayout f = reshape_ins(l, {{"flat", l.size()}});
    for (int64_t i = 0; i < l.size(); ++i) EXPECT_EQ(f.apply(IntTuple(i)), l.apply(IntTuple(i)));
    const LinearLayout to = transpose_outs(l, {"y", "x"});
    for (int64_t i = 0; i < l.size(); ++i) EXPECT_EQ(apply_named(to, unflatten_in(l, i)), apply_named(l, unflatten_in(l, i)));
    const LinearLayout ro = reshape_outs(l, {{"v", l.out_size()}});
    for (int64_t i = 0; i < l.size(); ++i) EXPECT_EQ(ro.apply(IntTuple(i)), l.apply(IntTuple(i)));
  }
}

TEST(Linear, EverySmallSwizzleIsLinearAndComesBack) {
  // Every legal Sw<B,M,S> reading bits below 10 over 1024:1, and over a K-major 8x64 tile.
  int checked = 0;
  for (int b = 1; b <= 4; ++b)
    for (int m = 0; m <= 6; ++m)
      for (int s = -9; s <= 9; ++s) {
        if ((s < 0 ? -s : s) < b || m + (s < 0 ? -s : s) + b > 10) continue;
        const auto sw = std::make_shared<Swizzle>(b, m, s);
        for (const char* outer : {"1024:1", "(8,128):(128,1)"}) {
          const ComposedLayout c(sw, 0, std::make_shared<Layout>(parse_layout(outer)));
          const LinearLayout l = to_linear(c, {}, {});
          for (int64_t i = 0; i < 1024; ++i) ASSERT_EQ(l.apply(IntTuple(i)), c.apply(IntTuple(i))) << to_string(c);
          const LayoutPtr back = to_cute(l);
          const Equivalence e = equivalent(*back, c);
          ASSERT_TRUE(e.equal) << to_string(c) << " came back as " << to_string(*back);
          ++checked;
        }
      }
  EXPECT_GT(checked, 100);
}

TEST(Linear, ToCuteAnswersExactlyOrRefuses) {
  Gen g(7);
  int answered = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const LinearLayout l = g.layout({"a", "b"}, g.outs({"o"}, 6), 6, true);
    try {
      const LayoutPtr c = to_cute(l);
      for (int64_t i = 0; i < l.size(); ++i) ASSERT_EQ(c->apply(IntTuple(i)), flatten_out(l, apply_named(l, unflatten_in(l, i)))) << to_string(l);
      ++answered;
    } catch (const SpecError& e) {
      EXPECT_EQ(e.rule(), "linear-not-cute");
      ++refused;
    }
  }
  EXPECT_GT(answered, 20);
  EXPECT_GT(refused, 20);
}

TEST(Linear, ToLinearRefusesCarriesAndNamesTheIndex) {
  try {
    to_linear(parse_layout("(2,2):(1,1)"), {}, {});
    FAIL() << "(2,2):(1,1) adds 1 + 1 = 2 at index 3, not 1 xor 1 = 0";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "linear-not-f2");
    EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
  }
  // (4,2):(2,1): index 1 -> 2, 2 -> 4, 3 -> 6 = 2 xor 4, 4 -> 1, 5 -> 3 = 2 xor 1 ... disjoint bits: linear.
  const LinearLayout l = to_linear(parse_layout("(4,2):(2,1)"), {}, {});
  EXPECT_EQ(l.flat_bases(), (std::vector<int64_t>{2, 4, 1}));
}

TEST(Linear, TextAndJsonRoundTripAndTritonsPrintoutReads) {
  Gen g(8);
  for (int trial = 0; trial < 100; ++trial) {
    const LinearLayout l = g.layout({"register", "lane", "warp"}, g.outs({"dim0", "dim1"}, 8), 9);
    EXPECT_EQ(parse_linear_layout(to_string(l)), l);
    EXPECT_EQ(linear_from_json(linear_to_json(l)), l);
    EXPECT_EQ(static_cast<const LinearLayout&>(*parse_any_layout(to_string(l))), l);
  }
  // Triton 3.9's printout of from_bases([("offset", [[0,1],[0,2],[1,0]])], ["dim0","dim1"]), verbatim.
  const std::string printed = "\n - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (1, 0)\nwhere out dims are: [dim0 (size 2), dim1 (size 4)]";
  EXPECT_EQ(parse_linear_layout(printed), LinearLayout({{"offset", {{0, 1}, {0, 2}, {1, 0}}}}, {{"dim0", 2}, {"dim1", 4}}));
  EXPECT_RULE(parse_linear_layout(" - x=2 -> (1)\nwhere out dims are: [y (size 2)]"), "parse-error");  // the first basis prints as x=1
}

TEST(Linear, EquivalenceNamesTheFirstDifferingIndex) {
  Gen g(9);
  for (int trial = 0; trial < 200; ++trial) {
    const LinearLayout a = g.layout({"x"}, g.outs({"o"}, 6), 6);
    std::vector<LinearInDim> ins = a.ins();
    if (ins[0].bases.empty()) continue;
    const size_t k = static_cast<size_t>(g.below(static_cast<int64_t>(ins[0].bases.size())));
    ins[0].bases[k][0] ^= int64_t{1} << g.below(6);
    if (ins[0].bases[k][0] >= a.outs()[0].size) continue;
    const LinearLayout b(ins, a.outs());
    const Equivalence e = equivalent(a, b);
    int64_t first = -1;  // brute force
    for (int64_t i = 0; i < a.size() && first < 0; ++i)
      if (a.apply(IntTuple(i)) != b.apply(IntTuple(i))) first = i;
    EXPECT_FALSE(e.equal);
    ASSERT_TRUE(e.index);
    EXPECT_EQ(*e.index, first);
    // the same through enumeration, against the CuTe form where there is one
    try {
      const LayoutPtr c = to_cute(b);
      const Equivalence f = equivalent(a, *c);
      ASSERT_TRUE(f.index);
      EXPECT_EQ(*f.index, first);
    } catch (const SpecError&) {
    }
  }
}

}  // namespace
}  // namespace tfspec

namespace tfspec {
namespace {

// The structural decision (strides with disjoint bits, a swizzle over them) against enumeration:
// F2-linear exactly when every index's value is the XOR of its bits' values.
TEST(Linear, StructuralBasesAgreeWithEnumeration) {
  std::mt19937_64 rng(10);
  int linear = 0, not_linear = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<IntTuple> shape, stride;
    const int modes = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < modes; ++m) {
      shape.emplace_back(int64_t{1} << (rng() % 4));
      const int64_t pick = static_cast<int64_t>(rng() % 6);
      stride.emplace_back(pick == 0 ? 0 : pick == 1 ? 3 : int64_t{1} << (rng() % 7));
    }
    const auto outer = std::make_shared<Layout>(IntTuple::tuple(shape), IntTuple::tuple(stride));
    LayoutPtr l = outer;
    if (rng() % 2) l = std::make_shared<ComposedLayout>(std::make_shared<Swizzle>(2, 1, 3), rng() % 5 == 0 ? 4 : 0, outer);
    const int64_t n = product_int(l->shape());
    bool is_linear = l->apply(IntTuple(0)) == 0;
    for (int64_t i = 1; i < n && is_linear; ++i) {
      int64_t x = 0;
      for (int64_t b = 1; b < n; b <<= 1)
        if (i & b) x ^= l->apply(IntTuple(b));
      is_linear = l->apply(IntTuple(i)) == x && l->apply(IntTuple(i)) >= 0;
    }
    const auto s = structural_bases(*l);
    ASSERT_TRUE(s) << to_string(*l);
    ASSERT_EQ(s->linear, is_linear) << to_string(*l);
    (is_linear ? linear : not_linear)++;
    if (is_linear) {
      for (size_t k = 0; k < s->bases.size(); ++k) ASSERT_EQ(s->bases[k], l->apply(IntTuple(int64_t{1} << k))) << to_string(*l);
    }
    // and equivalence by bases names the same first index as enumeration against a perturbed copy
    const Layout other(IntTuple::tuple(shape), IntTuple::tuple(std::vector<IntTuple>(stride.size(), IntTuple(1))));
    const Equivalence e = equivalent(*l, other);
    int64_t first = -1;
    for (int64_t i = 0; i < n && first < 0; ++i)
      if (l->apply(IntTuple(i)) != other(i)) first = i;
    ASSERT_EQ(e.equal, first < 0) << to_string(*l);
    if (first >= 0) {
      ASSERT_EQ(*e.index, first) << to_string(*l);
    }
  }
  EXPECT_GT(linear, 200);
  EXPECT_GT(not_linear, 200);
}

}  // namespace
}  // namespace tfspec
