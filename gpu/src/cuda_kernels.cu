// CUDA kernels over the index core: one thread per element (grid-stride), the first failing
// element found with atomicMin on (index << 4 | status).
//
// One source, two compilers (issue 23): nvcc builds it for the device (namespace cuda::device);
// g++ builds it for the emulated grid (cuda_emu_kernels.cpp defines TFSPEC_CUDA_EMU and the
// namespace, cuda_emu.hpp stands in for the runtime). Kernel launches go through TFSPEC_LAUNCH.
#if defined(TFSPEC_CUDA_EMU)
#include "cuda_emu.hpp"
#else
#include <cuda_runtime.h>
#define TFSPEC_LAUNCH(kernel, grid, block) kernel<<<grid, block>>>
#endif

#include <vector>

#include "cuda_kernels.hpp"

#ifndef TFSPEC_KERNELS_NS
#define TFSPEC_KERNELS_NS device
#endif
// Planted kernel-only bugs, compiled only into the emulated mutants of the mutant test
// (props/tests/emu_mutants/): TFSPEC_KERNEL_MUTANT is one of these numbers, never set for nvcc.
#define TFSPEC_MUTANT_RUN_CHUNK_TAIL 1   // run_chunk's last chunk of a run one element long
#define TFSPEC_MUTANT_PAIR_ODD_LAST 2    // the pair store drops the odd last offset
#define TFSPEC_MUTANT_GRID_STRIDE 3      // the grid-stride step one block too long
#ifndef TFSPEC_KERNEL_MUTANT
#define TFSPEC_KERNEL_MUTANT 0
#endif

