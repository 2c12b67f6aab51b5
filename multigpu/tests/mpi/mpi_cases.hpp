// Generated reshards for the MPI property (multigpu/tests/mpi): a seeded generator, the same
// sequence on every rank, so every rank runs the same case at the same time.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tfspec::multigpu::mpi_testing {

struct GeneratedCase {
  std::vector<int64_t> shape;  // logical
  std::string src, dst;        // shard(...) text
  std::string dtype;
  bool dynamic = false;        // a Dynamic attr (§6): every rank's planner refuses it
  std::string command(int ranks, uint64_t seed) const;  // the `mpiexec ... tfspec reshard-run` reproduction
};

// A reshard whose meshes span exactly `devices` devices (1-3 axes; DST on the same mesh with one
// or more attrs changed, or on the reversed / a one-axis mesh), G with the mesh extents and up to
// two more dims, all four attrs (Split, Broadcast, Partial sum/max/min, rarely Dynamic), three
// stride forms, one of the ten dtypes.
GeneratedCase generate_case(std::mt19937_64& gen, int64_t devices);

}  // namespace tfspec::multigpu::mpi_testing
