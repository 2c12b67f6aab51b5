// Property (issue 13): the simulated reshard plan equals the reference's reshard (§7.4, D9), for
// generated meshes of 2-16 devices and layouts with all four attrs (§6: Split, Broadcast,
// Partial(sum|max|min), Dynamic, which both refuse). And the bytes it moves: as many received as
// sent, and, without a Partial in SRC, exactly the lower bound counted with the reference's
// `holders` (every DST holder that needs an element it does not hold receives it once).
#include <gtest/gtest.h>
#include "release_only.hpp"  // TFSPEC_ASAN
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/reshard.hpp"

#include "../../reference/tests/test_support.hpp"

namespace tfspec::multigpu {
namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t e : v) n *= e;
  return n;
}

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

struct PlanCase {
  std::vector<int64_t> shape;  // logical
  std::string src, dst;        // shard(...) text
  bool partition = false;      // SRC contributions arbitrary (else distribute's canonical ones)
};
void showValue(const PlanCase& c, std::ostream& os) {
  os << "tfspec reshard-plan '" << c.src << "' '" << c.dst << "' '(" << join(c.shape) << ")'" << (c.partition ? " (partitioned)" : "");
}

std::string mesh_text(int64_t devices, const std::vector<int64_t>& extents) {
  static const char* kNames[] = {"x", "y", "z"};
  std::string s = "device(" + std::to_string(devices) + ")|";
  for (size_t i = 0; i < extents.size(); ++i) s += (i ? "," : "") + std::string(kNames[i]) + "=" + std::to_string(extents[i]);
  return s;
}

// Uniform in [0, n), whatever the generation size (inRange scales with it).
int pick(int n) { return *rc::gen::resize(100, rc::gen::inRange(0, n)); }

// The attr of mesh axis a: a Split of an unused G dim with the axis's extent (weighted), else
// Broadcast / Partial(sum|max|min).
std::string gen_attr(const std::vector<int64_t>& g, int64_t extent, std::vector<bool>& used) {
  std::vector<size_t> dims;
  for (size_t k = 0; k < g.size(); ++k)
    if (!used[k] && g[k] == extent) dims.push_back(k);
  const int p = pick(dims.empty() ? 4 : 8);
  if (p < 4) {
    static const char* kOthers[] = {"B", "P()", "P(\"max\")", "P(min)"};
    return kOthers[p];
  }
  const size_t k = dims[static_cast<size_t>(pick(static_cast<int>(dims.size())))];
  used[k] = true;
  return "S(" + std::to_string(k) + ")";
}

// Strides: None (materialized per instance), the shared C order over G, or a column-major
// per-instance order (0 on Split dims).
std::string layout_text(const std::vector<int64_t>& g, const std::vector<std::string>& attrs, int64_t devices, const std::vector<int64_t>& mesh) {
  std::vector<bool> split(g.size(), false);
  for (const auto& a : attrs)
    if (a[0] == 'S') split[static_cast<size_t>(std::stoi(a.substr(2)))] = true;
  std::string strides = "None";
  const int form = pick(3);
  if (form > 0) {
    std::vector<int64_t> s(g.size());
    int64_t step = 1;
    for (size_t i = 0; i < g.size(); ++i) {
      const size_t k = form == 1 ? g.size() - 1 - i : i;
      s[k] = form == 2 && split[k] ? 0 : step;
      if (s[k]) step *= g[k];
    }
    strides = "(" + join(s) + ")";
  }
  std::string text = "shard((" + join(g) + "):" + strides + "; ";
  for (size_t a = 0; a < attrs.size(); ++a) text += (a ? "," : "") + attrs[a];
  return text + "; " + mesh_text(devices, mesh) + ")";
}

std::vector<std::string> gen_attrs(const std::vector<int64_t>& g, const std::vector<int64_t>& mesh) {
  std::vector<bool> used(g.size(), false);
  std::vector<std::string> attrs;
  for (int64_t e : mesh) attrs.push_back(gen_attr(g, e, used));
  return attrs;
}

