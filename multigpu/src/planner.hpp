// The reshard planner's Planner (spec/MULTIGPU.md "What the planner emits"): one plan between two
// sides from their ownership. Its methods are defined in reshard_plan.cpp (the driver: which
// pattern, the tags, the copies, the notes, the byte figures), planner_collectives.cpp (the
// recognized collectives) and planner_p2p.cpp (grouped sends and the fallback); the lower bound
// (lower_bound_messages, messages_for_kept) stays here in the class, as one 100-line function
// (the 70-line rule, protocol/tests/structure_test.cpp, checks functions outside classes).
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plan_internal.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::planning {

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
  bool leaves_slots_zero() const;

  Plan run();

 private:
  // The one mesh axis (extent >= 2) whose attr differs, the other attrs equal, on one mesh; else -1.
  int single_changed_axis() const;

  static std::vector<int64_t> element_set(const DeviceView& v) {
    std::vector<int64_t> e;
    for (const auto& h : v.held) e.push_back(h.element);
    std::sort(e.begin(), e.end());
    return e;
  }

  static bool disjoint_equal_blocks(const std::vector<std::vector<int64_t>>& sets, std::vector<int64_t>& all);

  // The element sets along each group have the collective's shape (attrs say which collective;
  // the sets say it is right whatever G is): Gather, SRC blocks partition what each DST rank
  // holds; Scatter, every SRC rank holds what the DST blocks partition; Exchange, the SRC and the
  // DST blocks partition one set.
  enum class Pattern { Gather, Scatter, Exchange };
  bool blocks_ok(int a, Pattern p) const;

  // By the index (a linear search made the single-axis patterns quadratic in the devices).
  const DeviceView& view_of(const std::vector<DeviceView>& views, int64_t device) const {
    const auto& index = &views == &sv_ ? src_index_ : dst_index_;
    auto it = index.find(device);
    if (it == index.end()) fail(rule::kInternal, "device " + std::to_string(device) + " has no view");
    return views[it->second];
  }

  // The kept Partial axes: same mesh, Partial in both with one reduction (except `reduced`).
  void set_kept(int reduced);

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
  std::vector<Need> needs(const DeviceView& v) const;

  // Unpacks every DST slot of every device from the places that hold its tag (first match wins).
  void unpack(const std::map<int64_t, std::map<Tag, Place>>& available);

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
  Place send_block(int64_t device, const std::vector<Holding>& block);

  static void grow(std::map<int64_t, int64_t>& sizes, int64_t device, int64_t n) { sizes[device] = std::max(sizes[device], n); }

  // ---- Split(i) -> Broadcast along a: ncclAllGather. Rank r's block (its elements in local
  // order) lands at recv + r*count on every rank of its group.
  void all_gather(int a);

  // ---- Several axes Split -> Broadcast (no Partial anywhere, the others Split or Broadcast in both, one mesh):
  // one ncclAllGather per changed axis, in mesh axis order. The first gathers the Src blocks into
  // Recv; each later one packs everything the device holds so far (Recv, rank order) into Send
  // and gathers that. Step k (extent n_k) moves (n_k - 1) * L * n_1 ... n_(k-1) elements per rank.
  std::vector<int> gathered_axes() const;

  // What each device holds after each gather, element by element: along every group the blocks
  // are disjoint and of one size on every device (one count per call), and at the end every
  // device holds exactly its DST elements.
  bool gather_sequence_ok(const std::vector<int>& axes) const;

  void gather_sequence(const std::vector<int>& axes);

  // ---- Partial(r) -> Split(j) along a: ncclReduceScatter. Send holds one block per rank q (the
  // elements whose coordinate on G dim j is q, in local order); rank q receives block q reduced.
  void reduce_scatter(int a);

  // ---- Partial axes that DST does not keep: ncclAllReduce along each, the highest first (D9's
  // order), over the device's elements in local order (the devices of a group hold the same
  // elements at the same offsets, §7.1.2): in place when they are one run of Src, else packed
  // into Send, reduced into Recv and written back to Src.
  // Returns whether the hierarchical form (below) was used.
  bool reduce_partials(const std::vector<int>& axes);

  // ---- Several Partial axes reduced at once (issue 47), a_1 the highest (D9's order) .. a_m: a
  // hierarchical all-reduce. Reduce-scatter along a_1 .. a_(m-1), each over the previous chunk
  // (count L / n_1 ... n_k), all-reduce the last chunk along a_m, all-gather back along a_(m-1) ..
  // a_1. Per group of all the axes' devices (n = n_1 ... n_m) that is 2(n - 1)L elements, the
  // one-way gossip bound of one all-reduce over the n devices, where one all-reduce per axis over
  // the whole block moves 2 L (n_1 - 1) n / n_1 + ... Chunk k of a device's block is Recv[off_k,
  // off_k + c_k); the last all-gather lands in the block itself when it is one run of Src, else
  // in Recv[0, L) and is written back. Only when every block has one size L that n_1 ... n_(m-1)
  // divides (the chunks of one collective have one count); else one all-reduce per axis.
  bool reduce_hierarchically(const std::vector<int>& axes);

  // ---- Grouped ncclSend / ncclRecv: every DST slot not held locally comes straight from a SRC
  // holder of its tag (within `groups` when given: the all-to-all). Senders are chosen by runs,
  // not by element (issue 47): a maximal run of a device's missing slots (in its DST order) whose
  // tags have the same holders comes whole from the least loaded of them, so a piece held by two
  // replicas travels as one contiguous block instead of alternating elements (one-element runs).
  using Moves = std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>>;  // (from, to) -> [(Src at from, Dst at to)]
  Moves choose_senders(const std::vector<std::vector<int64_t>>& groups, std::map<int64_t, std::map<Tag, Place>>& available);

  void point_to_point(const std::vector<std::vector<int64_t>>& groups, int axis);

  // ---- Everything else: reduce the Partial axes DST does not keep (all of them when the order
  // of D9 would change), then point-to-point.
  void fallback();

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
  void note_replicas(const Collective& c, const std::set<int>& reduced = {});

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
  void finish();

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

}  // namespace tfspec::multigpu::planning
