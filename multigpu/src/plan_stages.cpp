// Staged reshard plans (issue 35; spec/MULTIGPU.md "Staged plans"): the search over intermediate
// layouts when several mesh axes change, and the assembly of its stages into one plan.
#include <algorithm>
#include <set>
#include <tuple>

#include "plan_internal.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::planning {
namespace {

// ---- Staged plans (issue 35; spec/MULTIGPU.md "Staged plans"): when several mesh axes change,
// the reshard may go through intermediate layouts, one changed axis per stage, each stage planned
// by the Planner (reshard_plan.cpp) (so each is a reshard the reference accepts, checked element by element).
// The intermediate layouts are ownerships, not ShardLayouts: device m holds every element whose
// owner coordinate on each Split axis is m's (from SRC for the axes not yet changed, from DST for
// the others), densely in element order in a Mid buffer.

struct Ownership {
  Side side;
  std::vector<DeviceView> views;
};

// The coordinate along Split axis a at which each element is held, or nullopt when an element is
// held at two coordinates (or at none).
std::optional<std::vector<int64_t>> owner_coords(const std::vector<DeviceView>& views, int a, int64_t elements) {
  std::vector<int64_t> c(static_cast<size_t>(elements), -1);
  for (const auto& v : views)
    for (const auto& h : v.held) {
      auto& x = c.at(static_cast<size_t>(h.element));
      if (x >= 0 && x != v.coord[a]) return std::nullopt;
      x = v.coord[a];
    }
  if (std::find(c.begin(), c.end(), -1) != c.end()) return std::nullopt;
  return c;
}

class StageSearch {
 public:
  StageSearch(const Side& src, const std::vector<DeviceView>& sv, const Side& dst, const std::vector<DeviceView>& dv, int64_t elements, int64_t elem_bytes)
      : src_(src), dst_(dst), sv_(sv), dv_(dv), elements_(elements), elem_bytes_(elem_bytes),
        max_pairs_(std::max(pair_count(sv), pair_count(dv))) {
    if (!(src.mesh() == dst.mesh())) return;  // no staged search across meshes (their axes differ)
    for (int a = 0; a < src.mesh().rank(); ++a)
      if (!(src.attrs()[a] == dst.attrs()[a])) changed_.push_back(a);
  }

  // The changed axes, when a staged plan is worth searching: one mesh, 2 to 4 changed axes.
  bool applies() const { return src_.mesh() == dst_.mesh() && changed_.size() >= 2 && changed_.size() <= 4; }

  // The search plans every edge of the subset graph (2 changed axes: 5 stages; 3: 16; 4: 43), each
  // over up to max(SRC, DST) pairs: it runs only while that work stays within about two plans of
  // 2^20 pairs (the planner's own limit), so a large reshard costs what one plan costs, not 43.
  static constexpr int64_t kSearchPairBudget = int64_t{1} << 21;
  int64_t edges() const {
    const int64_t k = static_cast<int64_t>(changed_.size());
    const int64_t single = k * (int64_t{1} << (k - 1)) - k;  // edges adding one axis, into a proper subset
    return single + ((int64_t{1} << k) - 1);  // plus one edge to DST from every other subset
  }
  bool within_budget() const { return max_pairs_ * edges() <= kSearchPairBudget; }

  // The cheapest sequence of stages by bytes (then by fewer stages): a shortest path over the
  // subsets of changed axes, from none to all; an edge changes one more axis (to an intermediate
  // ownership) or all the remaining ones (to DST). Returns the masks along the path.
  std::vector<uint32_t> best_path() {
    const uint32_t full = (1u << changed_.size()) - 1;
    struct Best {
      int64_t bytes = -1, stages = 0;
      uint32_t prev = 0;
    };
    std::vector<Best> best(full + 1);
    best[0] = {0, 0, 0};
    for (uint32_t a = 0; a < full; ++a) {  // masks in increasing order: every edge goes to a larger mask
      if (best[a].bytes < 0) continue;
      auto relax = [&](uint32_t b) {
        auto bytes = edge_bytes(a, b);
        if (!bytes) return;
        Best cand{best[a].bytes + *bytes, best[a].stages + 1, a};
        if (best[b].bytes < 0 || std::tie(cand.bytes, cand.stages) < std::tie(best[b].bytes, best[b].stages)) best[b] = cand;
      };
      for (size_t i = 0; i < changed_.size(); ++i)
        if (!(a & (1u << i)) && (a | (1u << i)) != full) relax(a | (1u << i));
      relax(full);
    }
    std::vector<uint32_t> path{full};
    while (path.back() != 0) path.push_back(best[path.back()].prev);
    std::reverse(path.begin(), path.end());
    return path;
  }

