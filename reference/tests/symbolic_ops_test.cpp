// The remaining ops of the layout algebra on symbolic shapes (spec/ALGEBRA.md S6-S8): filter,
// tiled/flat divide, the products, idx2crd, slice, the inverses, max_common_vector. Each has a
// case derived by hand from the §3 definitions (in its comment) and an exactness check over a box
// of instances against the concrete reference; the property at the end covers every op.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "test_support.hpp"
#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"

namespace tfspec {
namespace {

Layout bind(const Layout& l, const Bindings& b) { return Layout(bind_symbols(l.shape_ref(), b), bind_symbols(l.stride(), b)); }

Tiler bind(const Tiler& t, const Bindings& b) {
  if (t.is_layout()) return Tiler(bind(*t.layout, b));
  std::vector<Tiler> m;
  for (const auto& x : t.modes) m.push_back(bind(x, b));
  return Tiler(std::move(m));
}

std::vector<Bindings> box(const std::vector<int>& values, const std::vector<std::string>& names) {
  std::vector<Bindings> v{{}};
  for (const auto& n : names) {
    std::vector<Bindings> w;
    for (const auto& b : v)
      for (int i : values) {
        Bindings c = b;
        c[n] = i;
        w.push_back(c);
      }
    v = w;
  }
  return v;
}
std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i <= hi; ++i) v.push_back(i);
  return v;
}

// A symbolic op's answer at an instance, or nullopt where every case's guard or a condition fails.
template <class R>
std::optional<R> answer_at(const SymSummary<R>& s, const Bindings& x) {
  std::optional<R> hit;
  int hits = 0;
  for (const auto& a : s.answers) {
    bool all = std::all_of(a.when.begin(), a.when.end(), [&](const SymPred& p) { return holds(p, x); });
    for (const auto& c : a.conditions) all = all && holds(c.pred, x);
    if (all) {
      hit = a.result;
      ++hits;
    }
  }
  EXPECT_LE(hits, 1) << "two cases hold at one instance";
  return hit;
}

// The concrete value an instance of a symbolic result stands for.
Layout at(const Layout& l, const Bindings& x) { return bind(l, x); }
int64_t at(const ShapeDim& d, const Bindings& x) { return evaluate(d, x); }
IntTuple at(const IntTuple& t, const Bindings& x) { return bind_symbols(t, x); }
std::pair<Layout, int64_t> at(const SymSlice& s, const Bindings& x) { return {bind(s.layout, x), evaluate(s.offset, x)}; }

// Instances where the summary and the concrete op disagree (answer vs refusal, or the value);
// `sufficient`: only where the summary answers (the concrete op may answer more).
template <class R, class F>
int violations(const SymSummary<R>& s, const std::vector<Bindings>& xs, const F& concrete, bool sufficient = false) {
  using C = std::decay_t<decltype(concrete(xs.front()))>;
  int bad = 0;
  for (const auto& x : xs) {
    std::optional<C> want;
    try {
      want = concrete(x);
    } catch (const SpecError&) {
    }
    const std::optional<R> got = answer_at(s, x);
    if (got && want) bad += !(at(*got, x) == *want);
    else if (!sufficient || got) bad += got.has_value() != want.has_value();
  }
  return bad;
}

template <class R>
SymSummary<R> sym_run(const std::function<R(SymExec&)>& f, int64_t lower = 1) {
  FoldingDecider d({{"M", lower}, {"N", lower}, {"P", lower}, {"Q", lower}});
  return summarize(explore<R>(d, f));
}

std::set<std::string> results(const SymSummary<Layout>& s) {
  std::set<std::string> r;
  for (const auto& a : s.answers) r.insert(to_string(a.result));
  return r;
}

// The walk of A1 at an instance: the by-mode answer where it admits, else a refusal (throws).
Layout walked_composition(const Layout& a, const Tiler& b) {
  if (!b.is_layout()) {
    std::vector<Layout> m;
    if (b.modes.size() > static_cast<size_t>(a.rank())) return composition(a, b);  // by-mode-rank
    for (size_t i = 0; i < static_cast<size_t>(a.rank()); ++i) m.push_back(i < b.modes.size() ? walked_composition(a.mode(i), b.modes[i]) : a.mode(i));
    return make_layout(m);
  }
  if (auto r = composition_refusal(a, *b.layout)) throw SpecError(*r);
  return composition(a, *b.layout);
}

// Where the walk admits every composition of a divide (by the complements of divide_tiler).
void walk_divide(const Layout& a, const Tiler& b) {
  if (!b.is_layout()) {
    for (size_t i = 0; i < b.modes.size() && i < static_cast<size_t>(a.rank()); ++i) walk_divide(a.mode(i), b.modes[i]);
    return;
  }
  walked_composition(a, make_layout({*b.layout, complement(*b.layout, a.size())}));
}

