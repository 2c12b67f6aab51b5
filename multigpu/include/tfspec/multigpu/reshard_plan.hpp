// The multi-GPU reshard plan (spec/MULTIGPU.md): for a reshard between two ShardLayouts whose
// mesh instances are devices (§5 topologies all `device`; each instance its own engine, D3's
// per-instance rule), the schedule of collectives a runtime would issue, in NCCL's vocabulary,
// with device groups, counts, buffer offsets and the bytes each device sends and receives; and a
// host simulator that executes the schedule. The reference's `reshard` (§7.4, D9) is the oracle.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::multigpu {

// The buffers of one device: Src holds the SRC layout's elements (at §7.1.2 offsets), Dst the
// DST layout's (allocated zero-filled, as the reference's unwritten slots), Send / Recv staging,
// Mid0 / Mid1 the intermediate layouts of a staged plan (zero-filled; stage k writes Mid(k % 2),
// the next stage reads it: spec/MULTIGPU.md "Staged plans").
enum class Buffer { Src, Dst, Send, Recv, Mid0, Mid1 };
inline constexpr Buffer kBuffers[] = {Buffer::Src, Buffer::Dst, Buffer::Send, Buffer::Recv, Buffer::Mid0, Buffer::Mid1};
std::string to_string(Buffer b);

