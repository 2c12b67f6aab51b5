// bench_cute_dsl (issue 45): a CuTe DSL kernel's check after its IR is read, and the read itself,
// on CUTLASS's tensorop_gemm fixture (128x128x32, 4 stages: every layout op, coalescing, and the
// mapped pipeline's coverage, agreement, banks in 4 stages, bounds by Z3, footprint).
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"

namespace {

std::string fixture() {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/cutlass_tensorop_gemm_atoms2x2_a_k_b_n.mlir");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void BM_CuteDslRead(benchmark::State& state) {
  const std::string text = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(tfspec::cute_dsl::read_cute_ir(text));
}
BENCHMARK(BM_CuteDslRead)->Unit(benchmark::kMillisecond);

void BM_CuteDslCheck(benchmark::State& state) {
  const tfspec::cute_dsl::Module m = tfspec::cute_dsl::read_cute_ir(fixture());
  for (auto _ : state) benchmark::DoNotOptimize(tfspec::cute_dsl::check_module(m));
}
BENCHMARK(BM_CuteDslCheck)->Unit(benchmark::kMillisecond);

}  // namespace