namespace tfspec::gpu::cuda::TFSPEC_KERNELS_NS {
namespace {

using Key = unsigned long long;
constexpr Key kNoError = ~Key{0};
constexpr int kBlock = 256;

__device__ void record(Key* first, int64_t i, Status st) { atomicMin(first, (static_cast<Key>(i) << 4) | st); }

int grid_for(int64_t n) {
  int64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<int>(blocks < 1 ? 1 : blocks > 65535 * 8 ? 65535 * 8 : blocks);
}

// Grid-stride loops, not unrolled: an unrolled grid-stride loop computes its trip count with a
// 64-bit division per thread (scripts/check-kernels.sh rejects any division in the kernels).
#if TFSPEC_KERNEL_MUTANT == TFSPEC_MUTANT_GRID_STRIDE
#define GRID_BLOCKS(Int) (static_cast<Int>(gridDim.x) + 1)
#else
#define GRID_BLOCKS(Int) static_cast<Int>(gridDim.x)
#endif
#define FOR_EACH(i, n) _Pragma("unroll 1") for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < (n); i += GRID_BLOCKS(int64_t) * blockDim.x)
// The same in the plan's index type: 32-bit plans (domain <= INT32_MAX) loop in 32 bits.
#define FOR_EACH_T(Int, i, n) \
  _Pragma("unroll 1") for (Int i = static_cast<Int>(blockIdx.x) * static_cast<Int>(blockDim.x) + static_cast<Int>(threadIdx.x); i < (n); i += GRID_BLOCKS(Int) * static_cast<Int>(blockDim.x))

// L(i) in the plan's width: Int = int32_t / int64_t (proved by the plan compiler), or the checked
// 64-bit arithmetic (Checked).
struct Checked {};
template <class Int>
__device__ __forceinline__ Status eval_t(const FnPlan& p, int64_t i, int64_t& out) {
  Int v = 0;
  Status st = eval_stages<Int>(p, 0, static_cast<Int>(i), v);
  out = v;
  return st;
}
template <>
__device__ __forceinline__ Status eval_t<Checked>(const FnPlan& p, int64_t i, int64_t& out) {
  return eval_stages_checked(p, 0, i, out);
}
#ifdef TFSPEC_CHECK_KERNELS_MUTANT_64BIT
// Compiled only by `scripts/check-kernels.sh --variant 64bit` (never into tfspec): the 32-bit
// kernels regress to 64-bit index arithmetic, which the check must reject.
template <>
__device__ __forceinline__ Status eval_t<int32_t>(const FnPlan& p, int64_t i, int64_t& out) {
  return eval_stages<int64_t>(p, 0, i, out);
}
#endif
template <class Int> struct LoopIndex { using type = Int; };
template <> struct LoopIndex<Checked> { using type = int64_t; };

// Two consecutive offsets per thread, stored with one 128-bit store (out is 16-byte aligned,
// i even); a failing element, or the odd last one, goes alone.
template <class Int>
__global__ void offsets_kernel(const FnPlan* __restrict__ p, typename LoopIndex<Int>::type n, int64_t* __restrict__ out, Key* first) {
  using I = typename LoopIndex<Int>::type;
  const I pairs = (n >> 1) + (n & 1);
  FOR_EACH_T(I, t, pairs) {
    const I i = t * 2;
    int64_t v0 = 0, v1 = 0;
    const Status s0 = eval_t<Int>(*p, i, v0);
    const Status s1 = i + 1 < n ? eval_t<Int>(*p, i + 1, v1) : kCoordInDomain;
    if (s0 == kOk && s1 == kOk) {
      *reinterpret_cast<longlong2*>(out + i) = make_longlong2(v0, v1);
      continue;
    }
    if (s0 != kOk) record(first, i, s0);
#if TFSPEC_KERNEL_MUTANT == TFSPEC_MUTANT_PAIR_ODD_LAST
    else if (i + 1 < n) out[i] = v0;
#else
    else out[i] = v0;
#endif
    if (i + 1 < n) {
      if (s1 != kOk) record(first, i + 1, s1);
      else out[i + 1] = v1;
    }
  }
}
__global__ void crd2idx_kernel(const FnPlan* __restrict__ p, const int64_t* crd, int64_t n, int64_t* out, Key* first) {
  FOR_EACH(j, n) {
    Status st = eval_coord(*p, crd + j * p->domain_rank, out[j]);
    if (st != kOk) record(first, j, st);
  }
}
template <class Int>
__device__ __forceinline__ Status bounded(const FnPlan& p, int64_t i, int64_t size, int64_t& off) {
  Status st = eval_t<Int>(p, i, off);
  if (st == kOk && off < 0) st = kOffsetNegative;
  if (st == kOk && off >= size) st = kEngineBufferSize;
  return st;
}
template <class Int>
__global__ void gather_kernel(const FnPlan* __restrict__ p, typename LoopIndex<Int>::type n, const int64_t* __restrict__ src, int64_t size,
                              int64_t* __restrict__ out, Key* first) {
  FOR_EACH_T(typename LoopIndex<Int>::type, i, n) {
    int64_t off = 0;
    Status st = bounded<Int>(*p, i, size, off);
    if (st != kOk) record(first, i, st);
    else out[i] = __ldg(src + off);
  }
}
template <class Int>
__global__ void scatter_first_kernel(const FnPlan* __restrict__ p, typename LoopIndex<Int>::type n, int64_t size, int64_t* off, Key* writer, Key* first) {
  FOR_EACH_T(typename LoopIndex<Int>::type, i, n) {
    Status st = bounded<Int>(*p, i, size, off[i]);
    if (st != kOk) record(first, i, st);
    else atomicMin(&writer[off[i]], static_cast<Key>(i));
  }
}
__global__ void scatter_collision_kernel(int64_t limit, const int64_t* off, const Key* writer, Key* first) {
  FOR_EACH(i, limit) if (writer[off[i]] != static_cast<Key>(i)) record(first, i, kCollision);
}
__global__ void scatter_write_kernel(int64_t n, const int64_t* off, const int64_t* values, int64_t* dst) {
  FOR_EACH(i, n) dst[off[i]] = values[i];
}
__global__ void assemble_kernel(const ShardPlan* __restrict__ sp, const int64_t* data, int64_t n, int64_t* x, Key* first) {
  FOR_EACH(l, n) {
    Status st = assemble_element(*sp, data, l, x[l]);
    if (st != kOk) record(first, l, st);
  }
}
__global__ void distribute_kernel(const ShardPlan* __restrict__ sp, int64_t* data, int64_t n, const int64_t* x, Key* first) {
  FOR_EACH(l, n) {
    Status st = distribute_element(*sp, data, l, x[l]);
    if (st != kOk) record(first, l, st);
  }
}

// Reshard over a common contiguous run: each thread takes an aligned chunk of `width` logical
// elements (width divides the run, so a chunk never leaves it: 64 bytes in flight per thread at
// width 8) and copies it with reshard_segment (128-bit loads / stores where aligned), or element by
// element when a check could fail. Distribute failures are keyed after every assemble failure.
__global__ void reshard_runs_kernel(const ShardPlan* __restrict__ sp, const int64_t* __restrict__ src, const ShardPlan* __restrict__ dp,
                                    int64_t* __restrict__ dst, RunChunks rc, Key* first) {
  const int64_t n = rc.n;
  FOR_EACH(c, rc.total) {
    int64_t l = 0, count = 0;
    run_chunk(rc, c, l, count);  // at most kRunChunk elements inside one common run
#if TFSPEC_KERNEL_MUTANT == TFSPEC_MUTANT_RUN_CHUNK_TAIL
    if (count > 1 && count < kRunChunk) count = 1;
#endif
    if (count == 0 || reshard_segment<PairCopy<longlong2>>(*sp, src, *dp, dst, l, count)) continue;
    for (int64_t t = l; t < l + count; ++t) {
      bool late = false;
      Status st = reshard_element(*sp, src, *dp, dst, t, late);
      if (st != kOk) {
        record(first, late ? n + t : t, st);
        if (!late) break;
      }
    }
  }
}

// Device allocations freed on scope exit; the first CUDA error wins.
struct Session {
  Result r;
  std::vector<void*> owned;
  ~Session() {
    for (void* q : owned) cudaFree(q);
  }
  bool check(cudaError_t e) {
    if (e != cudaSuccess && r.cuda_error == 0) {
      r.cuda_error = static_cast<int>(e);
      r.error_name = cudaGetErrorName(e);
      r.error_text = cudaGetErrorString(e);
    }
    return r.cuda_error == 0;
  }
  template <class T>
  T* alloc(int64_t count) {
    void* q = nullptr;
    if (!check(cudaMalloc(&q, static_cast<size_t>(count < 1 ? 1 : count) * sizeof(T)))) return nullptr;
    owned.push_back(q);
    return static_cast<T*>(q);
  }
  template <class T>
  T* upload(const T* host, int64_t count) {
    T* d = alloc<T>(count);
    if (d && count > 0) check(cudaMemcpy(d, host, static_cast<size_t>(count) * sizeof(T), cudaMemcpyHostToDevice));
    return d;
  }
  template <class T>
  void download(T* host, const T* dev, int64_t count) {
    if (r.cuda_error == 0 && count > 0) check(cudaMemcpy(host, dev, static_cast<size_t>(count) * sizeof(T), cudaMemcpyDeviceToHost));
  }
  Key* error_slot() {
    Key* k = alloc<Key>(1);
    if (k) check(cudaMemset(k, 0xff, sizeof(Key)));
    return k;
  }
  // Synchronizes, then reads the first failing element.
  Result& finish(Key* first) {
    check(cudaGetLastError());
    check(cudaDeviceSynchronize());
    Key k = kNoError;
    download(&k, first, 1);
    if (r.cuda_error == 0 && k != kNoError) {
      r.first_index = static_cast<int64_t>(k >> 4);
      r.status = static_cast<Status>(k & 15);
    }
    return r;
  }
};

}  // namespace

Result probe(int& device_count) {
  Session s;
  device_count = 0;
  if (s.check(cudaGetDeviceCount(&device_count)) && device_count == 0) {
    s.r.cuda_error = -1;
    s.r.error_name = "no CUDA device";
    s.r.error_text = "cudaGetDeviceCount found 0 devices";
  }
  return s.r;
}

namespace {
// Runs f(tag) with the plan's index type: int32_t, int64_t or Checked.
template <class F>
void by_mode(IndexMode m, F f) {
  if (m == kIndex32) f(int32_t{});
  else if (m == kIndex64) f(int64_t{});
  else f(Checked{});
}
int64_t pairs_of(int64_t n) { return n / 2 + n % 2; }
}  // namespace

Result offsets(const FnPlan& p, int64_t* out) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  int64_t* dout = s.alloc<int64_t>(p.domain_size);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  by_mode(p.mode, [&](auto tag) {
    using Int = decltype(tag);
    TFSPEC_LAUNCH(offsets_kernel<Int>, grid_for(pairs_of(p.domain_size)), kBlock)(dp, p.domain_size, dout, first);
  });
  s.finish(first);
  s.download(out, dout, p.domain_size);
  return s.r;
}

