// The operations of the optimized implementation, behind one interface with two backends: the
// host backend (threads over the index core) and the CUDA backend (kernels over the same core).
// Every refusal is a SpecError with a catalogue rule id; an element-level failure is reported
// for the smallest element index it happens at, as the reference's in-order loops report it.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/gpu/plan.hpp"

namespace tfspec::gpu {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // nullopt when usable; otherwise why not (the CUDA error's name and text).
  virtual std::optional<std::string> unavailable() const = 0;

  // offsets[i] = L(i) for i in [0, size(L)) (§3, §4); offsets_into writes domain_size values.
  virtual void offsets_into(const FnPlan& p, int64_t* out) = 0;
  std::vector<int64_t> offsets(const FnPlan& p) {
    std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
    offsets_into(p, out.data());
    return out;
  }
  // out[j] = L(coords[j]) for flat coordinates (domain_rank values each).
  virtual std::vector<int64_t> crd2idx(const FnPlan& p, const std::vector<int64_t>& coords) = 0;
  // out[i] = src[L(i)]; an offset outside src is engine-offset-negative / engine-buffer-size.
  virtual std::vector<int64_t> gather(const FnPlan& p, const std::vector<int64_t>& src) = 0;
  // dst (dst_size zeros) with dst[L(i)] = values[i]; two indices on one offset: layout-injective.
  virtual std::vector<int64_t> scatter(const FnPlan& p, const std::vector<int64_t>& values, int64_t dst_size) = 0;
  // reshard = distribute(assemble(src), dst) over real buffers (src.storage must be the plan's).
  virtual Engines reshard(const ReshardPlan& p, const Engines& src) = 0;
};

std::unique_ptr<Backend> make_host_backend(int threads = 0);  // 0: hardware concurrency
std::unique_ptr<Backend> make_cuda_backend();                  // reports unavailable() without a device
bool cuda_compiled();                                          // built with nvcc

// Device-side timings for the benchmarks (seconds per repetition, measured with CUDA events on
// device-resident buffers): the offset-table kernel, and cudaMemcpy device-to-device of `bytes`.
// Throw cuda-error without a usable device.
double cuda_offsets_seconds(const FnPlan& p, int reps);
double cuda_memcpy_seconds(int64_t bytes, int reps);
// The gather kernel over a source of src_size zeros, and the contiguous-run reshard kernel
// (rp.run > 1) over zeroed source engines (Broadcast replicas agree, so every chunk is copied whole).
double cuda_gather_seconds(const FnPlan& p, int64_t src_size, int reps);
double cuda_reshard_runs_seconds(const ReshardPlan& rp, int reps);
// The whole scatter (first writers, collision check, writes) of zeros into dst_size slots.
double cuda_scatter_seconds(const FnPlan& p, int64_t dst_size, int reps);
// Registers, local memory and occupancy of every kernel on the current device, one per line
// (or why there is no device).
std::string cuda_kernel_report();

// Engine buffers packed into one array: base/size per engine id (base -1: no buffer).
struct PackedEngines {
  std::vector<int64_t> base, size, data;
};
PackedEngines pack_source(const HostShardPlan& src, const Engines& engines);
PackedEngines layout_destination(const HostShardPlan& dst);
Engines unpack_destination(const HostShardPlan& dst, const PackedEngines& packed);

}  // namespace tfspec::gpu
