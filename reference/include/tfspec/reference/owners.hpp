// Ownership (§6, §7.1.1, §7.2, D2, D3): which logical elements each physical device holds, and
// how (a Broadcast replica, a Partial contribution). Derived from global_coord (the reference's
// placement law), not a second model. spec/SHARD.md I1 ("Owners and imports (extension)").
#pragma once
#include <cstdint>
#include <vector>

#include "tfspec/reference/shard_layout.hpp"

namespace tfspec {

struct DeviceHolding {
  int64_t device;                  // the mesh layout's value at `coord` (§5)
  std::vector<int64_t> coord;      // the mesh coordinate
  std::vector<int64_t> elements;   // row-major linear indices into T.shape, ascending
  bool replica;                    // a Broadcast axis of extent > 1 gives another device the same elements
  bool partial;                    // a Partial axis: the device holds a contribution, not the value
};

// One entry per mesh instance, ordered by device. Fails closed: the analysis-stage rules with
// T.shape given (shard-size-match, shard-regroup), a Dynamic attr (dynamic-unresolved: its owners
// are not decided yet), more than 2^20 (instance, element) pairs (resource-limit).
std::vector<DeviceHolding> owners(const ShardLayout& sl, const IntTuple& tensor_shape);

}  // namespace tfspec
