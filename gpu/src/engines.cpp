// Packing engine buffers for the kernels (D3: engine ids come from the plan's instance table).
#include "tfspec/gpu/backend.hpp"

namespace tfspec::gpu {

PackedEngines pack_source(const HostShardPlan& src, const Engines& engines) {
  PackedEngines p;
  const size_t n = src.engine_size.size();
  p.base.assign(n, -1);
  p.size.assign(n, 0);
  int64_t total = 0;
  for (size_t e = 0; e < n; ++e) {
    auto it = engines.buffers.find(static_cast<int64_t>(e));
    if (it == engines.buffers.end()) continue;
    p.base[e] = total;
    p.size[e] = static_cast<int64_t>(it->second.size());
    total += p.size[e];
  }
  p.data.reserve(static_cast<size_t>(total));
  for (size_t e = 0; e < n; ++e)
    if (p.base[e] >= 0) {
      const auto& b = engines.buffers.at(static_cast<int64_t>(e));
      p.data.insert(p.data.end(), b.begin(), b.end());
    }
  return p;
}

PackedEngines layout_destination(const HostShardPlan& dst) {
  PackedEngines p;
  const size_t n = dst.engine_size.size();
  p.base.assign(n, -1);
  p.size = dst.engine_size;
  int64_t total = 0;
  for (size_t e = 0; e < n; ++e)
    if (p.size[e] > 0) {
      p.base[e] = total;
      total += p.size[e];
    }
  p.data.assign(static_cast<size_t>(total), 0);
  return p;
}

Engines unpack_destination(const HostShardPlan& dst, const PackedEngines& packed) {
  Engines out{dst.storage, {}};
  for (size_t e = 0; e < packed.base.size(); ++e)
    if (packed.base[e] >= 0) {
      auto first = packed.data.begin() + packed.base[e];
      out.buffers[static_cast<int64_t>(e)].assign(first, first + packed.size[e]);
    }
  return out;
}

}  // namespace tfspec::gpu