  // The plan of one stage (masks a -> b), its Src / Dst buffers still named Src / Dst.
  std::optional<Plan> stage(uint32_t a, uint32_t b) {
    const Ownership* from = ownership(a);
    const Ownership* to = ownership(b);
    if (!from || !to) return std::nullopt;
    const uint32_t full = (1u << changed_.size()) - 1;
    return plan_stage(from->side, from->views, to->side, to->views, elem_bytes_, b == full);  // a Mid buffer is written whole (spec/MULTIGPU.md)
  }

  std::string describe(uint32_t a, uint32_t b, const std::vector<std::string>& names) const {
    std::string out;
    for (size_t i = 0; i < changed_.size(); ++i)
      if ((b & (1u << i)) && !(a & (1u << i))) {
        const int ax = changed_[i];
        out += std::string(out.empty() ? "" : ", ") + names[static_cast<size_t>(ax)] + ": " + to_string(src_.attrs()[ax]) + " -> " +
               to_string(dst_.attrs()[ax]);
      }
    return out;
  }

 private:
  std::optional<int64_t> edge_bytes(uint32_t a, uint32_t b) {
    auto plan = stage(a, b);
    if (!plan) return std::nullopt;
    return plan->total_bytes();
  }

  const Ownership* ownership(uint32_t mask) {
    auto it = cache_.find(mask);
    if (it != cache_.end()) return it->second ? &*it->second : nullptr;
    auto& slot = cache_[mask];
    slot = build(mask);
    return slot ? &*slot : nullptr;
  }

  std::optional<Ownership> build(uint32_t mask) {
    const uint32_t full = (1u << changed_.size()) - 1;
    if (mask == 0) return Ownership{src_, sv_};
    if (mask == full) return Ownership{dst_, dv_};
    Side side = src_;
    for (size_t i = 0; i < changed_.size(); ++i)
      if (mask & (1u << i)) {
        const int ax = changed_[i];
        if (std::holds_alternative<Partial>(dst_.attrs()[ax])) return std::nullopt;  // a new Partial only in the last stage
        side.attrs_[ax] = dst_.attrs()[ax];
      }
    const auto mesh = mesh_extents(side.mesh());
    std::vector<int> split;
    std::vector<std::vector<int64_t>> coords;
    for (int ax = 0; ax < side.mesh().rank(); ++ax) {
      if (!std::holds_alternative<Split>(side.attrs()[ax])) continue;
      const bool from_dst = !(src_.attrs()[ax] == side.attrs()[ax]);
      auto c = owner_coords(from_dst ? dv_ : sv_, ax, elements_);
      if (!c) return std::nullopt;
      split.push_back(ax);
      coords.push_back(std::move(*c));
    }
    auto key_of = [&](auto&& coord_of) {
      int64_t k = 0;
      for (size_t i = 0; i < split.size(); ++i) k = k * mesh[static_cast<size_t>(split[i])] + coord_of(i);
      return k;
    };
    int64_t buckets_n = 1;
    for (int ax : split) buckets_n *= mesh[static_cast<size_t>(ax)];
    std::vector<std::vector<int64_t>> buckets(static_cast<size_t>(buckets_n));
    for (int64_t e = 0; e < elements_; ++e) buckets[static_cast<size_t>(key_of([&](size_t i) { return coords[i][static_cast<size_t>(e)]; }))].push_back(e);
    Ownership out{side, {}};
    int64_t pairs = 0;
    for (const auto& m : row_major_coords(mesh)) {
      const auto& b = buckets[static_cast<size_t>(key_of([&](size_t i) { return m[static_cast<size_t>(split[i])]; }))];
      pairs += static_cast<int64_t>(b.size());
      if (pairs > max_pairs_) return std::nullopt;  // never more than SRC or DST hold (the plan limits' estimate covers those)
      DeviceView v{side.mesh().device_of(m), m, {}};
      v.held.reserve(b.size());
      for (size_t i = 0; i < b.size(); ++i) v.held.push_back({b[i], static_cast<int64_t>(i)});
      out.views.push_back(std::move(v));
    }
    return out;
  }

