// The reshard planner (spec/MULTIGPU.md): recognizes the common single-axis reshards as NCCL
// collectives (and several axes gathered at once as a sequence of all-gathers) and plans
// everything else as grouped point-to-point sends, computed element by element from the
// ownership of §7.2 / D3 and merged into contiguous runs.
#include <algorithm>
#include <optional>
#include <set>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"

namespace tfspec::multigpu {
namespace {

// ---- ownership: what each device holds, from the reference's §7.2 / D3 functions

struct Holding {
  int64_t element;  // logical row-major index (D2: row-major over flat G is logical order)
  int64_t offset;   // intra-engine offset (§7.1.2)
};
struct DeviceView {
  int64_t device;
  std::vector<int64_t> coord;  // mesh coordinate
  std::vector<Holding> held;   // in local row-major order
};

std::vector<int64_t> mesh_extents(const Mesh& m) {
  std::vector<int64_t> e;
  for (int a = 0; a < m.rank(); ++a) e.push_back(m.extent(a));
  return e;
}

std::vector<int64_t> local_extents(const ShardLayout& sl) {
  std::vector<int64_t> out;
  for (const auto& x : flat_leaves(local_shape(sl))) out.push_back(x.value());
  return out;
}

std::vector<DeviceView> device_views(const ShardLayout& sl) {
  const auto g = flat_extents(sl);
  const auto loc = local_extents(sl);
  const auto mesh = mesh_extents(sl.mesh());
  std::vector<DeviceView> views;  // at most 2^20 pairs (the reference's bound) and within check_plan_limits
  const auto locals = row_major_coords(loc);
  for (const auto& m : row_major_coords(mesh)) {
    DeviceView v{sl.mesh().device_of(m), m, {}};
    for (const auto& c : locals) {
      PhysicalElement pe = physical_element(sl, Storage::Rmem, m, c);
      v.held.push_back({row_major_index(global_coord(sl, m, c), g), pe.offset});
    }
    views.push_back(std::move(v));
  }
  return views;
}

std::map<int64_t, int64_t> buffer_sizes(const std::vector<DeviceView>& views) {
  std::map<int64_t, int64_t> out;
  for (const auto& v : views) {
    int64_t n = 0;
    for (const auto& h : v.held) n = std::max(n, h.offset + 1);
    out[v.device] = n;
  }
  return out;
}

const std::string* partial_reduction(const ShardLayout& sl, int a) {
  if (auto* p = std::get_if<Partial>(&sl.attrs()[a])) return &p->reduction;
  return nullptr;
}

// Devices along mesh axis `a`, one group per coordinate of the other axes (row-major).
std::vector<std::vector<int64_t>> groups_along(const Mesh& mesh, int a) {
  auto ext = mesh_extents(mesh);
  const int64_t n = ext[a];
  ext[a] = 1;
  std::vector<std::vector<int64_t>> out;
  for (auto m : row_major_coords(ext)) {
    std::vector<int64_t> g;
    for (int64_t r = 0; r < n; ++r) {
      m[a] = r;
      g.push_back(mesh.device_of(m));
    }
    out.push_back(std::move(g));
  }
  return out;
}

// ---- the tags that say what a buffer slot holds: an element, and on the kept Partial axes
// (Partial in both SRC and DST with one reduction) which contribution.
using Tag = std::pair<int64_t, int64_t>;

int64_t contribution_key(const std::vector<int>& kept, const std::vector<int64_t>& mesh, const std::vector<int64_t>& coord) {
  int64_t k = 0;
  for (int a : kept) k = k * mesh[a] + coord[a];
  return k;
}

// Runs from (from, to) offset pairs, in the order given; consecutive pairs merge.
std::vector<Run> merge_runs(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::vector<Run> runs;
  for (auto [from, to] : pairs) {
    if (!runs.empty() && runs.back().from + runs.back().len == from && runs.back().to + runs.back().len == to) ++runs.back().len;
    else runs.push_back({from, to, 1});
  }
  return runs;
}

// What the DST side needs, per device: (tag, dst offset), with the slots that stay zero left out.
struct Need {
  Tag tag;
  int64_t offset;
};

class Planner {
 public:
  Planner(const ShardLayout& src, const ShardLayout& dst, int64_t elem_bytes)
      : src_(src), dst_(dst), sv_(device_views(src)), dv_(device_views(dst)), same_mesh_(src.mesh() == dst.mesh()) {
    for (size_t i = 0; i < sv_.size(); ++i) src_index_[sv_[i].device] = i;
    for (size_t i = 0; i < dv_.size(); ++i) dst_index_[dv_[i].device] = i;
    plan_.elem_bytes = elem_bytes;
    plan_.src_size = buffer_sizes(sv_);
    plan_.dst_size = buffer_sizes(dv_);
    std::set<int64_t> devs;
    for (const auto& v : sv_) devs.insert(v.device);
    for (const auto& v : dv_) devs.insert(v.device);
    plan_.devices.assign(devs.begin(), devs.end());
    for (int64_t d : plan_.devices) plan_.bytes[d];
    mesh_ = mesh_extents(src.mesh());
    for (int a = 0; a < src.mesh().rank(); ++a)
      plan_.axis_names.push_back(src.mesh().names() ? (*src.mesh().names())[a] : "axes[" + std::to_string(a) + "]");
  }