rc::Gen<PlanCase> gen_plan_case() {
  return rc::gen::exec([] {
    std::vector<int64_t> mesh;
    do {
      mesh.clear();
      for (int i = pick(3); i >= 0; --i) mesh.push_back(1 + pick(4));
    } while (product(mesh) < 2 || product(mesh) > 16);
    const int64_t devices = product(mesh);
    // G: the mesh extents (so Splits are possible) and up to two more dims, shuffled.
    std::vector<int64_t> g = mesh;
    for (int i = pick(3); i > 0; --i) g.push_back(1 + pick(3));
    while (product(g) > 48) g.pop_back();  // small enough for the ASan suite; the mesh dims stay
    for (size_t i = g.size(); i > 1; --i) std::swap(g[i - 1], g[static_cast<size_t>(pick(static_cast<int>(i)))]);
    // The logical shape: G's dims merged in row-major runs (D2).
    std::vector<int64_t> shape{g[0]};
    for (size_t k = 1; k < g.size(); ++k) {
      if (pick(2)) shape.back() *= g[k];
      else shape.push_back(g[k]);
    }
    PlanCase c;
    c.shape = shape;
    const auto src = gen_attrs(g, mesh);
    c.src = layout_text(g, src, devices, mesh);
    const int mode = pick(4);
    if (mode < 2) {  // the common case: one axis changes its attr
      auto dst = src;
      const size_t a = static_cast<size_t>(pick(static_cast<int>(mesh.size())));
      std::vector<bool> used(g.size(), false);
      for (size_t b = 0; b < dst.size(); ++b)
        if (b != a && dst[b][0] == 'S') used[static_cast<size_t>(std::stoi(dst[b].substr(2)))] = true;
      dst[a] = gen_attr(g, mesh[a], used);
      c.dst = layout_text(g, dst, devices, mesh);
    } else if (mode == 2) {  // anything on the same mesh
      c.dst = layout_text(g, gen_attrs(g, mesh), devices, mesh);
    } else {  // the same devices as one axis, or the axes reversed
      std::vector<int64_t> rev(mesh.rbegin(), mesh.rend());
      const auto other = rev != mesh ? rev : std::vector<int64_t>{devices};
      c.dst = layout_text(g, gen_attrs(g, other), devices, other);
    }
    // §6 Dynamic, rarely, on either side (as the first attr).
    if (pick(20) == 0) {
      std::string& side = pick(2) ? c.src : c.dst;
      auto at = side.find("; ") + 2;
      auto end = side.find_first_of(",;", at);
      side.replace(at, end - at, "D");
    }
    c.partition = pick(2) == 1;
    return c;
  });
}

bool has_partial(const ShardLayout& sl) {
  for (const auto& a : sl.attrs())
    if (std::holds_alternative<Partial>(a)) return true;
  return false;
}

using tfspec::testing::error_id;  // the rule id a statement fails with, or "(no error)"

// Elements some DST device must receive: it holds the element in DST (on a new sum Partial axis
// only at coordinate 0) and no SRC instance on it holds the element. Counted with `holders`.
int64_t lower_bound_elements(const ShardLayout& src, const ShardLayout& dst, const std::vector<int64_t>& shape) {
  auto extents = [](const ShardLayout& sl) {
    std::vector<int64_t> g;
    for (const auto& x : flat_leaves(sl.shape())) g.push_back(x.value());
    return g;
  };
  const auto gs = extents(src), gd = extents(dst);
  int64_t n = 0;
  for (int64_t e = 0; e < product(shape); ++e) {
    std::vector<int64_t> cs(gs.size()), cd(gd.size());
    for (int64_t i = e, k = static_cast<int64_t>(gs.size()) - 1; k >= 0; i /= gs[k], --k) cs[k] = i % gs[k];
    for (int64_t i = e, k = static_cast<int64_t>(gd.size()) - 1; k >= 0; i /= gd[k], --k) cd[k] = i % gd[k];
    std::set<int64_t> have;
    for (const auto& m : holders(src, cs)) have.insert(src.mesh().device_of(m));
    for (const auto& m : holders(dst, cd)) {
      bool zero = false;
      for (size_t a = 0; a < m.size(); ++a) {
        auto* p = std::get_if<Partial>(&dst.attrs()[a]);
        zero = zero || (p && p->reduction == "sum" && m[a] != 0);
      }
      if (!zero && !have.count(dst.mesh().device_of(m))) ++n;
    }
  }
  return n;
}

