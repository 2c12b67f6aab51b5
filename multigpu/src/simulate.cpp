// The host simulator (spec/MULTIGPU.md "Simulator"): one set of buffers per device, each step run
// with NCCL's semantics on int64 data; a Partial is reduced by the collective's reduction with
// overflow-checked arithmetic (D9). It is the oracle an NCCL executor would be tested against.
#include <algorithm>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/checked.hpp"

namespace tfspec::multigpu {
namespace {

struct DeviceState {
  std::map<Buffer, std::vector<int64_t>> buffers;
};

class Machine {
 public:
  Machine(const Plan& plan, const DeviceBuffers& src) {
    for (int64_t d : plan.devices) {
      auto& b = devices_[d].buffers;
      auto it = src.find(d);
      const int64_t want = plan.src_size.count(d) ? plan.src_size.at(d) : 0;
      if (it == src.end() ? want != 0 : static_cast<int64_t>(it->second.size()) != want)
        fail(rule::kEngineBufferSize, "device " + std::to_string(d) + " brings " + std::to_string(it == src.end() ? 0 : it->second.size()) +
                                          " SRC values; the plan's SRC layout needs " + std::to_string(want));
      b[Buffer::Src] = it == src.end() ? std::vector<int64_t>{} : it->second;
      for (Buffer k : kBuffers)
        if (k != Buffer::Src) b[k].assign(static_cast<size_t>(plan.size_of(k, d)), 0);
    }
    for (const auto& d : src)
      if (!devices_.count(d.first)) fail(rule::kEngineUnknown, "a SRC buffer is given for device " + std::to_string(d.first) + ", which the plan does not have");
  }

  // The `len` values at a place of a device; a slice past the buffer is a planner bug.
  int64_t* at(int64_t device, Place p, int64_t len) {
    auto& buf = devices_.at(device).buffers.at(p.buffer);
    if (p.offset < 0 || len < 0 || p.offset + len > static_cast<int64_t>(buf.size()))
      fail(rule::kInternal, "the plan touches " + to_string(p.buffer) + "[" + std::to_string(p.offset) + ", +" + std::to_string(len) + ") of device " +
                                std::to_string(device) + ", which holds " + std::to_string(buf.size()));
    return buf.data() + p.offset;
  }

  std::vector<int64_t> read(int64_t device, Place p, int64_t len) {
    const int64_t* b = at(device, p, len);
    return std::vector<int64_t>(b, b + len);
  }

  void run(const LocalCopy& c) {
    for (const Run& r : c.runs) {
      auto v = read(c.device, {c.from, r.from}, r.len);
      std::copy(v.begin(), v.end(), at(c.device, {c.to, r.to}, r.len));
    }
  }

  static int64_t reduce2(const std::string& r, int64_t a, int64_t b) {
    if (r == "sum") return checked_add(a, b);
    if (r == "max") return std::max(a, b);
    if (r == "min") return std::min(a, b);
    fail(rule::kPartialReduction, "reduction " + r + " is not sum, max or min");
  }

  void run(const Collective& c) {
    // Every send buffer is read before any receive buffer is written (NCCL: no overlap inside a call).
    switch (c.kind) {
      case CollectiveKind::AllGather:
        for (const auto& g : c.groups) {
          std::vector<std::vector<int64_t>> blocks;
          for (int64_t d : g) blocks.push_back(read(d, c.send.at(d), c.count));
          for (int64_t d : g)
            for (size_t r = 0; r < blocks.size(); ++r)
              std::copy(blocks[r].begin(), blocks[r].end(), at(d, {c.recv.at(d).buffer, c.recv.at(d).offset + static_cast<int64_t>(r) * c.count}, c.count));
        }
        break;
      case CollectiveKind::ReduceScatter:
      case CollectiveKind::AllReduce: {
        const bool scatter = c.kind == CollectiveKind::ReduceScatter;
        for (const auto& g : c.groups) {
          const int64_t n = static_cast<int64_t>(g.size());
          const int64_t total = scatter ? n * c.count : c.count;
          std::vector<int64_t> acc = read(g[0], c.send.at(g[0]), total);
          for (size_t r = 1; r < g.size(); ++r) {
            auto v = read(g[r], c.send.at(g[r]), total);
            for (int64_t k = 0; k < total; ++k) acc[k] = reduce2(c.reduction, acc[k], v[k]);
          }
          for (int64_t r = 0; r < n; ++r) {
            auto first = acc.begin() + (scatter ? r * c.count : 0);
            std::copy(first, first + c.count, at(g[r], c.recv.at(g[r]), c.count));
          }
        }
        break;
      }
      case CollectiveKind::AllToAll:
      case CollectiveKind::SendRecv: {
        std::vector<std::vector<int64_t>> sent;
        for (const Transfer& t : c.transfers) sent.push_back(read(t.from_device, {Buffer::Send, t.send_offset}, t.count));
        for (size_t i = 0; i < c.transfers.size(); ++i) {
          const Transfer& t = c.transfers[i];
          std::copy(sent[i].begin(), sent[i].end(), at(t.to_device, {Buffer::Recv, t.recv_offset}, t.count));
        }
        break;
      }
    }
  }

  DeviceBuffers result(const Plan& plan) {
    DeviceBuffers out;
    for (const auto& [d, n] : plan.dst_size)
      if (n > 0) out[d] = devices_.at(d).buffers.at(Buffer::Dst);
    return out;
  }

 private:
  std::map<int64_t, DeviceState> devices_;
};

}  // namespace

DeviceBuffers simulate(const Plan& plan, const DeviceBuffers& src) {
  Machine m(plan, src);
  for (const Step& s : plan.steps) std::visit([&](const auto& step) { m.run(step); }, s);
  return m.result(plan);
}

}  // namespace tfspec::multigpu
