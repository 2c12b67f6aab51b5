// The Planner's recognized collectives (spec/MULTIGPU.md "What the planner emits"): all-gather,
// a sequence of all-gathers, reduce-scatter, the all-reduces of Partial axes (one by one or
// hierarchically).
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

void Planner::all_gather(int a) {
  Collective c{CollectiveKind::AllGather, "", a, groups_along(src_.mesh(), a), 0, {}, {}, {}};
  std::map<int64_t, std::map<Tag, Place>> available;
  add_src(available);
  for (const auto& group : c.groups) {
    const int64_t n = static_cast<int64_t>(group.size());
    for (int64_t r = 0; r < n; ++r) {
      const DeviceView& v = src_view(group[r]);
      c.count = static_cast<int64_t>(v.held.size());
      c.send[v.device] = send_block(v.device, v.held);
      c.recv[v.device] = {Buffer::Recv, 0};
      grow(plan_.recv_size, v.device, n * c.count);
      for (int64_t q = 0; q < n; ++q) {
        const DeviceView& w = src_view(group[q]);
        for (size_t k = 0; k < w.held.size(); ++k)
          available[v.device].emplace(tag_of(w.held[k].element, w.coord), Place{Buffer::Recv, q * c.count + static_cast<int64_t>(k)});
      }
    }
  }
  note_replicas(c);
  plan_.steps.push_back(std::move(c));
  unpack(available);
}

bool Planner::gather_sequence_ok(const std::vector<int>& axes) const {
  std::map<int64_t, std::vector<int64_t>> holds;
  for (const auto& v : sv_) holds[v.device] = element_set(v);
  for (int a : axes) {
    std::map<int64_t, std::vector<int64_t>> next;
    for (const auto& group : groups_along(src_.mesh(), a)) {
      std::vector<std::vector<int64_t>> blocks;
      for (int64_t dev : group) blocks.push_back(holds.at(dev));
      std::vector<int64_t> all;
      if (!disjoint_equal_blocks(blocks, all) || blocks[0].size() != holds.begin()->second.size()) return false;
      for (int64_t dev : group) next[dev] = all;
    }
    holds = std::move(next);
  }
  for (const auto& v : dv_)
    if (holds.at(v.device) != element_set(v)) return false;
  return true;
}

void Planner::gather_sequence(const std::vector<int>& axes) {
  std::map<int64_t, std::vector<int64_t>> order;  // device -> the elements of its block, in buffer order
  for (const auto& v : sv_)
    for (const auto& h : v.held) order[v.device].push_back(h.element);
  for (size_t k = 0; k < axes.size(); ++k) {
    Collective c{CollectiveKind::AllGather, "", axes[k], groups_along(src_.mesh(), axes[k]), 0, {}, {}, {}};
    std::map<int64_t, std::vector<int64_t>> next;
    for (const auto& group : c.groups) {
      const int64_t n = static_cast<int64_t>(group.size());
      for (int64_t dev : group) {
        c.count = static_cast<int64_t>(order[dev].size());
        if (k == 0) {
          c.send[dev] = send_block(dev, src_view(dev).held);
        } else {
          std::vector<std::pair<int64_t, int64_t>> pairs;
          for (int64_t i = 0; i < c.count; ++i) pairs.push_back({i, i});
          local_copy(dev, Buffer::Recv, Buffer::Send, pairs);
          grow(plan_.send_size, dev, c.count);
          c.send[dev] = {Buffer::Send, 0};
        }
        c.recv[dev] = {Buffer::Recv, 0};
        grow(plan_.recv_size, dev, n * c.count);
        for (int64_t q : group) next[dev].insert(next[dev].end(), order[q].begin(), order[q].end());
      }
    }
    note_replicas(c);
    plan_.steps.push_back(std::move(c));
    order = std::move(next);
  }
  std::map<int64_t, std::map<Tag, Place>> available;
  add_src(available);  // first match wins: what a device held in SRC is copied locally
  for (const auto& [dev, elements] : order)
    for (size_t i = 0; i < elements.size(); ++i) available[dev].emplace(Tag{elements[i], 0}, Place{Buffer::Recv, static_cast<int64_t>(i)});
  unpack(available);
}

