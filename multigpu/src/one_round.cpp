// One-round execution (issue 47; spec/MULTIGPU.md "One-round execution"): the plan's steps run
// symbolically, each buffer slot holding what its value is made of (zero, one SRC element of one
// device, or a reduction of several), so that every DST element is known as the SRC elements it
// reduces; the whole plan can then run as one exchange, straight from the holders to the final
// owners. The steps' semantics are the simulator's (simulate.cpp), on terms instead of values.
#include <algorithm>

#include "tfspec/multigpu/reshard_plan.hpp"

namespace tfspec::multigpu {
namespace {

// Bigger plans are not composed (the composition holds a term per buffer slot of every device).
constexpr int64_t kMaxComposedSlots = int64_t{1} << 24;

// A slot's term: 0 zero (an unwritten slot), -1-i SRC leaf i (leaves numbered over the devices in
// order), k > 0 reduction node k-1.
struct Node {
  char op;  // 's' sum, 'M' max, 'm' min
  std::vector<int64_t> leaves;
};

class Composer {
 public:
  explicit Composer(const Plan& plan) : plan_(plan) {
    int64_t slots = 0;
    for (int64_t d : plan.devices)
      for (Buffer k : kBuffers) slots += plan.size_of(k, d);
    if (slots > kMaxComposedSlots) {
      refused_ = "the plan's buffers hold " + std::to_string(slots) + " slots; steps are composed up to 2^24";
      return;
    }
    int64_t base = 0;
    for (int64_t d : plan.devices) {
      base_[d] = base;
      for (Buffer k : kBuffers) {
        auto& b = bufs_[{d, k}];
        b.assign(static_cast<size_t>(plan.size_of(k, d)), 0);
        if (k == Buffer::Src)
          for (size_t i = 0; i < b.size(); ++i) b[i] = -1 - (base + static_cast<int64_t>(i));
      }
      base += plan.size_of(Buffer::Src, d);
    }
  }
  const std::string& refused() const { return refused_; }
  void run(const Step& s) {
    if (refused_.empty()) std::visit([&](const auto& step) { run_step(step); }, s);
  }
  OneRound result();

 private:
  // The `len` slots at a place; past the buffer: refused (the staged executor reports it).
  int64_t* at(int64_t device, Place p, int64_t len) {
    auto it = bufs_.find({device, p.buffer});
    if (it == bufs_.end() || p.offset < 0 || len < 0 || p.offset + len > static_cast<int64_t>(it->second.size())) {
      if (refused_.empty()) refused_ = "a step touches " + to_string(p.buffer) + "[" + std::to_string(p.offset) + ", +" + std::to_string(len) + ") of device " + std::to_string(device) + ", past its buffer";
      return nullptr;
    }
    return it->second.data() + p.offset;
  }
  std::vector<int64_t> read(int64_t device, Place p, int64_t len) {
    const int64_t* b = at(device, p, len);
    return b ? std::vector<int64_t>(b, b + len) : std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(len, 0)), 0);
  }
  void write(int64_t device, Place p, const int64_t* v, int64_t len) {
    if (int64_t* b = at(device, p, len)) std::copy(v, v + len, b);
  }
  void run_step(const LocalCopy& c) {
    // A copy within one buffer reads every run before it writes (the executor's memmove per run
    // gives the same where runs do not overlap each other, as the planner's never do).
    std::vector<std::vector<int64_t>> in;
    for (const Run& r : c.runs) in.push_back(read(c.device, {c.from, r.from}, r.len));
    for (size_t i = 0; i < c.runs.size(); ++i) write(c.device, {c.to, c.runs[i].to}, in[i].data(), c.runs[i].len);
  }
  void run_step(const Collective& c);
  int64_t reduce(char op, const std::vector<int64_t>& parts);

  const Plan& plan_;
  std::map<std::pair<int64_t, Buffer>, std::vector<int64_t>> bufs_;
  std::map<int64_t, int64_t> base_;  // device -> its first leaf
  std::vector<Node> nodes_;
  std::string refused_;
};

// A reduction of terms, flattened: a node of the same operation contributes its leaves, a zero
// nothing (sum) or a refusal (max / min: the zero takes part in the value); one leaf stays a leaf.
int64_t Composer::reduce(char op, const std::vector<int64_t>& parts) {
  std::vector<int64_t> leaves;
  for (int64_t t : parts) {
    if (t < 0) {
      leaves.push_back(t);
    } else if (t == 0) {
      if (op != 's' && refused_.empty()) refused_ = "a max / min reduction takes an unwritten (zero) slot";
    } else {
      const Node& n = nodes_[static_cast<size_t>(t - 1)];
      if (n.op != op && refused_.empty()) refused_ = "a reduction of one operation takes the result of another";
      leaves.insert(leaves.end(), n.leaves.begin(), n.leaves.end());
    }
  }
  if (leaves.empty()) return 0;
  if (leaves.size() == 1) return leaves[0];
  nodes_.push_back({op, std::move(leaves)});
  return static_cast<int64_t>(nodes_.size());
}

