// `tfspec prove` (issue 4): time to a verdict against rank (1..8) and number of symbols, per
// strategy. Target: a rank-8 compact symbolic layout proved injective in under 100 ms.
#include <benchmark/benchmark.h>

#include <functional>
#include <string>
#include <vector>

#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace {

using namespace tfspec;
using namespace tfspec::solver;

const char* kNames[] = {"A", "B", "C", "D", "E", "F", "G", "H"};

// Compact column-major layout of the given rank; the first `symbols` extents are symbolic, the
// rest 4. `stride_of_last` replaces the last stride (to build a refutable layout).
std::string compact(int rank, int symbols, const std::string& stride_of_last = "") {
  std::string s = "(", d = "(", prod = "1";
  for (int i = 0; i < rank; ++i) {
    std::string e = i < symbols ? kNames[i] : "4";
    s += (i ? "," : "") + e;
    d += std::string(i ? "," : "") + (i == rank - 1 && !stride_of_last.empty() ? stride_of_last : prod);
    prod = prod == "1" ? e : prod + "*" + e;
  }
  return s + "):" + d + ")";
}

ProveOptions only(const char* strategy, std::vector<std::string> assume = {}) {
  ProveOptions o;
  o.assume = std::move(assume);
  o.timeout_ms = 5000;
  o.structural = std::string(strategy) == "structural";
  o.z3_unbounded = std::string(strategy) == "z3-unbounded";
  o.z3_bitvector = std::string(strategy) == "z3-bitvector";
  o.z3_bounded = std::string(strategy) == "z3-bounded";
  o.exhaustive = std::string(strategy) == "exhaustive";
  o.search = std::string(strategy) == "search";
  return o;
}

std::vector<std::string> bounds(int symbols, int hi) {
  std::vector<std::string> out;
  for (int i = 0; i < symbols; ++i) out.push_back(std::string(kNames[i]) + " <= " + std::to_string(hi));
  return out;
}

void run(benchmark::State& state, const Layout& l, const ProveOptions& o, Verdict expected) {
  int decided = 1;
  for (auto _ : state) {
    ProveResult r = prove_injective(l, o);
    decided = decided && r.verdict == expected;
    benchmark::DoNotOptimize(r);
  }
  state.counters["decided"] = decided;
}

void BM_InjectiveStructural(benchmark::State& state) {
  const int rank = static_cast<int>(state.range(0));
  run(state, parse_layout(compact(rank, rank)), only("structural"), Verdict::Proved);
}
BENCHMARK(BM_InjectiveStructural)->DenseRange(1, 8)->Unit(benchmark::kMillisecond);

void BM_InjectiveZ3Unbounded(benchmark::State& state) {
  const int rank = static_cast<int>(state.range(0));
  run(state, parse_layout(compact(rank, rank)), only("z3-unbounded"), Verdict::Proved);
}
BENCHMARK(BM_InjectiveZ3Unbounded)->DenseRange(1, 8)->Unit(benchmark::kMillisecond);

void BM_InjectiveZ3Bounded(benchmark::State& state) {
  const int rank = static_cast<int>(state.range(0));
  run(state, parse_layout(compact(rank, rank)), only("z3-bounded", bounds(rank, 1024)), Verdict::Proved);
}
BENCHMARK(BM_InjectiveZ3Bounded)->DenseRange(1, 8)->Unit(benchmark::kMillisecond);

void BM_InjectiveExhaustive(benchmark::State& state) {  // 4^symbols instances, each decided by the reference
  const int symbols = static_cast<int>(state.range(0));
  run(state, parse_layout(compact(4, symbols)), only("exhaustive", bounds(symbols, 4)), Verdict::Proved);
}
BENCHMARK(BM_InjectiveExhaustive)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

// Rank 8, the number of symbolic extents varied (the rest are 4), Z3 over unbounded integers.
void BM_InjectiveZ3BySymbols(benchmark::State& state) {
  const int symbols = static_cast<int>(state.range(0));
  run(state, parse_layout(compact(8, symbols)), only("z3-unbounded"), Verdict::Proved);
}
BENCHMARK(BM_InjectiveZ3BySymbols)->DenseRange(0, 8)->Unit(benchmark::kMillisecond);

// Refutation: the last stride K is a free symbol; Z3 finds K inside the span of the others.
void BM_InjectiveRefuteZ3(benchmark::State& state) {
  const int rank = static_cast<int>(state.range(0));
  ProveOptions o = only("z3-unbounded", {});
  run(state, parse_layout(compact(rank, rank, "K")), o, Verdict::Refuted);
}
BENCHMARK(BM_InjectiveRefuteZ3)->DenseRange(2, 8)->Unit(benchmark::kMillisecond);

