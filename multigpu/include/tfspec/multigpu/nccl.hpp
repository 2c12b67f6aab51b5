// The NCCL executor (spec/MULTIGPU.md "An NCCL executor: build and test"): built only when CMake
// finds NCCL and the CUDA toolkit (TFSPEC_HAVE_NCCL); one MPI rank per GPU, MPI only to start.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "tfspec/multigpu/executor.hpp"
#include "tfspec/multigpu/mpi.hpp"

namespace tfspec::multigpu::nccl {

// The executor on the GPU picked by the node-local rank (OMPI_COMM_WORLD_LOCAL_RANK modulo the
// GPU count); cuda-error when there is no device.
std::unique_ptr<Executor> make_nccl_executor(mpi::World& world, const Dtype& dtype);
// nullopt when this process sees a CUDA device; otherwise why not (the CUDA error's name and
// text, e.g. "cudaGetDeviceCount: cudaErrorInsufficientDriver (...)" on a machine without a GPU).
std::optional<std::string> unavailable();

}  // namespace tfspec::multigpu::nccl
