// Reshard semantics: distribute, assemble, reshard, partition (ARCHITECTURE "Reshard
// semantics"; §6 Broadcast / Partial, §7.1.2 and D3 physical elements).
#include "tfspec/reference/reshard.hpp"

#include <set>

#include "tfspec/reference/checked.hpp"
#include "shard/shard_text_util.hpp"

namespace tfspec {
namespace {

// The numbers every loop needs, computed once.
struct Geometry {
  std::vector<int64_t> g, local, mesh;
  std::vector<std::optional<int>> bind;  // layout dim -> mesh axis
  std::vector<int> partial_axes, free_axes;  // free: not Split (Broadcast / Partial)
};

Geometry geometry_of(const ShardLayout& sl) {
  Geometry geo;
  geo.g = flat_extents(sl);
  for (const auto& x : flat_leaves(local_shape(sl))) geo.local.push_back(x.value());
  for (int a = 0; a < sl.mesh().rank(); ++a) geo.mesh.push_back(sl.mesh().extent(a));
  geo.bind = split_binding(sl);
  for (int a = 0; a < sl.mesh().rank(); ++a) {
    const auto& attr = sl.attrs()[a];
    if (std::holds_alternative<Partial>(attr)) geo.partial_axes.push_back(a);
    if (!std::holds_alternative<Split>(attr)) geo.free_axes.push_back(a);
  }
  return geo;
}

// Fails closed on everything that would make execution produce wrong data.
void check_execution(const ShardLayout& sl, Storage storage, const std::vector<int64_t>& shape, const std::vector<int64_t>* data) {
  for (int64_t e : shape)
    if (e < 0) fail(rule::in(rule::kExtentPositive, "§7.4"), "logical extent " + std::to_string(e) + " is negative");
  if (data) {
    int64_t n = 1;
    for (int64_t e : shape) n = checked_mul(n, e);
    if (static_cast<int64_t>(data->size()) != n)
      fail(rule::kTensorDataSize, "the data holds " + std::to_string(data->size()) + " values but the logical shape needs " + std::to_string(n));
  }
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (std::holds_alternative<Dynamic>(sl.attrs()[a]))
      fail(rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is Dynamic at execution");
  std::vector<IntTuple> t(shape.begin(), shape.end());
  validate_shard_layout(sl, ShardCheckOptions{true, storage, IntTuple::tuple(t)});
}

// Mesh instance holding global coordinate g with the free axes at `free_coord`, and its local coordinate.
void place(const Geometry& geo, const std::vector<int64_t>& g, const std::vector<int64_t>& free_coord,
           std::vector<int64_t>& m, std::vector<int64_t>& c) {
  m.assign(geo.mesh.size(), 0);
  c = g;
  for (size_t k = 0; k < g.size(); ++k)
    if (geo.bind[k]) {
      m[*geo.bind[k]] = g[k] / geo.local[k];
      c[k] = g[k] % geo.local[k];
    }
  for (size_t i = 0; i < geo.free_axes.size(); ++i) m[geo.free_axes[i]] = free_coord[i];
}

std::vector<int64_t> free_extents(const Geometry& geo) {
  std::vector<int64_t> e;
  for (int a : geo.free_axes) e.push_back(geo.mesh[a]);
  return e;
}

// Row-major index of an instance's coordinates on the Partial axes.
int64_t partial_index(const Geometry& geo, const std::vector<int64_t>& m) {
  int64_t i = 0;
  for (int a : geo.partial_axes) i = i * geo.mesh[a] + m[a];
  return i;
}

int64_t partial_count(const Geometry& geo) {
  int64_t n = 1;
  for (int a : geo.partial_axes) n = checked_mul(n, geo.mesh[a]);
  return n;
}

int64_t reduce2(const std::string& r, int64_t a, int64_t b) {
  if (r == "sum") return checked_add(a, b);
  return r == "max" ? std::max(a, b) : std::min(a, b);
}

// Writes, for every logical element x, contributions(x)[partial_index] to every holder.
Engines write_engines(const Tensor& t, const ShardLayout& sl, Storage storage,
                      const std::function<std::vector<int64_t>(int64_t)>& contributions) {
  check_execution(sl, storage, t.shape, &t.data);
  const Geometry geo = geometry_of(sl);
  const auto frees = row_major_coords(free_extents(geo));
  struct Write {
    int64_t engine, offset, value;
  };
  std::vector<Write> writes;
  std::map<int64_t, int64_t> extent;  // engine -> 1 + largest offset
  std::vector<int64_t> m, c;
  for (const auto& g : row_major_coords(geo.g)) {
    // D2: the regroup is a row-major refinement, so row-major order over flat G is logical order.
    auto parts = contributions(t.data.at(row_major_index(g, geo.g)));
    for (const auto& f : frees) {
      place(geo, g, f, m, c);
      PhysicalElement pe = physical_element(sl, storage, m, c);
      if (pe.offset < 0) fail(rule::kEngineOffsetNegative, "offset " + std::to_string(pe.offset) + " lies below the engine's base");
      writes.push_back({pe.engine, pe.offset, parts.at(partial_index(geo, m))});
      auto& e = extent[pe.engine];
      e = std::max(e, pe.offset + 1);
    }
  }
  int64_t total = 0;
  for (auto [engine, n] : extent) {
    total = checked_add(total, n);
    if (total > kMaxEngineElements)
      fail(rule::kResourceLimit, "the engines' buffers would need more than 2^24 elements (engine " + std::to_string(engine) +
                                     " runs to offset " + std::to_string(n - 1) + ")");
  }
  Engines out{storage, {}};
  for (auto [engine, n] : extent) out.buffers[engine].assign(static_cast<size_t>(n), 0);
  for (const auto& w : writes) out.buffers[w.engine][w.offset] = w.value;
  return out;
}

// D9 contributions that reduce exactly to v, split along Partial axis i and the ones after it.
void split_value(const Geometry& geo, const ShardLayout& sl, size_t i, int64_t v, const std::function<int64_t()>& draw,
                 std::vector<int64_t>& out) {
  if (i == geo.partial_axes.size()) {
    out.push_back(v);
    return;
  }
  const int a = geo.partial_axes[i];
  const std::string& r = std::get<Partial>(sl.attrs()[a]).reduction;
  const int64_t n = geo.mesh[a];
  const int64_t keep = floor_mod(draw(), n);  // the contribution that carries v (max / min) or the rest (sum)
  std::vector<int64_t> parts(static_cast<size_t>(n));
  int64_t others = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (j == keep) continue;
    int64_t d = draw();
    if (r == "sum") parts[j] = d;
    else parts[j] = r == "max" ? checked_sub(v, d < 0 ? checked_sub(0, d) : d) : checked_add(v, d < 0 ? checked_sub(0, d) : d);
    if (r == "sum") others = checked_add(others, d);
  }
  parts[keep] = r == "sum" ? checked_sub(v, others) : v;
  for (int64_t p : parts) split_value(geo, sl, i + 1, p, draw, out);
}

}  // namespace

Engines distribute(const Tensor& t, const ShardLayout& sl, Storage storage) {
  const Geometry geo = geometry_of(sl);
  const auto combos = row_major_coords([&] {
    std::vector<int64_t> e;
    for (int a : geo.partial_axes) e.push_back(geo.mesh[a]);
    return e;
  }());
  // sum axes: the instance at coordinate 0 holds x, the others 0; max / min axes replicate x.
  return write_engines(t, sl, storage, [&](int64_t x) {
    std::vector<int64_t> parts;
    for (const auto& p : combos) {
      bool zero = false;
      for (size_t i = 0; i < p.size(); ++i)
        zero = zero || (p[i] != 0 && std::get<Partial>(sl.attrs()[geo.partial_axes[i]]).reduction == "sum");
      parts.push_back(zero ? 0 : x);
    }
    return parts;
  });
}

Engines partition(const Tensor& t, const ShardLayout& sl, Storage storage, const std::function<int64_t()>& draw) {
  const Geometry geo = geometry_of(sl);
  return write_engines(t, sl, storage, [&](int64_t x) {
    std::vector<int64_t> parts;
    split_value(geo, sl, 0, x, draw, parts);
    return parts;
  });
}

Tensor assemble(const Engines& engines, const ShardLayout& sl, const std::vector<int64_t>& shape) {
  check_execution(sl, engines.storage, shape, nullptr);
  const Geometry geo = geometry_of(sl);
  const auto frees = row_major_coords(free_extents(geo));
  const int64_t np = partial_count(geo);
  // Every buffer belongs to an engine of the layout: one for an engine it does not have is data
  // the caller meant for another layout, never silently dropped.
  std::set<int64_t> known;
  for (const auto& mc : row_major_coords(geo.mesh)) known.insert(engine_of(sl.mesh(), mc, engines.storage));
  for (const auto& [engine, buffer] : engines.buffers)
    if (!known.count(engine))
      fail(rule::kEngineUnknown, "a buffer is given for engine " + std::to_string(engine) + ", which the layout does not have under " +
                                           to_string(engines.storage) + " (" + std::to_string(known.size()) + " engines, " +
                                           std::to_string(*known.begin()) + ".." + std::to_string(*known.rbegin()) + ")");
  Tensor out{shape, {}};
  std::vector<int64_t> m, c;
  for (const auto& g : row_major_coords(geo.g)) {
    std::vector<std::optional<int64_t>> parts(static_cast<size_t>(np));
    for (const auto& f : frees) {
      place(geo, g, f, m, c);
      PhysicalElement pe = physical_element(sl, engines.storage, m, c);
      auto it = engines.buffers.find(pe.engine);
      if (it == engines.buffers.end()) fail(rule::kEngineMissing, "no buffer for engine " + std::to_string(pe.engine));
      if (pe.offset < 0 || pe.offset >= static_cast<int64_t>(it->second.size()))
        fail(rule::kEngineBufferSize, "engine " + std::to_string(pe.engine) + " holds " + std::to_string(it->second.size()) + " values; offset " + std::to_string(pe.offset) + " is outside");
      int64_t v = it->second[pe.offset];
      auto& slot = parts[partial_index(geo, m)];
      if (slot && *slot != v)  // §6: Broadcast replicas hold the same value
        fail(rule::kReplicaMismatch, "Broadcast replicas of layout coordinate " + std::to_string(row_major_index(g, geo.g)) + " disagree: " + std::to_string(*slot) + " vs " + std::to_string(v));
      slot = v;
    }
    // §6 Partial: reduce the highest Partial mesh axis first.
    std::vector<int64_t> vals;
    for (auto& p : parts) vals.push_back(*p);
    for (size_t i = geo.partial_axes.size(); i-- > 0;) {
      const std::string& r = std::get<Partial>(sl.attrs()[geo.partial_axes[i]]).reduction;
      const int64_t n = geo.mesh[geo.partial_axes[i]];
      std::vector<int64_t> next;
      for (size_t b = 0; b < vals.size(); b += static_cast<size_t>(n)) {
        int64_t acc = vals[b];
        for (int64_t j = 1; j < n; ++j) acc = reduce2(r, acc, vals[b + j]);
        next.push_back(acc);
      }
      vals = std::move(next);
    }
    out.data.push_back(vals.at(0));
  }
  return out;
}

Engines reshard(const Engines& engines, const ShardLayout& src, const ShardLayout& dst, Storage dst_storage,
                const std::vector<int64_t>& shape) {
  return distribute(assemble(engines, src, shape), dst, dst_storage);
}

std::vector<std::vector<int64_t>> holders(const ShardLayout& sl, const std::vector<int64_t>& global) {
  const Geometry geo = geometry_of(sl);
  if (global.size() != geo.g.size()) fail(rule::in(rule::kCoordInDomain, "§7"), "global coordinate rank differs from the layout's");
  for (size_t k = 0; k < global.size(); ++k)
    if (global[k] < 0 || global[k] >= geo.g[k]) fail(rule::in(rule::kCoordInDomain, "§7"), "global coordinate outside G");
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> m, c;
  for (const auto& f : row_major_coords(free_extents(geo))) {
    place(geo, global, f, m, c);
    out.push_back(m);
  }
  return out;
}

}  // namespace tfspec
