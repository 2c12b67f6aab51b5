// `tfspec conform` throughput (issue 10): corpus cases per second through the runner, in process
// (the reference behind serve_line, every request and reply through the wire text) and through
// the subprocess path (`tfspec serve` as the implementation, one request/reply line per case).
// The prove group (prove.*, Z3) is measured apart: a solver call per case is another scale.
// In-process rates are per CPU second (Google Benchmark's default), the subprocess rate per wall
// second (both processes' work).
#include <benchmark/benchmark.h>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/protocol/prove_ops.hpp"

namespace {

using namespace tfspec;

const std::vector<conformance::CorpusCase>& all_cases() {
  static const auto cases = conformance::load_corpus(std::string(TFSPEC_SOURCE_DIR) + "/spec/corpus");
  return cases;
}

std::vector<conformance::CorpusCase> cases_where(bool prove) {
  std::vector<conformance::CorpusCase> out;
  for (const auto& c : all_cases())
    if ((c.op.rfind("prove.", 0) == 0) == prove) out.push_back(c);
  return out;
}

const protocol::OpRegistry& registry() {
  static const protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
    protocol::register_prove_ops(r);
    return r;
  }();
  return reg;
}

void run_all(benchmark::State& state, const std::vector<conformance::CorpusCase>& cases, conformance::Implementation& impl) {
  int64_t failed = 0;
  for (auto _ : state) {
    const conformance::Report r = conformance::run(cases, impl, {});
    const auto n = r.totals();
    failed += n.fail + n.errored;
    benchmark::DoNotOptimize(r.cases.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(cases.size()));
  state.counters["cases"] = static_cast<double>(cases.size());
  state.counters["failed"] = static_cast<double>(failed);  // expected failures of the corpus only
}

// Every case but the prove group, in process.
void BM_ConformInProcess(benchmark::State& state) {
  static const auto cases = cases_where(false);
  auto impl = conformance::in_process(registry());
  run_all(state, cases, *impl);
}
BENCHMARK(BM_ConformInProcess)->Unit(benchmark::kMillisecond);

// The prove group alone, in process (each case is a solver run).
void BM_ConformInProcessProve(benchmark::State& state) {
  static const auto cases = cases_where(true);
  auto impl = conformance::in_process(registry());
  run_all(state, cases, *impl);
}
BENCHMARK(BM_ConformInProcessProve)->Unit(benchmark::kMillisecond);

// Every case but the prove group through `tfspec serve` (one process per run, started in the
// loop: the handshake is part of the cost).
void BM_ConformSubprocessServe(benchmark::State& state) {
  static const auto cases = cases_where(false);
  auto impl = conformance::subprocess(std::string(TFSPEC_BINARY) + " serve", 20000);
  run_all(state, cases, *impl);
}
// Wall time: the server's work is in another process, outside this one's CPU time.
BENCHMARK(BM_ConformSubprocessServe)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
