// The CUDA backend: the Backend interface over cuda_kernels.cu. Built without nvcc, or run
// without a usable device, it reports why (the CUDA error's name) and runs nothing.
#include "tfspec/gpu/backend.hpp"

#ifdef TFSPEC_HAVE_CUDA
#include "cuda_kernels.hpp"
#endif

namespace tfspec::gpu {

bool cuda_compiled() {
#ifdef TFSPEC_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

namespace {

#ifdef TFSPEC_HAVE_CUDA
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
#endif

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
#ifdef TFSPEC_HAVE_CUDA
    int count = 0;
    cuda::Result r = cuda::probe(count);
    if (r.cuda_error != 0) why_ = r.error_name + " (" + r.error_text + ")";
#else
    why_ = "tfspec was built without nvcc (TFSPEC_HAVE_CUDA is OFF)";
#endif
  }
  std::string name() const override { return "cuda"; }
  std::optional<std::string> unavailable() const override { return why_; }

#ifdef TFSPEC_HAVE_CUDA
  void offsets_into(const FnPlan& p, int64_t* out) override {
    usable();
    check(cuda::offsets(p, out), "offsets");
  }
  std::vector<int64_t> crd2idx(const FnPlan& p, const std::vector<int64_t>& coords) override {
    usable();
    const int64_t n = p.domain_rank == 0 ? static_cast<int64_t>(coords.size()) : static_cast<int64_t>(coords.size()) / p.domain_rank;
    std::vector<int64_t> out(static_cast<size_t>(n));
    check(cuda::crd2idx(p, coords.data(), n, out.data()), "crd2idx");
    return out;
  }
  std::vector<int64_t> gather(const FnPlan& p, const std::vector<int64_t>& src) override {
    usable();
    std::vector<int64_t> out(static_cast<size_t>(p.domain_size));
    check(cuda::gather(p, src.data(), static_cast<int64_t>(src.size()), out.data()), "gather");
    return out;
  }
  std::vector<int64_t> scatter(const FnPlan& p, const std::vector<int64_t>& values, int64_t dst_size) override {
    usable();
    std::vector<int64_t> dst(static_cast<size_t>(std::max<int64_t>(dst_size, 0)));
    check(cuda::scatter(p, values.data(), dst.data(), dst_size), "scatter");
    return dst;
  }
  void reshard_packed(const ReshardPlan& rp, const PackedLayout& src_layout, const int64_t* src, int64_t* dst) override {
    usable();
    if (rp.run > 1 && rp.dst) {  // one pass over common contiguous runs, 128-bit copies
      cuda::Result r = cuda::reshard_runs(run_job(rp, src_layout), src, dst);
      const bool late = r.cuda_error == 0 && r.first_index >= rp.size;
      if (late) r.first_index -= rp.size;
      check(r, late ? "reshard (distribute)" : "reshard (assemble)");
      return;
    }
    const ShardPlan sp = bind_engines(rp.src.plan, src_layout);
    std::vector<int64_t> x(static_cast<size_t>(rp.size));
    check(cuda::assemble(sp, static_cast<int64_t>(rp.src.engine_of_instance.size()), src, src_layout.total, rp.size, x.data()),
          "reshard (assemble)");
    if (rp.dst_error) throw SpecError(*rp.dst_error);
    const ShardPlan dp = bind_engines(rp.dst->plan, rp.dst->packed);
    check(cuda::distribute(dp, static_cast<int64_t>(rp.dst->engine_of_instance.size()), dst, rp.dst->packed.total, rp.size, x.data()),
          "reshard (distribute)");
  }
#else
  void offsets_into(const FnPlan&, int64_t*) override { usable(); }
  std::vector<int64_t> crd2idx(const FnPlan&, const std::vector<int64_t>&) override { usable(); return {}; }
  std::vector<int64_t> gather(const FnPlan&, const std::vector<int64_t>&) override { usable(); return {}; }
  std::vector<int64_t> scatter(const FnPlan&, const std::vector<int64_t>&, int64_t) override { usable(); return {}; }
  void reshard_packed(const ReshardPlan&, const PackedLayout&, const int64_t*, int64_t*) override { usable(); }
#endif

 private:
  void usable() const {
    if (why_) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why_);
  }
  std::optional<std::string> why_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

double cuda_offsets_seconds(const FnPlan& p, int reps) {
  if (auto why = CudaBackend().unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
#ifdef TFSPEC_HAVE_CUDA
  float ms = 0;
  check(cuda::time_offsets(p, reps, ms), "offsets (timed)");
  return ms / 1000.0 / reps;
#else
  (void)p, (void)reps;
  return 0;
#endif
}

double cuda_gather_seconds(const FnPlan& p, int64_t src_size, int reps) {
  if (auto why = CudaBackend().unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
#ifdef TFSPEC_HAVE_CUDA
  float ms = 0;
  check(cuda::time_gather(p, src_size, reps, ms), "gather (timed)");
  return ms / 1000.0 / reps;
#else
  (void)p, (void)src_size, (void)reps;
  return 0;
#endif
}

double cuda_scatter_seconds(const FnPlan& p, int64_t dst_size, int reps) {
  if (auto why = CudaBackend().unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
#ifdef TFSPEC_HAVE_CUDA
  float ms = 0;
  check(cuda::time_scatter(p, dst_size, reps, ms), "scatter (timed)");
  return ms / 1000.0 / reps;
#else
  (void)p, (void)dst_size, (void)reps;
  return 0;
#endif
}

double cuda_reshard_runs_seconds(const ReshardPlan& rp, int reps) {
  if (auto why = CudaBackend().unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
  if (rp.run <= 1 || !rp.dst) fail(rule::kUsage, "cuda_reshard_runs_seconds: the plan has no common contiguous run");
#ifdef TFSPEC_HAVE_CUDA
  // source and destination live on the device only (the source zeroed there): no host buffers
  float ms = 0;
  check(cuda::time_reshard_runs(run_job(rp, rp.src.packed), reps, ms), "reshard (timed)");
  return ms / 1000.0 / reps;
#else
  (void)reps;
  return 0;
#endif
}

std::string cuda_kernel_report() {
  if (auto why = CudaBackend().unavailable()) return "no usable CUDA device: " + *why;
#ifdef TFSPEC_HAVE_CUDA
  return cuda::kernel_report();
#else
  return "";
#endif
}

double cuda_memcpy_seconds(int64_t bytes, int reps) {
  if (auto why = CudaBackend().unavailable()) fail(rule::kCudaError, "the CUDA backend is unavailable: " + *why);
#ifdef TFSPEC_HAVE_CUDA
  float ms = 0;
  check(cuda::time_memcpy(bytes, reps, ms), "cudaMemcpy (timed)");
  return ms / 1000.0 / reps;
#else
  (void)bytes, (void)reps;
  return 0;
#endif
}

}  // namespace tfspec::gpu