// Where the walk admits every composition of a product (complement(A, size(A) cosize(B)) ∘ B).
void walk_product(const Layout& a, const Tiler& b) {
  if (!b.is_layout()) {
    for (size_t i = 0; i < b.modes.size() && i < static_cast<size_t>(a.rank()); ++i) walk_product(a.mode(i), b.modes[i]);
    return;
  }
  walked_composition(complement(a, a.size() * b.layout->cosize()), *b.layout);
}

// S1: a monomial divisor that divides every term folds: 4*M*N = 4 * (M*N), M*N + M = (N + 1) * M.
TEST(SymbolicOps, ExactQuotientByAMonomialFolds) {
  auto n = [](const char* t) { return to_string(normalize(parse_inttuple(t).as_dim())); };
  EXPECT_EQ(n("(4*M*N)%(M*N)"), "0");
  EXPECT_EQ(n("(4*M*N)//(M*N)"), "4");
  EXPECT_EQ(n("(4*(M//128))//(M//128)"), "4");  // an atom other than a symbol in the divisor
  EXPECT_EQ(n("(M*N+M)//M"), "N+1");
  // The multiple M*N comes out and the rest stays a quotient: floor((M*N + 1) / M) = N + floor(1 / M)
  // for every M != 0 (floor division), so 1//M+N (1 at M = 1, 0 for M >= 2).
  EXPECT_EQ(n("(M*N+1)//M"), "1//M+N");
  // Issue 37: the factor common to every term of the dividend and the divisor cancels (a symbol
  // is an extent >= 1): floor(4*M / (8*M)) = floor(1/2) = 0; (4*M) % (8*M) = 4*M - 0 = 4*M;
  // M*N // (64*M) = N // 64, not an atom that hides it.
  EXPECT_EQ(n("(4*M)//(8*M)"), "0");
  EXPECT_EQ(n("(4*M)%(8*M)"), "4*M");
  EXPECT_EQ(n("M*N//(64*M)"), "N//64");
  EXPECT_EQ(n("(6*M*N+3*M)//(9*M)"), "(2*N+1)//3");
}

// S1: b*(x // b) + x % b == x for every integer x and b != 0 (floor division), so a quotient and
// its remainder beside each other fold: the colexicographic split of an index put back together.
TEST(SymbolicOps, QuotientAndRemainderFoldBackToTheDividend) {
  auto n = [](const char* t) { return to_string(normalize(parse_inttuple(t).as_dim())); };
  EXPECT_EQ(n("3//M*M+3%M"), "3");             // eval of (M,4):(1,M) at index 3
  EXPECT_EQ(n("K%4+4*(K//4)"), "K");
  EXPECT_EQ(n("2*N*(K//M)*M+2*N*(K%M)+1"), "2*K*N+1");  // a factor on both terms
  const std::string unmatched = n("K//M*M+2*(K%M)");  // coefficients that do not match: both atoms stay
  EXPECT_NE(unmatched.find("K//M"), std::string::npos) << unmatched;
  EXPECT_NE(unmatched.find("K%M"), std::string::npos) << unmatched;
  // Against evaluation on a box with negative values (floor division on both sides).
  const ShapeDim folded = normalize(parse_inttuple("3*(K//M)*M+3*(K%M)+M").as_dim());
  for (int64_t k = -7; k <= 7; ++k)
    for (int64_t m : {-3, -1, 1, 2, 5}) {
      const Bindings b{{"K", k}, {"M", m}};
      EXPECT_EQ(evaluate(folded, b), 3 * k + m) << k << " " << m;
    }
}

// ---------------------------------------------------------------- S6 filter, divides, products
// filter((M,4,N):(1,0,M)), M, N >= 2: the mode 4:0 has stride 0 and is dropped (§3 filter), which
// leaves (M,N):(1,M); its modes join (M * 1 == M, the next stride) into M*N:1.
TEST(SymbolicOps, FilterDropsStrideZeroThenCoalesces) {
  const Layout l = parse_layout("(M,4,N):(1,0,M)");
  const auto s = sym_run<Layout>([&](SymExec& ex) { return sym_filter(ex, l); }, 2);
  EXPECT_EQ(results(s), (std::set<std::string>{"M*N:1"}));
  const auto xs = box(range(1, 12), {"M", "N"});
  EXPECT_EQ(violations(sym_run<Layout>([&](SymExec& ex) { return sym_filter(ex, l); }), xs,
                                       [&](const Bindings& x) { return filter(bind(l, x)); }),
            0);
}

