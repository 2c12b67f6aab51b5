// The CUDA backend: the Backend interface over cuda_kernels.cu, on a device (`cuda`) or on the
// emulated grid (`cuda-emu`, the same kernel source compiled for the host: issue 23). Built
// without nvcc, or run without a usable device, `cuda` reports why (the CUDA error's name) and
// runs nothing; `cuda-emu` is always available.
#include "kernel_backend.hpp"

namespace tfspec::gpu {

bool cuda_compiled() {
#ifdef TFSPEC_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

namespace {

// A CUDA failure (never a wrong answer): the error by name; an element failure: its rule.
void check(const cuda::Result& r, const char* what) {
  if (r.cuda_error != 0) fail(rule::kCudaError, std::string(what) + ": " + r.error_name + ": " + r.error_text);
  if (r.first_index >= 0) raise_status(r.status, r.first_index, what);
}

// The run kernel's job: both plans with their (host) engine tables bound to the packed layouts.
cuda::RunJob run_job(const ReshardPlan& rp, const PackedLayout& src_layout) {
  cuda::RunJob j;
  j.src = bind_engines(rp.src.plan, src_layout);
  j.dst = bind_engines(rp.dst->plan, rp.dst->packed);
  j.src_instances = static_cast<int64_t>(rp.src.engine_of_instance.size());
  j.dst_instances = static_cast<int64_t>(rp.dst->engine_of_instance.size());
  j.src_size = src_layout.total;
  j.dst_size = rp.dst->packed.total;
  j.n = rp.size;
  j.run = rp.run;
  return j;
}

// Seeds of the emulated operations: one per operation kind, so that a case replays exactly.
enum Op : uint64_t { kOpOffsets = 1, kOpCrd2idx, kOpGather, kOpScatter, kOpReshard };

class KernelBackend final : public Backend {
 public:
  KernelBackend(const cuda::KernelApi* api, std::string name, std::optional<EmuOptions> emu)
      : api_(api), name_(std::move(name)), emu_(emu) {
    if (!api_) {
      why_ = "tfspec was built without nvcc (TFSPEC_HAVE_CUDA is OFF)";
      return;
    }
    int count = 0;
    cuda::Result r = api_->probe(count);
    if (r.cuda_error != 0) why_ = r.error_name + " (" + r.error_text + ")";
  }
  std::string name() const override { return name_; }
  std::optional<std::string> unavailable() const override { return why_; }

  void offsets_into(const FnPlan& p, int64_t* out) override {
    begin(kOpOffsets);
    check(api_->offsets(p, out), "offsets");
  }
  std::vector<int64_t> crd2idx(const FnPlan& p, const std::vector<int64_t>& coords) override {
    begin(kOpCrd2idx);
    const int64_t n = p.domain_rank == 0 ? static_cast<int64_t>(coords.size()) : static_cast<int64_t>(coords.size()) / p.domain_rank;
    std::vector<int64_t> out(static_cast<size_t>(n));
    check(api_->crd2idx(p, coords.data(), n, out.data()), "crd2idx");
    return out;
  }
  std::vector<int64_t> gather(const FnPlan& p, const std::vector<int64_t>& src) override {
    begin(kOpGather);
    std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
    check(api_->gather(p, src.data(), static_cast<int64_t>(src.size()), out.data()), "gather");
    return out;
  }
  std::vector<int64_t> scatter(const FnPlan& p, const std::vector<int64_t>& values, int64_t dst_size) override {
    begin(kOpScatter);
    std::vector<int64_t> dst(static_cast<size_t>(std::max<int64_t>(dst_size, 0)));
    check(api_->scatter(p, values.data(), dst.data(), dst_size), "scatter");
    return dst;
  }
  void reshard_packed(const ReshardPlan& rp, const PackedLayout& src_layout, const int64_t* src, int64_t* dst) override {
    begin(kOpReshard);
    if (rp.run > 1 && rp.dst) {  // one pass over common contiguous runs, 128-bit copies
      cuda::Result r = api_->reshard_runs(run_job(rp, src_layout), src, dst);
      const bool late = r.cuda_error == 0 && r.first_index >= rp.size;
      if (late) r.first_index -= rp.size;
      check(r, late ? "reshard (distribute)" : "reshard (assemble)");
      return;
    }
    const ShardPlan sp = bind_engines(rp.src.plan, src_layout);
    std::vector<int64_t> x(static_cast<size_t>(rp.size));
    check(api_->assemble(sp, static_cast<int64_t>(rp.src.engine_of_instance.size()), src, src_layout.total, rp.size, x.data()),
          "reshard (assemble)");
    if (rp.dst_error) throw SpecError(*rp.dst_error);
    const ShardPlan dp = bind_engines(rp.dst->plan, rp.dst->packed);
    check(api_->distribute(dp, static_cast<int64_t>(rp.dst->engine_of_instance.size()), dst, rp.dst->packed.total, rp.size, x.data()),
          "reshard (distribute)");
  }

 private:
  void begin(Op op) const {
    if (why_) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why_);
    if (emu_) cuda_emu::begin_op(emu_->seed, op, emu_->small_grids);
  }
  const cuda::KernelApi* api_;
  std::string name_;
  std::optional<EmuOptions> emu_;
  std::optional<std::string> why_;
};

const cuda::KernelApi* device_api() {
#ifdef TFSPEC_HAVE_CUDA
  return &cuda::device::api();
#else
  return nullptr;
#endif
}

// The device's API for the timings, or a cuda-error saying why there is none.
const cuda::KernelApi& usable_device() {
  if (auto why = make_cuda_backend()->unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
  return *device_api();
}

}  // namespace

std::unique_ptr<Backend> make_kernel_backend(const cuda::KernelApi& api, const std::string& name, const EmuOptions& emu) {
  return std::make_unique<KernelBackend>(&api, name, emu);
}
std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<KernelBackend>(device_api(), "cuda", std::nullopt); }
std::unique_ptr<Backend> make_cuda_emu_backend(const EmuOptions& emu) {
  return std::make_unique<KernelBackend>(&cuda::emulated::api(), "cuda-emu", emu);
}

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = {"host", "cuda", "cuda-emu"};
  return names;
}
std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "host") return make_host_backend();
  if (name == "cuda") return make_cuda_backend();
  if (name == "cuda-emu") return make_cuda_emu_backend();
  return nullptr;
}

