// The reshard planner (spec/MULTIGPU.md): recognizes the common single-axis reshards as NCCL
// collectives (and several axes gathered at once as a sequence of all-gathers) and plans
// everything else as grouped point-to-point sends, computed element by element from the
// ownership of §7.2 / D3 and merged into contiguous runs. This file: the Planner's driver (which
// pattern, the tags, the copies, the notes; the class is in planner.hpp, its collectives in
// planner_collectives.cpp, its grouped sends in planner_p2p.cpp, its lower bound in the class)
// and the entry points; the ownership helpers are in plan_ownership.cpp, the
// staged search over intermediate layouts in plan_stages.cpp.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "planner.hpp"
#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"

namespace tfspec::multigpu {
namespace planning {

bool Planner::leaves_slots_zero() const {
  for (int a = 0; a < dst_.mesh().rank(); ++a) {
    auto* r = partial_reduction(dst_, a);
    if (r && *r == "sum" && dst_.mesh().extent(a) >= 2 && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) return true;
  }
  return false;
}

Plan Planner::run() {
  const int a = single_changed_axis();
  const ShardAttr* from = a >= 0 ? &src_.attrs()[a] : nullptr;
  const ShardAttr* to = a >= 0 ? &dst_.attrs()[a] : nullptr;
  if (a >= 0 && std::holds_alternative<Split>(*from) && std::holds_alternative<Broadcast>(*to) && blocks_ok(a, Pattern::Gather)) {
    set_kept(-1);
    all_gather(a);
  } else if (a >= 0 && partial_reduction(src_, a) && std::holds_alternative<Split>(*to) && reducible_first({a}) && blocks_ok(a, Pattern::Scatter)) {
    set_kept(a);
    reduce_scatter(a);
  } else if (a >= 0 && std::holds_alternative<Split>(*from) && std::holds_alternative<Split>(*to) && blocks_ok(a, Pattern::Exchange)) {
    set_kept(-1);
    point_to_point(groups_along(src_.mesh(), a), a);
  } else if (auto axes = gathered_axes(); axes.size() >= 2 && gather_sequence_ok(axes)) {
    set_kept(-1);
    gather_sequence(axes);
  } else {
    fallback();
  }
  finish();
  return std::move(plan_);
}

int Planner::single_changed_axis() const {
  if (!same_mesh_) return -1;
  int changed = -1;
  for (int a = 0; a < src_.mesh().rank(); ++a)
    if (!(src_.attrs()[a] == dst_.attrs()[a])) {
      if (changed >= 0 || mesh_[a] < 2) return -1;
      changed = a;
    }
  return changed;
}

bool Planner::disjoint_equal_blocks(const std::vector<std::vector<int64_t>>& sets, std::vector<int64_t>& all) {
  all.clear();
  for (const auto& s : sets) {
    if (s.size() != sets[0].size()) return false;
    all.insert(all.end(), s.begin(), s.end());
  }
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) == all.end();
}

bool Planner::blocks_ok(int a, Pattern p) const {
  for (const auto& group : groups_along(src_.mesh(), a)) {
    std::vector<std::vector<int64_t>> s, d;
    for (int64_t dev : group) {
      s.push_back(element_set(view_of(sv_, dev)));
      d.push_back(element_set(view_of(dv_, dev)));
    }
    std::vector<int64_t> su, du;
    if (p != Pattern::Scatter && !disjoint_equal_blocks(s, su)) return false;
    if (p != Pattern::Gather && !disjoint_equal_blocks(d, du)) return false;
    for (size_t r = 0; r < group.size(); ++r) {
      if (p == Pattern::Gather && d[r] != su) return false;
      if (p == Pattern::Scatter && s[r] != du) return false;
    }
    if (p == Pattern::Exchange && su != du) return false;
  }
  return true;
}

void Planner::set_kept(int reduced) {
  kept_.clear();
  if (!same_mesh_) return;
  for (int a = 0; a < src_.mesh().rank(); ++a) {
    auto* s = partial_reduction(src_, a);
    auto* d = partial_reduction(dst_, a);
    if (a != reduced && s && d && *s == *d) kept_.push_back(a);
  }
}

std::vector<Need> Planner::needs(const DeviceView& v) const {
  for (int a = 0; a < dst_.mesh().rank(); ++a) {
    auto* r = partial_reduction(dst_, a);
    if (r && *r == "sum" && v.coord[a] != 0 && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) return {};
  }
  std::vector<Need> out;
  for (const auto& h : v.held) out.push_back({tag_of(h.element, v.coord), h.offset});
  return out;
}

void Planner::unpack(const std::map<int64_t, std::map<Tag, Place>>& available) {
  for (const auto& v : dv_) {
    std::map<Buffer, std::vector<std::pair<int64_t, int64_t>>> pairs;
    auto it = available.find(v.device);
    for (const Need& n : needs(v)) {
      const Place* p = nullptr;
      if (it != available.end()) {
        auto f = it->second.find(n.tag);
        if (f != it->second.end()) p = &f->second;
      }
      if (!p) fail(rule::kInternal, "the plan leaves element " + std::to_string(n.tag.first) + " of device " + std::to_string(v.device) + " unfilled");
      pairs[p->buffer].push_back({p->offset, n.offset});
    }
    for (auto& [buffer, ps] : pairs)
      if (!(buffer == Buffer::Src && ps.empty())) local_copy(v.device, buffer, Buffer::Dst, ps);
  }
}

Place Planner::send_block(int64_t device, const std::vector<Holding>& block) {
  bool contiguous = !block.empty();
  for (size_t i = 1; i < block.size() && contiguous; ++i) contiguous = block[i].offset == block[0].offset + static_cast<int64_t>(i);
  if (contiguous) return {Buffer::Src, block[0].offset};
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (size_t i = 0; i < block.size(); ++i) pairs.push_back({block[i].offset, static_cast<int64_t>(i)});
  local_copy(device, Buffer::Src, Buffer::Send, pairs);
  grow(plan_.send_size, device, static_cast<int64_t>(block.size()));
  return {Buffer::Send, 0};
}

std::vector<int> Planner::gathered_axes() const {
  std::vector<int> axes;
  if (!same_mesh_) return {};
  for (int a = 0; a < src_.mesh().rank(); ++a) {
    if (partial_reduction(src_, a) || partial_reduction(dst_, a)) return {};
    // unchanged, or Split in both over other G dims (then the element check decides)
    if (src_.attrs()[a] == dst_.attrs()[a] || (std::holds_alternative<Split>(src_.attrs()[a]) && std::holds_alternative<Split>(dst_.attrs()[a])))
      continue;
    if (mesh_[a] < 2 || !std::holds_alternative<Split>(src_.attrs()[a]) || !std::holds_alternative<Broadcast>(dst_.attrs()[a])) return {};
    axes.push_back(a);
  }
  return axes;
}

void Planner::note_replicas(const Collective& c, const std::set<int>& reduced) {
  if (c.groups.size() < 2) return;
  if (element_set(src_view(c.groups[0][0])) != element_set(src_view(c.groups[1][0]))) return;
  for (int b = 0; b < src_.mesh().rank(); ++b)
    if (b != c.mesh_axis && mesh_[b] >= 2 && partial_reduction(src_, b) && !reduced.count(b)) return;
  note("the " + nccl_name(c.kind) + " along " + plan_.axis_names[static_cast<size_t>(c.mesh_axis)] + " runs in each of " +
       std::to_string(c.groups.size()) + " groups that hold the same elements (replicas on another mesh axis): each device moves the "
       "ring's minimum, in parallel, but in total once per replica");
}

void Planner::finish() {
  std::vector<std::string> names;
  for (const auto& step : plan_.steps) {
    const auto* c = std::get_if<Collective>(&step);
    if (!c) continue;
    static const char* kNames[] = {"all-gather", "reduce-scatter", "all-reduce", "all-to-all", "point-to-point"};
    names.push_back(kNames[static_cast<int>(c->kind)]);
    auto add = [&](int64_t device, int64_t sent, int64_t received) {
      auto& b = plan_.bytes[device];
      b.sent = checked_add(b.sent, checked_mul(sent, plan_.elem_bytes));
      b.received = checked_add(b.received, checked_mul(received, plan_.elem_bytes));
    };
    for (const auto& t : c->transfers) {
      add(t.from_device, t.count, 0);
      add(t.to_device, 0, t.count);
    }
    if (c->kind == CollectiveKind::AllToAll || c->kind == CollectiveKind::SendRecv) continue;
    for (const auto& group : c->groups) {
      const int64_t n = static_cast<int64_t>(group.size());
      for (int64_t r = 0; r < n; ++r) {
        if (c->kind != CollectiveKind::AllReduce) {  // ring: n-1 blocks of count each way
          add(group[r], (n - 1) * c->count, (n - 1) * c->count);
          continue;
        }
        // Ring all-reduce over chunks c_0..c_{n-1} (c_i = N/n, the first N%n one more): a
        // reduce-scatter sends every chunk but its own, the all-gather every chunk but the next.
        auto chunk = [&](int64_t i) { return c->count / n + (((i % n) + n) % n < c->count % n ? 1 : 0); };
        add(group[r], 2 * c->count - chunk(r) - chunk(r + 1), 2 * c->count - chunk(r - 1) - chunk(r));
      }
    }
  }
  if (names.empty()) {
    plan_.pattern = identical_ ? "identity" : "local";
  } else {
    plan_.pattern.clear();
    for (size_t i = 0; i < names.size(); ++i) plan_.pattern += (i ? " + " : "") + names[i];
  }
}

std::optional<Plan> plan_stage(const Side& from, const std::vector<DeviceView>& fv, const Side& to, const std::vector<DeviceView>& tv, int64_t elem_bytes,
                               bool into_dst) {
  Planner p(from, fv, to, tv, elem_bytes, false);
  Plan plan = p.run();
  if (!into_dst && p.leaves_slots_zero()) return std::nullopt;
  return plan;
}

}  // namespace planning
namespace {

void require_devices(const ShardLayout& sl, const char* which) {
  for (const auto& t : sl.mesh().topologies())
    if (t.name != "device")
      fail(rule::kMgpuMeshDevices, std::string(which) + "'s mesh has the topology " + t.name +
                                       "; a reshard plan needs a mesh whose instances are GPUs: topologies device(N) only (e.g. `device(8)|x=2,y=4` or `x=2,y=4`)");
}

}  // namespace

