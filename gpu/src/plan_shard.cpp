// ShardLayout -> ShardPlan (§6, §7, D2, D3, D8, D9, D13), validated in the reference's rule
// order (spec/SHARD.md "Rule ids") so that both refuse with the same id. Each check is written
// here from its clause; nothing is delegated to the reference's checks.
#include <algorithm>
#include <string>

#include "tfspec/gpu/plan.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::gpu {
namespace {

// (instance, element) pairs the injectivity check enumerates before it gives up (the
// reference stops at 2^20; both answers are "undecided", never "violated").
constexpr int64_t kEnumerationLimit = int64_t{1} << 26;
constexpr int64_t kMaxInstances = int64_t{1} << 24;

void leaves(const IntTuple& t, std::vector<const IntTuple*>& out) {
  if (t.is_leaf()) {
    out.push_back(&t);
    return;
  }
  for (const auto& c : t.children()) leaves(c, out);
}
std::vector<const IntTuple*> leaves(const IntTuple& t) {
  std::vector<const IntTuple*> out;
  leaves(t, out);
  return out;
}

int64_t checked_product(const std::vector<int64_t>& v, const char* what) {
  int64_t n = 1;
  for (int64_t x : v)
    if (__builtin_mul_overflow(n, x, &n)) fail(rule::kInt64Overflow, std::string(what) + " overflows int64");
  return n;
}

bool any_unmaterialized(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return !static_cast<const Layout&>(l).materialized();
    case LayoutKind::Shard: return any_unmaterialized(*static_cast<const ShardLayout&>(l).layout());
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      return (c.inner() && any_unmaterialized(*c.inner())) || (c.outer() && any_unmaterialized(*c.outer()));
    }
    case LayoutKind::Swizzle: return false;
    case LayoutKind::Linear: return false;
  }
  return false;
}

// The validated numbers of one shard layout.
struct Geometry {
  std::vector<int64_t> g, mesh, local;
  std::vector<int> bind;  // dim -> mesh axis or -1 (first valid Split wins)
  int64_t instances = 1, local_size = 1;
};

// Row-major successor of c within extents; false after the last.
bool next_row_major(std::vector<int64_t>& c, const std::vector<int64_t>& ext) {
  for (size_t k = c.size(); k-- > 0;) {
    if (++c[k] < ext[k]) return true;
    c[k] = 0;
  }
  return false;
}

int64_t eval_or_raise(const FnPlan& p, const std::vector<int64_t>& crd, const char* what, int64_t index) {
  int64_t v = 0;
  Status st = eval_coord(p, crd.data(), v);
  if (st != kOk) raise_status(st, index, what);
  return v;
}

