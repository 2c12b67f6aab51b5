// The MPI executor (spec/MULTIGPU.md "Executing a plan on MPI"): each plan step as non-blocking
// MPI point-to-point calls on this rank's host buffers, one round per collective (every block
// posted at once, as a direct exchange: the same bytes as the ring of the byte model for the
// all-gather and the reduce-scatter, and for the all-reduce a direct reduce-scatter of the ring's
// chunks then a direct all-gather of them); reductions (sum / max / min) computed here in rank
// order when the blocks are in; the all-to-all and grouped send/recv as MPI_Isend / MPI_Irecv
// pairs; local copies through the packing core (pack/), each LocalCopy's runs compiled once in
// load(). A step is posted and left in flight: a later step waits only for the posted steps
// whose buffer ranges it touches (a local copy of data the collective does not touch runs while
// it moves), every wait advances every posted step, and finish() / dst() wait for the rest
// (spec/MULTIGPU.md "Executing a plan on MPI").
#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <type_traits>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/pack/pack.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::mpi {
namespace {

// MPI has no 16-bit float type: float16 / bfloat16 travel as MPI_UINT16_T (reduced here, in float).
MPI_Datatype mpi_type(const Dtype& t) {
  switch (t.kind) {
    case Dtype::Kind::Signed: return t.bytes == 1 ? MPI_INT8_T : t.bytes == 4 ? MPI_INT32_T : MPI_INT64_T;
    case Dtype::Kind::Unsigned: return t.bytes == 1 ? MPI_UINT8_T : t.bytes == 4 ? MPI_UINT32_T : MPI_UINT64_T;
    case Dtype::Kind::Float: return t.bytes == 4 ? MPI_FLOAT : MPI_DOUBLE;
    default: return MPI_UINT16_T;
  }
}

int as_int(int64_t n, const std::string& what) {
  if (n < 0 || n > INT_MAX) fail(rule::kResourceLimit, what + ": a count of " + std::to_string(n) + " elements does not fit MPI's int");
  return static_cast<int>(n);
}

// What a step reads and writes on this device: element ranges [lo, hi) of its buffers.
struct Range {
  Buffer buffer;
  int64_t lo, hi;
};
struct Footprint {
  std::vector<Range> reads, writes;
  bool world_p2p = false;  // point-to-point on the world communicator: such steps never overlap each other
};
bool overlap(const std::vector<Range>& a, const std::vector<Range>& b) {
  for (const Range& x : a)
    for (const Range& y : b)
      if (x.buffer == y.buffer && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}
// A later step must wait for an earlier posted one when it writes what that one reads or writes,
// or reads what it writes.
bool depends(const Footprint& later, const Footprint& earlier) {
  return overlap(later.writes, earlier.reads) || overlap(later.writes, earlier.writes) || overlap(later.reads, earlier.writes) ||
         (later.world_p2p && earlier.world_p2p);
}

// A step whose calls are posted: its requests, its scratch (a send side's copy, received blocks),
// its ranges, and what runs when the requests complete (a reduction, the next round), which may
// post more requests and set another `then`.
struct Posted {
  size_t step;
  std::vector<MPI_Request> requests;
  std::vector<unsigned char> scratch;
  Footprint footprint;
  std::function<void(Posted&)> then;
  bool done = false;
};

// The tag of a step's round (0, 1) on its communicator: distinct for steps in flight together.
int tag_of(size_t step, int round) { return 1 + static_cast<int>((2 * step + static_cast<size_t>(round)) % 32000); }

// acc[i] = acc[i] op x[i] as MPI's predefined operations compute it (integers wrap: computed
// unsigned; float16 / bfloat16 through float, rounded after each pair as half_op does).
// One loop per operation (the operation chosen outside it, so the loop vectorizes: this file is
// compiled with TFSPEC_VECTORIZE_FLAGS, multigpu/CMakeLists.txt).
template <class T, class F>
void combine_with(T* acc, const T* x, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) acc[i] = f(acc[i], x[i]);
}
template <class T>
void combine(T* acc, const T* x, int64_t n, char op) {
  if (op == 'M') return combine_with(acc, x, n, [](T a, T b) { return a < b ? b : a; });
  if (op == 'm') return combine_with(acc, x, n, [](T a, T b) { return b < a ? b : a; });
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    combine_with(acc, x, n, [](T a, T b) { return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b))); });
  } else {
    combine_with(acc, x, n, [](T a, T b) { return a + b; });
  }
}
template <float (*To)(uint16_t), uint16_t (*From)(float)>
void combine16(uint16_t* acc, const uint16_t* x, int64_t n, char op) {
  for (int64_t i = 0; i < n; ++i) {
    const float a = To(acc[i]), b = To(x[i]);
    acc[i] = From(op == 's' ? a + b : op == 'M' ? std::max(a, b) : std::min(a, b));
  }
}
void reduce_into(const Dtype& t, void* acc, const void* x, int64_t n, char op) {
  using K = Dtype::Kind;
  switch (t.kind) {
    case K::Signed:
      if (t.bytes == 1) return combine(static_cast<int8_t*>(acc), static_cast<const int8_t*>(x), n, op);
      if (t.bytes == 4) return combine(static_cast<int32_t*>(acc), static_cast<const int32_t*>(x), n, op);
      return combine(static_cast<int64_t*>(acc), static_cast<const int64_t*>(x), n, op);
    case K::Unsigned:
      if (t.bytes == 1) return combine(static_cast<uint8_t*>(acc), static_cast<const uint8_t*>(x), n, op);
      if (t.bytes == 4) return combine(static_cast<uint32_t*>(acc), static_cast<const uint32_t*>(x), n, op);
      return combine(static_cast<uint64_t*>(acc), static_cast<const uint64_t*>(x), n, op);
    case K::Float:
      if (t.bytes == 4) return combine(static_cast<float*>(acc), static_cast<const float*>(x), n, op);
      return combine(static_cast<double*>(acc), static_cast<const double*>(x), n, op);
    case K::Half: return combine16<half_to_float, float_to_half>(static_cast<uint16_t*>(acc), static_cast<const uint16_t*>(x), n, op);
    case K::BFloat: return combine16<bfloat_to_float, float_to_bfloat>(static_cast<uint16_t*>(acc), static_cast<const uint16_t*>(x), n, op);
  }
}

