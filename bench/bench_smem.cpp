// `layout banks` on a 128x128 tile read by 128 threads (issue 21: < 10 ms). Thread t reads row t
// (TV (128,128):(1,128)); 4-byte elements one at a time, or 16 bytes (4 floats) at a time.
#include <benchmark/benchmark.h>

#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/smem.hpp"

namespace {
using namespace tfspec;

void run(benchmark::State& state, const char* smem_text, int64_t vector) {
  const Layout tv = parse_layout("(128,128):(1,128)");
  const LayoutPtr smem = parse_any_layout(smem_text);
  SmemAccess a;
  a.elem_bytes = 4;
  a.vector = vector;
  int64_t wavefronts = 0;
  for (auto _ : state) {
    const BankReport r = bank_conflicts(tv, *smem, a);
    wavefronts = r.wavefronts;
    benchmark::DoNotOptimize(wavefronts);
  }
  state.counters["wavefronts"] = static_cast<double>(wavefronts);
  state.SetItemsProcessed(state.iterations() * 128 * 128);
}

void BanksRowMajor(benchmark::State& s) { run(s, "(128,128):(128,1)", 1); }
void BanksSwizzled(benchmark::State& s) { run(s, "Sw<5,0,7> o 0 o (128,128):(128,1)", 1); }
void BanksSwizzled128Bit(benchmark::State& s) { run(s, "Sw<3,2,3> o 0 o (128,128):(128,1)", 4); }
void VectorWidthSwizzled(benchmark::State& state) {
  const Layout tv = parse_layout("(128,128):(1,128)");
  const LayoutPtr smem = parse_any_layout("Sw<3,2,3> o 0 o (128,128):(128,1)");
  for (auto _ : state) benchmark::DoNotOptimize(vector_width(tv, *smem, 4).elems);
}
BENCHMARK(BanksRowMajor)->Unit(benchmark::kMillisecond);
BENCHMARK(BanksSwizzled)->Unit(benchmark::kMillisecond);
BENCHMARK(BanksSwizzled128Bit)->Unit(benchmark::kMillisecond);
BENCHMARK(VectorWidthSwizzled)->Unit(benchmark::kMillisecond);
}  // namespace
