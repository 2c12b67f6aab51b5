// The emulated grid's runtime (cuda_emu.hpp): host memory for device memory, the sticky error of
// a fault, events on steady_clock, and the seeded schedule of every launch.
#include "cuda_emu.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cuda_kernels.hpp"

namespace tfspec::gpu::cuda_emu {
namespace {

// One emulated context per host thread; every backend operation starts a fresh one (begin_op).
struct State {
  cudaError_t last = cudaSuccess;    // cudaGetLastError
  cudaError_t sticky = cudaSuccess;  // a fault inside a kernel: every later call reports it
  uint64_t op_seed = 0;
  uint64_t launches = 0;
  bool small_grids = true;
};
thread_local State state;

cudaError_t note(cudaError_t e) {
  if (e != cudaSuccess) state.last = e;
  return state.sticky != cudaSuccess ? state.sticky : e;
}

void shuffle(unsigned* v, unsigned n, uint64_t seed) {  // Fisher-Yates
  for (unsigned i = n; i > 1; --i) {
    seed = mix(seed, i);
    std::swap(v[i - 1], v[seed % i]);
  }
}

}  // namespace

void begin_op(uint64_t seed, uint64_t op, bool small_grids) {
  state = State{};
  state.op_seed = mix(seed, op);
  state.small_grids = small_grids;
}

void device_fault(cudaError_t e) {
  if (state.sticky == cudaSuccess) state.sticky = e;
  state.last = e;
}

// The device accepts grid.x up to 2^31 - 1 and 1024 threads a block; the kernels here launch 1-D
// grids only, so a 2-D or 3-D launch is refused as a configuration the emulator does not run.
Schedule plan_launch(dim3 grid, dim3 block, uint64_t args_hash) {
  Schedule s;
  if (state.sticky != cudaSuccess) return s;  // a faulted context runs nothing more
  if (grid.x == 0 || grid.x > 2147483647u || block.x == 0 || block.x > 1024 || grid.y * grid.z * block.y * block.z != 1) {
    state.last = cudaErrorInvalidConfiguration;
    return s;
  }
  // The grid-stride stand-in (cuda_emu.hpp): a launch of at least `from` blocks (2, 3 or 4, drawn
  // per operation and launch) runs on 1 to 3 blocks, fewer than it asked for; smaller launches run
  // the device's grid. A threshold, not a coin per size, so that a shrinking fuzzer keeps the
  // stand-in while it makes a case smaller.
  const uint64_t launch = mix(state.op_seed, state.launches++);
  s.seed = mix(mix(launch, (uint64_t{grid.x} << 32) | block.x), args_hash);
  s.grid = grid.x;
  s.block = block.x;
  const unsigned from = 2 + static_cast<unsigned>(mix(launch, 1) % 3);
  if (state.small_grids && grid.x >= from) s.grid = 1 + static_cast<unsigned>(mix(launch, 2) % std::min(grid.x - 1, 3u));
  s.blocks.resize(s.grid);
  for (unsigned b = 0; b < s.grid; ++b) s.blocks[b] = b;
  shuffle(s.blocks.data(), s.grid, mix(s.seed, 3));
  s.ok = true;
  return s;
}

void thread_order(const Schedule& s, unsigned b, unsigned* order) {
  for (unsigned t = 0; t < s.block; ++t) order[t] = t;
  shuffle(order, s.block, mix(s.seed, uint64_t{b} + 4));
}

// ---- runtime API
cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int) {
  std::snprintf(prop->name, sizeof prop->name, "%s", "emulated grid (host)");
  prop->multiProcessorCount = 1;
  prop->maxThreadsPerMultiProcessor = 2048;
  return cudaSuccess;
}
cudaError_t cudaMalloc(void** p, size_t bytes) {
  const size_t size = (bytes + 255) / 256 * 256;
  *p = std::aligned_alloc(256, size < 256 ? 256 : size);
  if (*p) std::memset(*p, 0xa5, size);  // device memory starts undefined: a fixed pattern, so a slot never written shows
  return note(*p ? cudaSuccess : cudaErrorMemoryAllocation);
}
cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  if (state.sticky == cudaSuccess && bytes > 0) std::memcpy(dst, src, bytes);
  return note(cudaSuccess);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) { return cudaMemcpy(dst, src, bytes, kind); }
cudaError_t cudaMemset(void* p, int value, size_t bytes) {
  if (state.sticky == cudaSuccess && bytes > 0) std::memset(p, value, bytes);
  return note(cudaSuccess);
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes) { return cudaMemset(p, value, bytes); }
cudaError_t cudaGetLastError() {
  const cudaError_t e = state.last;
  state.last = state.sticky;
  return e;
}
cudaError_t cudaDeviceSynchronize() { return state.sticky; }

}  // namespace tfspec::gpu::cuda_emu

struct tfspec::gpu::cuda_emu::EmuEvent {
  std::chrono::steady_clock::time_point at;
};

namespace tfspec::gpu::cuda_emu {

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new EmuEvent{};
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e) {
  e->at = std::chrono::steady_clock::now();
  return note(cudaSuccess);
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return note(cudaSuccess);
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
// No registers or occupancy to report on the host: zeros, and the block's threads resident.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void*) {
  *a = cudaFuncAttributes{0, 0};
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void*, int block, size_t) {
  *blocks = block > 0 ? 2048 / block : 0;
  return cudaSuccess;
}

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
  }
  return "cudaErrorUnknown";
}
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument (the emulated grid runs 1-D launches of 1 to 1024 threads a block)";
    case cudaErrorMisalignedAddress: return "misaligned address (a 128-bit access not 16-byte aligned, emulated grid)";
  }
  return "unknown error";
}

}  // namespace tfspec::gpu::cuda_emu