// A LocalCopy of this device, compiled in load(); `error` when its runs leave a buffer (raised
// when the step runs, as an executor that copies run by run would).
struct CompiledCopy {
  pack::CopyProgram program;
  Footprint footprint;
  std::string error;
};

class MpiExecutor final : public Executor {
 public:
  MpiExecutor(World& w, const Dtype& t) : w_(w), t_(t), type_(mpi_type(t)), eb_(static_cast<size_t>(t.bytes)) {}
  ~MpiExecutor() override {
    for (auto& [groups, comm] : comms_)
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  std::string name() const override { return "MPI"; }
  int64_t device() const override { return w_.rank(); }
  DeviceBytes moved() const override { return {moved_.sent * t_.bytes, moved_.received * t_.bytes}; }
  std::vector<unsigned char> dst() override {
    finish();
    return buf(Buffer::Dst);
  }
  void finish() override {
    while (!posted_.empty()) complete(0);
  }

  void load(const Plan& plan, const std::vector<unsigned char>& src) override {
    finish();
    const int64_t me = device();
    if (src.size() != static_cast<size_t>(plan.size_of(Buffer::Src, me)) * eb_)
      fail(rule::kEngineBufferSize, "device " + std::to_string(me) + " brings " + std::to_string(src.size()) + " SRC bytes; the plan needs " +
                                        std::to_string(static_cast<size_t>(plan.size_of(Buffer::Src, me)) * eb_));
    for (Buffer k : kBuffers) buf(k).assign(static_cast<size_t>(plan.size_of(k, me)) * eb_, 0);
    buf(Buffer::Src) = src;
    moved_ = {};
    plan_ = &plan;
    copies_.assign(plan.steps.size(), {});
    step_comm_.assign(plan.steps.size(), MPI_COMM_NULL);
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      if (const auto* lc = std::get_if<LocalCopy>(&plan.steps[i]); lc && lc->device == me) copies_[i] = compile_copy(*lc);
      // Every step's communicators now: MPI_Comm_split is collective over the world and blocking.
      if (const auto* c = std::get_if<Collective>(&plan.steps[i]); c && !c->groups.empty()) step_comm_[i] = comm_of(*c, i);
    }
  }