// §6 / §7.1.1 / §7.1.2 / §7.2: the structural rules, in the reference's order.
Geometry check_structure(const ShardLayout& sl) {
  const auto& attrs = sl.attrs();
  const IntTuple mesh_shape = sl.mesh().shape(), g_shape = sl.shape();  // leaves point into these
  const auto mesh_leaves = leaves(mesh_shape);
  const auto g_leaves = leaves(g_shape);
  const int64_t mesh_rank = static_cast<int64_t>(mesh_leaves.size());
  const int64_t r = static_cast<int64_t>(g_leaves.size());
  if (static_cast<int64_t>(attrs.size()) != mesh_rank)
    fail(rule::kShardAttrsRank, std::to_string(attrs.size()) + " attrs for a rank-" + std::to_string(mesh_rank) + " mesh");
  for (const auto& a : attrs)
    if (auto* s = std::get_if<Split>(&a); s && (s->axis < 0 || s->axis >= r))
      fail(rule::kSplitAxisRange, "Split(" + std::to_string(s->axis) + ") outside [0, " + std::to_string(r) + ")");
  for (size_t a = 0; a < attrs.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      if (std::holds_alternative<Split>(attrs[a]) && std::holds_alternative<Split>(attrs[b]) &&
          std::get<Split>(attrs[a]).axis == std::get<Split>(attrs[b]).axis)
        fail(rule::kSplitAxisUnique, "layout axis " + std::to_string(std::get<Split>(attrs[a]).axis) + " is Split twice");
  for (const auto& a : attrs)
    if (auto* p = std::get_if<Partial>(&a); p && p->reduction != "sum" && p->reduction != "max" && p->reduction != "min")
      fail(rule::kPartialReduction, "Partial reduction '" + p->reduction + "' is not sum, max or min");
  Geometry geo;
  for (const IntTuple* x : g_leaves) {
    if (!x->is_int()) fail(rule::kShardConcrete, "a layout extent is not a static int");
    geo.g.push_back(x->value());
  }
  for (const IntTuple* x : mesh_leaves) {
    if (!x->is_int()) fail(rule::kShardConcrete, "a mesh extent is not a static int");
    geo.mesh.push_back(x->value());
  }
  checked_product(geo.g, "size(G)");
  geo.instances = checked_product(geo.mesh, "the mesh size");
  geo.bind.assign(geo.g.size(), -1);
  for (size_t a = 0; a < attrs.size(); ++a)
    if (auto* s = std::get_if<Split>(&attrs[a]); s && geo.bind[s->axis] < 0) geo.bind[s->axis] = static_cast<int>(a);
  for (size_t k = 0; k < geo.g.size(); ++k)
    if (geo.bind[k] >= 0 && geo.g[k] % geo.mesh[geo.bind[k]] != 0)
      fail(rule::kSplitDivides, "mesh axis " + std::to_string(geo.bind[k]) + " does not divide layout extent " + std::to_string(geo.g[k]));
  for (size_t k = 0; k < geo.g.size(); ++k)
    if (geo.bind[k] >= 0 && geo.g[k] != geo.mesh[geo.bind[k]])
      fail(rule::kSplitExtentCanonical, "layout dim " + std::to_string(k) + " is not canonical (G[k] != mesh extent)");
  geo.local = geo.g;
  for (size_t k = 0; k < geo.g.size(); ++k)
    if (geo.bind[k] >= 0) geo.local[k] = geo.g[k] / geo.mesh[geo.bind[k]];
  geo.local_size = checked_product(geo.local, "the local size");
  return geo;
}

// §7.1.2: Split strides are >= 0 (plain layouts) and constant along the dim (D13, composed).
void check_strides(const ShardLayout& sl, const Geometry& geo, const FnPlan* fn) {
  const LayoutBase& l = *sl.layout();
  if (l.kind() == LayoutKind::Layout) {
    const auto& pl = static_cast<const Layout&>(l);
    if (pl.materialized()) {
      auto s = leaves(pl.stride());
      bool concrete = std::all_of(s.begin(), s.end(), [](const IntTuple* x) { return x->is_int(); });
      for (size_t k = 0; concrete && k < geo.g.size(); ++k)
        if (geo.bind[k] >= 0 && s[k]->value() < 0)
          fail(rule::kSplitStrideNonneg, "Split-bound dim " + std::to_string(k) + " has stride " + std::to_string(s[k]->value()));
    }
    return;
  }
  if (!fn) return;  // un-materialized: reported by shard-stride-materialized
  if (checked_product(geo.g, "size(G)") > (int64_t{1} << 20)) fail(rule::kResourceLimit, "more than 2^20 points to enumerate");
  for (size_t a = 0; a < geo.mesh.size(); ++a) {  // the reference's order: by mesh axis
    const auto it = std::find(geo.bind.begin(), geo.bind.end(), static_cast<int>(a));
    if (it == geo.bind.end()) continue;
    const size_t k = static_cast<size_t>(it - geo.bind.begin());
    std::vector<int64_t> p(geo.g.size(), 0);
    std::optional<int64_t> step;
    int64_t index = 0;
    do {
      if (p[k] + 1 < geo.g[k]) {
        auto q = p;
        ++q[k];
        int64_t d;
        if (__builtin_sub_overflow(eval_or_raise(*fn, q, "a Split stride", index), eval_or_raise(*fn, p, "a Split stride", index), &d))
          fail(rule::kInt64Overflow, "the step along a Split dim overflows int64");
        if (step && *step != d)
          fail(rule::kSplitSingleStride, "Split-bound dim " + std::to_string(k) + " steps by both " + std::to_string(*step) + " and " + std::to_string(d));
        step = d;
      }
      ++index;
    } while (next_row_major(p, geo.g));
  }
}

// §7.1.1 size match and §8 / D2: G refines T.shape row-major.
void check_regroup(const ShardLayout& sl, const Geometry& geo, const std::vector<int64_t>& t) {
  if (checked_product(geo.g, "size(G)") != checked_product(t, "size(T.shape)"))
    fail(rule::kShardSizeMatch, "size(G) differs from size(T.shape)");
  (void)sl;
  size_t j = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    int64_t p = 1;
    while (j < geo.g.size() && (p < t[i] || geo.g[j] == 1)) {
      int64_t pg;
      if (__builtin_mul_overflow(p, geo.g[j], &pg)) fail(rule::kInt64Overflow, "regroup product overflows int64");
      if (t[i] % pg != 0) fail(rule::kShardRegroup, "layout dim " + std::to_string(j) + " crosses logical dim " + std::to_string(i));
      p = pg;
      ++j;
    }
    if (p != t[i]) fail(rule::kShardRegroup, "logical dim " + std::to_string(i) + " is not covered");
  }
  for (; j < geo.g.size(); ++j)
    if (geo.g[j] != 1) fail(rule::kShardRegroup, "layout dim " + std::to_string(j) + " is left over");
}

