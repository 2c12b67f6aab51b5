// The optimized implementation (gpu/) against the reference, a plain compiled loop and memcpy,
// side by side in one run (issue 11 targets): offset tables, gather, reshard; and, where a
// device is at hand, the CUDA offset kernel against cudaMemcpy device-to-device.
// items/s: elements produced; bytes/s: bytes written (8 per element; memcpy: bytes copied).
#include <benchmark/benchmark.h>

#include <cstring>

#include "tfspec/gpu/backend.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

using namespace tfspec;

namespace {

// A rank-4 permuted layout of 2^20 (range 20) or 2^22 (22) elements, and its flat extents/strides.
std::string table_layout(int log2n) {
  return log2n == 20 ? "((32,32),(32,32)):((1,1024),(32,32768))" : "((64,32),(32,64)):((1,2048),(64,65536))";
}
struct Flat {
  int64_t e[4], s[4];
};
Flat flat_of(const std::string& text) {
  Layout l = parse_layout(text);
  auto es = flat_leaves(l.shape_ref()), ss = flat_leaves(l.stride());
  Flat f{};
  for (int k = 0; k < 4; ++k) f.e[k] = es[k].value(), f.s[k] = ss[k].value();
  return f;
}
void counters(benchmark::State& st, int64_t n, int64_t bytes_per_item = 8) {
  st.SetItemsProcessed(st.iterations() * n);
  st.SetBytesProcessed(st.iterations() * n * bytes_per_item);
}

void Offsets_Reference(benchmark::State& st) {
  Layout l = parse_layout(table_layout(static_cast<int>(st.range(0))));
  const int64_t n = l.size();
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (auto _ : st) {
    for (int64_t i = 0; i < n; ++i) out[i] = l(i);
    benchmark::DoNotOptimize(out.data());
  }
  counters(st, n);
}
BENCHMARK(Offsets_Reference)->Arg(20)->Unit(benchmark::kMillisecond);

void Offsets_Host(benchmark::State& st) {
  auto host = gpu::make_host_backend(static_cast<int>(st.range(1)));
  gpu::FnPlan p = gpu::compile_layout(parse_layout(table_layout(static_cast<int>(st.range(0)))));
  std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
  for (auto _ : st) {
    host->offsets_into(p, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  counters(st, p.domain_size);
  st.SetLabel(std::string(p.mode == gpu::kIndex32 ? "32-bit" : "64-bit") + " plan, " + std::to_string(st.range(1)) + " thread(s)");
}
BENCHMARK(Offsets_Host)->Args({20, 1})->Args({22, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(Offsets_Host)->Args({20, 2})->Args({22, 2})->UseRealTime()->Unit(benchmark::kMillisecond);

// The practical limit per core: nested loops, no division at all; compiled for any x86-64, and
// (Offsets_PlainLoopAvx2) for AVX2 as the host backend's runs are where the CPU has it.
void plain_loop(const Flat& f, int64_t* out) {
  int64_t i = 0;
  for (int64_t i3 = 0; i3 < f.e[3]; ++i3)
    for (int64_t i2 = 0; i2 < f.e[2]; ++i2)
      for (int64_t i1 = 0; i1 < f.e[1]; ++i1)
        for (int64_t i0 = 0; i0 < f.e[0]; ++i0) out[i++] = i0 * f.s[0] + i1 * f.s[1] + i2 * f.s[2] + i3 * f.s[3];
}
#if defined(__x86_64__)
__attribute__((target("avx2"))) void plain_loop_avx2(const Flat& f, int64_t* out) {
  int64_t i = 0;
  for (int64_t i3 = 0; i3 < f.e[3]; ++i3)
    for (int64_t i2 = 0; i2 < f.e[2]; ++i2)
      for (int64_t i1 = 0; i1 < f.e[1]; ++i1)
        for (int64_t i0 = 0; i0 < f.e[0]; ++i0) out[i++] = i0 * f.s[0] + i1 * f.s[1] + i2 * f.s[2] + i3 * f.s[3];
}
#endif
void Offsets_PlainLoop(benchmark::State& st) {
  Flat f = flat_of(table_layout(static_cast<int>(st.range(0))));
  const int64_t n = f.e[0] * f.e[1] * f.e[2] * f.e[3];
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (auto _ : st) {
    plain_loop(f, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  counters(st, n);
}
BENCHMARK(Offsets_PlainLoop)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond);
#if defined(__x86_64__)
void Offsets_PlainLoopAvx2(benchmark::State& st) {
  if (!__builtin_cpu_supports("avx2")) {
    st.SkipWithError("no AVX2 on this CPU");
    return;
  }
  Flat f = flat_of(table_layout(static_cast<int>(st.range(0))));
  const int64_t n = f.e[0] * f.e[1] * f.e[2] * f.e[3];
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (auto _ : st) {
    plain_loop_avx2(f, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  counters(st, n);
}
BENCHMARK(Offsets_PlainLoopAvx2)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond);
#endif

void Memcpy_Host(benchmark::State& st) {
  const int64_t n = int64_t{1} << st.range(0);
  std::vector<int64_t> a(static_cast<size_t>(n), 1), b(static_cast<size_t>(n));
  for (auto _ : st) {
    std::memcpy(b.data(), a.data(), static_cast<size_t>(n) * 8);
    benchmark::DoNotOptimize(b.data());
  }
  counters(st, n);
}
BENCHMARK(Memcpy_Host)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond);

void Gather_Reference(benchmark::State& st) {
  Layout l = parse_layout(table_layout(20));
  const int64_t n = l.size();
  std::vector<int64_t> src(static_cast<size_t>(n), 3), out(static_cast<size_t>(n));
  for (auto _ : st) {
    for (int64_t i = 0; i < n; ++i) out[i] = src.at(static_cast<size_t>(l(i)));
    benchmark::DoNotOptimize(out.data());
  }
  counters(st, n);
}
BENCHMARK(Gather_Reference)->Unit(benchmark::kMillisecond);

void Gather_Host(benchmark::State& st) {
  auto host = gpu::make_host_backend(static_cast<int>(st.range(0)));
  gpu::FnPlan p = gpu::compile_layout(parse_layout(table_layout(20)));
  std::vector<int64_t> src(static_cast<size_t>(p.domain_size), 3);
  for (auto _ : st) benchmark::DoNotOptimize(host->gather(p, src).data());
  counters(st, p.domain_size);
}
BENCHMARK(Gather_Host)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(Gather_Host)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// Reshard of a (256, 1024) tensor: 8 instances Split on dim 0 in gmem (shared form) to rmem
// (per-instance form), 2^18 elements (the reference enumerates at most 2^20 points).
struct ReshardWork {
  std::vector<int64_t> shape{256, 1024};
  ShardLayout src = parse_shard_layout("shard((8,32,1024):(32768,1024,1); S(0); x=8)");
  ShardLayout dst = parse_shard_layout("shard((8,32,1024):(0,1024,1); S(0); x=8)");
  Engines in;
  ReshardWork() {
    Tensor t{shape, std::vector<int64_t>(256 * 1024)};
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<int64_t>(i);
    in = distribute(t, src, Storage::Gmem);
  }
};

void Reshard_Reference(benchmark::State& st) {
  ReshardWork w;
  for (auto _ : st) benchmark::DoNotOptimize(reshard(w.in, w.src, w.dst, Storage::Rmem, w.shape));
  counters(st, 256 * 1024);
}
BENCHMARK(Reshard_Reference)->Unit(benchmark::kMillisecond)->Iterations(2);

void Reshard_Host(benchmark::State& st) {
  ReshardWork w;
  auto host = gpu::make_host_backend(static_cast<int>(st.range(0)));
  gpu::ReshardPlan plan = gpu::compile_reshard(w.src, Storage::Gmem, w.dst, Storage::Rmem, w.shape);
  for (auto _ : st) benchmark::DoNotOptimize(host->reshard(plan, w.in));
  counters(st, 256 * 1024);
  st.SetLabel("plan compiled once, outside the loop");
}
BENCHMARK(Reshard_Host)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(Reshard_Host)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// Contiguous-run reshard (issue 11): a (64, 65536) tensor, 2^22 elements, gmem Split on dim 0
// over 8 instances (shared form) -> rmem per-instance form: both sides step by 1 along the last
// two dims, so the common run is 8 x 65536 and the host copies each thread's part of a run with
// one memcpy. Against the same plan forced onto the element path (common run 1) and a memcpy of
// the same bytes, in one run. The timed call includes packing the source and unpacking the
// destination engines (two more copies of the data).
struct RunWork {
  std::vector<int64_t> shape{64, 65536};
  ShardLayout src = parse_shard_layout("shard((8,8,65536):(524288,65536,1); S(0); x=8)");
  ShardLayout dst = parse_shard_layout("shard((8,8,65536):(0,65536,1); S(0); x=8)");
  Engines in{Storage::Gmem, {}};
  RunWork() {
    auto& buf = in.buffers[0];
    buf.resize(64 * 65536);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<int64_t>(i) * 3 - 5;
  }
};

void ReshardRuns_Host(benchmark::State& st) {
  static RunWork w;
  gpu::PlanPolicy policy;
  if (st.range(1) == 0) policy.common_run = [](int64_t, int64_t) -> int64_t { return 1; };
  gpu::ReshardPlan plan = gpu::compile_reshard(w.src, Storage::Gmem, w.dst, Storage::Rmem, w.shape, policy);
  auto host = gpu::make_host_backend(static_cast<int>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(host->reshard(plan, w.in));
  counters(st, 64 * 65536);
  st.SetLabel((plan.run > 1 ? "runs of " + std::to_string(plan.run) : std::string("element path")) + ", " + std::to_string(st.range(0)) +
              " thread(s)");
}
BENCHMARK(ReshardRuns_Host)->Args({1, 1})->Args({1, 0})->Unit(benchmark::kMillisecond);
BENCHMARK(ReshardRuns_Host)->Args({2, 1})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(Memcpy_Host)->Arg(22)->Name("Memcpy_Host_RunBaseline")->Unit(benchmark::kMillisecond);

// The packed entry point (issue 13) on the same 2^22-element plan: caller-owned flat buffers, the
// source in the plan's packed layout (gmem: one engine) and the destination (8 rmem engines back
// to back) allocated and zeroed once, outside the loop, as a runtime reusing its buffers would.
// The timed call is the copy alone; compare with Memcpy_Host_RunBaseline (same bytes, same run).
void ReshardPacked_Host(benchmark::State& st) {
  static RunWork w;
  gpu::ReshardPlan plan = gpu::compile_reshard(w.src, Storage::Gmem, w.dst, Storage::Rmem, w.shape);
  const std::vector<int64_t>& src = w.in.buffers.at(0);
  if (!plan.dst || plan.src.packed.total != static_cast<int64_t>(src.size())) {
    st.SkipWithError("the source is not in the plan's packed layout");
    return;
  }
  std::vector<int64_t> dst(static_cast<size_t>(plan.dst->packed.total), 0);
  auto host = gpu::make_host_backend(static_cast<int>(st.range(0)));
  for (auto _ : st) {
    host->reshard_packed(plan, plan.src.packed, src.data(), dst.data());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  counters(st, 64 * 65536);
  st.SetLabel("runs of " + std::to_string(plan.run) + ", " + std::to_string(st.range(0)) + " thread(s)");
}
BENCHMARK(ReshardPacked_Host)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(ReshardPacked_Host)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- the CUDA kernels on the emulated grid (cuda-emu, issue 23): the kernel source compiled for
// the host, one host thread running the whole grid in a seeded order. A measure of what a CI
// fuzz case costs there, not of the device (named without "Cuda": gpu-check.sh filters on it).
void Offsets_Emulated(benchmark::State& st) {
  auto emu = gpu::make_cuda_emu_backend();
  gpu::FnPlan p = gpu::compile_layout(parse_layout(table_layout(static_cast<int>(st.range(0)))));
  std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
  for (auto _ : st) {
    emu->offsets_into(p, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  counters(st, p.domain_size);
}
BENCHMARK(Offsets_Emulated)->Arg(20)->Unit(benchmark::kMillisecond);

void Gather_Emulated(benchmark::State& st) {
  auto emu = gpu::make_cuda_emu_backend();
  gpu::FnPlan p = gpu::compile_layout(parse_layout(table_layout(20)));
  std::vector<int64_t> src(static_cast<size_t>(p.domain_size), 3);
  for (auto _ : st) benchmark::DoNotOptimize(emu->gather(p, src).data());
  counters(st, p.domain_size);
}
BENCHMARK(Gather_Emulated)->Unit(benchmark::kMillisecond);

// The run kernel (chunks of 8, 128-bit copies) on the 2^22-element plan of ReshardPacked_Host.
void ReshardPacked_Emulated(benchmark::State& st) {
  static RunWork w;
  gpu::ReshardPlan plan = gpu::compile_reshard(w.src, Storage::Gmem, w.dst, Storage::Rmem, w.shape);
  const std::vector<int64_t>& src = w.in.buffers.at(0);
  std::vector<int64_t> dst(static_cast<size_t>(plan.dst->packed.total), 0);
  auto emu = gpu::make_cuda_emu_backend();
  for (auto _ : st) {
    emu->reshard_packed(plan, plan.src.packed, src.data(), dst.data());
    benchmark::DoNotOptimize(dst.data());
  }
  counters(st, 64 * 65536);
}
BENCHMARK(ReshardPacked_Emulated)->Unit(benchmark::kMillisecond);

// ---- device (skipped with the CUDA error's name when there is none)

// Offset tables on the device: (32, 2^(k-10), 32):(1, 1024, 32), a 3-mode permuted layout of 2^k
// elements (32-bit plan up to 2^31), written with 128-bit stores.
void Offsets_Cuda(benchmark::State& st) {
  const int64_t log2n = st.range(0);
  const int64_t outer = int64_t{1} << (log2n - 10);
  Layout l(IntTuple::tuple({IntTuple(32), IntTuple(outer), IntTuple(32)}),
           IntTuple::tuple({IntTuple(1), IntTuple(1024), IntTuple(32)}));
  gpu::FnPlan p = gpu::compile_layout(l);
  try {
    for (auto _ : st) st.SetIterationTime(gpu::cuda_offsets_seconds(p, 10));
  } catch (const SpecError& e) {
    st.SkipWithError(e.what());
    return;
  }
  counters(st, p.domain_size);
  st.SetLabel(p.mode == gpu::kIndex32 ? "32-bit plan" : "64-bit plan");
}
BENCHMARK(Offsets_Cuda)->Arg(26)->Arg(28)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// Gather through the same non-contiguous layout (reads scattered by the permutation, writes
// contiguous).
void Gather_Cuda(benchmark::State& st) {
  const int64_t outer = int64_t{1} << (st.range(0) - 10);
  Layout l(IntTuple::tuple({IntTuple(32), IntTuple(outer), IntTuple(32)}),
           IntTuple::tuple({IntTuple(1), IntTuple(1024), IntTuple(32)}));
  gpu::FnPlan p = gpu::compile_layout(l);
  try {
    for (auto _ : st) st.SetIterationTime(gpu::cuda_gather_seconds(p, p.domain_size, 10));
  } catch (const SpecError& e) {
    st.SkipWithError(e.what());
    return;
  }
  counters(st, p.domain_size);
}
BENCHMARK(Gather_Cuda)->Arg(26)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// Scatter through the same layout (injective: every slot written once): three kernels, the
// first-writer pass with one atomicMin per element, then the collision check and the writes.
void Scatter_Cuda(benchmark::State& st) {
  const int64_t outer = int64_t{1} << (st.range(0) - 10);
  Layout l(IntTuple::tuple({IntTuple(32), IntTuple(outer), IntTuple(32)}),
           IntTuple::tuple({IntTuple(1), IntTuple(1024), IntTuple(32)}));
  gpu::FnPlan p = gpu::compile_layout(l);
  try {
    for (auto _ : st) st.SetIterationTime(gpu::cuda_scatter_seconds(p, p.domain_size, 10));
  } catch (const SpecError& e) {
    st.SkipWithError(e.what());
    return;
  }
  counters(st, p.domain_size);
}
BENCHMARK(Scatter_Cuda)->Arg(26)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// Contiguous-run reshard on the device, 2^26 elements: (1024, 65536) gmem Split on dim 0 over 8
// instances -> rmem per-instance; common run 128 x 65536, chunks of 8 elements (64 bytes) per
// thread with 128-bit loads and stores. The plan (validation and injectivity over 2^26 pairs)
// is compiled once, outside the timing.
void ReshardRuns_Cuda(benchmark::State& st) {
  try {
    if (auto why = gpu::make_cuda_backend()->unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
    static const gpu::ReshardPlan plan =
        gpu::compile_reshard(parse_shard_layout("shard((8,128,65536):(8388608,65536,1); S(0); x=8)"), Storage::Gmem,
                             parse_shard_layout("shard((8,128,65536):(0,65536,1); S(0); x=8)"), Storage::Rmem, {1024, 65536});
    for (auto _ : st) st.SetIterationTime(gpu::cuda_reshard_runs_seconds(plan, 10));
    counters(st, plan.size);
    st.SetLabel("runs of " + std::to_string(plan.run));
  } catch (const SpecError& e) {
    st.SkipWithError(e.what());
  }
}
BENCHMARK(ReshardRuns_Cuda)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

void Memcpy_CudaDeviceToDevice(benchmark::State& st) {
  const int64_t n = int64_t{1} << st.range(0);
  try {
    for (auto _ : st) st.SetIterationTime(gpu::cuda_memcpy_seconds(n * 8, 10));
  } catch (const SpecError& e) {
    st.SkipWithError(e.what());
    return;
  }
  counters(st, n);
}
BENCHMARK(Memcpy_CudaDeviceToDevice)->Arg(26)->Arg(28)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

}  // namespace