  void run(const Plan& plan, size_t index) override {
    if (&plan != plan_) fail(rule::kInternal, "the MPI executor runs the plan it loaded; load() this one first");
    if (const auto* lc = std::get_if<LocalCopy>(&plan.steps[index])) {
      if (lc->device != device()) return;
      const CompiledCopy& cc = copies_[index];
      if (!cc.error.empty()) fail(rule::kInternal, cc.error);
      wait_for(cc.footprint);
      if (lc->from == lc->to) pack::run_overlapping(cc.program, eb_, buf(lc->from).data(), buf(lc->to).data());
      else pack::run(cc.program, eb_, buf(lc->from).data(), buf(lc->to).data());
      return;
    }
    const auto& c = std::get<Collective>(plan.steps[index]);
    if (c.kind == CollectiveKind::SendRecv) return send_recv(c, index);
    MPI_Comm comm = step_comm_[index];
    if (comm == MPI_COMM_NULL) return;  // this device is in none of the step's groups
    int n = 0, pos = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &pos);
    switch (c.kind) {
      case CollectiveKind::AllGather: return all_gather(c, comm, n, pos, index);
      case CollectiveKind::ReduceScatter: return reduce_scatter(c, comm, n, pos, index);
      case CollectiveKind::AllReduce: return all_reduce(c, comm, n, pos, index);
      default: return all_to_all(c, comm, index);
    }
  }

 private:
  std::vector<unsigned char>& buf(Buffer b) { return bufs_[static_cast<size_t>(b)]; }

  unsigned char* at(Place p, int64_t len) {
    auto& b = buf(p.buffer);
    if (p.offset < 0 || len < 0 || static_cast<size_t>(p.offset + len) * eb_ > b.size())
      fail(rule::kInternal, "the plan touches " + to_string(p.buffer) + "[" + std::to_string(p.offset) + ", +" + std::to_string(len) +
                                ") of device " + std::to_string(device()) + ", which holds " + std::to_string(b.size() / eb_));
    return b.data() + static_cast<size_t>(p.offset) * eb_;
  }

  CompiledCopy compile_copy(const LocalCopy& lc) {
    CompiledCopy cc;
    for (const Run& r : lc.runs)
      if (r.from < 0 || r.to < 0 || r.len < 0) {
        cc.error = "the plan touches " + to_string(lc.from) + "[" + std::to_string(r.from) + ", +" + std::to_string(r.len) + ") -> " + to_string(lc.to) + "[" +
                   std::to_string(r.to) + "] of device " + std::to_string(device());
        return cc;
      }
    cc.program = pack::compile_runs(lc.runs);
    const auto& p = cc.program;
    for (auto [b, hi] : {std::pair{lc.from, p.src_hi}, std::pair{lc.to, p.dst_hi}})
      if (static_cast<size_t>(hi) * eb_ > buf(b).size() && cc.error.empty())
        cc.error = "the plan touches " + to_string(b) + " up to element " + std::to_string(hi) + " of device " + std::to_string(device()) + ", which holds " +
                   std::to_string(buf(b).size() / eb_);
    if (p.elements > 0) cc.footprint = {{{lc.from, p.src_lo, p.src_hi}}, {{lc.to, p.dst_lo, p.dst_hi}}, false};
    return cc;
  }

  // The communicator of this device for the step's groups (cached by the group list): color = the
  // group's index, key = the position in it, so the communicator's rank i is groups[g][i].
  MPI_Comm comm_of(const Collective& c, size_t index) {
    auto it = comms_.find(c.groups);
    if (it != comms_.end()) return it->second;
    int color = MPI_UNDEFINED, key = 0;
    for (size_t g = 0; g < c.groups.size(); ++g)
      for (size_t i = 0; i < c.groups[g].size(); ++i)
        if (c.groups[g][i] == device()) color = static_cast<int>(g), key = static_cast<int>(i);
    MPI_Comm comm = MPI_COMM_NULL;
    check(MPI_Comm_split(w_.comm(), color, key, &comm), "MPI_Comm_split", index);
    if (comm != MPI_COMM_NULL) MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return comms_[c.groups] = comm;
  }

  void check(int rc, const char* call, size_t index) {
    if (rc != MPI_SUCCESS) w_.check(rc, call, describe_step(*plan_, index));
  }

  // One test of every posted step; a step whose requests completed runs its `then` (which may
  // post its next round). Every wait advances every step, so a step's later round never waits
  // for this rank to wait on that step first (ranks wait in different orders).
  int progress() {
    for (Posted& p : posted_) {
      if (p.done) continue;
      int flag = 0;
      const int rc = MPI_Testall(static_cast<int>(p.requests.size()), p.requests.data(), &flag, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
      if (!flag) continue;
      p.requests.clear();
      if (!p.then) {
        p.done = true;
        continue;
      }
      auto then = std::move(p.then);
      p.then = nullptr;
      then(p);
    }
    return MPI_SUCCESS;
  }
  // Waits for posted step i (in posting order) and forgets every completed one.
  void complete(size_t i) {
    const size_t step = posted_[i].step;
    w_.wait_until(
        [&](int& rc) {
          rc = progress();
          return posted_[i].done;
        },
        *plan_, step);
    std::erase_if(posted_, [](const Posted& p) { return p.done; });
  }
  // Before a step touches its ranges: the posted steps it depends on are complete.
  void wait_for(const Footprint& f) {
    for (size_t i = 0; i < posted_.size();)
      if (depends(f, posted_[i].footprint)) complete(i), i = 0;
      else ++i;
  }
  void post(Posted p) {
    if (!p.requests.empty() || p.then) posted_.push_back(std::move(p));
  }
  void isend(Posted& p, const void* data, int64_t count, int peer, int tag, MPI_Comm comm) {
    p.requests.emplace_back();
    check(MPI_Isend(data, as_int(count, "a send"), type_, peer, tag, comm, &p.requests.back()), "MPI_Isend", p.step);
  }
  void irecv(Posted& p, void* data, int64_t count, int peer, int tag, MPI_Comm comm) {
    p.requests.emplace_back();
    check(MPI_Irecv(data, as_int(count, "a receive"), type_, peer, tag, comm, &p.requests.back()), "MPI_Irecv", p.step);
  }
  void count_ring(const Collective& c, int n, int pos) {
    const DeviceBytes b = ring_elements(c.kind, c.count, n, pos);
    moved_.sent += b.sent, moved_.received += b.received;
  }
  char op(const Collective& c, size_t index) const {
    if (c.reduction == "sum") return 's';
    if (c.reduction == "max") return 'M';
    if (c.reduction == "min") return 'm';
    fail(rule::kPartialReduction, describe_step(*plan_, index) + ": reduction '" + c.reduction + "' is not sum, max or min");
  }

  void all_gather(const Collective& c, MPI_Comm comm, int n, int pos, size_t index);
  void reduce_scatter(const Collective& c, MPI_Comm comm, int n, int pos, size_t index);
  void all_reduce(const Collective& c, MPI_Comm comm, int n, int pos, size_t index);
  void all_to_all(const Collective& c, MPI_Comm comm, size_t index);
  void send_recv(const Collective& c, size_t index);

  World& w_;
  Dtype t_;
  MPI_Datatype type_;
  size_t eb_;
  std::vector<unsigned char> bufs_[std::size(kBuffers)];
  std::map<std::vector<std::vector<int64_t>>, MPI_Comm> comms_;
  const Plan* plan_ = nullptr;
  std::vector<CompiledCopy> copies_;  // by step: this device's LocalCopy steps
  std::vector<MPI_Comm> step_comm_;   // by step: this device's communicator (MPI_COMM_NULL: none)
  std::vector<Posted> posted_;        // steps in flight, in posting order
  DeviceBytes moved_;                 // elements, priced by the byte model from each call's arguments
};

