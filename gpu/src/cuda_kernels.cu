// CUDA kernels over the index core: one thread per element (grid-stride), the first failing
// element found with atomicMin on (index << 4 | status).
#include <cuda_runtime.h>

#include <vector>

#include "cuda_kernels.hpp"

namespace tfspec::gpu::cuda {
namespace {

using Key = unsigned long long;
constexpr Key kNoError = ~Key{0};
constexpr int kBlock = 256;

__device__ void record(Key* first, int64_t i, Status st) { atomicMin(first, (static_cast<Key>(i) << 4) | st); }

int grid_for(int64_t n) {
  int64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<int>(blocks < 1 ? 1 : blocks > 65535 * 8 ? 65535 * 8 : blocks);
}

#define FOR_EACH(i, n) for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < (n); i += int64_t{gridDim.x} * blockDim.x)

template <class Int>
__global__ void offsets_kernel(const FnPlan* __restrict__ p, int64_t n, int64_t* out, Key* first) {
  FOR_EACH(i, n) {
    Int v = 0;
    Status st = eval_stages<Int>(*p, 0, static_cast<Int>(i), v);
    if (st != kOk) record(first, i, st);
    else out[i] = v;
  }
}
__global__ void offsets_checked_kernel(const FnPlan* __restrict__ p, int64_t n, int64_t* out, Key* first) {
  FOR_EACH(i, n) {
    Status st = eval_index(*p, i, out[i]);
    if (st != kOk) record(first, i, st);
  }
}
__global__ void crd2idx_kernel(const FnPlan* __restrict__ p, const int64_t* crd, int64_t n, int64_t* out, Key* first) {
  FOR_EACH(j, n) {
    Status st = eval_coord(*p, crd + j * p->domain_rank, out[j]);
    if (st != kOk) record(first, j, st);
  }
}
__device__ Status bounded(const FnPlan& p, int64_t i, int64_t size, int64_t& off) {
  Status st = eval_index(p, i, off);
  if (st == kOk && off < 0) st = kOffsetNegative;
  if (st == kOk && off >= size) st = kEngineBufferSize;
  return st;
}
__global__ void gather_kernel(const FnPlan* __restrict__ p, const int64_t* src, int64_t size, int64_t* out, Key* first) {
  FOR_EACH(i, p->domain_size) {
    int64_t off = 0;
    Status st = bounded(*p, i, size, off);
    if (st != kOk) record(first, i, st);
    else out[i] = src[off];
  }
}
__global__ void scatter_first_kernel(const FnPlan* __restrict__ p, int64_t size, int64_t* off, Key* writer, Key* first) {
  FOR_EACH(i, p->domain_size) {
    Status st = bounded(*p, i, size, off[i]);
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

Result offsets(const FnPlan& p, int64_t* out) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  int64_t* dout = s.alloc<int64_t>(p.domain_size);
  Key* first = s.error_slot();
  if (s.r.cuda_error) return s.r;
  const int g = grid_for(p.domain_size);
  if (p.mode == kIndex32) offsets_kernel<int32_t><<<g, kBlock>>>(dp, p.domain_size, dout, first);
  else if (p.mode == kIndex64) offsets_kernel<int64_t><<<g, kBlock>>>(dp, p.domain_size, dout, first);
  else offsets_checked_kernel<<<g, kBlock>>>(dp, p.domain_size, dout, first);
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
  crd2idx_kernel<<<grid_for(n), kBlock>>>(dp, dc, n, dout, first);
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
  gather_kernel<<<grid_for(p.domain_size), kBlock>>>(dp, dsrc, src_size, dout, first);
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
  scatter_first_kernel<<<grid_for(n), kBlock>>>(dp, dst_size, doff, writer, first);
  s.finish(first);
  const int64_t limit = s.r.first_index < 0 ? n : s.r.first_index;
  scatter_collision_kernel<<<grid_for(limit), kBlock>>>(limit, doff, writer, first);
  s.finish(first);
  if (s.r.first_index >= 0 || s.r.cuda_error) return s.r;
  scatter_write_kernel<<<grid_for(n), kBlock>>>(n, doff, dv, ddst);
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
  assemble_kernel<<<grid_for(n), kBlock>>>(dsp, dd, n, dx, first);
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
  distribute_kernel<<<grid_for(n), kBlock>>>(dsp, dd, n, dx, first);
  s.finish(first);
  s.download(data, dd, data_size);
  return s.r;
}

Result time_offsets(const FnPlan& p, int reps, float& ms) {
  Session s;
  const FnPlan* dp = s.upload(&p, 1);
  int64_t* dout = s.alloc<int64_t>(p.domain_size);
  Key* first = s.error_slot();
  cudaEvent_t a, b;
  if (s.r.cuda_error || !s.check(cudaEventCreate(&a)) || !s.check(cudaEventCreate(&b))) return s.r;
  const int g = grid_for(p.domain_size);
  s.check(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) {
    if (p.mode == kIndex32) offsets_kernel<int32_t><<<g, kBlock>>>(dp, p.domain_size, dout, first);
    else offsets_kernel<int64_t><<<g, kBlock>>>(dp, p.domain_size, dout, first);
  }
  s.check(cudaEventRecord(b));
  s.finish(first);
  s.check(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return s.r;
}

Result time_memcpy(int64_t bytes, int reps, float& ms) {
  Session s;
  char* x = s.alloc<char>(bytes);
  char* y = s.alloc<char>(bytes);
  cudaEvent_t a, b;
  if (s.r.cuda_error || !s.check(cudaEventCreate(&a)) || !s.check(cudaEventCreate(&b))) return s.r;
  s.check(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) s.check(cudaMemcpy(y, x, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice));
  s.check(cudaEventRecord(b));
  s.check(cudaDeviceSynchronize());
  s.check(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return s.r;
}

}  // namespace tfspec::gpu::cuda