// tiled_divide/flat_divide((M,N):(1,M), (128:1,64:1)): the logical divide is
// ((128,M//128),(64,N//64)):((1,128),(M,64*M)) (SymbolicAlgebra.LogicalDivideOfTheGemmOperand);
// zipped gathers the tiles (128,64):(1,M) and the rests (M//128,N//64):(128,64*M); tiled keeps the
// tile as mode 0 and spreads the rests, flat spreads both.
TEST(SymbolicOps, TiledAndFlatDivideOfTheGemmOperand) {
  const Layout a = parse_layout("(M,N):(1,M)");
  const Tiler t = parse_tiler("(128:1,64:1)");
  const auto tiled = sym_run<Layout>([&](SymExec& ex) { return sym_tiled_divide(ex, a, t, DomainPolicy::Strict); }, 2);
  const auto flat = sym_run<Layout>([&](SymExec& ex) { return sym_flat_divide(ex, a, t, DomainPolicy::Strict); }, 2);
  EXPECT_TRUE(results(tiled).count("((128,64),M//128,N//64):((1,M),128,64*M)"));
  EXPECT_TRUE(results(flat).count("(128,64,M//128,N//64):(1,M,128,64*M)"));
  const auto xs = box({2, 64, 100, 128, 200, 256, 384}, {"M", "N"});
  auto admitted = [&](const Bindings& x, auto op) {
    walk_divide(bind(a, x), t);
    return op(bind(a, x), t, DomainPolicy::Strict);
  };
  EXPECT_EQ(violations(tiled, xs, [&](const Bindings& x) { return admitted(x, tiled_divide); }), 0);
  EXPECT_EQ(violations(flat, xs, [&](const Bindings& x) { return admitted(x, flat_divide); }), 0);
}

// logical_product(M:1, 4:1) = (A, complement(A, size(A) cosize(B)) ∘ B) with size(A) = M and
// cosize(B) = 4: complement(M:1, 4*M) puts 4*M / M = 4 copies of A side by side, 4:M, and 4:M ∘ 4:1
// is 4:M: (M,4):(1,M). raked_product(M:1, 4:1) puts B's mode first in mode 0: ((4,M)):((M,1)),
// i.e. L(i) = (i % 4) * M + i // 4; blocked_product keeps A first: L(i) = i.
TEST(SymbolicOps, ProductsOfAVector) {
  const Layout a = parse_layout("M:1"), b = parse_layout("4:1");
  const auto lp = sym_run<Layout>([&](SymExec& ex) { return sym_logical_product(ex, a, Tiler(b), DomainPolicy::Strict); }, 2);
  EXPECT_EQ(results(lp), (std::set<std::string>{"(M,4):(1,M)"}));
  const auto raked = sym_run<Layout>([&](SymExec& ex) { return sym_raked_product(ex, a, b, DomainPolicy::Strict); }, 2);
  const auto blocked = sym_run<Layout>([&](SymExec& ex) { return sym_blocked_product(ex, a, b, DomainPolicy::Strict); }, 2);
  ASSERT_EQ(raked.answers.size(), 1u);
  ASSERT_EQ(blocked.answers.size(), 1u);
  for (int m = 2; m <= 9; ++m) {
    const Bindings x{{"M", m}};
    const Layout r = bind(raked.answers[0].result, x), k = bind(blocked.answers[0].result, x);
    for (int64_t i = 0; i < 4 * m; ++i) {
      EXPECT_EQ(r(i), (i % 4) * m + i / 4) << "M=" << m << " i=" << i;
      EXPECT_EQ(k(i), i) << "M=" << m << " i=" << i;
    }
  }
}

// blocked_product((M,N):(1,M), (2,2):(1,2)), M, N >= 2: size(A) = M*N, cosize(B) = 4, A coalesces
// to M*N:1 so complement(A, 4*M*N) = 4:M*N, and 4:M*N ∘ (2,2):(1,2) = (2,2):(M*N,2*M*N). Mode i
// pairs A's mode i with that mode: ((M,2),(N,2)):((1,M*N),(M,2*M*N)).
TEST(SymbolicOps, BlockedProductOfAMatrix) {
  const Layout a = parse_layout("(M,N):(1,M)"), b = parse_layout("(2,2):(1,2)");
  const auto s = sym_run<Layout>([&](SymExec& ex) { return sym_blocked_product(ex, a, b, DomainPolicy::Strict); }, 2);
  EXPECT_EQ(results(s), (std::set<std::string>{"((M,2),(N,2)):((1,M*N),(M,2*M*N))"}));
}

