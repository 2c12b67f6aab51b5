// The CUDA backend over any build of the kernel source (private to gpu/ and its tests): the
// device's, the emulated grid's, or a test's build with a planted kernel bug (an emulated mutant).
#pragma once
#include "cuda_kernels.hpp"
#include "tfspec/gpu/backend.hpp"

namespace tfspec::gpu {

// A backend named `name` running `api` on the emulated grid with `emu`'s schedule seed.
std::unique_ptr<Backend> make_kernel_backend(const cuda::KernelApi& api, const std::string& name, const EmuOptions& emu);

}  // namespace tfspec::gpu