Result crd2idx(const FnPlan& p, const int64_t* coords, int64_t n, int64_t* out) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  const int64_t* dc = s.upload(coords, n * p.domain_rank);
  int64_t* dout = s.alloc<int64_t>(n);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  TFSPEC_LAUNCH(crd2idx_kernel, grid_for(n), kBlock)(dp, dc, n, dout, first);
  s.finish(first);
  s.download(out, dout, n);
  return s.r;
}

Result gather(const FnPlan& p, const int64_t* src, int64_t src_size, int64_t* out) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  const int64_t* dsrc = s.upload(src, src_size);
  int64_t* dout = s.alloc<int64_t>(p.domain_size);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  by_mode(p.mode, [&](auto tag) {
    using Int = decltype(tag);
    TFSPEC_LAUNCH(gather_kernel<Int>, grid_for(p.domain_size), kBlock)(dp, p.domain_size, dsrc, src_size, dout, first);
  });
  s.finish(first);
  s.download(out, dout, p.domain_size);
  return s.r;
}

Result scatter(const FnPlan& p, const int64_t* values, int64_t* dst, int64_t dst_size) {
  Session s;
  const int64_t n = p.domain_size;
  const FnPlan* dp = s.upload(&p, 1);
  const int64_t* dv = s.upload(values, n);
  int64_t* doff = s.alloc<int64_t>(n);
  Key* writer = s.alloc<Key>(dst_size);
  int64_t* ddst = s.alloc<int64_t>(dst_size);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  s.check(cudaMemset(writer, 0xff, static_cast<size_t>(dst_size < 1 ? 1 : dst_size) * sizeof(Key)));
  s.check(cudaMemset(ddst, 0, static_cast<size_t>(dst_size < 1 ? 1 : dst_size) * sizeof(int64_t)));
  by_mode(p.mode, [&](auto tag) {
    using Int = decltype(tag);
    TFSPEC_LAUNCH(scatter_first_kernel<Int>, grid_for(n), kBlock)(dp, n, dst_size, doff, writer, first);
  });
  s.finish(first);
  const int64_t limit = s.r.first_index < 0 ? n : s.r.first_index;
  TFSPEC_LAUNCH(scatter_collision_kernel, grid_for(limit), kBlock)(limit, doff, writer, first);
  s.finish(first);
  if (s.r.first_index >= 0 || s.r.cuda_error) return s.r;
  TFSPEC_LAUNCH(scatter_write_kernel, grid_for(n), kBlock)(n, doff, dv, ddst);
  s.finish(first);
  s.download(dst, ddst, dst_size);
  return s.r;
}