// ncclAllGather: rank pos's block goes to every other rank of the group, whose blocks land at
// recv + q*count; its own block is copied in. A send range inside another rank's block of recv
// (anything but NCCL's in-place form, send == recv + pos*count) is read from a scratch copy.
void MpiExecutor::all_gather(const Collective& c, MPI_Comm comm, int n, int pos, size_t index) {
  const int64_t me = device(), count = c.count;
  const Place sp = c.send.at(me), rp = c.recv.at(me);
  unsigned char* recv = at(rp, n * count);
  const unsigned char* send = at(sp, count);
  Posted p{index, {}, {}, {{{sp.buffer, sp.offset, sp.offset + count}}, {{rp.buffer, rp.offset, rp.offset + n * count}}, false}, {}};
  wait_for(p.footprint);
  const size_t block = static_cast<size_t>(count) * eb_;
  const bool in_place = sp.buffer == rp.buffer && sp.offset == rp.offset + pos * count;
  const bool overlapping = sp.buffer == rp.buffer && sp.offset < rp.offset + n * count && rp.offset < sp.offset + count;
  if (overlapping && !in_place) p.scratch.assign(send, send + block), send = p.scratch.data();
  if (!in_place) std::memmove(recv + static_cast<size_t>(pos) * block, send, block);
  for (int q = 0; q < n; ++q)
    if (q != pos) irecv(p, recv + static_cast<size_t>(q) * block, count, q, tag_of(index, 0), comm);
  for (int q = 0; q < n; ++q)
    if (q != pos) isend(p, send, count, q, tag_of(index, 0), comm);
  count_ring(c, n, pos);
  post(std::move(p));
}