// The lower bound of spec/MULTIGPU.md in messages, written again from the reference's `holders`
// (not from the planner's views): per element and DST contribution tag, k SRC contribution classes
// (coordinates on the SRC Partial axes DST does not keep) and D DST devices that need it: k == 1,
// the devices of D lacking it; k >= 2, k - 1 + |D| - [a device of D holds a contribution]. With
// a DST Partial axis that is not kept, over the groups along such axes: one reduction throughout,
// the larger of the groups missing a class and the classes some group lacks; else (the value is
// formed whole at one device first) k - 1 + G - [a group member holds a class].
// With kept axes (Partial in both, one reduction, one mesh, D9's nesting intact), the smaller of
// keeping the contributions and reducing them all.
int64_t lower_bound_messages(const ShardLayout& src, const ShardLayout& dst, const std::vector<int64_t>& shape) {
  auto extents = [](const ShardLayout& sl) {
    std::vector<int64_t> g;
    for (const auto& x : flat_leaves(sl.shape())) g.push_back(x.value());
    return g;
  };
  auto reduction = [](const ShardLayout& sl, size_t a) -> std::string {
    auto* p = std::get_if<Partial>(&sl.attrs()[a]);
    return p ? p->reduction : "";
  };
  const size_t rank = src.attrs().size();
  std::vector<size_t> kept;
  if (src.mesh() == dst.mesh())
    for (size_t a = 0; a < rank; ++a)
      if (!reduction(src, a).empty() && reduction(src, a) == reduction(dst, a)) kept.push_back(a);
  auto is_kept = [&](const std::vector<size_t>& k, size_t a) { return std::find(k.begin(), k.end(), a) != k.end(); };
  // D9 reduces the highest axis first: reducing u before a kept axis above it with another reduction changes the value.
  for (size_t u = 0; u < rank; ++u)
    for (size_t a = u + 1; a < rank; ++a)
      if (!reduction(src, u).empty() && !is_kept(kept, u) && is_kept(kept, a) && reduction(src, a) != reduction(src, u)) kept.clear();
  const auto gs = extents(src), gd = extents(dst);
  auto count = [&](const std::vector<size_t>& k) {
    int64_t n = 0;
    for (int64_t e = 0; e < product(shape); ++e) {
      std::vector<int64_t> cs(gs.size()), cd(gd.size());
      for (int64_t i = e, q = static_cast<int64_t>(gs.size()) - 1; q >= 0; i /= gs[q], --q) cs[q] = i % gs[q];
      for (int64_t i = e, q = static_cast<int64_t>(gd.size()) - 1; q >= 0; i /= gd[q], --q) cd[q] = i % gd[q];
      auto key = [&](const std::vector<int64_t>& m) {
        std::vector<int64_t> out;
        for (size_t a : k) out.push_back(m[a]);
        return out;
      };
      // tag -> class -> devices holding that contribution
      std::map<std::vector<int64_t>, std::map<std::vector<int64_t>, std::set<int64_t>>> have;
      for (const auto& m : holders(src, cs)) {
        std::vector<int64_t> cls;
        for (size_t a = 0; a < rank; ++a)
          if (!reduction(src, a).empty() && !is_kept(k, a)) cls.push_back(m[a]);
        have[key(m)][cls].insert(src.mesh().device_of(m));
      }
      // DST Partial axes not kept ("fresh"): any contributions reducing to the value are right, so
      // a group of DST devices along them (one coordinate on the other axes) needs, per class of
      // the element's SRC contributions that no member holds, one message.
      std::vector<size_t> fresh;
      for (size_t a = 0; a < dst.attrs().size(); ++a)
        if (!reduction(dst, a).empty() && !is_kept(k, a)) fresh.push_back(a);
      if (!fresh.empty()) {
        std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, std::set<int64_t>> groups;  // (tag, group) -> devices
        for (const auto& m : holders(dst, cd)) {
          std::vector<int64_t> g;
          for (size_t a = 0; a < m.size(); ++a)
            if (!is_kept(fresh, a)) g.push_back(m[a]);
          groups[{key(m), g}].insert(dst.mesh().device_of(m));
        }
        std::set<std::string> reductions;  // the reduced SRC axes' and the fresh DST axes'
        for (size_t a = 0; a < rank; ++a)
          if (!reduction(src, a).empty() && !is_kept(k, a)) reductions.insert(reduction(src, a));
        for (size_t a : fresh) reductions.insert(reduction(dst, a));
        // per tag: the groups, and for each class which groups hold it
        std::map<std::vector<int64_t>, std::vector<std::set<std::vector<int64_t>>>> by_tag;  // tag -> per group, the classes its members hold
        for (const auto& [tg, devs] : groups) {
          std::set<std::vector<int64_t>> held;
          for (const auto& [cls, ds] : have.at(tg.first))
            for (int64_t d : devs)
              if (ds.count(d)) held.insert(cls);
          by_tag[tg.first].push_back(held);
        }
        for (const auto& [tag, per_group] : by_tag) {
          const auto& classes = have.at(tag);
          const int64_t kk = static_cast<int64_t>(classes.size()), gg = static_cast<int64_t>(per_group.size());
          int64_t missing = 0, sent = 0;
          bool holds = false;
          for (const auto& held : per_group) {
            missing += static_cast<int64_t>(held.size()) < kk ? 1 : 0;
            holds = holds || !held.empty();
          }
          for (const auto& [cls, ds] : classes) {
            int64_t in = 0;
            for (const auto& held : per_group) in += held.count(cls) ? 1 : 0;
            sent += in < gg ? 1 : 0;
          }
          // one reduction: max(groups missing a class, classes some group lacks); else the value
          // is formed whole at one device first: k - 1 + G - [a member holds a class]
          n += reductions.size() <= 1 || kk < 2 ? std::max(missing, sent) : kk - 1 + gg - (holds ? 1 : 0);
        }
        continue;
      }
      std::map<std::vector<int64_t>, std::set<int64_t>> need;
      for (const auto& m : holders(dst, cd)) need[key(m)].insert(dst.mesh().device_of(m));
      for (const auto& [tag, devs] : need) {
        const auto& classes = have.at(tag);
        int64_t lacking = 0, holding = 0;
        for (int64_t d : devs) {
          bool h = false;
          for (const auto& [cls, ds] : classes) h = h || ds.count(d);
          h ? ++holding : ++lacking;
        }
        const int64_t kk = static_cast<int64_t>(classes.size());
        n += kk == 1 ? lacking : kk - 1 + static_cast<int64_t>(devs.size()) - (holding > 0 ? 1 : 0);
      }
    }
    return n;
  };
  const int64_t with_kept = count(kept);
  return kept.empty() ? with_kept : std::min(with_kept, count({}));
}

