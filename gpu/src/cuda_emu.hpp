// The emulated grid (issue 23): what cuda_kernels.cu needs of <cuda_runtime.h> and of the device's
// built-ins, for a plain C++ compiler, so the kernel source itself runs on the host. Included by
// the kernel source in place of <cuda_runtime.h> when TFSPEC_CUDA_EMU is defined (cuda_emu_kernels.cpp);
// nothing else includes it.
//
// - Qualifiers (__global__, __device__, __host__, __forceinline__) are plain host functions.
// - threadIdx / blockIdx / blockDim / gridDim are per emulated thread (thread_local: the host
//   thread running the grid sets them before each emulated thread runs).
// - The launcher runs the whole grid with the grid and block sizes of the launch, blocks in a
//   seeded random order and, within a block, threads in a seeded random order. The kernels have
//   no barrier and no shared memory, so each emulated thread runs to completion: any order is a
//   schedule the device may pick, and an order-dependent result (a race on the output) shows as a
//   disagreement. __syncthreads / __shared__ are left undefined on purpose: a kernel that adds a
//   barrier fails to compile here until the launcher runs a block as cooperating fibers.
// - Stand-in for large inputs: a grid-stride loop iterates on the device only past 2^27 threads
//   (the grid is capped at 65535 * 8 blocks), far beyond what a fuzz case holds. So, seeded, about
//   one launch in two of more than one block runs on 1 to 3 blocks instead (every kernel here is a
//   grid-stride loop, correct for any grid), which makes the loop iterate as it would there.
// - Atomics through std::atomic_ref; longlong2 loads and stores check 16-byte alignment (a
//   misaligned one is the device's cudaErrorMisalignedAddress, sticky, as on the device).
// - Memory is host memory (256-byte aligned, as cudaMalloc's); events time with steady_clock.
#pragma once
#if defined(__CUDACC__)
#error "cuda_emu.hpp stands in for cuda_runtime.h on a host compiler; nvcc uses the real one"
#endif
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

namespace tfspec::gpu::cuda_emu {

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};

// The built-in variables of the emulated thread now running.
inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

// ---- runtime (cuda_emu.cpp)
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorMisalignedAddress = 716,
};
enum cudaMemcpyKind : int { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
using cudaEvent_t = struct EmuEvent*;
struct cudaDeviceProp {
  char name[64];
  int multiProcessorCount;
  int maxThreadsPerMultiProcessor;
};
struct cudaFuncAttributes {
  int numRegs;
  size_t localSizeBytes;
};

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaMalloc(void** p, size_t bytes);
cudaError_t cudaFree(void* p);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* p, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes);
cudaError_t cudaGetLastError();       // the last error, then clears it (a sticky one stays)
cudaError_t cudaDeviceSynchronize();  // the sticky error, if any
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventRecord(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* fn);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* fn, int block, size_t shared);
const char* cudaGetErrorName(cudaError_t e);
const char* cudaGetErrorString(cudaError_t e);

// A fault inside a kernel (sticky until the next operation begins: begin_op).
void device_fault(cudaError_t e);

// The schedule of one launch: the grid actually run, the order of its blocks, and a seed per
// block for the order of its threads. Derived from the operation's seed (begin_op), the launch's
// number within the operation, its sizes and its integer arguments, so a case replays exactly.
struct Schedule {
  unsigned grid = 1, block = 1;
  uint64_t seed = 0;
  std::vector<unsigned> blocks;  // the order the blocks run in
  bool ok = false;               // false: a bad configuration (cudaErrorInvalidConfiguration recorded)
};
Schedule plan_launch(dim3 grid, dim3 block, uint64_t args_hash);
void thread_order(const Schedule& s, unsigned b, unsigned* order);  // a permutation of [0, block)
inline uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64 of h ^ v
  uint64_t z = (h ^ v) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class... P>
struct Launcher {
  dim3 grid, block;
  void (*kernel)(P...);
  template <class... A>
  void operator()(A... args) const {
    uint64_t h = 0;
    ((h = mix(h, args_bits(args))), ...);
    const Schedule s = plan_launch(grid, block, h);
    if (!s.ok) return;
    unsigned order[1024];
    gridDim = dim3(s.grid);
    blockDim = dim3(s.block);
    for (unsigned k = 0; k < s.grid; ++k) {
      blockIdx = uint3{s.blocks[k], 0, 0};
      thread_order(s, blockIdx.x, order);
      for (unsigned t = 0; t < s.block; ++t) {
        threadIdx = uint3{order[t], 0, 0};
        kernel(args...);
      }
    }
  }
  template <class A>
  static uint64_t args_bits(A a) {
    if constexpr (std::is_integral_v<A>) return static_cast<uint64_t>(a);
    else return 0;
  }
};
template <class... P>
Launcher<P...> launcher(dim3 grid, dim3 block, void (*kernel)(P...)) {
  return Launcher<P...>{grid, block, kernel};
}

// ---- device built-ins
inline unsigned long long atomicMin(unsigned long long* at, unsigned long long v) {
  std::atomic_ref<unsigned long long> a(*at);
  unsigned long long cur = a.load(std::memory_order_relaxed);
  while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
  return cur;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}

// A 128-bit vector: copies go through memcpy (the memory holds int64_t), and an address that is
// not 16-byte aligned faults as on the device (the copy is then not made). The emulator checks
// alignment itself, so its own members are exempt from UBSan's alignment check.
#define TFSPEC_EMU_UNALIGNED_OK __attribute__((no_sanitize("alignment")))
struct alignas(16) longlong2 {
  long long x = 0, y = 0;
  longlong2() = default;
  longlong2(long long a, long long b) : x(a), y(b) {}
  TFSPEC_EMU_UNALIGNED_OK longlong2(const longlong2& o) { load(&o); }
  TFSPEC_EMU_UNALIGNED_OK longlong2& operator=(const longlong2& o) {
    if (aligned(this) && aligned(&o)) std::memcpy(static_cast<void*>(this), static_cast<const void*>(&o), sizeof(longlong2));
    return *this;
  }

 private:
  TFSPEC_EMU_UNALIGNED_OK void load(const longlong2* o) {
    if (aligned(o)) std::memcpy(static_cast<void*>(this), static_cast<const void*>(o), sizeof(longlong2));
  }
  static bool aligned(const void* p) {
    // The type promises 16-byte alignment, so an optimizer may fold this test to true (clang -O1
    // does); the empty asm hides the address's origin and keeps the test.
    uintptr_t address = reinterpret_cast<uintptr_t>(p);
    __asm__("" : "+r"(address));
    if ((address & 15) == 0) return true;
    device_fault(cudaErrorMisalignedAddress);
    return false;
  }
};
inline longlong2 make_longlong2(long long a, long long b) { return longlong2(a, b); }

}  // namespace tfspec::gpu::cuda_emu

// The kernel source names the built-ins and the runtime unqualified, as CUDA declares them.
using namespace tfspec::gpu::cuda_emu;

#define TFSPEC_LAUNCH(kernel, grid, block) ::tfspec::gpu::cuda_emu::launcher(grid, block, kernel)
