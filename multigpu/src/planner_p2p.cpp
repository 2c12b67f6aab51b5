// The Planner's grouped ncclSend / ncclRecv (spec/MULTIGPU.md "What the planner emits"): the
// senders chosen per slot, the point-to-point step, and the fallback for everything else.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "planner.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::planning {

Planner::Moves Planner::choose_senders(const std::vector<std::vector<int64_t>>& groups, std::map<int64_t, std::map<Tag, Place>>& available) {
  std::map<int64_t, int64_t> group_of;
  for (size_t i = 0; i < groups.size(); ++i)
    for (int64_t d : groups[i]) group_of[d] = static_cast<int64_t>(i);
  std::map<Tag, std::map<int64_t, int64_t>> holders;  // tag -> device -> Src offset
  for (const auto& v : sv_)
    for (const auto& h : v.held) holders[tag_of(h.element, v.coord)].emplace(v.device, h.offset);
  Moves moves;
  std::map<int64_t, int64_t> load;
  for (const auto& v : dv_) {
    std::vector<std::pair<const std::map<int64_t, int64_t>*, int64_t>> run;  // (holders in the group, Dst offset)
    std::vector<int64_t> run_devices;
    auto flush = [&] {
      if (run.empty()) return;
      int64_t best = run_devices.front();
      for (int64_t d : run_devices)
        if (load[d] < load[best]) best = d;
      load[best] += static_cast<int64_t>(run.size());
      for (const auto& [hs, dst_offset] : run) moves[{best, v.device}].push_back({hs->at(best), dst_offset});
      run.clear();
    };
    for (const Need& n : needs(v)) {
      if (available[v.device].count(n.tag)) {
        flush();
        continue;
      }
      auto h = holders.find(n.tag);
      if (h == holders.end()) fail(rule::kInternal, "no SRC device holds element " + std::to_string(n.tag.first));
      std::vector<int64_t> devices;
      for (const auto& [d, offset] : h->second)
        if (groups.empty() || group_of.at(d) == group_of.at(v.device)) devices.push_back(d);
      if (devices.empty()) fail(rule::kInternal, "no SRC device of the group holds element " + std::to_string(n.tag.first));
      if (devices != run_devices) flush(), run_devices = devices;
      run.push_back({&h->second, n.offset});
    }
    flush();
  }
  return moves;
}

void Planner::point_to_point(const std::vector<std::vector<int64_t>>& groups, int axis) {
  std::map<int64_t, std::map<Tag, Place>> available;
  add_src(available);
  Moves moves = choose_senders(groups, available);
  Collective c{groups.empty() ? CollectiveKind::SendRecv : CollectiveKind::AllToAll, "", axis, groups, 0, {}, {}, {}};
  std::map<int64_t, int64_t> send_used, recv_used;
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> pack;
  for (auto& [pair, list] : moves) {
    auto [from, to] = pair;
    std::sort(list.begin(), list.end(), [](auto x, auto y) { return x.second < y.second; });  // Dst order
    Transfer t{from, to, send_used[from], recv_used[to], static_cast<int64_t>(list.size())};
    for (int64_t k = 0; k < t.count; ++k) {
      pack[from].push_back({list[k].first, t.send_offset + k});
      available[to].emplace(Tag{-1 - list[k].second, 0}, Place{Buffer::Recv, t.recv_offset + k});  // by Dst offset
    }
    send_used[from] += t.count;
    recv_used[to] += t.count;
    c.transfers.push_back(t);
  }
  for (auto& [device, pairs] : pack) local_copy(device, Buffer::Src, Buffer::Send, pairs);
  for (auto [d, n] : send_used) grow(plan_.send_size, d, n);
  for (auto [d, n] : recv_used) grow(plan_.recv_size, d, n);
  if (!c.transfers.empty()) plan_.steps.push_back(std::move(c));
  // Unpack: a received slot is keyed by its Dst offset, a kept one by its tag.
  for (const auto& v : dv_) {
    std::map<Buffer, std::vector<std::pair<int64_t, int64_t>>> pairs;
    auto& av = available[v.device];
    for (const Need& n : needs(v)) {
      auto f = av.find(n.tag);
      if (f == av.end()) f = av.find(Tag{-1 - n.offset, 0});
      if (f == av.end()) fail(rule::kInternal, "element " + std::to_string(n.tag.first) + " of device " + std::to_string(v.device) + " is unfilled");
      pairs[f->second.buffer].push_back({f->second.offset, n.offset});
    }
    for (auto& [buffer, ps] : pairs) {
      std::sort(ps.begin(), ps.end(), [](auto x, auto y) { return x.second < y.second; });
      local_copy(v.device, buffer, Buffer::Dst, ps);
    }
  }
}

void Planner::fallback() {
  set_kept(-1);
  std::vector<int> reduce;
  std::set<int> reduce_set;
  for (int a = 0; a < src_.mesh().rank(); ++a)
    if (partial_reduction(src_, a) && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) {
      reduce.push_back(a);
      reduce_set.insert(a);
    }
  if (!reducible_first(reduce_set)) {
    kept_.clear();
    reduce.clear();
    for (int a = 0; a < src_.mesh().rank(); ++a)
      if (partial_reduction(src_, a)) reduce.push_back(a);
  }
  const bool hierarchical = reduce_partials(reduce);
  const size_t before = plan_.steps.size();
  point_to_point({}, -1);
  if (reduce.size() >= 2 && !hierarchical)
    note("the Partial axes are all-reduced one after another, each over the whole block; a reduce-scatter, all-reduce, all-gather "
         "sequence (hierarchical) would move less");
  bool everywhere = same_mesh_;  // DST wants every reduced element on every device of the groups
  for (int a : reduce) everywhere = everywhere && std::holds_alternative<Broadcast>(dst_.attrs()[a]);
  for (size_t i = before; i < plan_.steps.size(); ++i) everywhere = everywhere && std::holds_alternative<LocalCopy>(plan_.steps[i]);
  if (!reduce.empty() && !everywhere)
    note("SRC's Partial axes are all-reduced before anything moves (the fallback): every device of a group gets the full reduction, "
         "where a reduction to the devices that need each element would move less");
}

}  // namespace tfspec::multigpu::planning
