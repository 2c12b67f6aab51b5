// Packed engine buffers (D3: engine ids come from the plan's instance table) and the Engines
// form of reshard over the packed one (§7.4): one implementation per backend, reshard_packed.
#include "tfspec/gpu/backend.hpp"
#include "tfspec/pack/pack.hpp"

namespace tfspec::gpu {

PackedLayout packed_layout_of(const std::vector<int64_t>& engine_size) {
  PackedLayout p;
  p.base.assign(engine_size.size(), -1);
  p.size = engine_size;
  for (size_t e = 0; e < engine_size.size(); ++e)
    if (engine_size[e] > 0) {
      p.base[e] = p.total;
      p.total += engine_size[e];
    }
  return p;
}

ShardPlan bind_engines(ShardPlan sp, const PackedLayout& layout) {
  sp.engine_base = layout.base.data();
  sp.engine_size = layout.size.data();
  sp.num_engine_ids = static_cast<int64_t>(layout.base.size());
  return sp;
}

PackedLayout packed_layout(const HostShardPlan& side, const Engines& engines) {
  PackedLayout p;
  const size_t n = side.engine_size.size();
  p.base.assign(n, -1);
  p.size.assign(n, 0);
  for (size_t e = 0; e < n; ++e) {
    auto it = engines.buffers.find(static_cast<int64_t>(e));
    if (it == engines.buffers.end()) continue;
    p.base[e] = p.total;
    p.size[e] = static_cast<int64_t>(it->second.size());
    p.total += p.size[e];
  }
  return p;
}

std::vector<int64_t> pack(const PackedLayout& layout, const Engines& engines) {
  // one pass over the data (no zero-fill first): engines are appended in id order
  std::vector<int64_t> data;
  data.reserve(static_cast<size_t>(layout.total));
  for (size_t e = 0; e < layout.base.size(); ++e)
    if (layout.base[e] >= 0) {
      if (layout.base[e] < static_cast<int64_t>(data.size())) fail(rule::kInternal, "pack: engines out of id order in the layout");
      const auto& b = engines.buffers.at(static_cast<int64_t>(e));
      data.resize(static_cast<size_t>(layout.base[e]) + b.size());
      pack::copy_elements(data.data() + layout.base[e], b.data(), static_cast<int64_t>(b.size()), sizeof(int64_t));
    }
  data.resize(static_cast<size_t>(layout.total));
  return data;
}

Engines unpack(const HostShardPlan& side, const int64_t* data) {
  Engines out{side.storage, {}};
  for (size_t e = 0; e < side.packed.base.size(); ++e)
    if (side.packed.base[e] >= 0) {
      auto& b = out.buffers[static_cast<int64_t>(e)];
      b.resize(static_cast<size_t>(side.packed.size[e]));
      pack::copy_elements(b.data(), data + side.packed.base[e], side.packed.size[e], sizeof(int64_t));
    }
  return out;
}

Engines Backend::reshard(const ReshardPlan& p, const Engines& src) {
  const PackedLayout in = packed_layout(p.src, src);
  const std::vector<int64_t> data = pack(in, src);
  // the reference's unwritten slots are 0 (§7.4): a zeroed destination
  std::vector<int64_t> out(static_cast<size_t>(p.dst ? p.dst->packed.total : 0), 0);
  reshard_packed(p, in, data.data(), out.data());
  if (!p.dst) fail(rule::kInternal, "reshard_packed returned without a destination plan");
  return unpack(*p.dst, out.data());
}

}  // namespace tfspec::gpu