// Every product against the concrete reference where its walk admits, on a box.
TEST(SymbolicOps, ProductsAreExactOnABox) {
  const Layout a = parse_layout("(M,N):(1,M)"), b = parse_layout("(2,N):(N,1)");
  const Tiler t = parse_tiler("(2:1,N:2)");
  const auto xs = box(range(1, 7), {"M", "N"});
  using Op = Layout (*)(SymExec&, const Layout&, const Tiler&, DomainPolicy);
  using COp = Layout (*)(const Layout&, const Tiler&, DomainPolicy);
  const std::vector<std::pair<Op, COp>> ops{{sym_logical_product, logical_product}, {sym_zipped_product, zipped_product},
                                             {sym_tiled_product, tiled_product}, {sym_flat_product, flat_product}};
  for (const Tiler& tiler : {Tiler(b), t})
    for (const auto& op : ops) {
      const Op f = op.first;  // not a structured binding: clang 14 cannot capture one
      const COp g = op.second;
      const auto s = sym_run<Layout>([&](SymExec& ex) { return f(ex, a, tiler, DomainPolicy::Strict); });
      EXPECT_EQ(violations(s, xs, [&](const Bindings& x) {
                  walk_product(bind(a, x), bind(tiler, x));
                  return g(bind(a, x), bind(tiler, x), DomainPolicy::Strict);
                }),
                0)
          << to_string(tiler);
    }
  for (bool blocked : {true, false}) {
    const auto s = sym_run<Layout>([&](SymExec& ex) { return (blocked ? sym_blocked_product : sym_raked_product)(ex, a, b, DomainPolicy::Strict); });
    EXPECT_EQ(violations(s, xs, [&](const Bindings& x) {
                walk_product(pad_rank(bind(a, x), 2), Tiler(pad_rank(bind(b, x), 2)));
                return (blocked ? blocked_product : raked_product)(bind(a, x), bind(b, x), DomainPolicy::Strict);
              }),
              0)
        << blocked;
  }
}

// ---------------------------------------------------------------- S7 idx2crd, slice
// idx2crd(i, (M,N)) is colexicographic (D1): (i % M, (i // M) % N). At M = 3, N = 4, 5 = 2 + 3*1:
// (2,1); 11 = 2 + 3*3: (2,3).
TEST(SymbolicOps, Idx2crdIsColexicographic) {
  const IntTuple c = sym_idx2crd(normalize(parse_inttuple("i").as_dim()), parse_inttuple("(M,N)"));
  EXPECT_EQ(at(c, {{"i", 5}, {"M", 3}, {"N", 4}}), parse_inttuple("(2,1)"));
  EXPECT_EQ(at(c, {{"i", 11}, {"M", 3}, {"N", 4}}), parse_inttuple("(2,3)"));
  const IntTuple shape = parse_inttuple("((M,2),N)");
  for (int i : {0, 1, 5, 17, 40})
    for (const auto& x : box(range(1, 6), {"M", "N"}))
      EXPECT_EQ(at(sym_idx2crd(sym(i), shape), x), idx2crd(i, bind_symbols(shape, x))) << i;
}

// slice((_,2), (M,N):(1,M)) keeps mode 0, M:1, at offset crd2idx((0,2)) = 2*M; defined where the
// fixed coordinate lies in its mode: 2 < N (coord-in-domain).
TEST(SymbolicOps, SliceKeepsTheWildcardModes) {
  const Layout l = parse_layout("(M,N):(1,M)");
  const IntTuple crd = parse_coord("(_,2)");
  const auto s = sym_run<SymSlice>([&](SymExec& ex) { return sym_slice(ex, crd, l); });
  ASSERT_EQ(s.answers.size(), 1u);
  EXPECT_EQ(to_string(s.answers[0].result.layout), "M:1");
  EXPECT_EQ(to_string(s.answers[0].result.offset), "2*M");
  std::vector<std::string> conds;
  for (const auto& c : s.answers[0].conditions) conds.push_back(to_string(c.pred) + " " + c.rule + (c.decided ? " decided" : ""));
  // the wildcard mode's coordinate 0 is inside M >= 1: decided
  EXPECT_EQ(conds, (std::vector<std::string>{"0 < M coord-in-domain decided", "2 < N coord-in-domain"}));
  EXPECT_EQ(violations(s, box(range(1, 8), {"M", "N"}), [&](const Bindings& x) {
              const SliceResult r = slice_and_offset(crd, bind(l, x));
              return std::pair{r.layout, r.offset};
            }),
            0);
}

// eval((M,4):(1,M), (1,2)) = 1*1 + 2*M (§3 crd2idx), defined where 1 < M (coord-in-domain);
// an index i is colexicographic: defined where i < size = 4*M.
TEST(SymbolicOps, EvalOfACoordinateAndAnIndex) {
  const Layout l = parse_layout("(M,4):(1,M)");
  const auto c = sym_run<ShapeDim>([&](SymExec& ex) { return sym_eval(ex, parse_coord("(1,2)"), l); });
  ASSERT_EQ(c.answers.size(), 1u);
  EXPECT_EQ(to_string(c.answers[0].result), "2*M+1");
  std::vector<std::string> conds;
  for (const auto& k : c.answers[0].conditions)
    if (!k.decided) conds.push_back(to_string(k.pred) + " " + k.rule);
  EXPECT_EQ(conds, (std::vector<std::string>{"1 < M coord-in-domain"}));
  const auto xs = box(range(1, 9), {"M"});
  for (const char* crd : {"(1,2)", "(0,3)", "(2,4)", "5", "9", "31", "-1"}) {
    const IntTuple x = parse_coord(crd);
    const auto s = sym_run<ShapeDim>([&](SymExec& ex) { return sym_eval(ex, x, l); });
    EXPECT_EQ(violations(s, xs, [&](const Bindings& b) { return bind(l, b).apply(x); }), 0) << crd;
  }
}