// D3: engine of every instance (row-major mesh index).
std::vector<int64_t> engines_of_instances(const ShardLayout& sl, const Geometry& geo, Storage storage, const PlanPolicy& policy) {
  std::vector<int64_t> out(static_cast<size_t>(geo.instances), 0);
  if (storage == Storage::Gmem) return out;
  int64_t below = 0;  // devices per CTA; 0: the whole mesh is one CTA
  if (storage == Storage::Smem) {
    const auto& topos = sl.mesh().topologies();
    for (size_t i = 0; i < topos.size() && below == 0; ++i) {
      if (topos[i].name != "cta") continue;
      below = 1;
      for (size_t j = i + 1; j < topos.size(); ++j) {
        if (!topos[j].num_devices) fail(rule::kMeshExtentStatic, "smem engines need static extents below the cta topology");
        if (__builtin_mul_overflow(below, *topos[j].num_devices, &below)) fail(rule::kInt64Overflow, "devices per CTA overflow int64");
      }
    }
    if (below == 0) return out;
  }
  FnPlan device = compile_layout(*sl.mesh().layout(), policy);
  std::vector<int64_t> m(geo.mesh.size(), 0);
  int64_t i = 0;
  do {
    int64_t d = eval_or_raise(device, m, "mesh device", i);
    out[static_cast<size_t>(i++)] = storage == Storage::Rmem ? d : d / below;
  } while (next_row_major(m, geo.mesh));
  return out;
}

