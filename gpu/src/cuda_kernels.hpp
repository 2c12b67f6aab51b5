// The CUDA side, behind a plain C++ interface so that only cuda_kernels.cu goes through nvcc
// (it includes the index core and nothing of the reference). Each call copies in, runs, copies
// out and frees; `Result` carries the CUDA error (by name) or the first failing element.
// The kernel source is compiled twice (issue 23): by nvcc for the device (cuda::device::api(),
// with TFSPEC_HAVE_CUDA) and by the host compiler for the emulated grid (cuda::emulated::api(),
// always); both fill one KernelApi, the table the CUDA backend runs.
#pragma once
#include <cstdint>
#include <string>

#include "tfspec/gpu/core.hpp"

namespace tfspec::gpu::cuda {

struct Result {
  int cuda_error = 0;           // cudaError_t; 0 = cudaSuccess
  std::string error_name;       // cudaGetErrorName
  std::string error_text;       // cudaGetErrorString
  int64_t first_index = -1;     // the smallest failing element, -1 if none
  Status status = kOk;
};

// Reshard over a common contiguous run (ReshardPlan::run > 1, valid dst): src / dst are the packed
// engine buffers (dst laid out and zeroed by the caller); distribute failures come back with
// first_index = n + element.
struct RunJob {
  ShardPlan src, dst;  // table pointers: host arrays
  int64_t src_instances = 0, dst_instances = 0, src_size = 0, dst_size = 0, n = 0, run = 1;
};

struct KernelApi {
  // cudaGetDeviceCount; an error or zero devices fills the name (zero: "no CUDA device").
  Result (*probe)(int& device_count);
  Result (*offsets)(const FnPlan& p, int64_t* out);
  Result (*crd2idx)(const FnPlan& p, const int64_t* coords, int64_t n, int64_t* out);
  Result (*gather)(const FnPlan& p, const int64_t* src, int64_t src_size, int64_t* out);
  Result (*scatter)(const FnPlan& p, const int64_t* values, int64_t* dst, int64_t dst_size);
  // Engine tables are host arrays of sp.num_engine_ids entries (instance table: `instances`).
  Result (*assemble)(const ShardPlan& sp, int64_t instances, const int64_t* data, int64_t data_size, int64_t n, int64_t* x);
  Result (*distribute)(const ShardPlan& sp, int64_t instances, int64_t* data, int64_t data_size, int64_t n, const int64_t* x);
  Result (*reshard_runs)(const RunJob& j, const int64_t* src, int64_t* dst);
  // For the benchmarks: device-resident offset table of n elements, timed on the device (ms),
  // and a device-to-device copy of the same bytes for the bandwidth baseline; gather over a
  // source of src_size zeros, scatter of zeros, the run reshard over zeroed sources.
  Result (*time_offsets)(const FnPlan& p, int reps, float& ms);
  Result (*time_memcpy)(int64_t bytes, int reps, float& ms);
  Result (*time_gather)(const FnPlan& p, int64_t src_size, int reps, float& ms);
  Result (*time_reshard_runs)(const RunJob& j, int reps, float& ms);
  Result (*time_scatter)(const FnPlan& p, int64_t dst_size, int reps, float& ms);
  // Per kernel: registers, local memory, resident blocks per SM and occupancy at the launch block
  // size (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor).
  std::string (*kernel_report)();
};
namespace device {
const KernelApi& api();  // nvcc's build, on the device (only with TFSPEC_HAVE_CUDA)
}
namespace emulated {
const KernelApi& api();  // the host compiler's build, on the emulated grid (cuda_emu.hpp)
}

}  // namespace tfspec::gpu::cuda

namespace tfspec::gpu::cuda_emu {
// Starts an emulated operation: a fresh context (no sticky fault) and the seed its launch
// schedules derive from (the backend's seed and the operation's kind); small_grids: the
// grid-stride stand-in of cuda_emu.hpp.
void begin_op(uint64_t seed, uint64_t op, bool small_grids);
}  // namespace tfspec::gpu::cuda_emu
