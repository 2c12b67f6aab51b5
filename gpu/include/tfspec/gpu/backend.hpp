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
  // reshard = distribute(assemble(src), dst) (§7.4) over flat, caller-owned buffers: the source
  // engines laid out in `src` by src_layout (src_layout.total elements: e.g. p.src.packed, or
  // packed_layout(p.src, engines) for buffers of other sizes), the destination in `dst` by the
  // plan's p.dst->packed (p.dst->packed.total elements). Every slot an element maps to is
  // written; the others (holes of a shared form) are left as they are: zero them for the
  // reference's engines. Refusals as `reshard`; dst may be null when p.dst is empty (a dst
  // refusal, raised after the source assembled).
  virtual void reshard_packed(const ReshardPlan& p, const PackedLayout& src_layout, const int64_t* src, int64_t* dst) = 0;
  // The same over engine maps (src.storage must be the plan's): packs the source, runs
  // reshard_packed into a zeroed destination and unpacks it.
  Engines reshard(const ReshardPlan& p, const Engines& src);
};

std::unique_ptr<Backend> make_host_backend(int threads = 0);  // 0: hardware concurrency
std::unique_ptr<Backend> make_cuda_backend();                  // reports unavailable() without a device
bool cuda_compiled();                                          // built with nvcc
// `cuda-emu` (issue 23): the CUDA backend's kernel source (cuda_kernels.cu) compiled by the host
// compiler and run on an emulated grid: the device's grid and block sizes, blocks and threads in
// a seeded random order, 128-bit accesses checked for alignment (gpu/src/cuda_emu.hpp). Always
// available. small_grids: about one launch in two of several blocks runs on 1-3 blocks, so the
// grid-stride loops iterate as they do on the device past 2^27 threads.
struct EmuOptions {
  uint64_t seed = 1;
  bool small_grids = true;
};
std::unique_ptr<Backend> make_cuda_emu_backend(const EmuOptions& emu = {});
// The backends by name: host, cuda, cuda-emu (nullptr for any other name).
const std::vector<std::string>& backend_names();
std::unique_ptr<Backend> make_backend(const std::string& name);

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

// Engine maps <-> packed arrays. packed_layout: the given buffers back to back in engine id
// order, at their own sizes (a source may differ from the plan's sizes: engine-buffer-size);
// ids the plan has no entry for are left out. pack: the engines into such a layout (engines in
// ascending id order). unpack: side.packed's engines out of `data`.
PackedLayout packed_layout(const HostShardPlan& side, const Engines& engines);
std::vector<int64_t> pack(const PackedLayout& layout, const Engines& engines);
Engines unpack(const HostShardPlan& side, const int64_t* data);

}  // namespace tfspec::gpu