// The default pipeline (what `tfspec prove injective` does) on the rank-8 compact layout.
void BM_InjectiveDefaultRank8(benchmark::State& state) {
  run(state, parse_layout(compact(8, 8)), ProveOptions{}, Verdict::Proved);
}
BENCHMARK(BM_InjectiveDefaultRank8)->Unit(benchmark::kMillisecond);

// Issue 9: the default pipeline on rank 8 with 8 symbols, refutable (the last stride A collides
// with mode 0 once A, H >= 2), and on the examples (time to a verdict, one prove each).
void BM_InjectiveDefaultRank8Refute(benchmark::State& state) {
  run(state, parse_layout(compact(8, 8, "A")), ProveOptions{}, Verdict::Refuted);
}
BENCHMARK(BM_InjectiveDefaultRank8Refute)->Unit(benchmark::kMillisecond);

// One prove per iteration; the counter `decided` is 1 when every verdict met `expected`.
template <class Prove>
void each_iteration(benchmark::State& state, const std::function<bool(Verdict)>& expected, Prove prove) {
  int decided = 1;
  for (auto _ : state) {
    ProveResult r = prove();
    decided = decided && expected(r.verdict);
    benchmark::DoNotOptimize(r);
  }
  state.counters["decided"] = decided;
}

void BM_ProveReadmeExamples(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  each_iteration(state, [](Verdict v) { return v != Verdict::Unknown; }, [which] {
    ProveOptions o;
    switch (which) {
      case 0: return prove_injective(parse_layout("(K,N,K,3):(3,2,3*K*N,1)"), o);
      case 1: return prove_injective(parse_layout("(4,M,M):(1,M,4*M)"), o);
      case 2: return prove_fits(parse_layout("(M,N):(1,M)"), 64, o);
      case 3: o.assume = {"M % 2 == 0"}; return prove_divides(parse_dim("M*M"), parse_dim("4"), o);
      default: return prove_divides(parse_dim("M*(M+1)*(M+2)"), parse_dim("6"), o);
    }
  });
}
BENCHMARK(BM_ProveReadmeExamples)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

void fits(benchmark::State& state, const ProveOptions& o) {
  const int rank = static_cast<int>(state.range(0));
  const Layout l = parse_layout(compact(rank, rank));
  int decided = 1;
  for (auto _ : state) {
    ProveResult r = prove_fits(l, 32, o);
    decided = decided && r.verdict == Verdict::Proved;
    benchmark::DoNotOptimize(r);
  }
  state.counters["decided"] = decided;
}
void BM_FitsInt32Z3Unbounded(benchmark::State& state) { fits(state, only("z3-unbounded", bounds(static_cast<int>(state.range(0)), 8))); }
BENCHMARK(BM_FitsInt32Z3Unbounded)->DenseRange(1, 8)->Unit(benchmark::kMillisecond);
void BM_FitsInt32Z3Bitvector(benchmark::State& state) { fits(state, only("z3-bitvector", bounds(static_cast<int>(state.range(0)), 8))); }
BENCHMARK(BM_FitsInt32Z3Bitvector)->DenseRange(1, 8)->Unit(benchmark::kMillisecond);

// The linear fragment (issue 20): generated problems that ended UNKNOWN after 2 s before the
// positivity arguments (solver/tests/linear_fragment_test.cpp), with the default pipeline.
void BM_LinearFragmentOnceUndecided(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  each_iteration(state, [](Verdict v) { return v == Verdict::Proved; }, [which] {
    ProveOptions o;
    switch (which) {
      case 0: o.assume = {"M >= -2"}; return prove_injective(parse_layout("(K,M,N,M):(M,1,M+M*K,M*N+M*N*K)"), o);
      case 1: o.assume = {"P >= 1"}; return prove_injective(parse_layout("(2,N,N,M):(1,2+P,2*M*N+M*N*P,2*N+N*P)"), o);
      case 2: return prove_in_bounds(parse_layout("(N,K,K):(1,N*K,2*N)"), parse_dim("-N+N*K+N*K*K"), o);
      default: return prove_in_bounds(parse_layout("(3,K,4,M):(3*M*M,4*K,2*M*K,2)"), parse_dim("-1+2*M+6*M*M+6*M*K-4*K+4*K*K"), o);
    }
  });
}
BENCHMARK(BM_LinearFragmentOnceUndecided)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

}  // namespace
