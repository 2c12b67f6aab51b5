// Fixed workloads W1-W3 (issue "foundation") so other implementations can be measured on the
// same work: items/s is evaluations, compositions, or parse+print round trips per second.
#include <benchmark/benchmark.h>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

namespace {
const char* kW1[] = {"(2,(3,4),8):(1,(2,6),24)", "(16,16):(16,1)", "((4,8),(2,16)):((1,64),(4,512))"};
}

// W1: L(i) for every i of each layout.
static void W1_Evaluate(benchmark::State& st) {
  Layout l = parse_layout(kW1[st.range(0)]);
  const int64_t n = l.size();
  for (auto _ : st) {
    int64_t acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += l(i);
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(st.iterations() * n);
  st.SetLabel(kW1[st.range(0)]);
}
BENCHMARK(W1_Evaluate)->DenseRange(0, 2);

// W2: composition((4,8,16):(8,1,32), (2,4):(1,4)).
static void W2_Composition(benchmark::State& st) {
  Layout a = parse_layout("(4,8,16):(8,1,32)"), b = parse_layout("(2,4):(1,4)");
  for (auto _ : st) benchmark::DoNotOptimize(composition(a, b));
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(W2_Composition);

// W3: parse + print of the four layouts above.
static void W3_ParsePrint(benchmark::State& st) {
  const char* all[] = {kW1[0], kW1[1], kW1[2], "(4,8,16):(8,1,32)"};
  for (auto _ : st)
    for (const char* s : all) benchmark::DoNotOptimize(to_string(parse_layout(s)));
  st.SetItemsProcessed(st.iterations() * 4);
}
BENCHMARK(W3_ParsePrint);