// §2 / D3: (engine, offset) is injective up to Broadcast replicas; Partial contributions never
// alias. Enumerates instances x local elements in the reference's order and reports the first
// reportable collision; also returns each engine's extent.
void check_injective(const ShardLayout& sl, const Geometry& geo, const FnPlan& fn, HostShardPlan& hp) {
  int64_t total = 0;
  if (__builtin_mul_overflow(geo.instances, geo.local_size, &total)) fail(rule::kInt64Overflow, "instances x elements overflows int64");
  if (total > kEnumerationLimit) fail(rule::kInjectivityUndecided, "too many (instance, element) pairs to enumerate");
  struct Entry {
    int64_t engine, offset, order;
  };
  std::vector<Entry> all;
  all.reserve(static_cast<size_t>(total));
  std::vector<int64_t> m(geo.mesh.size(), 0), c(geo.g.size(), 0), g(geo.g.size());
  int64_t order = 0, min_offset = INT64_MAX;
  do {
    const int64_t engine = hp.engine_of_instance[all.size() / static_cast<size_t>(geo.local_size)];
    std::fill(c.begin(), c.end(), 0);
    do {
      for (size_t k = 0; k < g.size(); ++k) g[k] = geo.bind[k] >= 0 ? m[geo.bind[k]] * geo.local[k] + c[k] : c[k];
      const int64_t off = eval_or_raise(fn, g, "a physical offset", order);
      min_offset = std::min(min_offset, off);
      all.push_back({engine, off, order++});
    } while (next_row_major(c, geo.local));
  } while (next_row_major(m, geo.mesh));
  hp.min_offset = all.empty() ? 0 : min_offset;
  // engine extents
  int64_t max_engine = -1;
  for (int64_t e : hp.engine_of_instance) max_engine = std::max(max_engine, e);
  hp.engine_size.assign(static_cast<size_t>(max_engine + 1), 0);
  for (const auto& x : all) hp.engine_size[x.engine] = std::max(hp.engine_size[x.engine], x.offset + 1);
  // first reportable collision: against the first holder of its (engine, offset)
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
    return a.engine != b.engine ? a.engine < b.engine : a.offset != b.offset ? a.offset < b.offset : a.order < b.order;
  });
  const auto& attrs = sl.attrs();
  auto decode = [&](int64_t ord, std::vector<int64_t>& mm, std::vector<int64_t>& gg) {
    int64_t mi = ord / geo.local_size, ci = ord % geo.local_size;
    mm.assign(geo.mesh.size(), 0);
    for (size_t a = geo.mesh.size(); a-- > 0;) mm[a] = mi % geo.mesh[a], mi /= geo.mesh[a];
    gg.assign(geo.g.size(), 0);
    for (size_t k = geo.g.size(); k-- > 0;) {
      int64_t ck = ci % geo.local[k];
      ci /= geo.local[k];
      gg[k] = geo.bind[k] >= 0 ? mm[geo.bind[k]] * geo.local[k] + ck : ck;
    }
  };
  int64_t first_bad = INT64_MAX;
  const RuleId* bad_rule = nullptr;
  std::vector<int64_t> m1, g1, m2, g2;
  for (size_t i = 0; i < all.size();) {
    size_t j = i + 1;
    while (j < all.size() && all[j].engine == all[i].engine && all[j].offset == all[i].offset) ++j;
    if (j - i > 1) {
      decode(all[i].order, m1, g1);
      for (size_t x = i + 1; x < j && all[x].order < first_bad; ++x) {
        decode(all[x].order, m2, g2);
        const RuleId* r = nullptr;
        if (g1 != g2) r = &rule::kShardInjective;
        else
          for (size_t a = 0; a < m1.size() && !r; ++a)
            if (m1[a] != m2[a] && std::holds_alternative<Partial>(attrs[a])) r = &rule::kPartialAliased;
        if (r) {
          first_bad = all[x].order;
          bad_rule = r;
          break;  // later members of this group come later in order
        }
      }
    }
    i = j;
  }
  if (bad_rule == &rule::kShardInjective) fail(rule::kShardInjective, "two layout coordinates share an (engine, offset) under " + to_string(hp.storage));
  if (bad_rule) fail(rule::kPartialAliased, "Partial contributions alias under " + to_string(hp.storage));
}

void fill_plan(const ShardLayout& sl, const Geometry& geo, const FnPlan& fn, HostShardPlan& hp, const PlanPolicy& policy) {
  ShardPlan& p = hp.plan;
  if (geo.g.size() > static_cast<size_t>(kMaxModes) || geo.mesh.size() > static_cast<size_t>(kMaxMeshAxes))
    fail(rule::kResourceLimit, "the shard layout has more dims or mesh axes than a plan holds");
  p.layout = fn;
  p.rank = static_cast<int32_t>(geo.g.size());
  for (int k = 0; k < p.rank; ++k) {
    p.g[k] = geo.g[k];
    p.local[k] = geo.local[k];
    p.bind[k] = geo.bind[k];
    p.g_div[k] = policy.div64(static_cast<uint64_t>(geo.g[k]));
    p.local_div[k] = policy.div64(static_cast<uint64_t>(geo.local[k]));
  }
  p.mesh_rank = static_cast<int32_t>(geo.mesh.size());
  int64_t step = 1;
  for (int a = p.mesh_rank; a-- > 0;) {
    p.mesh_extent[a] = geo.mesh[a];
    p.mesh_div[a] = policy.div64(static_cast<uint64_t>(geo.mesh[a]));
    p.mesh_step[a] = step;
    step *= geo.mesh[a];
  }
  for (int a = 0; a < p.mesh_rank; ++a) {
    p.kind[a] = policy.axis_kind(sl.attrs()[a]);
    if (p.kind[a] == kAxisSplit) continue;
    p.free_axis[p.num_free++] = a;
    p.free_combos *= geo.mesh[a];
    if (p.kind[a] != kAxisBroadcast) {
      p.partial_axis[p.num_partial++] = a;
      p.partial_combos *= geo.mesh[a];
    }
  }
}