namespace {
// A copy of sp whose table pointers point at device copies.
const ShardPlan* upload_shard(Session& s, const ShardPlan& sp, int64_t instances) {
  ShardPlan d = sp;
  d.engine_of_instance = s.upload(sp.engine_of_instance, instances);
  d.engine_base = s.upload(sp.engine_base, sp.num_engine_ids);
  d.engine_size = s.upload(sp.engine_size, sp.num_engine_ids);
  return s.upload(&d, 1);
}
}  // namespace

Result assemble(const ShardPlan& sp, int64_t instances, const int64_t* data, int64_t data_size, int64_t n, int64_t* x) {
  Session s;
  const ShardPlan* dsp = upload_shard(s, sp, instances);
  const int64_t* dd = s.upload(data, data_size);
  int64_t* dx = s.alloc<int64_t>(n);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  TFSPEC_LAUNCH(assemble_kernel, grid_for(n), kBlock)(dsp, dd, n, dx, first);
  s.finish(first);
  s.download(x, dx, n);
  return s.r;
}

Result distribute(const ShardPlan& sp, int64_t instances, int64_t* data, int64_t data_size, int64_t n, const int64_t* x) {
  Session s;
  const ShardPlan* dsp = upload_shard(s, sp, instances);
  int64_t* dd = s.upload(data, data_size);
  const int64_t* dx = s.upload(x, n);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  TFSPEC_LAUNCH(distribute_kernel, grid_for(n), kBlock)(dsp, dd, n, dx, first);
  s.finish(first);
  s.download(data, dd, data_size);
  return s.r;
}