// ncclReduceScatter: block q of send goes to rank q; when rank pos holds every rank's block pos
// (its own copied into the scratch), recv = their reduction in rank order.
void MpiExecutor::reduce_scatter(const Collective& c, MPI_Comm comm, int n, int pos, size_t index) {
  const int64_t me = device(), count = c.count;
  const Place sp = c.send.at(me), rp = c.recv.at(me);
  unsigned char* recv = at(rp, count);
  const unsigned char* send = at(sp, n * count);
  Posted p{index, {}, {}, {{{sp.buffer, sp.offset, sp.offset + n * count}}, {{rp.buffer, rp.offset, rp.offset + count}}, false}, {}};
  wait_for(p.footprint);
  const size_t block = static_cast<size_t>(count) * eb_;
  p.scratch.resize(static_cast<size_t>(n) * block);
  std::memcpy(p.scratch.data() + static_cast<size_t>(pos) * block, send + static_cast<size_t>(pos) * block, block);
  for (int q = 0; q < n; ++q)
    if (q != pos) irecv(p, p.scratch.data() + static_cast<size_t>(q) * block, count, q, tag_of(index, 0), comm);
  for (int q = 0; q < n; ++q)
    if (q != pos) isend(p, send + static_cast<size_t>(q) * block, count, q, tag_of(index, 0), comm);
  const char o = op(c, index);
  p.then = [this, recv, block, n, count, o](Posted& self) {
    std::memcpy(recv, self.scratch.data(), block);
    for (int q = 1; q < n; ++q) reduce_into(t_, recv, self.scratch.data() + static_cast<size_t>(q) * block, count, o);
  };
  count_ring(c, n, pos);
  post(std::move(p));
}

// ncclAllReduce over the ring's chunks c_0..c_(n-1) (c_i = N/n, the first N mod n one more, at
// offsets o_i): round 0 sends chunk q to rank q and gathers every rank's chunk pos in the
// scratch; then recv's chunk pos = their reduction in rank order, and round 1 sends it to every
// rank and receives the others' reduced chunks. Send is read in round 0 only and recv written
// after it, so any overlap of the two (the in-place form included) is safe.
void MpiExecutor::all_reduce(const Collective& c, MPI_Comm comm, int n, int pos, size_t index) {
  const int64_t me = device(), total = c.count;
  const Place sp = c.send.at(me), rp = c.recv.at(me);
  unsigned char* recv = at(rp, total);
  const unsigned char* send = at(sp, total);
  Posted p{index, {}, {}, {{{sp.buffer, sp.offset, sp.offset + total}}, {{rp.buffer, rp.offset, rp.offset + total}}, false}, {}};
  wait_for(p.footprint);
  std::vector<int64_t> len(static_cast<size_t>(n)), off(static_cast<size_t>(n) + 1, 0);
  for (size_t q = 0; q < len.size(); ++q) len[q] = total / n + (static_cast<int64_t>(q) < total % n ? 1 : 0), off[q + 1] = off[q] + len[q];
  const auto mine = static_cast<size_t>(pos);
  const size_t chunk = static_cast<size_t>(len[mine]) * eb_;
  p.scratch.resize(static_cast<size_t>(n) * chunk);
  std::memcpy(p.scratch.data() + mine * chunk, send + static_cast<size_t>(off[mine]) * eb_, chunk);
  for (int q = 0; q < n; ++q)
    if (q != pos) irecv(p, p.scratch.data() + static_cast<size_t>(q) * chunk, len[mine], q, tag_of(index, 0), comm);
  for (int q = 0; q < n; ++q)
    if (q != pos) isend(p, send + static_cast<size_t>(off[static_cast<size_t>(q)]) * eb_, len[static_cast<size_t>(q)], q, tag_of(index, 0), comm);
  const char o = op(c, index);
  p.then = [this, recv, chunk, len, off, n, pos, o, comm](Posted& self) {
    unsigned char* acc = recv + static_cast<size_t>(off[static_cast<size_t>(pos)]) * eb_;
    std::memcpy(acc, self.scratch.data(), chunk);
    for (int q = 1; q < n; ++q) reduce_into(t_, acc, self.scratch.data() + static_cast<size_t>(q) * chunk, len[static_cast<size_t>(pos)], o);
    for (int q = 0; q < n; ++q)
      if (q != pos) irecv(self, recv + static_cast<size_t>(off[static_cast<size_t>(q)]) * eb_, len[static_cast<size_t>(q)], q, tag_of(self.step, 1), comm);
    for (int q = 0; q < n; ++q)
      if (q != pos) isend(self, acc, len[static_cast<size_t>(pos)], q, tag_of(self.step, 1), comm);
  };
  count_ring(c, n, pos);
  post(std::move(p));
}