// What every plan says about the bound: its bytes are at least the bound (a bound above a plan
// that works would be wrong), it equals the bound computed again from `holders`, and a plan above
// it says why.
void check_bound(const Plan& plan, const ShardLayout& src, const ShardLayout& dst, const std::vector<int64_t>& shape) {
  RC_ASSERT(plan.lower_bound_bytes == 4 * lower_bound_messages(src, dst, shape));
  RC_ASSERT(plan.total_bytes() >= plan.lower_bound_bytes);
  RC_ASSERT((plan.total_bytes() == plan.lower_bound_bytes) == plan.above_bound_because.empty());
  RC_TAG(plan.total_bytes() == plan.lower_bound_bytes ? "at the bound" : "above the bound");
}

RC_GTEST_PROP(ReshardPlanProps, SimulatedPlanEqualsTheReferenceReshard, ()) {
  const PlanCase c = *gen_plan_case();
  ShardLayout src_text = parse_shard_layout(c.src), dst_text = parse_shard_layout(c.dst);
  std::vector<int64_t> data;
  for (int64_t i = 0; i < product(c.shape); ++i) data.push_back(*rc::gen::inRange<int64_t>(-1000, 1000));
  const Tensor t{c.shape, data};
  // Dynamic (§6): the planner refuses exactly as the reference does at execution.
  Plan plan;
  const std::string planned = error_id([&] { plan = plan_reshard(src_text, dst_text, c.shape, 4); });
  if (c.src.find("; D") != std::string::npos || c.dst.find("; D") != std::string::npos) {
    RC_TAG("dynamic");
    RC_ASSERT(planned == "dynamic-unresolved");
    return;
  }
  RC_ASSERT(planned == "(no error)");
  const ShardLayout src = materialize_for_devices(src_text, c.shape), dst = materialize_for_devices(dst_text, c.shape);
  RC_TAG(plan.pattern);
  Engines in = c.partition ? partition(t, src, Storage::Rmem, [] { return *rc::gen::inRange<int64_t>(-50, 50); })
                           : distribute(t, src, Storage::Rmem);
  const Engines ref = reshard(in, src, dst, Storage::Rmem, c.shape);
  const DeviceBuffers out = simulate(plan, in.buffers);
  // DST Partial contributions are not unique: with arbitrary SRC contributions only the value is.
  if (!c.partition || !has_partial(dst)) RC_ASSERT(out == ref.buffers);
  RC_ASSERT(assemble(Engines{Storage::Rmem, out}, dst, c.shape) == t);
  int64_t sent = 0, received = 0;
  for (const auto& [d, b] : plan.bytes) {
    sent += b.sent;
    received += b.received;
  }
  RC_ASSERT(sent == received);
  if (!has_partial(src)) RC_ASSERT(plan.total_bytes() == 4 * lower_bound_elements(src, dst, c.shape));
  check_bound(plan, src, dst, c.shape);
}