// ---------------------------------------------------------------- S8 inverses, max_common_vector
// right_inverse((M,N):(N,1)), M, N >= 2 (row major): modes (stride N, extent M, compact 1) and
// (1, N, M); sorted by stride, 1 < N: from stride 1 the run takes N:M, then N == 1*N takes M:1:
// (N,M):(M,1). Check: R(k) = (k % N) M + k // N, and L at that index is (k // N) N + k % N = k.
// left_inverse: complement(L, 1) is 1:0, which adds nothing; R covers [0, M*N) = [0, cosize(L)).
TEST(SymbolicOps, InversesOfARowMajorMatrix) {
  const Layout l = parse_layout("(M,N):(N,1)");
  const auto r = sym_run<Layout>([&](SymExec& ex) { return sym_right_inverse(ex, l); }, 2);
  const auto li = sym_run<Layout>([&](SymExec& ex) { return sym_left_inverse(ex, l); }, 2);
  EXPECT_EQ(results(r), (std::set<std::string>{"(N,M):(M,1)"}));
  EXPECT_EQ(results(li), (std::set<std::string>{"(N,M):(M,1)"}));
  // extents >= 2 (>= 1 splits some of these into more than 64 cases without a solver)
  const auto xs = box(range(2, 7), {"M", "N"});
  for (const char* text : {"(M,N):(N,1)", "(M,N):(1,M)", "(M,2,N):(2,1,2*M)", "(M,N):(1,2*M)", "(2,M):(M,1)", "(M,N):(N,2)"}) {
    const Layout x = parse_layout(text);
    const auto rs = sym_run<Layout>([&](SymExec& ex) { return sym_right_inverse(ex, x); }, 2);
    const auto ls = sym_run<Layout>([&](SymExec& ex) { return sym_left_inverse(ex, x); }, 2);
    EXPECT_EQ(violations(rs, xs, [&](const Bindings& b) { return right_inverse(bind(x, b)); }), 0) << text;
    // The symbolic left_inverse keeps CuTe's construction: its conditions are sufficient, the
    // concrete one also answers past a gap where a digit-aligned left inverse exists (A8).
    EXPECT_EQ(violations(ls, xs, [&](const Bindings& b) { return left_inverse(bind(x, b)); }, true), 0) << text;
  }
}

// max_common_vector(A, A) for A = (M,N):(1,M) is size(A) = M*N: right_inverse(A) = M*N:1 and
// A ∘ M*N:1 coalesces to M*N:1. Against (M,N):(N,1), M, N >= 2: right_inverse = (N,M):(M,1) (above)
// and A(R(1)) = A(M) = M != 1: the common vector is 1.
TEST(SymbolicOps, MaxCommonVector) {
  const Layout a = parse_layout("(M,N):(1,M)"), b = parse_layout("(M,N):(N,1)");
  auto one = [](const SymSummary<ShapeDim>& s) {
    std::set<std::string> r;
    for (const auto& x : s.answers) r.insert(to_string(x.result));
    return r;
  };
  EXPECT_EQ(one(sym_run<ShapeDim>([&](SymExec& ex) { return sym_max_common_vector(ex, a, a); }, 2)), (std::set<std::string>{"M*N"}));
  EXPECT_EQ(one(sym_run<ShapeDim>([&](SymExec& ex) { return sym_max_common_vector(ex, a, b); }, 2)), (std::set<std::string>{"1"}));
  const auto xs = box(range(1, 8), {"M", "N"});
  for (const auto& xy : std::vector<std::pair<Layout, Layout>>{{a, a}, {a, b}, {b, a}, {parse_layout("(M,4):(4,1)"), parse_layout("(4,M):(1,4)")}}) {
    const Layout &x = xy.first, &y = xy.second;  // captured below: clang 14 cannot capture a structured binding
    const auto s = sym_run<ShapeDim>([&](SymExec& ex) { return sym_max_common_vector(ex, x, y); });
    // sufficient (S8): where the conditions hold, the reference's answer
    EXPECT_EQ(violations(s, xs, [&](const Bindings& v) { return max_common_vector(bind(x, v), bind(y, v)); }, true), 0);
  }
}

}  // namespace
}  // namespace tfspec