  const Side& src_;
  const Side& dst_;
  const std::vector<DeviceView>& sv_;
  const std::vector<DeviceView>& dv_;
  int64_t elements_, elem_bytes_, max_pairs_;
  std::vector<int> changed_;
  std::map<uint32_t, std::optional<Ownership>> cache_;
};

// Stage plans in order -> one plan: stage k reads Src (k = 0) or Mid((k-1) % 2) and writes Dst
// (the last) or Mid(k % 2); staging buffers are shared (the largest size wins); bytes add up.
Plan assemble(std::vector<Plan> stages, std::vector<std::string> descriptions) {
  Plan out;
  const Plan& first = stages.front();
  out.elem_bytes = first.elem_bytes;
  out.axis_names = first.axis_names;
  out.src_size = first.src_size;
  out.dst_size = stages.back().dst_size;
  std::set<int64_t> devs;
  std::vector<std::string> names;
  auto grow_all = [](std::map<int64_t, int64_t>& into, const std::map<int64_t, int64_t>& from) {
    for (auto [d, n] : from) into[d] = std::max(into[d], n);
  };
  for (size_t k = 0; k < stages.size(); ++k) {
    Plan& p = stages[k];
    const Buffer in = k == 0 ? Buffer::Src : ((k - 1) % 2 ? Buffer::Mid1 : Buffer::Mid0);
    const Buffer to = k + 1 == stages.size() ? Buffer::Dst : (k % 2 ? Buffer::Mid1 : Buffer::Mid0);
    auto rename = [&](Buffer b) { return b == Buffer::Src ? in : b == Buffer::Dst ? to : b; };
    if (in != Buffer::Src) grow_all(in == Buffer::Mid0 ? out.mid0_size : out.mid1_size, p.src_size);
    if (to != Buffer::Dst) grow_all(to == Buffer::Mid0 ? out.mid0_size : out.mid1_size, p.dst_size);
    grow_all(out.send_size, p.send_size);
    grow_all(out.recv_size, p.recv_size);
    for (auto& step : p.steps) {
      if (auto* l = std::get_if<LocalCopy>(&step)) {
        l->from = rename(l->from);
        l->to = rename(l->to);
      } else {
        auto& c = std::get<Collective>(step);
        for (auto& [d, place] : c.send) place.buffer = rename(place.buffer);
        for (auto& [d, place] : c.recv) place.buffer = rename(place.buffer);
      }
      out.steps.push_back(std::move(step));
    }
    for (auto [d, b] : p.bytes) {
      out.bytes[d].sent = checked_add(out.bytes[d].sent, b.sent);
      out.bytes[d].received = checked_add(out.bytes[d].received, b.received);
    }
    devs.insert(p.devices.begin(), p.devices.end());
    if (!p.above_bound_because.empty() && out.above_bound_because.find(p.above_bound_because) == std::string::npos)
      out.above_bound_because += (out.above_bound_because.empty() ? "" : "; ") + p.above_bound_because;
    if (p.pattern != "local" && p.pattern != "identity") names.push_back(p.pattern);
  }
  out.devices.assign(devs.begin(), devs.end());
  for (size_t i = 0; i < names.size(); ++i) out.pattern += (i ? " + " : "") + names[i];
  if (names.empty()) out.pattern = "local";
  out.stages = std::move(descriptions);
  return out;
}

}  // namespace

StagedPlan plan_staged(const Side& src, const std::vector<DeviceView>& sv, const Side& dst, const std::vector<DeviceView>& dv, int64_t elements,
                       int64_t elem_bytes) {
  StageSearch search(src, sv, dst, dv, elements, elem_bytes);
  StagedPlan out;
  out.applies = search.applies();
  out.searched = out.applies && search.within_budget();
  out.edges = out.applies ? search.edges() : 0;
  if (!out.searched) return out;
  const auto path = search.best_path();
  std::vector<Plan> stages;
  std::vector<std::string> descriptions;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    auto p = search.stage(path[i], path[i + 1]);
    if (!p) fail(rule::kInternal, "a stage of the chosen staged plan could not be planned again");
    stages.push_back(std::move(*p));
    descriptions.push_back(search.describe(path[i], path[i + 1], stages.front().axis_names));
  }
  out.plan = stages.size() == 1 ? std::move(stages.front()) : assemble(std::move(stages), std::move(descriptions));
  return out;
}

}  // namespace tfspec::multigpu::planning
