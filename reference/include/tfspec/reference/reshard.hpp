// Reshard semantics (ARCHITECTURE "Reshard semantics"): distribute a logical tensor over the mesh
// instances' engines, assemble it back (replicas must agree, Partial axes reduced), reshard.
// Tensors are int64 data in row-major order with a flat logical shape. Every failure is a
// SpecError; nothing returns silently wrong data.
#pragma once
#include <functional>
#include <map>
#include <vector>

#include "tfspec/reference/shard_layout.hpp"

namespace tfspec {

struct Tensor {
  std::vector<int64_t> shape;  // logical shape (row-major)
  std::vector<int64_t> data;
  friend bool operator==(const Tensor&, const Tensor&) = default;
};

// The most elements the reference allocates for the engines of one distribute / partition / reshard
// (all buffers together): a buffer runs to its largest offset, so strides can ask for far more
// than the tensor's 2^20 points (`(4):(2^34)` needs 3*2^34 + 1 slots). Past it: resource-limit.
inline constexpr int64_t kMaxEngineElements = int64_t{1} << 24;

// Engine id -> its buffer (D3: engine ids come from engine_of). Slots no instance writes are 0.
struct Engines {
  Storage storage;
  std::map<int64_t, std::vector<int64_t>> buffers;
  friend bool operator==(const Engines&, const Engines&) = default;
};

// The full value x splits into Partial contributions like this (spec/SHARD.md, "Partial"):
// for a `sum` axis the instance at coordinate 0 holds x and the others the identity 0; for
// `max` / `min` every instance holds x. Broadcast axes replicate.
Engines distribute(const Tensor& t, const ShardLayout& sl, Storage storage);
// Reads every instance's elements: Broadcast replicas must agree ("replica-mismatch"); Partial
// axes are reduced, the highest mesh axis first. Needs the logical shape.
Tensor assemble(const Engines& engines, const ShardLayout& sl, const std::vector<int64_t>& shape);
// reshard = distribute(assemble(...)) onto dst under dst_storage.
Engines reshard(const Engines& engines, const ShardLayout& src, const ShardLayout& dst, Storage dst_storage,
                const std::vector<int64_t>& shape);
// Like distribute, but the Partial contributions are arbitrary: `draw()` supplies noise, and the
// contributions reduce (by each axis's reduction) exactly to x. For the property tests.
Engines partition(const Tensor& t, const ShardLayout& sl, Storage storage, const std::function<int64_t()>& draw);

// Mesh instances (row-major mesh coordinates) holding logical element `index` (D3 ownership).
std::vector<std::vector<int64_t>> holders(const ShardLayout& sl, const std::vector<int64_t>& global);

}  // namespace tfspec
