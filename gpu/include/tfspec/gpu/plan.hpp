// The plan compiler: a concrete Layout / ComposedLayout / ShardLayout becomes a flat plan for
// the index core (core.hpp). It reads the reference's objects (types and accessors only) and
// computes everything itself; it never calls a reference algorithm for an answer. Invalid
// input fails closed with the reference's rule id (a SpecError), checked in the reference's
// order so both refuse with the same id.
#pragma once
#include <optional>
#include <vector>

#include "tfspec/gpu/core.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec::gpu {

// What the index-width decision sees: the domain size, the largest |value| any stage produces
// and the largest stage size (proved bounds, from extents and strides).
struct PlanBounds {
  int64_t domain_size = 1;
  __int128 max_abs = 0;
  int64_t max_stage_size = 1;
};
IndexMode choose_index_mode(const PlanBounds& b);  // 32-bit when everything fits int32, ...
AxisKind axis_kind_of(const ShardAttr& a);
// The common run of two sides whose own runs are a and b (blocks of a and of b logical indices,
// aligned at multiples of their length): gcd(a, b), the longest aligned block inside both.
int64_t common_run_of(int64_t a, int64_t b);

// The plan compiler's decisions that a wrong implementation would get wrong. Production uses
// the defaults; the fuzzer's self-test swaps in deliberately wrong ones.
struct PlanPolicy {
  FastDivmod32 (*div32)(uint32_t) = make_fast_divmod32;
  FastDivmod64 (*div64)(uint64_t) = make_fast_divmod64;
  IndexMode (*index_mode)(const PlanBounds&) = choose_index_mode;
  AxisKind (*axis_kind)(const ShardAttr&) = axis_kind_of;
  int64_t (*common_run)(int64_t, int64_t) = common_run_of;
};

// §3 / §4: L(i) over the domain of l (Layout, ComposedLayout, or a ShardLayout's layout).
FnPlan compile_layout(const LayoutBase& l, const PlanPolicy& policy = {});

// Engine buffers in one flat int64 array owned by the caller: engine e's buffer is
// data[base[e], base[e] + size[e]) (base -1: the engine has no buffer; engine ids as in D3).
struct PackedLayout {
  std::vector<int64_t> base, size;
  int64_t total = 0;  // elements of the array
};
// The plan's packed layout: engines back to back in id order, each of the given size (0: none).
PackedLayout packed_layout_of(const std::vector<int64_t>& engine_size);
// sp with its engine tables pointing at `layout` (which must outlive the copy).
ShardPlan bind_engines(ShardPlan sp, const PackedLayout& layout);

// A ShardLayout executed under a storage with a logical shape (§7, D2, D3), validated as the
// reference validates execution (final stage). Engine tables live here; ShardPlan points at them.
struct HostShardPlan {
  ShardPlan plan{};
  Storage storage = Storage::Rmem;
  std::vector<int64_t> engine_of_instance;  // row-major mesh index -> engine id
  std::vector<int64_t> engine_size;         // engine id -> 1 + largest offset written (0: none)
  PackedLayout packed;                      // packed_layout_of(engine_size): a reshard's dst layout
  int64_t min_offset = 0;                   // smallest offset any instance holds
  // Contiguous run: every aligned block of `run` consecutive logical indices lies in one
  // instance with offsets stepping by 1 (the longest tail of G dims, not Split, whose strides
  // are 1, g[k+1], g[k+1]*g[k+2], ...); 1 when there is none or the layout is not one plain stage.
  int64_t run = 1;
  void bind();                              // points plan at the tables (after a copy / move)
};
HostShardPlan compile_shard(const ShardLayout& sl, Storage storage, const std::vector<int64_t>& shape,
                            const PlanPolicy& policy = {});

// reshard = distribute(assemble(src), dst). A dst refusal is reported only after the source
// assembled cleanly, as the reference does.
struct ReshardPlan {
  HostShardPlan src;
  std::optional<HostShardPlan> dst;
  std::optional<Diagnostic> dst_error;
  std::vector<int64_t> shape;
  int64_t size = 0;  // logical elements
  // Common contiguous run of src and dst (policy.common_run of their runs; 1 without a valid
  // dst): both backends copy such segments whole (reshard_segment), vectorized on the device.
  int64_t run = 1;
};
ReshardPlan compile_reshard(const ShardLayout& src, Storage src_storage, const ShardLayout& dst, Storage dst_storage,
                            const std::vector<int64_t>& shape, const PlanPolicy& policy = {});

// The SpecError for an element outcome of the core (index: the element it happened at).
[[noreturn]] void raise_status(Status st, int64_t index, const char* what);

}  // namespace tfspec::gpu
