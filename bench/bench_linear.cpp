// Linear layouts (issue 32, extension X2): apply against the CuTe reference's L(i) on the same
// function in one run (the goal: at the CuTe layout's speed or better), and `equivalent` of two
// 2^16-point layouts (the goal: under a millisecond): two linear layouts (bases), a linear layout
// against its swizzled CuTe form (enumeration), and two CuTe layouts (enumeration).
#include <benchmark/benchmark.h>

#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"

namespace {

using namespace tfspec;

// (64,1024):(1024,1) swizzled by Sw<3,4,3>: 2^16 points, F2-linear.
const char* kCute = "(64,1024):(1024,1)";
const char* kSwizzled = "Sw<3,4,3> o 0 o (64,1024):(1024,1)";

void CuteApply(benchmark::State& st) {
  const Layout l = parse_layout(kCute);
  for (auto _ : st)
    for (int64_t i = 0; i < 65536; ++i) benchmark::DoNotOptimize(l(i));
  st.SetItemsProcessed(st.iterations() * 65536);
}
BENCHMARK(CuteApply);

void LinearApplySameFunction(benchmark::State& st) {
  const LinearLayout l = to_linear(parse_layout(kCute), {}, {});
  for (auto _ : st)
    for (int64_t i = 0; i < 65536; ++i) benchmark::DoNotOptimize(l(i));
  st.SetItemsProcessed(st.iterations() * 65536);
}
BENCHMARK(LinearApplySameFunction);

void LinearApplyChecked(benchmark::State& st) {  // through LayoutBase::apply, as the protocol's eval
  const LinearLayout l = to_linear(*parse_pure_layout(kSwizzled), {}, {});
  for (auto _ : st)
    for (int64_t i = 0; i < 65536; ++i) benchmark::DoNotOptimize(l.apply(IntTuple(i)));
  st.SetItemsProcessed(st.iterations() * 65536);
}
BENCHMARK(LinearApplyChecked);

void EquivalentTwoLinear(benchmark::State& st) {
  const LinearLayout a = to_linear(*parse_pure_layout(kSwizzled), {}, {});
  const LinearLayout b = a;
  for (auto _ : st) benchmark::DoNotOptimize(equivalent(a, b).equal);
}
BENCHMARK(EquivalentTwoLinear)->Unit(benchmark::kMicrosecond);

void EquivalentLinearAgainstSwizzledCute(benchmark::State& st) {
  const LayoutPtr c = parse_pure_layout(kSwizzled);
  const LinearLayout a = to_linear(*c, {}, {});
  for (auto _ : st) benchmark::DoNotOptimize(equivalent(a, *c).equal);
}
BENCHMARK(EquivalentLinearAgainstSwizzledCute)->Unit(benchmark::kMicrosecond);

void EquivalentTwoCute(benchmark::State& st) {
  const Layout a = parse_layout(kCute), b = parse_layout("(64,(32,32)):(1024,(1,32))");
  for (auto _ : st) benchmark::DoNotOptimize(equivalent(a, b).equal);
}
BENCHMARK(EquivalentTwoCute)->Unit(benchmark::kMicrosecond);

}  // namespace