// §3 / D2: logical index l is row-major over G, so l + 1 steps the last G dim; along a tail of
// dims that no mesh axis Splits (the instance stays) whose strides are 1, g[last], ... (the
// offset steps by 1), blocks of the tail's size are contiguous on both ends.
int64_t contiguous_run(const ShardPlan& p) {
  const FnPlan& f = p.layout;
  if (f.mode == kIndex64Checked || f.num_stages != 1 || f.stages[0].is_layout != kStageLayout || f.stages[0].n != p.rank) return 1;
  const Stage& s = f.stages[0];
  int64_t run = 1;
  for (int k = p.rank; k-- > 0;) {
    if (s.extent[k] != p.g[k]) return 1;
    if (p.g[k] == 1) continue;
    if (p.bind[k] >= 0 || s.stride[k] != run) break;
    run *= p.g[k];
  }
  return run;
}

}  // namespace

int64_t common_run_of(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

AxisKind axis_kind_of(const ShardAttr& a) {
  if (std::holds_alternative<Split>(a)) return kAxisSplit;
  if (auto* p = std::get_if<Partial>(&a)) return p->reduction == "sum" ? kAxisSum : p->reduction == "max" ? kAxisMax : kAxisMin;
  return kAxisBroadcast;
}

void HostShardPlan::bind() {
  plan.engine_of_instance = engine_of_instance.data();
  plan.num_engine_ids = static_cast<int64_t>(engine_size.size());
}

HostShardPlan compile_shard(const ShardLayout& sl, Storage storage, const std::vector<int64_t>& shape, const PlanPolicy& policy) {
  for (int64_t e : shape)
    if (e < 0) fail(rule::in(rule::kExtentPositive, "§7.4"), "logical extent " + std::to_string(e) + " is negative");
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (std::holds_alternative<Dynamic>(sl.attrs()[a]))
      fail(rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is Dynamic at execution");
  HostShardPlan hp;
  hp.storage = storage;
  Geometry geo = check_structure(sl);
  const bool materialized = !any_unmaterialized(*sl.layout());
  std::optional<FnPlan> fn;
  if (materialized) fn = compile_layout(*sl.layout(), policy);
  check_strides(sl, geo, fn ? &*fn : nullptr);
  if (sl.layout()->kind() == LayoutKind::Layout) {
    const auto& pl = static_cast<const Layout&>(*sl.layout());
    if (pl.materialized() && pl.stride().is_tuple() && pl.stride().len() == 0 && !(pl.shape_ref().is_tuple() && pl.shape_ref().len() == 0))
      fail(rule::kStrideEmptyNotNone, "stride () on a non-empty shape");
  }
  check_regroup(sl, geo, shape);
  if (!materialized) fail(rule::kShardStrideMaterialized, "strides are still un-materialized (None) at execution");
  if (geo.instances > kMaxInstances) fail(rule::kResourceLimit, "more mesh instances than a plan holds");
  hp.engine_of_instance = engines_of_instances(sl, geo, storage, policy);
  check_injective(sl, geo, *fn, hp);
  fill_plan(sl, geo, *fn, hp, policy);
  hp.run = contiguous_run(hp.plan);
  hp.packed = packed_layout_of(hp.engine_size);
  hp.bind();
  return hp;
}

ReshardPlan compile_reshard(const ShardLayout& src, Storage src_storage, const ShardLayout& dst, Storage dst_storage,
                            const std::vector<int64_t>& shape, const PlanPolicy& policy) {
  ReshardPlan rp;
  rp.shape = shape;
  rp.src = compile_shard(src, src_storage, shape, policy);
  try {
    rp.dst = compile_shard(dst, dst_storage, shape, policy);
    if (rp.dst->min_offset < 0) fail(rule::kEngineOffsetNegative, "an offset lies below the engine's base");
  } catch (const SpecError& e) {
    rp.dst.reset();
    rp.dst_error = e.diagnostic();
  }
  rp.size = 1;
  for (int64_t e : shape) rp.size *= e;
  if (rp.dst) rp.run = policy.common_run(rp.src.run, rp.dst->run);
  return rp;
}

}  // namespace tfspec::gpu
