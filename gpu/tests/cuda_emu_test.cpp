// The emulated grid itself (issue 23, gpu/src/cuda_emu.hpp): every thread of the launch runs
// once with the launch's sizes, blocks and threads in a seeded order that replays, an output race
// shows as different answers under different seeds, the grid-stride stand-in runs fewer blocks
// and still covers the range, and a misaligned 128-bit access faults as on the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "tfspec/gpu/backend.hpp"
// After every other header: it defines __global__, __device__, __host__ and __forceinline__.
#include "cuda_emu.hpp"
#include "cuda_kernels.hpp"

namespace {

using tfspec::gpu::cuda_emu::begin_op;

struct Seen {
  unsigned block, thread, grid, dim;
  bool operator==(const Seen&) const = default;
};
std::vector<Seen>* seen = nullptr;

__global__ void record_kernel(int) { seen->push_back({blockIdx.x, threadIdx.x, gridDim.x, blockDim.x}); }

std::vector<Seen> run_record(uint64_t seed, int arg, bool small_grids, unsigned grid = 5, unsigned block = 64) {
  std::vector<Seen> out;
  seen = &out;
  begin_op(seed, 7, small_grids);
  TFSPEC_LAUNCH(record_kernel, grid, block)(arg);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  return out;
}

TEST(EmulatedGrid, RunsEveryThreadOnceWithTheLaunchSizesInASeededOrderThatReplays) {
  const std::vector<Seen> a = run_record(1, 3, false);
  ASSERT_EQ(a.size(), 5u * 64u);
  std::set<std::pair<unsigned, unsigned>> ids;
  for (const Seen& s : a) {
    EXPECT_EQ(s.grid, 5u);
    EXPECT_EQ(s.dim, 64u);
    ids.insert({s.block, s.thread});
  }
  EXPECT_EQ(ids.size(), 5u * 64u);  // each (block, thread) once
  // A block's threads run together (no barrier: each runs to completion), in a shuffled order.
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].block, a[k / 64 * 64].block);
  std::vector<unsigned> first_block_threads, blocks;
  for (size_t k = 0; k < 64; ++k) first_block_threads.push_back(a[k].thread);
  for (size_t k = 0; k < a.size(); k += 64) blocks.push_back(a[k].block);
  EXPECT_FALSE(std::is_sorted(first_block_threads.begin(), first_block_threads.end()));
  EXPECT_NE(blocks, (std::vector<unsigned>{0, 1, 2, 3, 4}));
  EXPECT_EQ(run_record(1, 3, false), a);  // same seed and arguments: the same schedule (a case replays)
  EXPECT_NE(run_record(2, 3, false), a);  // another seed
  EXPECT_NE(run_record(1, 4, false), a);  // another integer argument
}

// Two threads writing one slot: the answer depends on the order, so it varies with the seed (run
// in index order, the last thread would always win).
__global__ void last_writer_kernel(unsigned* out) { *out = threadIdx.x; }
TEST(EmulatedGrid, AnOutputRaceShowsAsAnswersThatVaryWithTheSeed) {
  std::set<unsigned> winners;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    unsigned out = 0;
    begin_op(seed, 0, true);
    TFSPEC_LAUNCH(last_writer_kernel, 1, 256)(&out);
    winners.insert(out);
  }
  EXPECT_GT(winners.size(), 8u);
}

// The grid-stride stand-in: with small_grids a launch of at least 2, 3 or 4 blocks (the threshold
// drawn per operation and launch) runs on 1-3 blocks (the kernel sees that gridDim), smaller
// launches on the device's grid; a grid-stride loop still visits every element exactly once.
__global__ void stride_kernel(int n, int* hits, unsigned* grid_seen) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += static_cast<int>(gridDim.x * blockDim.x)) ++hits[i];
  *grid_seen = gridDim.x;
}
std::set<unsigned> grids_run(unsigned grid, bool small_grids) {
  std::set<unsigned> grids;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const int n = static_cast<int>(grid * 256 - seed);
    std::vector<int> hits(static_cast<size_t>(n), 0);
    unsigned g = 0;
    begin_op(seed, 0, small_grids);
    TFSPEC_LAUNCH(stride_kernel, grid, 256)(n, hits.data(), &g);
    grids.insert(g);
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), n) << "grid " << grid << " seed " << seed;
  }
  return grids;
}
TEST(EmulatedGrid, SmallGridsRunTheGridStrideLoopsAsOnLargeInputs) {
  EXPECT_EQ(grids_run(10, false), (std::set<unsigned>{10}));  // off: the device's grid, always
  EXPECT_EQ(grids_run(2, false), (std::set<unsigned>{2}));
  EXPECT_EQ(grids_run(10, true), (std::set<unsigned>{1, 2, 3}));  // past every threshold
  EXPECT_EQ(grids_run(2, true), (std::set<unsigned>{1, 2}));      // threshold 2: 1 block; 3 or 4: the device's 2
  EXPECT_EQ(grids_run(1, true), (std::set<unsigned>{1}));
}

// A 128-bit store to an address 8 bytes off: the device faults (cudaErrorMisalignedAddress, sticky
// until the next operation) and stores nothing. (The misaligned reference is the point of the
// test: exempt from UBSan's alignment check.)
__attribute__((no_sanitize("alignment"))) __global__ void pair_store_kernel(long long* at) {
  *reinterpret_cast<longlong2*>(at) = make_longlong2(1, 2);
}
TEST(EmulatedGrid, AMisalignedPairStoreFaultsAsOnTheDevice) {
  alignas(16) long long buf[4] = {0, 0, 0, 0};
  begin_op(1, 0, false);
  TFSPEC_LAUNCH(pair_store_kernel, 1, 1)(buf);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(buf[0], 1);
  EXPECT_EQ(buf[1], 2);
  TFSPEC_LAUNCH(pair_store_kernel, 1, 1)(buf + 1);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMisalignedAddress);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);  // sticky
  EXPECT_EQ(buf[2], 0);
  TFSPEC_LAUNCH(pair_store_kernel, 1, 1)(buf + 2);  // a faulted context runs nothing more
  EXPECT_EQ(buf[2], 0);
  begin_op(1, 0, false);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorMisalignedAddress), "cudaErrorMisalignedAddress");
}

TEST(EmulatedGrid, ALaunchTheDeviceWouldRefuseIsRefused) {
  begin_op(1, 0, false);
  std::vector<Seen> out;
  seen = &out;
  TFSPEC_LAUNCH(record_kernel, 1, 2048)(0);  // more than 1024 threads a block
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  TFSPEC_LAUNCH(record_kernel, 0, 32)(0);  // an empty grid
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_TRUE(out.empty());
}

TEST(EmulatedGrid, TheBackendIsNamedAndAlwaysAvailable) {
  using namespace tfspec::gpu;
  EXPECT_EQ(backend_names(), (std::vector<std::string>{"host", "cuda", "cuda-emu"}));
  for (const std::string& name : backend_names()) EXPECT_EQ(make_backend(name)->name(), name);
  EXPECT_FALSE(make_backend("cuda-emu")->unavailable().has_value());
  EXPECT_EQ(make_backend("cuda_emu"), nullptr);
}

}  // namespace
