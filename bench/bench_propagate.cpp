// `propagate` on many conflicts (issue 19): N relu of one Partial(sum) value, each needing an
// all-reduce (P3), with and without --insert-reshards; and a chain of N relu of N Partial(sum)
// inputs. items/s is ops per second. Before issue 19 --insert-reshards restarted the scan and the
// fixpoint after each inserted reshard: quadratic (10,000 ops gave no answer in 60 s).
#include <benchmark/benchmark.h>

#include "tfspec/propagation/propagation.hpp"

using namespace tfspec;

namespace {

// relu(y) N times, y = (2) where x=P() on mesh x=2.
propagation::Program relus_of_one_partial(int n) {
  Json ops = Json::array();
  for (int i = 0; i < n; ++i) ops.push_back({{"op", "relu"}, {"operands", {"y"}}, {"result", "r" + std::to_string(i)}});
  Json j{{"mesh", "x=2"}, {"inputs", {{"y", {{"shape", {2}}, {"layout", "(2) where x=P()"}}}}}, {"ops", ops}, {"outputs", {"r0"}}};
  return propagation::parse_program(j);
}

// p_i = (2) where x=P() inputs, r_i = relu(p_i) + r_{i-1}: a chain whose every relu needs an all-reduce.
propagation::Program chain_of_partials(int n) {
  Json inputs = Json::object(), ops = Json::array();
  inputs["z"] = {{"shape", {2}}, {"layout", "(2)"}};
  std::string prev = "z";
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    inputs["p" + k] = {{"shape", {2}}, {"layout", "(2) where x=P()"}};
    ops.push_back({{"op", "relu"}, {"operands", {"p" + k}}, {"result", "q" + k}});
    ops.push_back({{"op", "add"}, {"operands", {"q" + k, prev}}, {"result", "s" + k}});
    prev = "s" + k;
  }
  Json j{{"mesh", "x=2"}, {"inputs", inputs}, {"ops", ops}, {"outputs", {prev}}};
  return propagation::parse_program(j);
}

void run(benchmark::State& st, const propagation::Program& p, bool insert) {
  size_t reshards = 0;
  for (auto _ : st) {
    auto r = propagation::propagate(p, insert);
    reshards = r.reshards.size();
    benchmark::DoNotOptimize(r);
  }
  st.SetItemsProcessed(st.iterations() * static_cast<int64_t>(p.ops.size()));
  st.counters["reshards"] = static_cast<double>(reshards);
}

}  // namespace

static void Propagate_ReluOfOnePartial(benchmark::State& st) { run(st, relus_of_one_partial(static_cast<int>(st.range(0))), st.range(1) != 0); }
BENCHMARK(Propagate_ReluOfOnePartial)->ArgsProduct({{1000, 10000}, {0, 1}})->ArgNames({"ops", "insert"})->Unit(benchmark::kMillisecond);

static void Propagate_ChainOfPartials(benchmark::State& st) { run(st, chain_of_partials(static_cast<int>(st.range(0))), st.range(1) != 0); }
BENCHMARK(Propagate_ChainOfPartials)->ArgsProduct({{500, 5000}, {0, 1}})->ArgNames({"pairs", "insert"})->Unit(benchmark::kMillisecond);