void Composer::run_step(const Collective& c) {
  switch (c.kind) {
    case CollectiveKind::AllGather:
      for (const auto& g : c.groups) {
        std::vector<std::vector<int64_t>> blocks;
        for (int64_t d : g) blocks.push_back(read(d, c.send.at(d), c.count));
        for (int64_t d : g)
          for (size_t r = 0; r < blocks.size(); ++r) write(d, {c.recv.at(d).buffer, c.recv.at(d).offset + static_cast<int64_t>(r) * c.count}, blocks[r].data(), c.count);
      }
      return;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllReduce: {
      const bool scatter = c.kind == CollectiveKind::ReduceScatter;
      const char op = c.reduction == "max" ? 'M' : c.reduction == "min" ? 'm' : 's';
      if (c.reduction != "sum" && op == 's' && refused_.empty()) refused_ = "reduction '" + c.reduction + "' is not sum, max or min";
      for (const auto& g : c.groups) {
        const int64_t n = static_cast<int64_t>(g.size()), total = scatter ? n * c.count : c.count;
        std::vector<std::vector<int64_t>> in;
        for (int64_t d : g) in.push_back(read(d, c.send.at(d), total));
        std::vector<int64_t> acc(static_cast<size_t>(total)), parts(g.size());
        for (size_t k = 0; k < acc.size(); ++k) {
          for (size_t r = 0; r < g.size(); ++r) parts[r] = in[r][k];
          acc[k] = reduce(op, parts);
        }
        for (int64_t r = 0; r < n; ++r) write(g[static_cast<size_t>(r)], c.recv.at(g[static_cast<size_t>(r)]), acc.data() + (scatter ? r * c.count : 0), c.count);
      }
      return;
    }
    case CollectiveKind::AllToAll:
    case CollectiveKind::SendRecv: {
      std::vector<std::vector<int64_t>> sent;
      for (const Transfer& t : c.transfers) sent.push_back(read(t.from_device, {Buffer::Send, t.send_offset}, t.count));
      for (size_t i = 0; i < c.transfers.size(); ++i) write(c.transfers[i].to_device, {Buffer::Recv, c.transfers[i].recv_offset}, sent[i].data(), c.transfers[i].count);
      return;
    }
  }
}

OneRound Composer::result() {
  OneRound out;
  out.refused = refused_;
  if (!refused_.empty()) return out;
  auto leaf = [&](int64_t t) {
    const int64_t i = -1 - t;
    auto it = std::prev(std::find_if(base_.begin(), base_.end(), [&](const auto& b) { return b.second > i; }));
    return Leaf{it->first, i - it->second};
  };
  for (const auto& [d, n] : plan_.dst_size) {
    if (n <= 0) continue;
    ComposedDst& cd = out.dst[d];
    cd.start.push_back(0);
    for (int64_t t : bufs_.at({d, Buffer::Dst})) {
      if (t < 0) cd.leaves.push_back(leaf(t)), cd.op.push_back(0);
      if (t > 0) {
        for (int64_t l : nodes_[static_cast<size_t>(t - 1)].leaves) cd.leaves.push_back(leaf(l));
        cd.op.push_back(nodes_[static_cast<size_t>(t - 1)].op);
      }
      if (t == 0) cd.op.push_back(0);
      cd.start.push_back(static_cast<int64_t>(cd.leaves.size()));
    }
    for (const Leaf& l : cd.leaves)
      if (l.device != d) out.bytes[d].received += plan_.elem_bytes, out.bytes[l.device].sent += plan_.elem_bytes;
  }
  return out;
}

}  // namespace

OneRound compose_one_round(const Plan& plan) {
  Composer c(plan);
  for (const Step& s : plan.steps) c.run(s);
  return c.result();
}

// The plan chooses one round where its steps compose and no device sends or receives more in it.
void decide_one_round(Plan& plan) {
  const OneRound r = compose_one_round(plan);
  plan.one_round = false, plan.one_round_bytes = 0;
  if (!r.refused.empty()) {
    plan.one_round_because = "the steps do not compose: " + r.refused;
    return;
  }
  for (const auto& [d, b] : r.bytes) plan.one_round_bytes += b.sent;
  for (int64_t d : plan.devices) {
    const DeviceBytes mine = r.bytes.count(d) ? r.bytes.at(d) : DeviceBytes{}, staged = plan.bytes.count(d) ? plan.bytes.at(d) : DeviceBytes{};
    if (mine.sent > staged.sent || mine.received > staged.received) {
      plan.one_round_because = "device " + std::to_string(d) + " would send " + std::to_string(mine.sent) + " B and receive " + std::to_string(mine.received) +
                               " B in one round; the steps move " + std::to_string(staged.sent) + " B and " + std::to_string(staged.received) + " B";
      return;
    }
  }
  plan.one_round = true;
  plan.one_round_because.clear();
}

}  // namespace tfspec::multigpu