Result reshard_runs(const RunJob& j, const int64_t* src, int64_t* dst) {
  Session s;
  const ShardPlan* dsp = upload_shard(s, j.src, j.src_instances);
  const ShardPlan* ddp = upload_shard(s, j.dst, j.dst_instances);
  const int64_t* dsrc = s.upload(src, j.src_size);
  int64_t* ddst = s.upload(dst, j.dst_size);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  const RunChunks rc = make_run_chunks(j.n, j.run);
  TFSPEC_LAUNCH(reshard_runs_kernel, grid_for(rc.total), kBlock)(dsp, dsrc, ddp, ddst, rc, first);
  s.finish(first);
  s.download(dst, ddst, j.dst_size);
  return s.r;
}

namespace {
// Times `reps` launches of launch() on the device (CUDA events), after one warm-up launch.
template <class F>
void time_launches(Session& s, Key* first, int reps, float& ms, F launch) {
  cudaEvent_t a, b;
  if (s.r.cuda_error || !s.check(cudaEventCreate(&a)) || !s.check(cudaEventCreate(&b))) return;
  launch();
  s.check(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) launch();
  s.check(cudaEventRecord(b));
  s.finish(first);
  s.check(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}
}  // namespace

Result time_offsets(const FnPlan& p, int reps, float& ms) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  int64_t* dout = s.alloc<int64_t>(p.domain_size);
  Key* first = s.error_slot();
  time_launches(s, first, reps, ms, [&] {
    by_mode(p.mode, [&](auto tag) {
      using Int = decltype(tag);
      TFSPEC_LAUNCH(offsets_kernel<Int>, grid_for(pairs_of(p.domain_size)), kBlock)(dp, p.domain_size, dout, first);
    });
  });
  return s.r;
}

Result time_gather(const FnPlan& p, int64_t src_size, int reps, float& ms) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  int64_t* dsrc = s.alloc<int64_t>(src_size);
  int64_t* dout = s.alloc<int64_t>(p.domain_size);
  Key* first = s.error_slot();
  if (dsrc) s.check(cudaMemset(dsrc, 0, static_cast<size_t>(src_size) * sizeof(int64_t)));
  time_launches(s, first, reps, ms, [&] {
    by_mode(p.mode, [&](auto tag) {
      using Int = decltype(tag);
      TFSPEC_LAUNCH(gather_kernel<Int>, grid_for(p.domain_size), kBlock)(dp, p.domain_size, dsrc, src_size, dout, first);
    });
  });
  return s.r;
}

Result time_scatter(const FnPlan& p, int64_t dst_size, int reps, float& ms) {
  Session s;
  const int64_t n = p.domain_size;
  const FnPlan* dp = s.upload(&p, 1);
  int64_t* dv = s.alloc<int64_t>(n);
  int64_t* doff = s.alloc<int64_t>(n);
  Key* writer = s.alloc<Key>(dst_size);
  int64_t* ddst = s.alloc<int64_t>(dst_size);
  Key* first = s.error_slot();
  if (dv) s.check(cudaMemset(dv, 0, static_cast<size_t>(n) * sizeof(int64_t)));
  time_launches(s, first, reps, ms, [&] {  // the whole operation: first writers, collisions, writes
    cudaMemsetAsync(writer, 0xff, static_cast<size_t>(dst_size) * sizeof(Key));
    by_mode(p.mode, [&](auto tag) {
      using Int = decltype(tag);
      TFSPEC_LAUNCH(scatter_first_kernel<Int>, grid_for(n), kBlock)(dp, n, dst_size, doff, writer, first);
    });
    TFSPEC_LAUNCH(scatter_collision_kernel, grid_for(n), kBlock)(n, doff, writer, first);
    TFSPEC_LAUNCH(scatter_write_kernel, grid_for(n), kBlock)(n, doff, dv, ddst);
  });
  return s.r;
}