// The all-to-all inside the group: the plan has at most one transfer per (from, to) pair, the
// block at send_offset of `from` landing at recv_offset of `to`; peers are group positions.
void MpiExecutor::all_to_all(const Collective& c, MPI_Comm comm, size_t index) {
  const auto& group = *std::find_if(c.groups.begin(), c.groups.end(), [&](const auto& g) { return std::find(g.begin(), g.end(), device()) != g.end(); });
  auto position = [&](int64_t d) {
    auto it = std::find(group.begin(), group.end(), d);
    if (it == group.end()) fail(rule::kInternal, describe_step(*plan_, index) + ": a transfer leaves the group of device " + std::to_string(device()));
    return static_cast<int>(it - group.begin());
  };
  Posted p{index, {}, {}, {}, {}};
  for (const Transfer& t : c.transfers) {
    if (t.from_device == device()) p.footprint.reads.push_back({Buffer::Send, t.send_offset, t.send_offset + t.count});
    if (t.to_device == device()) p.footprint.writes.push_back({Buffer::Recv, t.recv_offset, t.recv_offset + t.count});
  }
  wait_for(p.footprint);
  for (const Transfer& t : c.transfers) {
    if (t.from_device == device() && t.to_device == device()) {
      std::memmove(at({Buffer::Recv, t.recv_offset}, t.count), at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count) * eb_);
    } else if (t.to_device == device()) {
      irecv(p, at({Buffer::Recv, t.recv_offset}, t.count), t.count, position(t.from_device), tag_of(index, 0), comm);
      moved_.received += t.count;
    }
  }
  for (const Transfer& t : c.transfers)
    if (t.from_device == device() && t.to_device != device()) {
      isend(p, at({Buffer::Send, t.send_offset}, t.count), t.count, position(t.to_device), tag_of(index, 0), comm);
      moved_.sent += t.count;
    }
  post(std::move(p));
}

// Grouped send / recv on the world: transfer i of the step is tag 1 + i (both sides number
// them alike; a step's messages are all complete before the next such step posts any).
void MpiExecutor::send_recv(const Collective& c, size_t index) {
  Posted p{index, {}, {}, {{}, {}, true}, {}};
  for (const Transfer& t : c.transfers) {
    if (t.from_device == device()) p.footprint.reads.push_back({Buffer::Send, t.send_offset, t.send_offset + t.count});
    if (t.to_device == device()) p.footprint.writes.push_back({Buffer::Recv, t.recv_offset, t.recv_offset + t.count});
  }
  if (p.footprint.reads.empty() && p.footprint.writes.empty()) return;
  wait_for(p.footprint);
  for (size_t i = 0; i < c.transfers.size(); ++i) {
    const Transfer& t = c.transfers[i];
    const int tag = 1 + static_cast<int>(i % 30000);
    if (t.from_device == device() && t.to_device == device()) {
      std::memmove(at({Buffer::Recv, t.recv_offset}, t.count), at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count) * eb_);
    } else if (t.from_device == device()) {
      isend(p, at({Buffer::Send, t.send_offset}, t.count), t.count, static_cast<int>(t.to_device), tag, w_.comm());
      moved_.sent += t.count;
    } else if (t.to_device == device()) {
      irecv(p, at({Buffer::Recv, t.recv_offset}, t.count), t.count, static_cast<int>(t.from_device), tag, w_.comm());
      moved_.received += t.count;
    }
  }
  post(std::move(p));
}

}  // namespace

std::unique_ptr<Executor> make_mpi_executor(World& world, const Dtype& dtype) { return std::make_unique<MpiExecutor>(world, dtype); }

}  // namespace tfspec::multigpu::mpi