ShardLayout materialize_for_devices(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  std::vector<IntTuple> t(shape.begin(), shape.end());
  // D4 at one level: the per-instance form (each device is its own engine); given strides kept.
  TensorType out = reshard_typeinfer(TensorType{IntTuple::tuple(t), nullptr, Storage::Rmem}, sl, Storage::Rmem);
  return static_cast<const ShardLayout&>(*out.layout);
}

Plan plan_reshard(const ShardLayout& src_in, const ShardLayout& dst_in, const std::vector<int64_t>& shape, int64_t elem_bytes) {
  using namespace planning;
  require_devices(src_in, "SRC");
  require_devices(dst_in, "DST");
  if (src_in.mesh().topology_domain() != dst_in.mesh().topology_domain())
    fail(rule::kMgpuDeviceDomain, "SRC spans " + std::to_string(src_in.mesh().topology_domain().value_or(-1)) + " devices and DST " +
                                      std::to_string(dst_in.mesh().topology_domain().value_or(-1)) + "; a reshard moves data within one device domain");
  for (int64_t e : shape)
    if (e < 0) fail(rule::in(rule::kExtentPositive, "§7.4"), "logical extent " + std::to_string(e) + " is negative");
  for (const ShardLayout* sl : {&src_in, &dst_in})
    for (size_t a = 0; a < sl->attrs().size(); ++a)
      if (std::holds_alternative<Dynamic>(sl->attrs()[a]))
        fail(rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is Dynamic: a reshard plan needs resolved attrs (§6)");
  check_plan_limits(src_in, dst_in);  // before anything enumerates (materializing checks every pair)
  ShardLayout src = materialize_for_devices(src_in, shape);
  ShardLayout dst = materialize_for_devices(dst_in, shape);
  std::vector<IntTuple> t(shape.begin(), shape.end());
  for (const ShardLayout* sl : {&src, &dst}) validate_shard_layout(*sl, ShardCheckOptions{true, Storage::Rmem, IntTuple::tuple(t)});
  const Side s{src.mesh(), src.attrs()}, d{dst.mesh(), dst.attrs()};
  const std::vector<DeviceView> sv = device_views(src), dv = device_views(dst);
  int64_t elements = 1;
  for (int64_t e : shape) elements = checked_mul(elements, e);
  StagedPlan staged = plan_staged(s, sv, d, dv, elements, elem_bytes);
  Plan plan = staged.searched ? std::move(*staged.plan) : Planner(s, sv, d, dv, elem_bytes, src == dst).run();
  Planner bound(s, sv, d, dv, elem_bytes, false);
  plan.lower_bound_bytes = checked_mul(bound.lower_bound_messages(), elem_bytes);
  decide_one_round(plan);
  // Above the bound: the planner's notes on what it chose (replicated groups, reductions before
  // moving, ...), and what the bound assumed that the plan did not.
  std::string& why = plan.above_bound_because;
  if (plan.total_bytes() <= plan.lower_bound_bytes) {
    why.clear();
    return plan;
  }
  auto add = [&](const std::string& w) { why += (why.empty() ? "" : "; ") + w; };
  if (bound.has_fresh_partial())
    add("DST's new Partial axes get D9's canonical contributions (the value at coordinate 0, zeros elsewhere, or the value "
        "everywhere for max / min), where contributions kept in place (any that reduce to the value) would move less");
  if (bound.reducing_is_cheaper())
    add("DST's Partial axes keep SRC's contributions as they are; reducing them and leaving DST's canonical zeros (D9) would move less");
  if (!(src.mesh() == dst.mesh())) add("SRC and DST are on different meshes: planned as direct sends, with no staged search");
  if (staged.applies && !staged.searched)
    add("no staged search: " + std::to_string(staged.edges) + " stages of up to " + std::to_string(std::max(pair_count(sv), pair_count(dv))) +
        " (device, element) pairs each are past the search's budget of 2^21 pairs");
  if (why.empty()) add("no sequence of the recognized collectives (one mesh axis per stage) reaches DST at the bound");
  return plan;
}

}  // namespace tfspec::multigpu
