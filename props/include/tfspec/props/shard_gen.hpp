// RapidCheck generators for meshes and shard layouts (§5-§7). Valid values are built
// constructively (no heavy RC_PRE): the layout shape G is a row-major refinement of the logical
// shape T (D2), and every Split-bound G dim has exactly its mesh axis's extent (§7.1.1).
#pragma once
#include <rapidcheck.h>

#include "tfspec/reference/reshard.hpp"

namespace tfspec::props {

// A logical shape of rank 1-3 with small extents (size <= 96).
rc::Gen<std::vector<int64_t>> gen_logical_shape();

struct ShardCase {
  std::vector<int64_t> shape;  // logical T.shape
  ShardLayout layout;          // canonical, materialized, valid under `storage`
  Storage storage;
};
// A valid shard layout for `shape`: 1-4 mesh axes (size-1 axes included), topologies among
// device(N), cta(a)*thread(b), warp(a)*thread(b); Split / Broadcast / Partial(sum|max|min) attrs
// (Partial only where the storage gives its contributions distinct engines); strides in the
// per-instance or shared form (D4) as the storage allows.
rc::Gen<ShardCase> gen_shard_case(const std::vector<int64_t>& shape);
// The same, with the last G dim of extent > 1 never Split: both stride forms give it stride 1,
// so a pair of these has a common contiguous run (the vectorized reshard path of gpu/).
rc::Gen<ShardCase> gen_shard_case(const std::vector<int64_t>& shape, bool contiguous_tail);
void showValue(const ShardCase& c, std::ostream& os);  // RapidCheck prints counterexamples with it
rc::Gen<ShardCase> gen_shard_case();
// Logical data with mixed signs and lopsided magnitudes.
rc::Gen<std::vector<int64_t>> gen_data(int64_t n);

// An uneven case: a mesh axis of extent e >= 2 and a global extent n that e does not divide.
struct UnevenCase {
  int64_t extent;
  int64_t n;
};
rc::Gen<UnevenCase> gen_uneven();

}  // namespace tfspec::props

namespace rc {
template <>
struct Arbitrary<tfspec::Storage> {
  static Gen<tfspec::Storage> arbitrary() {
    return gen::element(tfspec::Storage::Rmem, tfspec::Storage::Smem, tfspec::Storage::Gmem);
  }
};
}  // namespace rc