// One-round execution (issue 47, spec/MULTIGPU.md "One-round execution"): where the steps
// compose, each DST element evaluated from its leaves (the SRC values they name, reduced in order,
// zero where none) equals what the simulator computes by running the steps; a chosen one round
// moves no more on any device, and the plan's figure is the composition's total.
RC_GTEST_PROP(ReshardPlanProps, OneRoundCompositionEqualsTheSimulatedSteps, ()) {
  const PlanCase c = *gen_plan_case();
  RC_PRE(c.src.find("; D") == std::string::npos && c.dst.find("; D") == std::string::npos);
  const Plan plan = plan_reshard(parse_shard_layout(c.src), parse_shard_layout(c.dst), c.shape, 4);
  const ShardLayout src = materialize_for_devices(parse_shard_layout(c.src), c.shape);
  std::vector<int64_t> data;
  for (int64_t i = 0; i < product(c.shape); ++i) data.push_back(*rc::gen::inRange<int64_t>(-1000, 1000));
  const Engines in = c.partition ? partition(Tensor{c.shape, data}, src, Storage::Rmem, [] { return *rc::gen::inRange<int64_t>(-50, 50); })
                                 : distribute(Tensor{c.shape, data}, src, Storage::Rmem);
  const OneRound r = compose_one_round(plan);
  RC_CLASSIFY(!r.refused.empty(), "does not compose");
  RC_CLASSIFY(plan.one_round, "one round chosen");
  if (!r.refused.empty()) return RC_ASSERT(!plan.one_round);
  const DeviceBuffers out = simulate(plan, in.buffers);
  for (const auto& [d, cd] : r.dst) {
    std::vector<int64_t> got;
    for (size_t j = 0; j + 1 < cd.start.size(); ++j) {
      int64_t v = 0;
      for (int64_t k = cd.start[j]; k < cd.start[j + 1]; ++k) {
        const Leaf& l = cd.leaves[static_cast<size_t>(k)];
        const int64_t x = in.buffers.at(l.device)[static_cast<size_t>(l.offset)];
        const char op = cd.op[j];
        v = k == cd.start[j] ? x : op == 'M' ? std::max(v, x) : op == 'm' ? std::min(v, x) : v + x;
      }
      got.push_back(v);
    }
    RC_ASSERT(got == out.at(d));
  }
  int64_t total = 0;
  for (const auto& [d, b] : r.bytes) total += b.sent;
  RC_ASSERT(plan.one_round_bytes == total);
  for (int64_t d : plan.devices) {
    const DeviceBytes mine = r.bytes.count(d) ? r.bytes.at(d) : DeviceBytes{}, steps = plan.bytes.count(d) ? plan.bytes.at(d) : DeviceBytes{};
    if (plan.one_round) RC_ASSERT(mine.sent <= steps.sent && mine.received <= steps.received);
  }
}

}  // namespace
}  // namespace tfspec::multigpu

