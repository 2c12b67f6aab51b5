// The reshard planner (spec/MULTIGPU.md): recognizes the common single-axis reshards as NCCL
// collectives (and several axes gathered at once as a sequence of all-gathers) and plans
// everything else as grouped point-to-point sends, computed element by element from the
// ownership of §7.2 / D3 and merged into contiguous runs. The ownership helpers are in
// plan_ownership.cpp, the staged search over intermediate layouts in plan_stages.cpp.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "plan_internal.hpp"
#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"

namespace tfspec::multigpu {
namespace planning {
namespace {

// What the DST side needs, per device: (tag, dst offset), with the slots that stay zero left out.
struct Need {
  Tag tag;
  int64_t offset;
};

class Planner {
 public:
  Planner(const Side& src, const std::vector<DeviceView>& sv, const Side& dst, const std::vector<DeviceView>& dv, int64_t elem_bytes, bool identical)
      : src_(src), dst_(dst), sv_(sv), dv_(dv), same_mesh_(src.mesh() == dst.mesh()), identical_(identical) {
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

  // ---- The lower bound of spec/MULTIGPU.md ("Why these are minimal") on the messages any plan
  // needs, one element's value or partial reduction each, from the ownership alone (no step of a
  // plan is consulted). Per tag t that DST needs, with k the SRC contribution classes of t (its
  // coordinates on the SRC Partial axes DST does not keep) and D the DST devices that need t:
  //   k == 1: the devices of D that do not hold t in SRC (each needs a receive);
  //   k >= 2: k - 1 + |D| - [a device of D holds a contribution of t]: some device is the first to
  //   hold the full reduction, which needs k - 1 messages before it (k when that device holds no
  //   contribution), and every other device of D one receive after it.
  // A DST Partial axis that SRC has with the same reduction may hold the moved contributions
  // (kept) or canonical ones (reduced, D9): both are what the reference accepts, and the bound is
  // the smaller of the two.
  int64_t lower_bound_messages() {
    set_kept(-1);
    std::set<int> reduced;
    for (int a = 0; a < src_.mesh().rank(); ++a)
      if (partial_reduction(src_, a) && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) reduced.insert(a);
    if (!reducible_first(reduced)) kept_.clear();
    for (int a = 0; a < dst_.mesh().rank(); ++a)
      fresh_partial_ = fresh_partial_ || (partial_reduction(dst_, a) && std::find(kept_.begin(), kept_.end(), a) == kept_.end());
    int64_t messages = messages_for_kept();
    if (!kept_.empty()) {
      kept_.clear();
      const int64_t reduced_all = messages_for_kept();
      reducing_is_cheaper_ = reduced_all < messages;
      messages = std::min(messages, reduced_all);
    }
    return messages;
  }
  // After lower_bound_messages(): whether reducing the Partial axes DST keeps would move less.
  bool reducing_is_cheaper() const { return reducing_is_cheaper_; }
  // Whether DST has a Partial axis SRC's contributions do not travel along (kept, in the bound).
  bool has_fresh_partial() const { return fresh_partial_; }

  // After run(): whether some DST slot is left unwritten (zero) by the new-sum rule of needs().
  bool leaves_slots_zero() const {
    for (int a = 0; a < dst_.mesh().rank(); ++a) {
      auto* r = partial_reduction(dst_, a);
      if (r && *r == "sum" && dst_.mesh().extent(a) >= 2 && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) return true;
    }
    return false;
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
    note_replicas(c);
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
    note_replicas(c);
    plan_.steps.push_back(std::move(c));
    unpack(available);
  }

  // ---- Partial axes that DST does not keep: ncclAllReduce along each, the highest first (D9's
  // order), over the device's elements in local order (the devices of a group hold the same
  // elements at the same offsets, §7.1.2): in place when they are one run of Src, else packed
  // into Send, reduced into Recv and written back to Src.
  // Returns whether the hierarchical form (below) was used.
  bool reduce_partials(const std::vector<int>& axes) {
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

  // ---- Several Partial axes reduced at once (issue 47), a_1 the highest (D9's order) .. a_m: a
  // hierarchical all-reduce. Reduce-scatter along a_1 .. a_(m-1), each over the previous chunk
  // (count L / n_1 ... n_k), all-reduce the last chunk along a_m, all-gather back along a_(m-1) ..
  // a_1. Per group of all the axes' devices (n = n_1 ... n_m) that is 2(n - 1)L elements, the
  // one-way gossip bound of one all-reduce over the n devices, where one all-reduce per axis over
  // the whole block moves 2 L (n_1 - 1) n / n_1 + ... Chunk k of a device's block is Recv[off_k,
  // off_k + c_k); the last all-gather lands in the block itself when it is one run of Src, else
  // in Recv[0, L) and is written back. Only when every block has one size L that n_1 ... n_(m-1)
  // divides (the chunks of one collective have one count); else one all-reduce per axis.
  bool reduce_hierarchically(const std::vector<int>& axes) {
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

  // ---- Grouped ncclSend / ncclRecv: every DST slot not held locally comes straight from a SRC
  // holder of its tag (within `groups` when given: the all-to-all). Senders are chosen by runs,
  // not by element (issue 47): a maximal run of a device's missing slots (in its DST order) whose
  // tags have the same holders comes whole from the least loaded of them, so a piece held by two
  // replicas travels as one contiguous block instead of alternating elements (one-element runs).
  using Moves = std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>>;  // (from, to) -> [(Src at from, Dst at to)]
  Moves choose_senders(const std::vector<std::vector<int64_t>>& groups, std::map<int64_t, std::map<Tag, Place>>& available) {
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

  void point_to_point(const std::vector<std::vector<int64_t>>& groups, int axis) {
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

  // Why this plan may move more than the lower bound, in words (spec/MULTIGPU.md); kept once each.
  void note(const std::string& why) {
    auto& b = plan_.above_bound_because;
    if (b.find(why) != std::string::npos) return;
    b += (b.empty() ? "" : "; ") + why;
  }

  // A ring collective whose groups hold the same elements (replicas along a Broadcast axis): each
  // group runs it on its own copy. Every device still moves the ring's minimum, in parallel, but
  // the total is above the bound, which reduces (or gathers) once and copies the result.
  // Groups that differ on a Partial axis not yet reduced (`reduced`: the axes all-reduced before
  // this step) hold different contributions, not replicas.
  void note_replicas(const Collective& c, const std::set<int>& reduced = {}) {
    if (c.groups.size() < 2) return;
    if (element_set(src_view(c.groups[0][0])) != element_set(src_view(c.groups[1][0]))) return;
    for (int b = 0; b < src_.mesh().rank(); ++b)
      if (b != c.mesh_axis && mesh_[b] >= 2 && partial_reduction(src_, b) && !reduced.count(b)) return;
    note("the " + nccl_name(c.kind) + " along " + plan_.axis_names[static_cast<size_t>(c.mesh_axis)] + " runs in each of " +
         std::to_string(c.groups.size()) + " groups that hold the same elements (replicas on another mesh axis): each device moves the "
         "ring's minimum, in parallel, but in total once per replica");
  }

  int64_t messages_for_kept() const {
    std::vector<int> reduced;
    for (int a = 0; a < src_.mesh().rank(); ++a)
      if (partial_reduction(src_, a) && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) reduced.push_back(a);
    struct Held {
      Tag tag;
      int64_t device, cls;
    };
    std::vector<Held> held;
    for (const auto& v : sv_) {
      const int64_t cls = contribution_key(reduced, mesh_, v.coord);
      for (const auto& h : v.held) held.push_back({tag_of(h.element, v.coord), v.device, cls});
    }
    auto by_tag_device = [](const Held& x, const Held& y) { return std::tie(x.tag, x.device) < std::tie(y.tag, y.device); };
    std::sort(held.begin(), held.end(), by_tag_device);
    // DST's new Partial axes (Partial in DST, not kept): any contributions that reduce to the value
    // are correct there, not only D9's canonical ones (DTensor keeps each block in place), so each
    // group of DST devices along them (one coordinate on the other axes) needs the value only
    // among its members (the count below).
    std::vector<int> fresh;
    for (int a = 0; a < dst_.mesh().rank(); ++a)
      if (partial_reduction(dst_, a) && std::find(kept_.begin(), kept_.end(), a) == kept_.end()) fresh.push_back(a);
    std::set<std::string> reductions;  // of the reduced SRC axes and the fresh DST axes
    for (int a : reduced) reductions.insert(*partial_reduction(src_, a));
    for (int a : fresh) reductions.insert(*partial_reduction(dst_, a));
    const bool one_reduction = reductions.size() <= 1;
    struct Want {
      Tag tag;
      int64_t group, device;
      auto key() const { return std::tie(tag, group, device); }
      bool operator<(const Want& y) const { return key() < y.key(); }
      bool operator==(const Want& y) const { return key() == y.key(); }
    };
    std::vector<Want> need;  // (tag, DST group, DST device): without fresh axes every device is its own group
    const auto dst_mesh = mesh_extents(dst_.mesh());
    for (const auto& v : dv_) {
      int64_t group = 0;
      for (int a = 0; a < dst_.mesh().rank(); ++a)
        if (std::find(fresh.begin(), fresh.end(), a) == fresh.end()) group = group * dst_mesh[static_cast<size_t>(a)] + v.coord[static_cast<size_t>(a)];
      if (fresh.empty()) {
        for (const Need& n : needs(v)) need.push_back({n.tag, v.device, v.device});
      } else {
        for (const auto& h : v.held) need.push_back({tag_of(h.element, v.coord), group, v.device});
      }
    }
    std::sort(need.begin(), need.end());
    need.erase(std::unique(need.begin(), need.end()), need.end());
    int64_t messages = 0;
    std::vector<int64_t> classes, held_by_group;
    for (size_t i = 0; i < need.size();) {
      const Tag t = need[i].tag;
      size_t j = i;
      while (j < need.size() && need[j].tag == t) ++j;
      auto lo = std::lower_bound(held.begin(), held.end(), t, [](const Held& h, const Tag& x) { return h.tag < x; });
      auto hi = std::upper_bound(lo, held.end(), t, [](const Tag& x, const Held& h) { return x < h.tag; });
      if (lo == hi) fail(rule::kInternal, "no SRC device holds element " + std::to_string(t.first));
      classes.clear();
      for (auto it = lo; it != hi; ++it) classes.push_back(it->cls);
      std::sort(classes.begin(), classes.end());
      classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
      const int64_t k = static_cast<int64_t>(classes.size());
      auto holds = [&](int64_t device) -> const Held* {
        auto f = std::lower_bound(lo, hi, Held{t, device, 0}, by_tag_device);
        return f != hi && f->device == device ? &*f : nullptr;
      };
      if (fresh.empty()) {
        int64_t lacking = 0;
        for (size_t q = i; q < j; ++q)
          if (!holds(need[q].device)) ++lacking;
        const int64_t d = static_cast<int64_t>(j - i);
        messages += k == 1 ? lacking : k - 1 + d - (lacking < d ? 1 : 0);
      } else {
        // Groups of DST devices along the fresh axes. One reduction throughout: a group missing
        // a class needs a receive (distinct receivers), and a class some group lacks must be sent
        // (distinct senders): the larger count. Otherwise (max contributions to a sum axis) the
        // value is formed whole at some device first: k - 1 messages before (k when it holds no
        // class), and every other group a receive after: k - 1 + G - [a member holds a class].
        int64_t groups = 0, groups_missing = 0;
        bool some_member_holds = false;
        std::map<int64_t, int64_t> groups_holding;  // class -> the groups with a holder of it
        for (size_t g = i; g < j;) {
          size_t h = g;
          held_by_group.clear();
          for (; h < j && need[h].group == need[g].group; ++h)
            if (const Held* x = holds(need[h].device)) held_by_group.push_back(x->cls);
          std::sort(held_by_group.begin(), held_by_group.end());
          held_by_group.erase(std::unique(held_by_group.begin(), held_by_group.end()), held_by_group.end());
          ++groups;
          groups_missing += static_cast<int64_t>(held_by_group.size()) < k ? 1 : 0;
          some_member_holds = some_member_holds || !held_by_group.empty();
          for (int64_t c : held_by_group) ++groups_holding[c];
          g = h;
        }
        int64_t classes_sent = 0;
        for (int64_t c : classes) classes_sent += groups_holding[c] < groups ? 1 : 0;
        messages += one_reduction || k < 2 ? std::max(groups_missing, classes_sent) : k - 1 + groups - (some_member_holds ? 1 : 0);
      }
      i = j;
    }
    return messages;
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
      plan_.pattern = identical_ ? "identity" : "local";
    } else {
      plan_.pattern.clear();
      for (size_t i = 0; i < names.size(); ++i) plan_.pattern += (i ? " + " : "") + names[i];
    }
  }

  const Side& src_;
  const Side& dst_;
  const std::vector<DeviceView>& sv_;
  const std::vector<DeviceView>& dv_;
  std::map<int64_t, size_t> src_index_, dst_index_;  // device -> its position in sv_ / dv_
  bool same_mesh_;
  bool identical_;
  bool reducing_is_cheaper_ = false;
  bool fresh_partial_ = false;
  std::vector<int64_t> mesh_;
  std::vector<int> kept_;
  Plan plan_;
};

}  // namespace

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
