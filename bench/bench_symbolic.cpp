// The layout ops on symbolic layouts through the protocol (issue 20, spec/ALGEBRA.md S1-S5): a
// rank-4 `logical_divide`, `zipped_divide` and by-mode `composition` of a column-major
// (M,N,K,L) tensor, every condition classified by Z3 under the assumptions, each request one
// `serve_line` call on a warm registry (what `tfspec serve` does per line). Goal: < 100 ms each.
// Wall time (UseRealTime): the solver's work is all in this process.
#include <benchmark/benchmark.h>

#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

namespace {

using namespace tfspec;

const protocol::OpRegistry& registry() {
  static const protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
    protocol::register_prove_ops(r);  // and the layout ops' symbolic forms
    return r;
  }();
  return reg;
}

// A = (M,N,K,L) column-major; the tiles 128, 64, 8 and 2 divide the extents (assumed), which
// are at least two tiles long, so one case answers and nothing is left required but what the
// op itself needs: the point is the classification of every condition.
std::string request(const std::string& op, bool divisible) {
  Json assume = Json::array({"M >= 256", "N >= 128", "K >= 16", "L >= 4"});
  if (divisible)
    for (const char* p : {"M % 128 == 0", "N % 64 == 0", "K % 8 == 0", "L % 2 == 0"}) assume.push_back(p);
  const Json args{{"a", "(M,N,K,L):(1,M,M*N,M*N*K)"}, {"tiler", Json{{"tiler", {"128:1", "64:1", "8:1", "2:1"}}}}, {"assume", assume}};
  return protocol::dump_line(Json{{"seq", 1}, {"op", op}, {"args", args}});
}

void run(benchmark::State& state, const std::string& op, bool divisible) {
  const std::string line = request(op, divisible);
  int64_t conditions = 0, required = 0, cases = 0;
  for (auto _ : state) {
    bool stop = false;
    const Json reply = protocol::serve_line(registry(), line, stop);
    if (!reply.contains("result")) {
      state.SkipWithError(("no result: " + reply.dump()).c_str());
      return;
    }
    const Json& r = reply["result"];
    cases = static_cast<int64_t>(r["cases"].size());
    conditions = required = 0;
    for (const auto& c : r["cases"])
      for (const auto& k : c["conditions"]) {
        ++conditions;
        required += k["status"] == "required" ? 1 : 0;
      }
    benchmark::DoNotOptimize(reply);
  }
  state.counters["cases"] = static_cast<double>(cases);
  state.counters["conditions"] = static_cast<double>(conditions);
  state.counters["required"] = static_cast<double>(required);
}

void BM_LogicalDivideRank4(benchmark::State& s) { run(s, "logical_divide", true); }
void BM_LogicalDivideRank4Required(benchmark::State& s) { run(s, "logical_divide", false); }
void BM_ZippedDivideRank4(benchmark::State& s) { run(s, "zipped_divide", true); }
void BM_CompositionRank4(benchmark::State& s) { run(s, "composition", true); }
BENCHMARK(BM_LogicalDivideRank4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LogicalDivideRank4Required)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ZippedDivideRank4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CompositionRank4)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