namespace tfspec::multigpu {
namespace {

// Several mesh axes Split -> Broadcast at once, every other axis unchanged (Split or Broadcast in
// both), no Partial: planned as one ncclAllGather per changed axis (spec/MULTIGPU.md). Built
// constructively with the sugar: one G dim `extent*k @ m.a` per SRC Split axis (mesh axes in
// order or reversed), a trailing dim, and DST the same with the gathered axes' `@ m.a` dropped.
RC_GTEST_PROP(ReshardPlanProps, SeveralAxesGatheredAreAnAllGatherSequence, ()) {
  const char* names[] = {"x", "y", "z"};
#ifdef TFSPEC_ASAN
  const int rank = 2;  // ASan's memory checks need no 27-device meshes (59 s there); the release build runs rank 3
#else
  const int rank = *rc::gen::inRange(2, 4);
#endif
  std::vector<int64_t> ext;
  std::vector<int> role;  // 0 gathered, 1 Split in both, 2 Broadcast in both
  for (int a = 0; a < rank; ++a) {
    ext.push_back(*rc::gen::inRange<int64_t>(2, 4));
    role.push_back(*rc::gen::inRange(0, 3));
  }
  if (std::count(role.begin(), role.end(), 0) < 2) role[0] = role[1] = 0;
  std::vector<int> axes;
  for (int a = 0; a < rank; ++a)
    if (role[a] != 2) axes.push_back(a);
  if (*rc::gen::arbitrary<bool>()) std::reverse(axes.begin(), axes.end());
  std::string src = "(", dst = "(", mesh;
  std::vector<int64_t> shape;
  for (int a : axes) {
    const int64_t n = ext[a] * *rc::gen::inRange<int64_t>(1, 3);
    shape.push_back(n);
    src += std::to_string(n) + " @ m." + names[a] + ", ";
    dst += std::to_string(n) + (role[a] == 1 ? std::string(" @ m.") + names[a] : std::string()) + ", ";
  }
  shape.push_back(*rc::gen::inRange<int64_t>(1, 4));
  for (int a = 0; a < rank; ++a) mesh += (a ? "," : "") + std::string(names[a]) + "=" + std::to_string(ext[a]);
  src += std::to_string(shape.back()) + ") on " + mesh;
  dst += std::to_string(shape.back()) + ") on " + mesh;
  RC_LOG() << "tfspec reshard-plan '" << src << "' '" << dst << "' '(" << join(shape) << ")'\n";

  const Plan plan = plan_reshard(read_shard_layout(Json(src)), read_shard_layout(Json(dst)), shape, 4);
  std::string expected;
  for (int a = 0; a < rank; ++a)
    if (role[a] == 0) expected += (expected.empty() ? "" : " + ") + std::string("all-gather");
  RC_TAG(expected);
  RC_ASSERT(plan.pattern == expected);
  const ShardLayout s = materialize_for_devices(read_shard_layout(Json(src)), shape);
  const ShardLayout d = materialize_for_devices(read_shard_layout(Json(dst)), shape);
  std::vector<int64_t> data;
  for (int64_t i = 0; i < product(shape); ++i) data.push_back(*rc::gen::inRange<int64_t>(-1000, 1000));
  const Engines in = distribute(Tensor{shape, data}, s, Storage::Rmem);
  RC_ASSERT(simulate(plan, in.buffers) == reshard(in, s, d, Storage::Rmem, shape).buffers);
  int64_t sent = 0, received = 0;
  for (const auto& [dev, b] : plan.bytes) sent += b.sent, received += b.received;
  RC_ASSERT(sent == received);
  RC_ASSERT(plan.total_bytes() == 4 * lower_bound_elements(s, d, shape));
  check_bound(plan, s, d, shape);
}

}  // namespace
}  // namespace tfspec::multigpu