double cuda_offsets_seconds(const FnPlan& p, int reps) {
  float ms = 0;
  check(usable_device().time_offsets(p, reps, ms), "offsets (timed)");
  return ms / 1000.0 / reps;
}

double cuda_gather_seconds(const FnPlan& p, int64_t src_size, int reps) {
  float ms = 0;
  check(usable_device().time_gather(p, src_size, reps, ms), "gather (timed)");
  return ms / 1000.0 / reps;
}

double cuda_scatter_seconds(const FnPlan& p, int64_t dst_size, int reps) {
  float ms = 0;
  check(usable_device().time_scatter(p, dst_size, reps, ms), "scatter (timed)");
  return ms / 1000.0 / reps;
}

double cuda_reshard_runs_seconds(const ReshardPlan& rp, int reps) {
  const cuda::KernelApi& api = usable_device();
  if (rp.run <= 1 || !rp.dst) fail(rule::kUsage, "cuda_reshard_runs_seconds: the plan has no common contiguous run");
  // source and destination live on the device only (the source zeroed there): no host buffers
  float ms = 0;
  check(api.time_reshard_runs(run_job(rp, rp.src.packed), reps, ms), "reshard (timed)");
  return ms / 1000.0 / reps;
}

std::string cuda_kernel_report() {
  if (auto why = make_cuda_backend()->unavailable()) return "no usable CUDA device: " + *why;
  return device_api()->kernel_report();
}

double cuda_memcpy_seconds(int64_t bytes, int reps) {
  float ms = 0;
  check(usable_device().time_memcpy(bytes, reps, ms), "cudaMemcpy (timed)");
  return ms / 1000.0 / reps;
}

}  // namespace tfspec::gpu