Result time_reshard_runs(const RunJob& j, int reps, float& ms) {
  Session s;
  const ShardPlan* dsp = upload_shard(s, j.src, j.src_instances);
  const ShardPlan* ddp = upload_shard(s, j.dst, j.dst_instances);
  int64_t* dsrc = s.alloc<int64_t>(j.src_size);
  int64_t* ddst = s.alloc<int64_t>(j.dst_size);
  Key* first = s.error_slot();
  if (dsrc) s.check(cudaMemset(dsrc, 0, static_cast<size_t>(j.src_size) * sizeof(int64_t)));
  const RunChunks rc = make_run_chunks(j.n, j.run);
  time_launches(s, first, reps, ms, [&] { TFSPEC_LAUNCH(reshard_runs_kernel, grid_for(rc.total), kBlock)(dsp, dsrc, ddp, ddst, rc, first); });
  return s.r;
}

Result time_memcpy(int64_t bytes, int reps, float& ms) {
  Session s;
  char* x = s.alloc<char>(bytes);
  char* y = s.alloc<char>(bytes);
  cudaEvent_t a, b;
  if (s.r.cuda_error || !s.check(cudaEventCreate(&a)) || !s.check(cudaEventCreate(&b))) return s.r;
  s.check(cudaMemcpy(y, x, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice));  // warm-up
  s.check(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) s.check(cudaMemcpyAsync(y, x, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice));
  s.check(cudaEventRecord(b));
  s.check(cudaDeviceSynchronize());
  s.check(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return s.r;
}

std::string kernel_report() {
  std::string out;
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "no CUDA device";
  out += std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " + std::to_string(prop.maxThreadsPerMultiProcessor) +
         " threads/SM, block " + std::to_string(kBlock) + "\n";
  auto row = [&](const char* name, const void* fn) {
    cudaFuncAttributes at{};
    int blocks = 0;
    if (cudaFuncGetAttributes(&at, fn) != cudaSuccess || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, kBlock, 0) != cudaSuccess) {
      out += std::string(name) + ": " + cudaGetErrorName(cudaGetLastError()) + "\n";
      return;
    }
    const double occ = static_cast<double>(blocks * kBlock) / prop.maxThreadsPerMultiProcessor;
    out += std::string(name) + ": " + std::to_string(at.numRegs) + " registers, " + std::to_string(at.localSizeBytes) + " B local, " +
           std::to_string(blocks) + " blocks/SM, occupancy " + std::to_string(static_cast<int>(occ * 100 + 0.5)) + "%\n";
  };
  row("offsets_kernel<int32>", reinterpret_cast<const void*>(offsets_kernel<int32_t>));
  row("offsets_kernel<int64>", reinterpret_cast<const void*>(offsets_kernel<int64_t>));
  row("offsets_kernel<checked>", reinterpret_cast<const void*>(offsets_kernel<Checked>));
  row("gather_kernel<int32>", reinterpret_cast<const void*>(gather_kernel<int32_t>));
  row("gather_kernel<int64>", reinterpret_cast<const void*>(gather_kernel<int64_t>));
  row("scatter_first_kernel<int32>", reinterpret_cast<const void*>(scatter_first_kernel<int32_t>));
  row("crd2idx_kernel", reinterpret_cast<const void*>(crd2idx_kernel));
  row("assemble_kernel", reinterpret_cast<const void*>(assemble_kernel));
  row("distribute_kernel", reinterpret_cast<const void*>(distribute_kernel));
  row("reshard_runs_kernel", reinterpret_cast<const void*>(reshard_runs_kernel));
  return out;
}

const KernelApi& api() {
  static const KernelApi a{&probe,  &offsets,        &crd2idx,      &gather,      &scatter,           &assemble,    &distribute,
                           &reshard_runs, &time_offsets, &time_memcpy, &time_gather, &time_reshard_runs, &time_scatter, &kernel_report};
  return a;
}

}  // namespace tfspec::gpu::cuda::TFSPEC_KERNELS_NS