  Plan run() {
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

 private:
  // The one mesh axis (extent >= 2) whose attr differs, the other attrs equal, on one mesh; else -1.
  int single_changed_axis() const {
    if (!same_mesh_) return -1;
    int changed = -1;
    for (int a = 0; a < src_.mesh().rank(); ++a)
      if (!(src_.attrs()[a] == dst_.attrs()[a])) {
        if (changed >= 0 || mesh_[a] < 2) return -1;
        changed = a;
      }
    return changed;
  }

  static std::vector<int64_t> element_set(const DeviceView& v) {
    std::vector<int64_t> e;
    for (const auto& h : v.held) e.push_back(h.element);
    std::sort(e.begin(), e.end());
    return e;
  }

  static bool disjoint_equal_blocks(const std::vector<std::vector<int64_t>>& sets, std::vector<int64_t>& all) {
    all.clear();
    for (const auto& s : sets) {
      if (s.size() != sets[0].size()) return false;
      all.insert(all.end(), s.begin(), s.end());
    }
    std::sort(all.begin(), all.end());
    return std::adjacent_find(all.begin(), all.end()) == all.end();
  }

  // The element sets along each group have the collective's shape (attrs say which collective;
  // the sets say it is right whatever G is): Gather, SRC blocks partition what each DST rank
  // holds; Scatter, every SRC rank holds what the DST blocks partition; Exchange, the SRC and the
  // DST blocks partition one set.
  enum class Pattern { Gather, Scatter, Exchange };
  bool blocks_ok(int a, Pattern p) const {
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

  // By the index (a linear search made the single-axis patterns quadratic in the devices).
  const DeviceView& view_of(const std::vector<DeviceView>& views, int64_t device) const {
    const auto& index = &views == &sv_ ? src_index_ : dst_index_;
    auto it = index.find(device);
    if (it == index.end()) fail(rule::kInternal, "device " + std::to_string(device) + " has no view");
    return views[it->second];
  }

  // The kept Partial axes: same mesh, Partial in both with one reduction (except `reduced`).
  void set_kept(int reduced) {
    kept_.clear();
    if (!same_mesh_) return;
    for (int a = 0; a < src_.mesh().rank(); ++a) {
      auto* s = partial_reduction(src_, a);
      auto* d = partial_reduction(dst_, a);
      if (a != reduced && s && d && *s == *d) kept_.push_back(a);
    }
  }

  // D9 reduces the highest Partial axis first. Reducing the axes in `first` before the kept ones
  // gives the same value iff every kept axis above one of them has its reduction.
  bool reducible_first(const std::set<int>& first) const {
    for (int u : first)
      for (int a = u + 1; a < src_.mesh().rank(); ++a)
        if (!first.count(a) && partial_reduction(src_, a) && *partial_reduction(src_, a) != *partial_reduction(src_, u)) return false;
    return true;
  }

  Tag tag_of(int64_t element, const std::vector<int64_t>& coord) const { return {element, contribution_key(kept_, mesh_, coord)}; }

  // DST slots to fill. A new sum axis (not kept) holds the value at coordinate 0 and 0 elsewhere
  // (D9, like distribute); a new max / min axis holds the value everywhere.
  std::vector<Need> needs(const DeviceView& v) const {
    for (int a = 0; a < dst_.mesh().rank(); ++a) {
      auto* r = partial_reduction(dst_, a);
      if (r && *r == "sum" && v.coord[a] != 0 && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) return {};
    }
    std::vector<Need> out;
    for (const auto& h : v.held) out.push_back({tag_of(h.element, v.coord), h.offset});
    return out;
  }

  // Unpacks every DST slot of every device from the places that hold its tag (first match wins).
  void unpack(const std::map<int64_t, std::map<Tag, Place>>& available) {
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

  void local_copy(int64_t device, Buffer from, Buffer to, const std::vector<std::pair<int64_t, int64_t>>& pairs) {
    if (pairs.empty()) return;
    plan_.steps.push_back(LocalCopy{device, from, to, merge_runs(pairs)});
  }

  const DeviceView& src_view(int64_t device) const { return view_of(sv_, device); }

  // The Src slots of a device, by tag.
  void add_src(std::map<int64_t, std::map<Tag, Place>>& available) const {
    for (const auto& v : sv_)
      for (const auto& h : v.held) available[v.device].emplace(tag_of(h.element, v.coord), Place{Buffer::Src, h.offset});
  }

  // A device's send block: packed into Send, or read in place when it is one ascending run of Src.
  Place send_block(int64_t device, const std::vector<Holding>& block) {
    bool contiguous = !block.empty();
    for (size_t i = 1; i < block.size() && contiguous; ++i) contiguous = block[i].offset == block[0].offset + static_cast<int64_t>(i);
    if (contiguous) return {Buffer::Src, block[0].offset};
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (size_t i = 0; i < block.size(); ++i) pairs.push_back({block[i].offset, static_cast<int64_t>(i)});
    local_copy(device, Buffer::Src, Buffer::Send, pairs);
    grow(plan_.send_size, device, static_cast<int64_t>(block.size()));
    return {Buffer::Send, 0};
  }

  static void grow(std::map<int64_t, int64_t>& sizes, int64_t device, int64_t n) { sizes[device] = std::max(sizes[device], n); }

  // ---- Split(i) -> Broadcast along a: ncclAllGather. Rank r's block (its elements in local
  // order) lands at recv + r*count on every rank of its group.
  void all_gather(int a) {
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
    plan_.steps.push_back(std::move(c));
    unpack(available);
  }

  // ---- Several axes Split -> Broadcast (no Partial anywhere, the others Split or Broadcast in both, one mesh):
  // one ncclAllGather per changed axis, in mesh axis order. The first gathers the Src blocks into
  // Recv; each later one packs everything the device holds so far (Recv, rank order) into Send
  // and gathers that. Step k (extent n_k) moves (n_k - 1) * L * n_1 ... n_(k-1) elements per rank.
  std::vector<int> gathered_axes() const {
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

  // What each device holds after each gather, element by element: along every group the blocks
  // are disjoint and of one size on every device (one count per call), and at the end every
  // device holds exactly its DST elements.
  bool gather_sequence_ok(const std::vector<int>& axes) const {
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

  void gather_sequence(const std::vector<int>& axes) {
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
      plan_.steps.push_back(std::move(c));
      order = std::move(next);
    }
    std::map<int64_t, std::map<Tag, Place>> available;
    add_src(available);  // first match wins: what a device held in SRC is copied locally
    for (const auto& [dev, elements] : order)
      for (size_t i = 0; i < elements.size(); ++i) available[dev].emplace(Tag{elements[i], 0}, Place{Buffer::Recv, static_cast<int64_t>(i)});
    unpack(available);
  }

  // ---- Partial(r) -> Split(j) along a: ncclReduceScatter. Send holds one block per rank q (the
  // elements whose coordinate on G dim j is q, in local order); rank q receives block q reduced.
  void reduce_scatter(int a) {
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
    plan_.steps.push_back(std::move(c));
    unpack(available);
  }

  // ---- Partial axes that DST does not keep: ncclAllReduce along each, the highest first (D9's
  // order), over the device's elements in local order (the devices of a group hold the same
  // elements at the same offsets, §7.1.2): in place when they are one run of Src, else packed
  // into Send, reduced into Recv and written back to Src.
  void reduce_partials(const std::vector<int>& axes) {
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
      plan_.steps.push_back(std::move(c));
      for (auto& w : write_back) plan_.steps.push_back(std::move(w));
    }
  }

  // ---- Grouped ncclSend / ncclRecv: every DST slot not held locally comes straight from a SRC
  // holder of its tag (within `groups` when given: the all-to-all); the least loaded holder sends.
  void point_to_point(const std::vector<std::vector<int64_t>>& groups, int axis) {
    std::map<int64_t, int64_t> group_of;
    for (size_t i = 0; i < groups.size(); ++i)
      for (int64_t d : groups[i]) group_of[d] = static_cast<int64_t>(i);
    std::map<Tag, std::vector<std::pair<int64_t, int64_t>>> holders;  // tag -> (device, Src offset)
    for (const auto& v : sv_)
      for (const auto& h : v.held) holders[tag_of(h.element, v.coord)].push_back({v.device, h.offset});
    std::map<int64_t, std::map<Tag, Place>> available;
    add_src(available);
    // (from, to) -> [(Src offset at from, Dst offset at to)]
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> moves;
    std::map<int64_t, int64_t> load;
    std::vector<std::pair<int64_t, Need>> wanted;
    for (const auto& v : dv_)
      for (const Need& n : needs(v)) {
        if (available[v.device].count(n.tag)) continue;
        auto h = holders.find(n.tag);
        if (h == holders.end()) fail(rule::kInternal, "no SRC device holds element " + std::to_string(n.tag.first));
        const std::pair<int64_t, int64_t>* best = nullptr;
        for (const auto& cand : h->second) {
          if (!groups.empty() && group_of.at(cand.first) != group_of.at(v.device)) continue;
          if (!best || load[cand.first] < load[best->first]) best = &cand;
        }
        if (!best) fail(rule::kInternal, "no SRC device of the group holds element " + std::to_string(n.tag.first));
        ++load[best->first];
        moves[{best->first, v.device}].push_back({best->second, n.offset});
      }
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

  // ---- Everything else: reduce the Partial axes DST does not keep (all of them when the order
  // of D9 would change), then point-to-point.
  void fallback() {
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
    reduce_partials(reduce);
    point_to_point({}, -1);
  }

  // Bytes by the model of spec/MULTIGPU.md (ring collectives, direct point-to-point), a pattern name.
  void finish() {
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
      plan_.pattern = src_ == dst_ ? "identity" : "local";
    } else {
      plan_.pattern.clear();
      for (size_t i = 0; i < names.size(); ++i) plan_.pattern += (i ? " + " : "") + names[i];
    }
  }

  const ShardLayout& src_;
  const ShardLayout& dst_;
  std::vector<DeviceView> sv_, dv_;
  std::map<int64_t, size_t> src_index_, dst_index_;  // device -> its position in sv_ / dv_
  bool same_mesh_;
  std::vector<int64_t> mesh_;
  std::vector<int> kept_;
  Plan plan_;
};

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
  return Planner(src, dst, elem_bytes).run();
}

}  // namespace tfspec::multigpu