struct Run {  // len elements from offset `from` to offset `to`
  int64_t from, to, len;
  friend bool operator==(const Run&, const Run&) = default;
};
// A copy inside one device (a pack into Send, an unpack out of Recv, or a kept element).
struct LocalCopy {
  int64_t device;
  Buffer from, to;
  std::vector<Run> runs;
};
struct Place {  // a buffer and an element offset into it
  Buffer buffer;
  int64_t offset;
  friend bool operator==(const Place&, const Place&) = default;
};
// One directed ncclSend / ncclRecv pair of a group.
struct Transfer {
  int64_t from_device, to_device;
  int64_t send_offset, recv_offset, count;  // elements; Send of from_device, Recv of to_device
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

enum class CollectiveKind { AllGather, ReduceScatter, AllReduce, AllToAll, SendRecv };
std::string nccl_name(CollectiveKind k);  // ncclAllGather, ..., "ncclSend/ncclRecv"

struct Collective {
  CollectiveKind kind;
  std::string reduction;  // AllReduce / ReduceScatter: sum | max | min (ncclSum, ncclMax, ncclMin)
  int mesh_axis = -1;     // the mesh axis the communicators run along; -1 for a point-to-point group
  // Communicators: rank i of a group is groups[g][i] (devices along mesh_axis, in coordinate order).
  std::vector<std::vector<int64_t>> groups;
  // AllGather: sendcount (rank r's block lands at recv + r*count); ReduceScatter: recvcount (send
  // holds one block per rank); AllReduce: count. Unused for AllToAll / SendRecv.
  int64_t count = 0;
  std::map<int64_t, Place> send, recv;  // device -> its send / recv buffer (AllGather .. AllReduce)
  std::vector<Transfer> transfers;       // AllToAll / SendRecv: one ncclGroupStart..End
};

using Step = std::variant<LocalCopy, Collective>;

struct DeviceBytes {
  int64_t sent = 0, received = 0;
  friend bool operator==(const DeviceBytes&, const DeviceBytes&) = default;
};

struct Plan {
  std::string pattern;  // identity | local | all-gather | all-reduce | reduce-scatter | all-to-all | point-to-point (+ ...)
  int64_t elem_bytes = 4;
  std::vector<std::string> axis_names;  // SRC's mesh axes (names, or axes[i]), for the output
  std::vector<int64_t> devices;  // every device of SRC or DST, ascending
  std::map<int64_t, int64_t> src_size, dst_size, send_size, recv_size;  // elements per device
  std::map<int64_t, int64_t> mid0_size, mid1_size;                     // staged plans only
  std::vector<Step> steps;  // executed in order
  std::map<int64_t, DeviceBytes> bytes;  // per device, by the model of spec/MULTIGPU.md
  int64_t total_bytes() const;           // sum of bytes sent (== sum received)
  int64_t size_of(Buffer b, int64_t device) const;  // elements of a device's buffer (0 when absent)
  // A staged plan (several mesh axes change): the attrs of each intermediate layout, in order.
  std::vector<std::string> stages;
  // The lower bound of spec/MULTIGPU.md ("Why these are minimal") on the bytes any plan moves for
  // this reshard, computed from the ownership alone (not from this plan), and, when the plan moves
  // more, why (empty when total_bytes() == lower_bound_bytes).
  int64_t lower_bound_bytes = 0;
  std::string above_bound_because;
  // One-round execution (issue 47; spec/MULTIGPU.md "One-round execution"): true where the steps
  // compose into one exchange from SRC's holders straight to DST's owners (compose_one_round) in
  // which no device sends or receives more than in the steps; an executor may then run that
  // exchange instead. one_round_bytes: its total (0 where the steps do not compose);
  // one_round_because: why not, where not.
  bool one_round = false;
  int64_t one_round_bytes = 0;
  std::string one_round_because;
};

// NCCL datatype name -> bytes (int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32
// float64, with or without the `nccl` prefix, or a usual short name: bf16, fp16, f32, ...);
// anything else is `mgpu-dtype`.
int64_t dtype_bytes(std::string_view name);
std::string dtype_name(std::string_view name);  // the canonical NCCL name (int8 ... float64), or mgpu-dtype

// The planner's input rule (spec/MULTIGPU.md "Which reshards qualify"): both meshes' topologies
// are all `device` and the two device domains are equal; the layouts pass the execution checks
// under per-device engines (§7, D3 as rmem: one engine per instance). S None is materialized to
// the per-instance form first (D4, same level).
ShardLayout materialize_for_devices(const ShardLayout& sl, const std::vector<int64_t>& shape);
Plan plan_reshard(const ShardLayout& src, const ShardLayout& dst, const std::vector<int64_t>& shape, int64_t elem_bytes = 4);

// The planner's limits (spec/MULTIGPU.md "Size"). Each layout holds at most 2^20 (device,
// element) pairs: past that the reference cannot check it (its injectivity walk stops there), so
// reading or materializing it is refused with injectivity-undecided before the planner runs.
// Within that, the plan's size is estimated from the meshes and the local shapes before anything
// is enumerated; past kMaxPlanBytes plan_reshard refuses with resource-limit (a Limit, exit 2).
inline constexpr int64_t kMaxPlanBytes = int64_t{1} << 30;

// An upper bound on what a plan holds, from the materialized layouts: every collective costs each
// device a group entry, places and a local copy; every (device, element) pair a view slot, map
// entries and, unmerged, up to one run per copy; every transfer its record (spec/MULTIGPU.md).
struct PlanEstimate {
  int64_t devices = 0, src_pairs = 0, dst_pairs = 0;
  int64_t collectives = 0;  // at most: one per mesh axis and per SRC Partial axis, plus one send/recv group
  int64_t copies = 0;       // element copies at most: pack + write-back per reduced axis, pack and unpack
  int64_t transfers = 0;    // at most: min(DST pairs, devices^2)
  int64_t bytes = 0;        // the estimated peak memory, saturating at INT64_MAX
};
PlanEstimate estimate_plan(const ShardLayout& src, const ShardLayout& dst);
// resource-limit when the estimate passes kMaxPlanBytes.
void check_plan_limits(const ShardLayout& src, const ShardLayout& dst);

// The simulator: device -> buffer (int64 data). Runs every step on host buffers; Partial values
// are reduced by the collective's reduction. Src buffers must have the plan's sizes.
using DeviceBuffers = std::map<int64_t, std::vector<int64_t>>;
DeviceBuffers simulate(const Plan& plan, const DeviceBuffers& src);

// The plan's steps composed (spec/MULTIGPU.md "One-round execution"): each DST element of each
// device as the SRC elements its value is made of, in the order the steps reduce them.
struct Leaf {  // SRC element `offset` of `device`
  int64_t device, offset;
  friend bool operator==(const Leaf&, const Leaf&) = default;
};
struct ComposedDst {  // DST element j: leaves[start[j] .. start[j+1]), reduced by op[j] (0: none, one leaf or none)
  std::vector<int64_t> start;
  std::vector<Leaf> leaves;
  std::vector<char> op;  // 's' sum, 'M' max, 'm' min
};
struct OneRound {
  std::string refused;                    // why the steps do not compose ("" when they do)
  std::map<int64_t, ComposedDst> dst;     // every device with a DST
  std::map<int64_t, DeviceBytes> bytes;   // what each device sends / receives in the one exchange
};
OneRound compose_one_round(const Plan& plan);
// Sets plan.one_round, one_round_bytes and one_round_because from the composition.
void decide_one_round(Plan& plan);

// Output: one line per collective / local step (text), and the JSON schema of spec/MULTIGPU.md.
std::string to_text(const Plan& plan);
Json to_json(const Plan& plan);

}  // namespace tfspec::multigpu