namespace tfspec {
namespace {
// ---------------------------------------------------------------- mutants
// Instances of the box where answer a's guards and conditions all hold.
template <class R>
int reached(const SymAnswer<R>& a, const std::vector<Bindings>& xs) {
  int n = 0;
  for (const auto& x : xs) {
    bool all = std::all_of(a.when.begin(), a.when.end(), [&](const SymPred& p) { return holds(p, x); });
    for (const auto& c : a.conditions) all = all && holds(c.pred, x);
    n += all;
  }
  return n;
}

// Dropping the predicate `text` (from a case's guard or its conditions) of any case, where that
// makes the case hold at more instances of the box, is caught there; returns how many such mutants.
template <class R, class F>
int dropped_and_caught(const SymSummary<R>& s, const std::vector<Bindings>& xs, const F& concrete, const std::string& text) {
  EXPECT_EQ(violations(s, xs, concrete), 0);
  int mutants = 0;
  for (size_t j = 0; j < s.answers.size(); ++j) {
    auto m = s;
    auto& a = m.answers[j];
    const size_t before = a.when.size() + a.conditions.size();
    std::erase_if(a.when, [&](const SymPred& p) { return to_string(p) == text; });
    std::erase_if(a.conditions, [&](const SymCondition& c) { return to_string(c.pred) == text; });
    // skipped: not in this case, or implied by the rest on the box (e.g. N%2 == 0 by M*N%(2*M) == 0)
    if (a.when.size() + a.conditions.size() == before || reached(a, xs) == reached(s.answers[j], xs)) continue;
    ++mutants;
    EXPECT_GT(violations(m, xs, concrete), 0) << "dropping " << text << " from case " << j << " went unnoticed";
  }
  return mutants;
}

TEST(SymbolicOps, DroppingAConditionIsCaught) {
  const auto xs = box(range(2, 9), {"M", "N"});
  // slice: 2 < N (coord-in-domain)
  const Layout g = parse_layout("(M,N):(1,M)");
  const IntTuple crd = parse_coord("(_,2)");
  const auto sl = sym_run<SymSlice>([&](SymExec& ex) { return sym_slice(ex, crd, g); }, 2);
  EXPECT_GE(dropped_and_caught(sl, xs, [&](const Bindings& x) {
              const SliceResult r = slice_and_offset(crd, bind(g, x));
              return std::pair{r.layout, r.offset};
            }, "2 < N"), 1);
  // logical_product(M:2, N:1): complement(M:2, 2*M*N) o N:1 splits N over the complement's modes
  // (2, ...): N%2 == 0 (composition-shape-divisibility)
  const Layout a = parse_layout("M:2"), b = parse_layout("N:1");
  const auto lp = sym_run<Layout>([&](SymExec& ex) { return sym_logical_product(ex, a, Tiler(b), DomainPolicy::Strict); }, 2);
  EXPECT_GE(dropped_and_caught(lp, xs, [&](const Bindings& x) {
              walk_product(bind(a, x), Tiler(bind(b, x)));
              return logical_product(bind(a, x), Tiler(bind(b, x)));
            }, "N%2 == 0"), 1);
  // left_inverse((M,N):(1,2*M)): the modes leave a gap between M and 2*M, so (L, complement(L))
  // must cover it; and tiled_divide's N%64 == 0 (as SymbolicAlgebra.DroppingADivisibilityConditionIsCaught)
  const Layout t = parse_layout("(M,N):(1,2*M)");
  const auto li = sym_run<Layout>([&](SymExec& ex) { return sym_left_inverse(ex, t); }, 2);
  EXPECT_EQ(violations(li, xs, [&](const Bindings& x) { return left_inverse(bind(t, x)); }, true), 0);
  const Tiler gemm = parse_tiler("(128:1,64:1)");
  const auto td = sym_run<Layout>([&](SymExec& ex) { return sym_tiled_divide(ex, g, gemm, DomainPolicy::Strict); }, 2);
  const auto big = box({2, 64, 100, 128, 200, 256}, {"M", "N"});
  EXPECT_GE(dropped_and_caught(td, big, [&](const Bindings& x) {
              walk_divide(bind(g, x), gemm);
              return tiled_divide(bind(g, x), gemm);
            }, "N%64 == 0"), 1);
}

// ---------------------------------------------------------------- the exactness property, every op
// Generated symbolic layouts (rank 1-4 over 1-4 symbols; extents constants, symbols, 2*M or M*N;
// strides compact or drawn from constants and symbols), small concrete tilers, coordinates and
// indices; at every instance of a box the summary answers iff the concrete op does (the walk, for
// the divides and products; sufficient only for max_common_vector, S8) and with the same value.
const std::vector<std::string> kSymbols{"M", "N", "P", "Q"};

// Uniform in [lo, hi) whatever the size RapidCheck runs at (inRange alone favours lo at small sizes).
int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }

std::string gen_extent(int k) {
  const std::string m = kSymbols[*rc::gen::inRange(0, k)], n = kSymbols[*rc::gen::inRange(0, k)];
  return *rc::gen::element<std::string>("1", "2", "3", "4", m, m, "2*" + m, m + "*" + n);
}

Layout gen_layout(int k) {
  const int r = uniform(1, 5);
  const bool compact = *rc::gen::arbitrary<bool>();
  std::string ts, td, acc = "1";
  for (int i = 0; i < r; ++i) {
    const std::string s = gen_extent(k), m = kSymbols[*rc::gen::inRange(0, k)];
    const std::string d = compact ? acc : *rc::gen::element<std::string>("0", "1", "2", "3", "8", m, "4*" + m);
    acc = "(" + acc + ")*(" + s + ")";
    ts += (i ? "," : "") + s;
    td += (i ? "," : "") + d;
  }
  return parse_layout("(" + ts + "):(" + td + ")");
}

Tiler gen_tiler(const Layout& a) {
  if (*rc::gen::arbitrary<bool>()) return parse_tiler(*rc::gen::element<std::string>("2:1", "4:1", "(2,2):(1,2)", "3:2", "(2,3):(3,1)"));
  std::string t = "(";
  for (int i = 0; i < a.rank() && i < 2; ++i) t += std::string(i ? "," : "") + *rc::gen::element<std::string>("1:1", "2:1", "4:1", "2:2", "3:1");
  return parse_tiler(t + ")");
}

std::vector<int> box_values(int k) {
  if (k == 1) return range(1, 9);
  if (k == 2) return range(1, 5);
  if (k == 3) return {1, 2, 3};
  return {1, 2};
}

enum OpId {
  kFilter, kTiledDiv, kFlatDiv, kLogProd, kZipProd, kTiledProd, kFlatProd, kBlocked, kRaked, kRightInv, kLeftInv, kSlice, kMcv, kIdx2crd, kEval,
  kCoalesceByMode, kFilterByMode, kComplementCotarget, kShapeDiv, kCrd2crd, kOpCount
};

// The concrete reference at an instance (throws to refuse).
Layout concrete_layout_op(int op, const Layout& a, const Layout& b, const Tiler& t) {
  const auto P = DomainPolicy::Strict;
  if (op == kFilter) return filter(a);
  if (op == kRightInv) return right_inverse(a);
  if (op == kLeftInv) return left_inverse(a);
  if (op == kTiledDiv || op == kFlatDiv) {
    walk_divide(a, t);
    return op == kTiledDiv ? tiled_divide(a, t, P) : flat_divide(a, t, P);
  }
  if (op == kBlocked || op == kRaked) {
    const size_t r = static_cast<size_t>(std::max(a.rank(), b.rank()));
    walk_product(pad_rank(a, r), Tiler(pad_rank(b, r)));
    return op == kBlocked ? blocked_product(a, b, P) : raked_product(a, b, P);
  }
  walk_product(a, t);
  using F = Layout (*)(const Layout&, const Tiler&, DomainPolicy);
  const F f[] = {logical_product, zipped_product, tiled_product, flat_product};
  return f[op - kLogProd](a, t, P);
}

Layout symbolic_layout_op(SymExec& ex, int op, const Layout& a, const Layout& b, const Tiler& t) {
  const auto P = DomainPolicy::Strict;
  switch (op) {
    case kFilter: return sym_filter(ex, a);
    case kRightInv: return sym_right_inverse(ex, a);
    case kLeftInv: return sym_left_inverse(ex, a);
    case kTiledDiv: return sym_tiled_divide(ex, a, t, P);
    case kFlatDiv: return sym_flat_divide(ex, a, t, P);
    case kBlocked: return sym_blocked_product(ex, a, b, P);
    case kRaked: return sym_raked_product(ex, a, b, P);
    case kLogProd: return sym_logical_product(ex, a, t, P);
    case kZipProd: return sym_zipped_product(ex, a, t, P);
    case kTiledProd: return sym_tiled_product(ex, a, t, P);
    default: return sym_flat_product(ex, a, t, P);
  }
}

// A coordinate per top-level mode: `_` (wild) or 0-3.
IntTuple gen_slice_coord(const Layout& a, bool wild) {
  std::string c = "(";
  for (int i = 0; i < a.rank(); ++i)
    c += std::string(i ? "," : "") + (wild ? *rc::gen::element<std::string>("_", "0", "1", "2", "3") : *rc::gen::element<std::string>("0", "1", "2", "3"));
  return parse_coord(a.rank() == 1 ? c.substr(1) : c + ")");
}

// Paths explored at most per generated case (fewer than the ops' 64: the cases past it cost the
// most and are tagged resource-limit; the budget of ctest under ASan is a few seconds).
constexpr int kPaths = 24;

// Violations of `op` on generated arguments over the box, or nullopt past the case limit.
std::optional<int> check_op(int op, int k) {
  const Layout a = gen_layout(k), b = gen_layout(k);
  const Tiler t = gen_tiler(a);
  const auto xs = box(box_values(k), std::vector<std::string>(kSymbols.begin(), kSymbols.begin() + k));
  FoldingDecider d({{"M", 1}, {"N", 1}, {"P", 1}, {"Q", 1}});
  try {
    if (op == kIdx2crd) {
      const int i = *rc::gen::inRange(0, 64);
      const IntTuple c = sym_idx2crd(sym(i), a.shape_ref());
      return violations(SymSummary<IntTuple>{{{{}, c, {}}}, {}}, xs, [&](const Bindings& x) { return idx2crd(i, bind_symbols(a.shape_ref(), x)); });
    }
    if (op == kEval) {
      const IntTuple c = *rc::gen::arbitrary<bool>() ? IntTuple(uniform(-1, 40)) : gen_slice_coord(a, false);
      const auto s = summarize(explore<ShapeDim>(d, [&](SymExec& ex) { return sym_eval(ex, c, a); }));
      return violations(s, xs, [&](const Bindings& x) { return bind(a, x).apply(c); });
    }
    if (op == kSlice) {
      const IntTuple c = gen_slice_coord(a, true);
      const auto s = summarize(explore<SymSlice>(d, [&](SymExec& ex) { return sym_slice(ex, c, a); }));
      return violations(s, xs, [&](const Bindings& x) {
        const SliceResult r = slice_and_offset(c, bind(a, x));
        return std::pair{r.layout, r.offset};
      });
    }
    if (op == kCoalesceByMode || op == kFilterByMode) {  // a profile of 1 to rank+1 modes (rank+1: by-mode-rank)
      const IntTuple profile = IntTuple::tuple(std::vector<IntTuple>(static_cast<size_t>(uniform(1, a.rank() + 2)), IntTuple(1)));
      const bool co = op == kCoalesceByMode;
      const auto s = summarize(explore<Layout>(d, [&](SymExec& ex) { return co ? sym_coalesce(ex, a, profile) : sym_filter(ex, a, profile); }, kPaths));
      return violations(s, xs, [&](const Bindings& x) { return co ? coalesce(bind(a, x), profile) : filter(bind(a, x), profile); });
    }
    if (op == kComplementCotarget) {  // a symbolic cotarget; M-2 is below 1 at M = 1 (complement-cotarget)
      const IntTuple cot = parse_inttuple(*rc::gen::element<std::string>(gen_extent(k), gen_extent(k), "M-2"));
      const auto s = summarize(explore<Layout>(d, [&](SymExec& ex) { return sym_complement(ex, a, normalize(cot.as_dim())); }, kPaths));
      return violations(s, xs, [&](const Bindings& x) { return complement(bind(a, x), bind_symbols(cot, x).value()); });
    }
    if (op == kShapeDiv) {  // the shape of a generated layout divided by a constant or an extent
      const IntTuple b = parse_inttuple(*rc::gen::element<std::string>("2", "3", "4", gen_extent(k), "(2," + gen_extent(k) + ")"));
      const auto s = summarize(explore<IntTuple>(d, [&](SymExec& ex) { return sym_shape_div(ex, a.shape_ref(), b); }, kPaths));
      return violations(s, xs, [&](const Bindings& x) { return shape_div(bind_symbols(a.shape_ref(), x), bind_symbols(b, x)); });
    }
    if (op == kCrd2crd) {  // a coordinate to an index (a leaf target), or an index to a coordinate
      const bool to_index = *rc::gen::arbitrary<bool>();
      const IntTuple c = to_index ? gen_slice_coord(a, false) : IntTuple(uniform(0, 40));
      const IntTuple dst = to_index ? IntTuple(1) : a.shape_ref(), src = to_index ? a.shape_ref() : IntTuple(1);
      const SymSummary<IntTuple> s{{{{}, sym_crd2crd(c, dst, src), {}}}, {}};
      return violations(s, xs, [&](const Bindings& x) { return crd2crd(c, bind_symbols(dst, x), bind_symbols(src, x)); });
    }
    if (op == kMcv) {
      const auto s = summarize(explore<ShapeDim>(d, [&](SymExec& ex) { return sym_max_common_vector(ex, a, b); }, kPaths));
      return violations(s, xs, [&](const Bindings& x) { return max_common_vector(bind(a, x), bind(b, x)); }, true);
    }
    const auto s = summarize(explore<Layout>(d, [&](SymExec& ex) { return symbolic_layout_op(ex, op, a, b, t); }, kPaths));
    return violations(s, xs, [&](const Bindings& x) { return concrete_layout_op(op, bind(a, x), bind(b, x), t); });
  } catch (const SpecError& e) {
    RC_TAG(e.rule());  // resource-limit: more than 64 paths without assumptions
    return std::nullopt;
  }
}

RC_GTEST_PROP(SymbolicOpsProps, EveryOpIsExactAtEveryInstanceOfABox, ()) {
  const int op = uniform(0, kOpCount);
  const int k = uniform(1, 5);
  RC_TAG(op);
  const auto bad = check_op(op, k);
  RC_ASSERT(!bad || *bad == 0);
}

}  // namespace
}  // namespace tfspec