void Planner::reduce_scatter(int a) {
  Collective c{CollectiveKind::ReduceScatter, *partial_reduction(src_, a), a, groups_along(src_.mesh(), a), 0, {}, {}, {}};
  std::map<int64_t, std::map<Tag, Place>> available;
  for (const auto& group : c.groups) {
    const int64_t n = static_cast<int64_t>(group.size());
    std::map<int64_t, int64_t> owner;  // element -> the DST rank holding it
    for (int64_t q = 0; q < n; ++q)
      for (const auto& h : view_of(dv_, group[q]).held) owner[h.element] = q;
    for (int64_t r = 0; r < n; ++r) {
      const DeviceView& v = src_view(group[r]);
      std::vector<std::vector<Holding>> blocks(static_cast<size_t>(n));
      for (const auto& h : v.held) blocks.at(static_cast<size_t>(owner.at(h.element))).push_back(h);
      c.count = static_cast<int64_t>(blocks[0].size());
      std::vector<std::pair<int64_t, int64_t>> pack;
      for (int64_t q = 0; q < n; ++q) {
        if (static_cast<int64_t>(blocks[q].size()) != c.count) fail(rule::kInternal, "reduce-scatter blocks of unequal size");
        for (int64_t k = 0; k < c.count; ++k) pack.push_back({blocks[q][k].offset, q * c.count + k});
      }
      local_copy(v.device, Buffer::Src, Buffer::Send, pack);
      grow(plan_.send_size, v.device, n * c.count);
      grow(plan_.recv_size, v.device, c.count);
      c.send[v.device] = {Buffer::Send, 0};
      c.recv[v.device] = {Buffer::Recv, 0};
      for (int64_t k = 0; k < c.count; ++k) available[v.device].emplace(tag_of(blocks[r][k].element, v.coord), Place{Buffer::Recv, k});
    }
  }
  note_replicas(c);
  plan_.steps.push_back(std::move(c));
  unpack(available);
}

bool Planner::reduce_partials(const std::vector<int>& axes) {
  if (axes.size() >= 2 && reduce_hierarchically(axes)) return true;
  std::set<int> done;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    const int a = *it;
    Collective c{CollectiveKind::AllReduce, *partial_reduction(src_, a), a, groups_along(src_.mesh(), a), 0, {}, {}, {}};
    std::vector<LocalCopy> write_back;
    for (const auto& v : sv_) {
      c.count = static_cast<int64_t>(v.held.size());
      c.send[v.device] = send_block(v.device, v.held);
      if (c.send[v.device].buffer == Buffer::Src) {
        c.recv[v.device] = c.send[v.device];
        continue;
      }
      c.recv[v.device] = {Buffer::Recv, 0};
      grow(plan_.recv_size, v.device, c.count);
      std::vector<std::pair<int64_t, int64_t>> back;
      for (size_t k = 0; k < v.held.size(); ++k) back.push_back({static_cast<int64_t>(k), v.held[k].offset});
      write_back.push_back(LocalCopy{v.device, Buffer::Recv, Buffer::Src, merge_runs(back)});
    }
    note_replicas(c, done);
    done.insert(a);
    plan_.steps.push_back(std::move(c));
    for (auto& w : write_back) plan_.steps.push_back(std::move(w));
  }
  return false;
}

bool Planner::reduce_hierarchically(const std::vector<int>& axes) {
  const std::vector<int> ord(axes.rbegin(), axes.rend());
  const int64_t L = static_cast<int64_t>(sv_.front().held.size());
  std::vector<int64_t> chunk{L}, off{0};
  for (size_t k = 0; k + 1 < ord.size(); ++k) {
    if (chunk.back() % mesh_[static_cast<size_t>(ord[k])] != 0) return false;
    off.push_back(off.back() + chunk.back());
    chunk.push_back(chunk.back() / mesh_[static_cast<size_t>(ord[k])]);
  }
  for (const auto& v : sv_)
    if (static_cast<int64_t>(v.held.size()) != L || L == 0) return false;
  std::map<int64_t, Place> block, last;  // the block reduce-scatter 1 reads, where all-gather 1 writes
  for (const auto& v : sv_) {
    block[v.device] = send_block(v.device, v.held);
    last[v.device] = block[v.device].buffer == Buffer::Src ? block[v.device] : Place{Buffer::Recv, 0};
    grow(plan_.recv_size, v.device, off.back() + chunk.back());
  }
  auto step = [&](CollectiveKind kind, size_t k, int64_t count, auto send, auto recv) {
    const std::string r = kind == CollectiveKind::AllGather ? "" : *partial_reduction(src_, ord[k]);
    Collective c{kind, r, ord[k], groups_along(src_.mesh(), ord[k]), count, {}, {}, {}};
    for (const auto& v : sv_) c.send[v.device] = send(v.device), c.recv[v.device] = recv(v.device);
    plan_.steps.push_back(std::move(c));
  };
  auto region = [&](size_t k) { return [&, k](int64_t d) { return k == 0 ? last.at(d) : Place{Buffer::Recv, off[k]}; }; };
  for (size_t k = 0; k + 1 < ord.size(); ++k)
    step(CollectiveKind::ReduceScatter, k, chunk[k + 1], k == 0 ? std::function<Place(int64_t)>([&](int64_t d) { return block.at(d); }) : region(k),
         region(k + 1));
  const size_t m = ord.size() - 1;
  step(CollectiveKind::AllReduce, m, chunk[m], region(m), region(m));
  for (size_t k = m; k-- > 0;) step(CollectiveKind::AllGather, k, chunk[k + 1], region(k + 1), region(k));
  for (const auto& v : sv_) {
    if (last[v.device].buffer == Buffer::Src) continue;
    std::vector<std::pair<int64_t, int64_t>> back;
    for (size_t i = 0; i < v.held.size(); ++i) back.push_back({static_cast<int64_t>(i), v.held[i].offset});
    local_copy(v.device, Buffer::Recv, Buffer::Src, back);
  }
  return true;
}

}  // namespace tfspec::multigpu::planning