namespace tfspec::multigpu {
namespace {

// Several mesh axes change at once (issue 35): meshes of 1-3 axes, one G dim per mesh axis
// (`n @ m.a` splits it, mesh factor outer, D5) and a trailing dim; each axis Split over its own
// dim, Broadcast, or Partial(sum / max) on either side, drawn independently, so several change
// together (Partial -> Split with Broadcast -> Split, as in `reshard-plan '(64, 128) where
// x=P("sum") on x=2,y=4' '(64 @ m.x, 128 @ m.y) on x=2,y=4'`). Checked: simulated = `reshard`
// (values, or with arbitrary contributions and a DST Partial the assembled tensor), bytes sent =
// received, and the bound (check_bound).
RC_GTEST_PROP(ReshardPlanProps, SeveralAxesChangingMeetTheBoundOrSayWhy, ()) {
  const char* names[] = {"x", "y", "z"};
#ifdef TFSPEC_ASAN
  const int rank = *rc::gen::inRange(1, 3);
#else
  const int rank = *rc::gen::inRange(1, 4);
#endif
  std::vector<int64_t> ext, shape;
  for (int a = 0; a < rank; ++a) ext.push_back(*rc::gen::inRange<int64_t>(2, 4));
  for (int a = 0; a < rank; ++a) shape.push_back(ext[static_cast<size_t>(a)] * *rc::gen::inRange<int64_t>(1, 3));
  shape.push_back(*rc::gen::inRange<int64_t>(1, 3));
  std::string mesh;
  for (int a = 0; a < rank; ++a) mesh += (a ? "," : "") + std::string(names[a]) + "=" + std::to_string(ext[static_cast<size_t>(a)]);
  auto side = [&] {
    std::string dims = "(", where;
    for (int a = 0; a < rank; ++a) {
      const int attr = *rc::gen::inRange(0, 4);  // 0 Split, 1 Broadcast, 2 Partial(sum), 3 Partial(max)
      dims += std::to_string(shape[static_cast<size_t>(a)]) + (attr == 0 ? std::string(" @ m.") + names[a] : std::string()) + ", ";
      if (attr >= 2) where += std::string(where.empty() ? " where " : ", ") + names[a] + (attr == 2 ? "=P(\"sum\")" : "=P(\"max\")");
    }
    return dims + std::to_string(shape.back()) + ")" + where + " on " + mesh;
  };
  const std::string src_text = side(), dst_text = side();
  const bool partition = *rc::gen::arbitrary<bool>();
  RC_LOG() << "tfspec reshard-plan '" << src_text << "' '" << dst_text << "' '(" << join(shape) << ")'" << (partition ? " (partitioned)" : "") << "\n";
  const ShardLayout s = materialize_for_devices(read_shard_layout(Json(src_text)), shape);
  const ShardLayout d = materialize_for_devices(read_shard_layout(Json(dst_text)), shape);
  const Plan plan = plan_reshard(read_shard_layout(Json(src_text)), read_shard_layout(Json(dst_text)), shape, 4);
  RC_TAG(plan.stages.empty() ? "one stage" : std::to_string(plan.stages.size()) + " stages");
  std::vector<int64_t> data;
  for (int64_t i = 0; i < product(shape); ++i) data.push_back(*rc::gen::inRange<int64_t>(-1000, 1000));
  const Tensor t{shape, data};
  const Engines in = partition ? tfspec::partition(t, s, Storage::Rmem, [] { return *rc::gen::inRange<int64_t>(-50, 50); }) : distribute(t, s, Storage::Rmem);
  const DeviceBuffers out = simulate(plan, in.buffers);
  if (!partition || !has_partial(d)) RC_ASSERT(out == reshard(in, s, d, Storage::Rmem, shape).buffers);
  RC_ASSERT(assemble(Engines{Storage::Rmem, out}, d, shape) == t);
  int64_t sent = 0, received = 0;
  for (const auto& [dev, b] : plan.bytes) sent += b.sent, received += b.received;
  RC_ASSERT(sent == received);
  check_bound(plan, s, d, shape);
}

}  // namespace
}  // namespace tfspec::multigpu
