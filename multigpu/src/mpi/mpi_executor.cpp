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
// (spec/MULTIGPU.md "Executing a plan on MPI"). ExecutorOptions switch issue 47's variants on
// (spec/MULTIGPU.md "Executor variants"): receives posted before the packs (plan_early), blocks
// reduced as they arrive (arrive), derived datatypes out of SRC / into DST (plan_types, by
// default), a staggered posting order (peers, in_order).
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <string_view>
#include <thread>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include <sys/statvfs.h>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/pack/pack.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

// Byte displacements added as integers. OpenMPI's MPI_Aint_add casts its base to char* and adds
// to it, undefined behaviour where the base is 0 (a relative displacement; UBSan reports it).
inline MPI_Aint aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }

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
// With reduce_on_arrival, `block_of` names the block each request receives (-1: a send) and
// `on_block` runs as each arrives (MPI_Testsome), `arrived` / `reduced` its rank-order state.
// `receives_posted`: the receives went out early (receives_first) and the step posts the rest.
struct Posted {
  size_t step = 0;
  std::vector<MPI_Request> requests;
  std::vector<unsigned char> scratch;
  Footprint footprint;
  std::function<void(Posted&)> then;
  bool done = false;
  bool receives_posted = false;
  std::vector<int> block_of;
  std::function<void(Posted&, int)> on_block;
  std::vector<char> arrived;
  int reduced = 0;
  size_t completed = 0;  // requests MPI_Testsome reported complete (persistent ones stay non-null)
};

// A block of a collective sent out of SRC or received into DST through a derived datatype
// (ExecutorOptions::datatypes): the type over the buffer's base and the element range it spans.
struct Typed {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  Buffer buffer;
  int64_t lo = 0, hi = 0;
};

// This device's part of a collective step, from load(): element ranges of its buffers that it
// sends to / receives from peers and that it reads / writes itself (own block, self-transfers).
struct StepIo {
  bool active = false;
  int n = 0, pos = 0;
  Buffer send_buffer = Buffer::Send, recv_buffer = Buffer::Recv;
  std::vector<std::pair<int64_t, int64_t>> peer_sends, local_reads, peer_recvs, local_writes;
};

// The runs' pieces whose `from` (by_from) or `to` element lies in [a, b), in the order of that element.
std::vector<Run> clip_runs(const std::vector<Run>& runs, bool by_from, int64_t a, int64_t b) {
  std::vector<Run> out;
  for (const Run& r : runs) {
    const int64_t s = by_from ? r.from : r.to, lo = std::max(s, a), hi = std::min(s + r.len, b);
    if (lo < hi) out.push_back({r.from + (lo - s), r.to + (lo - s), hi - lo});
  }
  std::sort(out.begin(), out.end(), [&](const Run& x, const Run& y) { return by_from ? x.from < y.from : x.to < y.to; });
  return out;
}
// The runs less every piece whose `from` / `to` element lies in one of the (disjoint) ranges.
std::vector<Run> cut_runs(const std::vector<Run>& runs, bool by_from, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  std::vector<Run> out;
  for (const Run& r : runs) {
    std::vector<Run> left{r};
    for (auto [a, b] : ranges) {
      std::vector<Run> next;
      for (const Run& x : left) {
        const int64_t s = by_from ? x.from : x.to, e = s + x.len;
        if (b <= s || e <= a) {
          next.push_back(x);
          continue;
        }
        if (s < a) next.push_back({x.from, x.to, a - s});
        if (b < e) next.push_back({x.from + (b - s), x.to + (b - s), e - b});
      }
      left = std::move(next);
    }
    out.insert(out.end(), left.begin(), left.end());
  }
  return out;
}

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

// One-round execution (ExecutorOptions::one_round): a message of the one exchange, and a block of
// reductions in the scratch (op, leaves m, elements, base).
struct Message {
  int peer;
  int64_t count;
  MPI_Datatype type;   // over SRC's base (a send) or absolute addresses (a receive)
  unsigned char* ptr;  // where the elements are one run: sent / received there as `count` elements
  int64_t packed;      // ExecutorOptions::pack: the message's first element in sendbuf / recvbuf (-1: not packed)
  pack::CopyProgram program[2];  // pack: SRC -> sendbuf; or recvbuf -> DST and recvbuf -> scratch
};
// ExecutorOptions::shm: what this rank reads from one peer's SRC, into DST and into the scratch.
struct ShmRead {
  int segment;  // the peer's segment of the window: its rank on this node
  pack::CopyProgram to_dst, to_scratch;
};
struct Group {
  char op;
  int64_t m, count, base;
  int64_t dst;  // row 0's first DST element where row 0 is DST itself, else -1
};

class MpiExecutor final : public Executor {
 public:
  MpiExecutor(World& w, const Dtype& t, const ExecutorOptions& o) : w_(w), t_(t), type_(mpi_type(t)), eb_(static_cast<size_t>(t.bytes)), opts_(o) {}
  ~MpiExecutor() override {
    free_types();
    for (auto& [groups, comm] : comms_)
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  }

  std::string name() const override { return opts_ == ExecutorOptions{} ? "MPI" : "MPI (" + to_string(opts_) + ")"; }
  int64_t device() const override { return w_.rank(); }
  DeviceBytes moved() const override { return {moved_.sent * t_.bytes, moved_.received * t_.bytes}; }
  std::optional<DeviceBytes> own_bytes() const override {
    if (!fused_.active || fused_.bytes == fused_.planned) return std::nullopt;
    return fused_.bytes;
  }
  std::vector<unsigned char> dst() override {
    finish();
    return buf(Buffer::Dst);
  }
  void finish() override {
    for (auto& [step, p] : early_) posted_.push_back(std::move(p));  // receives of a step never run: waited for like the rest
    early_.clear();
    while (!posted_.empty()) complete(0);
  }

  void load(const Plan& plan, const std::vector<unsigned char>& src) override {
    finish();
    const int64_t me = device();
    check_src_size(plan, src.size());
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
    free_types();
    io_.assign(plan.steps.size(), {});
    early_at_.assign(plan.steps.size(), SIZE_MAX);
    for (size_t i = 0; i < plan.steps.size(); ++i)
      if (const auto* c = std::get_if<Collective>(&plan.steps[i])) io_[i] = step_io(*c, i);
    if (opts_.datatypes) plan_types(plan);
    if (opts_.receives_first) plan_early(plan);
    plan_fused(plan);
  }

  // A SRC of the wrong size is an error on every rank alike: one rank failing alone would leave
  // the others in load()'s blocking collectives (the communicators' splits, the window) for
  // good. The ranks agree first (one MPI_Iallreduce, through the world's deadline).
  void check_src_size(const Plan& plan, size_t bytes) {
    const int64_t me = device();
    const size_t want = static_cast<size_t>(plan.size_of(Buffer::Src, me)) * eb_;
    int wrong = bytes != want ? 1 : 0, any = 0;
    std::vector<MPI_Request> req(1);
    check(MPI_Iallreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, w_.comm(), &req[0]), "MPI_Iallreduce", 0);
    w_.wait(req, "the SRC size check of load()");
    if (wrong)
      fail(rule::kEngineBufferSize, "device " + std::to_string(me) + " brings " + std::to_string(bytes) + " SRC bytes; the plan needs " + std::to_string(want));
    if (any) fail(rule::kEngineBufferSize, "device " + std::to_string(me) + ": another device brings SRC bytes other than the plan needs (it reports which)");
  }

  void run(const Plan& plan, size_t index) override {
    if (&plan != plan_) fail(rule::kInternal, "the MPI executor runs the plan it loaded; load() this one first");
    if (fused_.active) {
      if (index == 0 && fused_.shm.win != MPI_WIN_NULL) post_shm();
      else if (index == 0) post_fused();
      return;
    }
    if (const auto* lc = std::get_if<LocalCopy>(&plan.steps[index])) {
      if (lc->device != device()) return;
      if (early_at_[index] != SIZE_MAX) post_collective(plan, early_at_[index], true);
      const CompiledCopy& cc = copies_[index];
      if (!cc.error.empty()) fail(rule::kInternal, cc.error);
      wait_for(cc.footprint);
      if (lc->from == lc->to) pack::run_overlapping(cc.program, eb_, buf(lc->from).data(), buf(lc->to).data());
      else pack::run(cc.program, eb_, buf(lc->from).data(), buf(lc->to).data());
      return;
    }
    post_collective(plan, index, false);
  }

 private:
  std::vector<unsigned char>& buf(Buffer b) { return bufs_[static_cast<size_t>(b)]; }

  // The collective of step `index` on this device; `early`: its receives only (receives_first).
  void post_collective(const Plan& plan, size_t index, bool early) {
    const auto& c = std::get<Collective>(plan.steps[index]);
    if (c.kind == CollectiveKind::SendRecv) return send_recv(c, index, early);
    MPI_Comm comm = step_comm_[index];
    if (comm == MPI_COMM_NULL) return;  // this device is in none of the step's groups
    const int n = io_[index].n, pos = io_[index].pos;
    switch (c.kind) {
      case CollectiveKind::AllGather: return all_gather(c, comm, n, pos, index, early);
      case CollectiveKind::ReduceScatter: return reduce_scatter(c, comm, n, pos, index, early);
      case CollectiveKind::AllReduce: return all_reduce(c, comm, n, pos, index, early);
      default: return all_to_all(c, comm, index, early);
    }
  }

  // A step's Posted: the one its early receives left (those receives are posted), else a new
  // one; the steps it depends on are complete first (`early`: those its receives depend on).
  Posted begin(size_t index, Footprint f, bool early) {
    for (auto [b, lo, hi] : typed_writes(index)) f.writes.push_back({b, lo, hi});
    if (early) {
      wait_for({{}, f.writes, f.world_p2p});
      return fresh(index, f);
    }
    wait_for(f);
    auto it = early_.find(index);
    if (it == early_.end()) return fresh(index, f);
    Posted p = std::move(it->second);
    early_.erase(it);
    p.footprint = f;
    return p;
  }
  static Posted fresh(size_t index, const Footprint& f) {
    Posted p;
    p.step = index, p.footprint = f;
    return p;
  }
  void stash(Posted p) {
    p.receives_posted = true;
    const size_t step = p.step;
    early_.emplace(step, std::move(p));
  }
  // The DST ranges a step's typed receives write.
  std::vector<Range> typed_writes(size_t index) const {
    std::vector<Range> out;
    for (const auto& [key, t] : recv_types_)
      if (key.first == index) out.push_back({t.buffer, t.lo, t.hi});
    return out;
  }

  // This device's ranges of a collective step (StepIo).
  StepIo step_io(const Collective& c, size_t index) {
    StepIo io;
    const int64_t me = device();
    if (c.kind == CollectiveKind::SendRecv || c.kind == CollectiveKind::AllToAll) {
      if (c.kind == CollectiveKind::AllToAll && step_comm_[index] == MPI_COMM_NULL) return io;
      for (const Transfer& t : c.transfers) {
        const bool from = t.from_device == me, to = t.to_device == me;
        if (from && to) io.local_reads.push_back({t.send_offset, t.send_offset + t.count}), io.local_writes.push_back({t.recv_offset, t.recv_offset + t.count});
        else if (from) io.peer_sends.push_back({t.send_offset, t.send_offset + t.count});
        else if (to) io.peer_recvs.push_back({t.recv_offset, t.recv_offset + t.count});
        io.active = io.active || from || to;
      }
      return io;
    }
    MPI_Comm comm = step_comm_[index];
    if (comm == MPI_COMM_NULL) return io;
    io.active = true;
    MPI_Comm_size(comm, &io.n);
    MPI_Comm_rank(comm, &io.pos);
    const Place sp = c.send.at(me), rp = c.recv.at(me);
    io.send_buffer = sp.buffer, io.recv_buffer = rp.buffer;
    const int64_t n = io.n, pos = io.pos, count = c.count;
    if (c.kind == CollectiveKind::AllGather) {
      io.peer_sends.push_back({sp.offset, sp.offset + count}), io.local_reads.push_back({sp.offset, sp.offset + count});
      for (int64_t q = 0; q < n; ++q)
        (q == pos ? io.local_writes : io.peer_recvs).push_back({rp.offset + q * count, rp.offset + (q + 1) * count});
    } else if (c.kind == CollectiveKind::ReduceScatter) {
      for (int64_t q = 0; q < n; ++q) (q == pos ? io.local_reads : io.peer_sends).push_back({sp.offset + q * count, sp.offset + (q + 1) * count});
      io.local_writes.push_back({rp.offset, rp.offset + count});
    } else {  // AllReduce: round 0 sends chunk q to rank q; round 1 receives chunk q from rank q
      int64_t off = 0;
      for (int64_t q = 0; q < n; ++q) {
        const int64_t len = count / n + (q < count % n ? 1 : 0);
        (q == pos ? io.local_reads : io.peer_sends).push_back({sp.offset + off, sp.offset + off + len});
        (q == pos ? io.local_writes : io.peer_recvs).push_back({rp.offset + off, rp.offset + off + len});
        off += len;
      }
    }
    return io;
  }

  void free_types() {
    for (auto* m : {&send_types_, &recv_types_})
      for (auto& [key, t] : *m) MPI_Type_free(&t.type);
    send_types_.clear(), recv_types_.clear();
    for (auto* v : {&fused_.sends, &fused_.recvs})
      for (auto& x : *v) MPI_Type_free(&x.type);
    for (MPI_Request& r : fused_.persistent) MPI_Request_free(&r);
    if (fused_.shm.win != MPI_WIN_NULL) MPI_Win_free(&fused_.shm.win);  // collective: every rank loads (or ends) together
    fused_ = {};
  }

  // ExecutorOptions::one_round / one_round_always: the plan composed (compose_one_round) into this
  // rank's part of one exchange (Fused), when it applies; else the steps run as they are.
  void plan_fused(const Plan& plan) {
    if (plan.steps.empty() || !(opts_.one_round_always || opts_.one_round)) return;
    if (!opts_.one_round_always && !plan.one_round && !opts_.shm) return;
    const OneRound r = compose_one_round(plan);
    if (!r.refused.empty()) return;
    // Collective: every rank composes the same plan alike. Where the world is one node, whether its
    // window fits is the world's answer too, so a window that does not fit leaves the steps where
    // the plan chose them (not the message exchange the factor-2 rule never measured).
    const bool one = opts_.shm && one_node(), room = one && window_fits();
    if (!opts_.one_round_always && !plan.one_round && !(room && reads_at_most(r, plan, kShmReadFactor))) return;
    const int64_t me = device();
    fused_.active = true;
    fused_.bytes = r.bytes.count(me) ? r.bytes.at(me) : DeviceBytes{};
    fused_.planned = plan.bytes.count(me) ? plan.bytes.at(me) : DeviceBytes{};
    std::map<int64_t, std::vector<int64_t>> to;  // peer -> the SRC elements it gets, in order
    std::map<int64_t, std::vector<std::pair<bool, int64_t>>> from;  // peer -> where its elements land (in DST?, element)
    std::map<int64_t, std::vector<int64_t>> src_at;                  // peer -> those elements' offsets in its SRC
    for (const auto& [d, cd] : r.dst)
      if (d != me)
        for (const Leaf& l : cd.leaves)
          if (l.device == me) to[d].push_back(l.offset);
    if (r.dst.count(me)) receive_plan(r.dst.at(me), from, src_at);
    if (opts_.shm && node_size_ > 1 && (one ? room : window_fits()))
      plan_shm(on_this_node(to), on_this_node(from), on_this_node(src_at));  // what is left: the peers on other nodes
    int64_t packed = 0;
    for (auto& [d, at] : to) fused_.sends.push_back(send_message(static_cast<int>(d), at, packed));
    fused_.sendbuf.assign(static_cast<size_t>(packed) * eb_, 0), packed = 0;
    for (auto& [s, at] : from) fused_.recvs.push_back(recv_message(static_cast<int>(s), at, packed));
    for (auto& group : fused_.rows)  // ExecutorOptions::arrival: a row's peers as their messages' indices in recvs
      for (auto& row : group)
        for (int& peer : row) peer = static_cast<int>(std::find_if(fused_.recvs.begin(), fused_.recvs.end(), [&](const Message& x) { return x.peer == peer; }) - fused_.recvs.begin());
    fused_.recvbuf.assign(static_cast<size_t>(packed) * eb_, 0);
    if (opts_.persistent && !opts_.alltoallw) make_persistent();
    // ExecutorOptions::alltoallw: the same messages as one MPI_Ialltoallw (one count of one type per peer).
    auto& w = fused_.w;
    for (int side = 0; side < 2; ++side) w.counts[side].assign(static_cast<size_t>(w_.size()), 0), w.types[side].assign(static_cast<size_t>(w_.size()), MPI_BYTE);
    w.displs.assign(static_cast<size_t>(w_.size()), 0);
    for (const auto& x : fused_.sends) w.counts[0][static_cast<size_t>(x.peer)] = 1, w.types[0][static_cast<size_t>(x.peer)] = x.type;
    for (const auto& x : fused_.recvs) w.counts[1][static_cast<size_t>(x.peer)] = 1, w.types[1][static_cast<size_t>(x.peer)] = x.type;
  }
  // ExecutorOptions::shm with one-round: whether no device receives more than `factor` times
  // what the plan's steps move to it in the one exchange (the plan chose one round for messages,
  // where a round costs a handshake per message; through shared memory it costs a flag).
  static bool reads_at_most(const OneRound& r, const Plan& plan, int64_t factor) {
    for (int64_t d : plan.devices) {
      const int64_t one = r.bytes.count(d) ? r.bytes.at(d).received : 0, staged = plan.bytes.count(d) ? plan.bytes.at(d).received : 0;
      if (one > factor * staged) return false;
    }
    return true;
  }
  // This rank's DST elements: one leaf here -> a local copy SRC -> DST; one leaf elsewhere -> its
  // sender's message lands in DST; several (a reduction) -> the elements with as many leaves form
  // a group, leaf k of its element i in row k (row 0 reduced with rows 1, 2, ... in order). Where
  // the group's elements are consecutive in DST, row 0 is DST itself (reduced in place), else every
  // row is in a scratch and row 0 is copied to DST after the reduction.
  void receive_plan(const ComposedDst& cd, std::map<int64_t, std::vector<std::pair<bool, int64_t>>>& from, std::map<int64_t, std::vector<int64_t>>& src_at) {
    const int64_t me = device(), n = static_cast<int64_t>(cd.op.size());
    auto leaves = [&](int64_t j) { return cd.start[static_cast<size_t>(j) + 1] - cd.start[static_cast<size_t>(j)]; };
    std::map<std::pair<char, int64_t>, size_t> index;  // (op, leaves) -> group
    std::vector<std::vector<int64_t>> targets;           // by group: its elements' DST offsets
    std::vector<int64_t> slot(static_cast<size_t>(n), -1);
    std::vector<size_t> group_of(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      if (leaves(j) < 2) continue;
      auto [it, fresh] = index.try_emplace({cd.op[static_cast<size_t>(j)], leaves(j)}, fused_.groups.size());
      if (fresh) fused_.groups.push_back({cd.op[static_cast<size_t>(j)], leaves(j), 0, 0, -1}), targets.emplace_back();
      group_of[static_cast<size_t>(j)] = it->second;
      slot[static_cast<size_t>(j)] = fused_.groups[it->second].count++;
      targets[it->second].push_back(j);
    }
    int64_t base = 0;
    for (size_t g = 0; g < targets.size(); ++g) {
      auto& gr = fused_.groups[g];
      const auto& t = targets[g];
      bool direct = true;
      for (size_t i = 0; i < t.size(); ++i) direct = direct && t[i] == t[0] + static_cast<int64_t>(i);
      gr.dst = direct ? t[0] : -1;
      gr.base = base, base += (direct ? gr.m - 1 : gr.m) * gr.count;
    }
    fused_.scratch.assign(static_cast<size_t>(base) * eb_, 0);
    fused_.rows.assign(fused_.groups.size(), {});
    std::vector<Run> local_dst, local_scratch, unpack;
    auto place = [&](const Leaf& l, bool in_dst, int64_t at) {  // leaf l lands at DST / scratch element `at`
      if (l.device == me) (in_dst ? local_dst : local_scratch).push_back({l.offset, at, 1});
      else from[l.device].push_back({in_dst, at}), src_at[l.device].push_back(l.offset);
    };
    for (int64_t j = 0; j < n; ++j) {
      const int64_t a = cd.start[static_cast<size_t>(j)], m = leaves(j);
      if (m == 1) place(cd.leaves[static_cast<size_t>(a)], true, j);
      if (m < 2) continue;
      const auto& g = fused_.groups[group_of[static_cast<size_t>(j)]];
      const int64_t i = slot[static_cast<size_t>(j)];
      auto& rows = fused_.rows[group_of[static_cast<size_t>(j)]];
      rows.resize(static_cast<size_t>(m));
      for (int64_t k = 0; k < m; ++k) {
        const Leaf& l = cd.leaves[static_cast<size_t>(a + k)];
        if (l.device != me && std::find(rows[static_cast<size_t>(k)].begin(), rows[static_cast<size_t>(k)].end(), l.device) == rows[static_cast<size_t>(k)].end())
          rows[static_cast<size_t>(k)].push_back(static_cast<int>(l.device));
        if (g.dst >= 0) place(l, k == 0, k == 0 ? j : g.base + (k - 1) * g.count + i);
        else place(l, false, g.base + k * g.count + i);
      }
      if (g.dst < 0) unpack.push_back({g.base + i, j, 1});
    }
    fused_.src_to_dst = pack::compile_runs(merged(local_dst));
    fused_.src_to_scratch = pack::compile_runs(merged(local_scratch));
    fused_.scratch_to_dst = pack::compile_runs(merged(unpack));
  }
  static std::vector<Run> merged(const std::vector<Run>& runs) {
    std::vector<Run> out;
    for (const Run& r : runs)
      if (!out.empty() && out.back().from + out.back().len == r.from && out.back().to + out.back().len == r.to) out.back().len += r.len;
      else out.push_back(r);
    return out;
  }
  // A message to `peer` of the SRC elements `at`: one run -> straight from SRC; several -> a
  // derived datatype over SRC, or (ExecutorOptions::pack) packed into sendbuf at `packed` first.
  Message send_message(int peer, const std::vector<int64_t>& at, int64_t& packed) {
    std::vector<MPI_Aint> disps;
    for (int64_t o : at) disps.push_back(static_cast<MPI_Aint>(o * t_.bytes));
    Message m{peer, static_cast<int64_t>(at.size()), typed_runs(disps), nullptr, -1, {}};
    if (runs_of(disps) == 1) m.ptr = buf(Buffer::Src).data() + disps[0];
    if (m.ptr || !opts_.pack) return m;
    std::vector<Run> runs;
    for (size_t i = 0; i < at.size(); ++i) runs.push_back({at[i], packed + static_cast<int64_t>(i), 1});
    m.program[0] = pack::compile_runs(merged(runs));
    m.packed = packed, packed += m.count;
    return m;
  }
  // A message from `peer` landing at DST / scratch elements: one run -> straight there; several ->
  // a derived datatype over their addresses, or (pack) into recvbuf at `packed`, unpacked after.
  Message recv_message(int peer, const std::vector<std::pair<bool, int64_t>>& at, int64_t& packed) {
    MPI_Aint dst0 = 0, scr0 = 0;
    MPI_Get_address(buf(Buffer::Dst).data(), &dst0);
    MPI_Get_address(fused_.scratch.data(), &scr0);
    std::vector<MPI_Aint> addrs;
    for (auto [in_dst, e] : at) addrs.push_back(aint_add(in_dst ? dst0 : scr0, static_cast<MPI_Aint>(e * t_.bytes)));
    Message m{peer, static_cast<int64_t>(at.size()), typed_runs(addrs), nullptr, -1, {}};
    if (runs_of(addrs) == 1) m.ptr = (at[0].first ? buf(Buffer::Dst).data() : fused_.scratch.data()) + static_cast<size_t>(at[0].second) * eb_;
    if (m.ptr || !opts_.pack) return m;
    std::vector<int64_t> from(at.size());
    std::iota(from.begin(), from.end(), packed);
    std::tie(m.program[0], m.program[1]) = landing(from, at);
    m.packed = packed, packed += m.count;
    return m;
  }
  // Copy programs for elements at `from` (a recvbuf's or a peer SRC's offsets) landing at `at`
  // (in DST?, element): one into DST, one into the scratch.
  static std::pair<pack::CopyProgram, pack::CopyProgram> landing(const std::vector<int64_t>& from, const std::vector<std::pair<bool, int64_t>>& at) {
    std::vector<Run> runs[2];
    for (size_t i = 0; i < at.size(); ++i) runs[at[i].first ? 0 : 1].push_back({from[i], at[i].second, 1});
    return {pack::compile_runs(merged(runs[0])), pack::compile_runs(merged(runs[1]))};
  }
  size_t runs_of(const std::vector<MPI_Aint>& disps) const {
    size_t n = 0;
    for (size_t i = 0; i < disps.size(); ++i) n += i == 0 || aint_add(disps[i - 1], static_cast<MPI_Aint>(t_.bytes)) != disps[i];
    return n;
  }
  // One committed type over elements at the given byte displacements (consecutive ones merged).
  MPI_Datatype typed_runs(const std::vector<MPI_Aint>& disps) {
    std::vector<int> lens;
    std::vector<MPI_Aint> starts;
    for (MPI_Aint d : disps)
      if (!starts.empty() && aint_add(starts.back(), static_cast<MPI_Aint>(lens.back()) * t_.bytes) == d) ++lens.back();
      else starts.push_back(d), lens.push_back(1);
    MPI_Datatype type = MPI_DATATYPE_NULL;
    check(MPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), starts.data(), type_, &type), "MPI_Type_create_hindexed", 0);
    check(MPI_Type_commit(&type), "MPI_Type_commit", 0);
    return type;
  }
  // ExecutorOptions::shm: whether every rank of the world is on this node. Made once: the node's
  // communicator (MPI_COMM_TYPE_SHARED; with node_ranks, split further into groups of that many
  // consecutive world ranks) and each world rank's rank in it (-1: another node). Collective over
  // the world.
  bool one_node() {
    if (node_ != MPI_COMM_NULL) return node_all_;
    MPI_Comm machine = MPI_COMM_NULL;
    check(MPI_Comm_split_type(w_.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine), "MPI_Comm_split_type", 0);
    if (opts_.node_ranks > 0) {
      check(MPI_Comm_split(machine, w_.rank() / opts_.node_ranks, w_.rank(), &node_), "MPI_Comm_split", 0);
      MPI_Comm_free(&machine);
    } else {
      node_ = machine;
    }
    MPI_Group world = MPI_GROUP_NULL, node = MPI_GROUP_NULL;
    MPI_Comm_group(w_.comm(), &world), MPI_Comm_group(node_, &node);
    std::vector<int> ranks(static_cast<size_t>(w_.size()));
    std::iota(ranks.begin(), ranks.end(), 0);
    node_rank_.assign(ranks.size(), MPI_UNDEFINED);
    check(MPI_Group_translate_ranks(world, w_.size(), ranks.data(), node, node_rank_.data()), "MPI_Group_translate_ranks", 0);
    MPI_Group_free(&world), MPI_Group_free(&node);
    for (int& q : node_rank_) q = q == MPI_UNDEFINED ? -1 : q;
    MPI_Comm_size(node_, &node_size_);
    int all = 0;
    const int here = node_size_ == w_.size();
    check(MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_MIN, w_.comm()), "MPI_Allreduce", 0);
    node_all_ = all != 0;
    return node_all_;
  }
  // ExecutorOptions::shm: the entries of `by_peer` for peers on this node, taken out of it (the
  // peers left are those on other nodes, reached by messages).
  template <class T>
  std::map<int64_t, T> on_this_node(std::map<int64_t, T>& by_peer) const {
    std::map<int64_t, T> here;
    for (auto it = by_peer.begin(); it != by_peer.end();)
      if (node_rank_[static_cast<size_t>(it->first)] >= 0) here.insert(by_peer.extract(it++));
      else ++it;
    return here;
  }
  // ExecutorOptions::shm: the window over this node's ranks (each one's segment: its two flags,
  // then a copy of its SRC), each segment as this rank sees it, and per peer on this node a copy
  // program from its SRC to this rank's DST and scratch (the same elements, in the same places,
  // as the peer's message). `to` / `from` / `src_at` hold the peers on this node only.
  void plan_shm(const std::map<int64_t, std::vector<int64_t>>& to, const std::map<int64_t, std::vector<std::pair<bool, int64_t>>>& from,
                const std::map<int64_t, std::vector<int64_t>>& src_at) {
    auto& sh = fused_.shm;
    unsigned char* mine = nullptr;
    check(MPI_Win_allocate_shared(static_cast<MPI_Aint>(segment_bytes()), 1, MPI_INFO_NULL, node_, &mine, &sh.win), "MPI_Win_allocate_shared", 0);
    std::memset(mine, 0, kShmHeader);
    std::memcpy(mine + kShmHeader, buf(Buffer::Src).data(), buf(Buffer::Src).size());
    for (int q = 0; q < node_size_; ++q) {
      MPI_Aint size = 0;
      int unit = 0;
      unsigned char* at = nullptr;
      check(MPI_Win_shared_query(sh.win, q, &size, &unit, &at), "MPI_Win_shared_query", 0);
      sh.segment.push_back(at);
    }
    for (const auto& [d, at] : to) sh.sent += static_cast<int64_t>(at.size());
    sh.readers = static_cast<uint64_t>(to.size());
    for (const auto& [s, at] : from) {
      auto [to_dst, to_scratch] = landing(src_at.at(s), at);
      sh.reads.push_back({node_rank_[static_cast<size_t>(s)], std::move(to_dst), std::move(to_scratch)});
      sh.received += static_cast<int64_t>(at.size());
    }
    check(MPI_Barrier(node_), "MPI_Barrier", 0);  // every segment's flags are zero and its SRC in place before any run reads them
  }
  // This rank's segment of the window: the flags, then SRC, rounded up to whole headers.
  size_t segment_bytes() const { return kShmHeader + (bufs_[static_cast<size_t>(Buffer::Src)].size() + kShmHeader - 1) / kShmHeader * kShmHeader; }
  // ExecutorOptions::shm: whether this node's window (every rank's segment, and kShmSlack a rank
  // for OpenMPI's own state and page rounding) fits in the file system that backs it
  // (osc_sm_backing_directory, /dev/shm by default: 64 MiB in a container started without
  // --shm-size). Where it does not, OpenMPI fails the allocation (MPI_ERR_INTERN) and the run
  // would abort, so the node's exchange runs as messages instead, with a note on stderr. The
  // node's rank 0 measures and tells the others (collective over the node).
  bool window_fits() {
    uint64_t total = 0, mine = segment_bytes() + kShmSlack;
    check(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, node_), "MPI_Allreduce", 0);
    int fits = 1, rank = 0;
    MPI_Comm_rank(node_, &rank);
    if (rank == 0) {
      const std::string dir = backing_directory();
      struct statvfs fs {};
      const bool found = statvfs(dir.c_str(), &fs) == 0;
      const uint64_t free = found ? static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize : 0;
      fits = free >= total;
      const std::string room = found ? std::to_string(free) + " B free" : std::string("statvfs: ") + std::strerror(errno);
      if (!fits && !told_)
        std::fprintf(stderr, "note: rank %d: this node's shared-memory window (%llu B for %d ranks) does not fit in %s (%s): the exchange runs as messages here (spec/MULTIGPU.md \"Executor variants\"; a container needs a larger --shm-size)\n",
                     w_.rank(), static_cast<unsigned long long>(total), node_size_, dir.c_str(), room.c_str());
      told_ = told_ || !fits;
    }
    check(MPI_Bcast(&fits, 1, MPI_INT, 0, node_), "MPI_Bcast", 0);
    return fits != 0;
  }
  // The directory OpenMPI backs shared-memory windows with: its osc_sm_backing_directory control
  // variable, read through the MPI tool interface once a process (MPI_T_init_thread opens every
  // MCA component: 0.1-1 s); /dev/shm (its default on Linux) where the variable cannot be read.
  static const std::string& backing_directory() {
    static const std::string dir = read_backing_directory();
    return dir;
  }
  static std::string read_backing_directory() {
    std::string dir = "/dev/shm";
    int provided = 0, index = -1, count = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return dir;
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    if (MPI_T_cvar_get_index("osc_sm_backing_directory", &index) == MPI_SUCCESS && MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      std::vector<char> text(static_cast<size_t>(std::max(count, 4096)) + 1, 0);
      if (MPI_T_cvar_read(handle, text.data()) == MPI_SUCCESS && text[0] != 0) dir = text.data();
      MPI_T_cvar_handle_free(&handle);
    }
    MPI_T_finalize();
    return dir;
  }
  // Flag k of rank q's segment (kShmReady: the last run whose SRC it raised; kShmDone: how many
  // reads of its SRC its peers finished, over all runs). Lock-free 64-bit atomics are address-free,
  // so processes sharing the mapping synchronize through them (release / acquire).
  static_assert(std::atomic_ref<uint64_t>::is_always_lock_free);
  std::atomic_ref<uint64_t> flag(int q, size_t k) { return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(fused_.shm.segment[static_cast<size_t>(q)] + k)); }
  // ExecutorOptions::shm, one run: the messages to and from peers on other nodes started (none
  // where the world is one node); SRC raised ready; this rank's own elements copied; each peer's
  // on this node copied straight from its SRC once its flag shows this run, and its done count
  // raised; the messages completed and unpacked; the reductions; then a wait until every peer
  // that reads this rank's SRC is done with it.
  void post_shm() {
    finish();
    if (!node_all_) {  // MPI_Ialltoallw (alltoallw) is collective over the world: every rank starts it
      Posted p = fresh(0, {});
      start_messages(p, false);
      post(std::move(p));
    }
    auto& sh = fused_.shm;
    const uint64_t run = ++sh.runs;
    const int me = node_rank_[static_cast<size_t>(w_.rank())];
    flag(me, kShmReady).store(run, std::memory_order_release);
    moved_.sent += sh.sent, moved_.received += sh.received;
    const unsigned char* src = sh.segment[static_cast<size_t>(me)] + kShmHeader;
    pack::run(fused_.src_to_dst, eb_, src, buf(Buffer::Dst).data());
    pack::run(fused_.src_to_scratch, eb_, src, fused_.scratch.data());
    std::vector<char> read(sh.reads.size(), 0);
    size_t left = sh.reads.size();
    auto read_ready = [&](int& rc) {
      for (size_t i = 0; i < sh.reads.size(); ++i) {
        const ShmRead& x = sh.reads[i];
        if (read[i] || flag(x.segment, kShmReady).load(std::memory_order_acquire) < run) continue;
        const unsigned char* from = sh.segment[static_cast<size_t>(x.segment)] + kShmHeader;
        pack::run(x.to_dst, eb_, from, buf(Buffer::Dst).data());
        pack::run(x.to_scratch, eb_, from, fused_.scratch.data());
        flag(x.segment, kShmDone).fetch_add(1, std::memory_order_acq_rel);
        read[i] = 1, --left;
      }
      if (!posted_.empty()) rc = progress();  // the messages across nodes move meanwhile
      return left == 0 || yielded();
    };
    shm_wait(read_ready);
    finish();
    for (const auto& x : fused_.recvs) unpack(x);
    fused_.next.assign(fused_.groups.size(), 1);
    reduce_rows(true);
    pack::run(fused_.scratch_to_dst, eb_, fused_.scratch.data(), buf(Buffer::Dst).data());
    shm_wait([&](int&) { return flag(me, kShmDone).load(std::memory_order_acquire) >= run * sh.readers || yielded(); });
  }
  // A wait on shared-memory flags, through the world's deadline (exit / hang faults reported).
  void shm_wait(const std::function<bool(int&)>& test) {
    int rc = MPI_SUCCESS;
    if (!test(rc)) w_.wait_until(test, *plan_, 0);
  }
  // The flag's owner may share this core (oversubscribed; OpenMPI then yields too): false, after
  // yielding it.
  static bool yielded() {
    std::this_thread::yield();
    return false;
  }

  // A message's buffer, count and type: in place (one run), packed, or through its datatype.
  struct Args {
    void* data;
    int count;
    MPI_Datatype type;
  };
  Args args_of(const Message& x, bool send) {
    if (x.ptr) return {x.ptr, as_int(x.count, "a message"), type_};
    if (x.packed >= 0) return {(send ? fused_.sendbuf : fused_.recvbuf).data() + static_cast<size_t>(x.packed) * eb_, as_int(x.count, "a message"), type_};
    return {send ? static_cast<void*>(buf(Buffer::Src).data()) : MPI_BOTTOM, 1, x.type};
  }
  // ExecutorOptions::persistent: every message of the exchange as a persistent request, made once.
  void make_persistent() {
    for (int side = 0; side < 2; ++side)
      for (const auto& x : side == 0 ? fused_.recvs : fused_.sends) {
        const Args a = args_of(x, side == 1);
        fused_.persistent.emplace_back();
        if (side == 0) check(MPI_Recv_init(a.data, a.count, a.type, x.peer, kFusedTag, w_.comm(), &fused_.persistent.back()), "MPI_Recv_init", 0);
        else check(MPI_Send_init(a.data, a.count, a.type, x.peer, kFusedTag, w_.comm(), &fused_.persistent.back()), "MPI_Send_init", 0);
      }
  }

  // The one exchange (at the plan's first step): receives, sends, this rank's own copies while
  // they move, and the reductions when everything is in (arrival: each message unpacked and each
  // group's rows reduced as soon as they are in).
  void post_fused() {
    finish();
    Posted p = fresh(0, {});
    const bool arrival = opts_.arrival && !opts_.alltoallw;
    fused_.next.assign(fused_.groups.size(), 1);
    fused_.arrived.assign(fused_.recvs.size(), 0);
    start_messages(p, arrival);
    pack::run(fused_.src_to_dst, eb_, buf(Buffer::Src).data(), buf(Buffer::Dst).data());
    pack::run(fused_.src_to_scratch, eb_, buf(Buffer::Src).data(), fused_.scratch.data());
    if (arrival) {
      p.on_block = [this](Posted&, int i) { message_in(static_cast<size_t>(i)); };
      reduce_rows(false);  // rows of this rank's own leaves
    }
    if (!fused_.groups.empty() || !fused_.recvbuf.empty())
      p.then = [this, arrival](Posted&) {
        for (const auto& x : fused_.recvs)
          if (!arrival) unpack(x);
        reduce_rows(true);
        pack::run(fused_.scratch_to_dst, eb_, fused_.scratch.data(), buf(Buffer::Dst).data());
      };
    post(std::move(p));
  }
  // The exchange's messages started (their counts added to this rank's bytes): one
  // MPI_Ialltoallw, persistent requests, or MPI_Irecv / MPI_Isend pairs; packed sends packed first.
  void start_messages(Posted& p, bool arrival) {
    if (opts_.alltoallw) {
      auto& w = fused_.w;
      p.requests.emplace_back(), p.block_of.push_back(-1);
      check(MPI_Ialltoallw(buf(Buffer::Src).data(), w.counts[0].data(), w.displs.data(), w.types[0].data(), MPI_BOTTOM, w.counts[1].data(), w.displs.data(),
                           w.types[1].data(), w_.comm(), &p.requests.back()),
            "MPI_Ialltoallw", 0);
    }
    for (const auto& x : fused_.recvs) {
      moved_.received += x.count;
      if (opts_.alltoallw || opts_.persistent) continue;
      const Args a = args_of(x, false);
      p.requests.emplace_back(), p.block_of.push_back(arrival ? static_cast<int>(p.block_of.size()) : -1);
      check(MPI_Irecv(a.data, a.count, a.type, x.peer, kFusedTag, w_.comm(), &p.requests.back()), "MPI_Irecv", 0);
    }
    for (const auto& x : fused_.sends) {
      moved_.sent += x.count;
      if (opts_.alltoallw) continue;
      if (x.packed >= 0) pack::run(x.program[0], eb_, buf(Buffer::Src).data(), fused_.sendbuf.data());
      if (opts_.persistent) continue;
      const Args a = args_of(x, true);
      p.requests.emplace_back(), p.block_of.push_back(-1);
      check(MPI_Isend(a.data, a.count, a.type, x.peer, kFusedTag, w_.comm(), &p.requests.back()), "MPI_Isend", 0);
    }
    if (opts_.persistent && !opts_.alltoallw && !fused_.persistent.empty()) {
      check(MPI_Startall(static_cast<int>(fused_.persistent.size()), fused_.persistent.data()), "MPI_Startall", 0);
      p.requests = fused_.persistent, p.block_of.assign(p.requests.size(), -1);
      for (size_t i = 0; arrival && i < fused_.recvs.size(); ++i) p.block_of[i] = static_cast<int>(i);  // the receives come first
    }
  }
  // A packed message's elements from recvbuf to DST and the scratch (ExecutorOptions::pack).
  void unpack(const Message& x) {
    if (x.packed < 0 || opts_.alltoallw) return;
    pack::run(x.program[0], eb_, fused_.recvbuf.data(), buf(Buffer::Dst).data());
    pack::run(x.program[1], eb_, fused_.recvbuf.data(), fused_.scratch.data());
  }
  // ExecutorOptions::arrival: receive i of the exchange completed.
  void message_in(size_t i) {
    fused_.arrived[i] = 1;
    unpack(fused_.recvs[i]);
    reduce_rows(false);
  }
  // Row k of group g is in when every message writing it completed (its local leaves are copied
  // before the first test).
  bool row_in(size_t g, int64_t k) const {
    for (int i : fused_.rows[g][static_cast<size_t>(k)])
      if (!fused_.arrived[static_cast<size_t>(i)]) return false;
    return true;
  }
  // Each group's row 0 reduced with rows 1, 2, ... in that order (the steps' order of
  // contributors, so float sums round alike), row by row while the next is in (`all`: every row
  // left, everything being in).
  void reduce_rows(bool all) {
    unsigned char* s = fused_.scratch.data();
    for (size_t gi = 0; gi < fused_.groups.size(); ++gi) {
      const Group& g = fused_.groups[gi];
      const bool direct = g.dst >= 0;
      int64_t& next = fused_.next[gi];
      if (!all && next < g.m && !row_in(gi, 0)) continue;
      unsigned char* acc = direct ? buf(Buffer::Dst).data() + static_cast<size_t>(g.dst) * eb_ : s + static_cast<size_t>(g.base) * eb_;
      for (; next < g.m && (all || row_in(gi, next)); ++next)
        reduce_into(t_, acc, s + static_cast<size_t>(g.base + (direct ? next - 1 : next) * g.count) * eb_, g.count, g.op);
    }
  }

  // ExecutorOptions::datatypes: for each collective whose SEND ranges one LocalCopy SRC->SEND
  // alone packs (and it alone reads SEND), its blocks to peers go out of SRC through a type over
  // the pack's runs; for each whose RECV blocks from peers one LocalCopy RECV->DST alone unpacks
  // (after it, nothing else writes RECV and no other step writes those DST elements), they land
  // in DST through a type over the unpack's runs. A block whose runs do not cover it exactly once
  // keeps the buffers. The two copies then run only the runs left (what stays on this device).
  void plan_types(const Plan& plan) {
    const int64_t me = device();
    std::map<Buffer, std::vector<size_t>> readers, writers;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      if (const auto* lc = std::get_if<LocalCopy>(&plan.steps[i])) {
        if (lc->device != me || lc->runs.empty()) continue;
        readers[lc->from].push_back(i), writers[lc->to].push_back(i);
        continue;
      }
      const StepIo& io = io_[i];
      if (!io.active) continue;
      if (!io.peer_sends.empty() || !io.local_reads.empty()) readers[io.send_buffer].push_back(i);
      if (!io.peer_recvs.empty() || !io.local_writes.empty()) writers[io.recv_buffer].push_back(i);
    }
    if (!readers[Buffer::Dst].empty()) return;  // DST is read by no step (it is written out of order below)
    auto local_copy = [&](size_t i) { return std::get_if<LocalCopy>(&plan.steps[i]); };
    auto make = [&](const std::vector<Run>& pieces, bool by_from, Buffer b, int64_t count, size_t index) {
      // pieces in the order of the block's elements; the displacement is the other side's offset
      std::vector<int> lens;
      std::vector<MPI_Aint> disps;
      int64_t total = 0, expect = by_from ? pieces.front().from : pieces.front().to, lo = INT64_MAX, hi = 0;
      for (const Run& r : pieces) {
        const int64_t key = by_from ? r.from : r.to, at = by_from ? r.to : r.from;
        if (key != expect) return Typed{};
        expect += r.len, total += r.len;
        lens.push_back(as_int(r.len, "a datatype block"));
        disps.push_back(static_cast<MPI_Aint>(at * t_.bytes));
        lo = std::min(lo, at), hi = std::max(hi, at + r.len);
      }
      if (total != count) return Typed{};
      Typed t{MPI_DATATYPE_NULL, b, lo, hi};
      check(MPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), disps.data(), type_, &t.type), "MPI_Type_create_hindexed", index);
      check(MPI_Type_commit(&t.type), "MPI_Type_commit", index);
      return t;
    };
    auto overlaps = [](const std::vector<std::pair<int64_t, int64_t>>& xs, std::pair<int64_t, int64_t> r) {
      for (auto [a, b] : xs)
        if (a < r.second && r.first < b) return true;
      return false;
    };
    // Send side: one pack k (SRC -> SEND) before one reader j (the collective).
    const auto& ws = writers[Buffer::Send];
    const auto& rs = readers[Buffer::Send];
    if (writers[Buffer::Src].empty() && ws.size() == 1 && rs.size() == 1 && ws[0] < rs[0] && local_copy(ws[0]) && local_copy(ws[0])->from == Buffer::Src &&
        !local_copy(rs[0])) {
      const size_t k = ws[0], j = rs[0];
      const LocalCopy& pack = *local_copy(k);
      std::vector<std::pair<int64_t, int64_t>> fused;
      for (auto r : io_[j].peer_sends) {
        if (overlaps(io_[j].local_reads, r) || overlaps(fused, r) || r.first == r.second) continue;
        const auto pieces = clip_runs(pack.runs, false, r.first, r.second);
        if (pieces.empty()) continue;
        Typed t = make(pieces, false, Buffer::Src, r.second - r.first, j);
        if (t.type == MPI_DATATYPE_NULL) continue;
        send_types_[{j, r.first}] = t, fused.push_back(r);
      }
      if (!fused.empty()) copies_[k] = compile_copy({pack.device, pack.from, pack.to, cut_runs(pack.runs, false, fused)});
    }
    // Receive side, for each buffer R a collective receives into (RECV; SRC for an in-place
    // all-reduce): the last writer j of R (the collective) and one reader m after it (R -> DST).
    for (Buffer b : kBuffers)
      if (b != Buffer::Dst) receive_into_dst(plan, b, readers, writers, make, overlaps);
  }
  template <class Make, class Overlaps>
  void receive_into_dst(const Plan& plan, Buffer b, std::map<Buffer, std::vector<size_t>>& readers, std::map<Buffer, std::vector<size_t>>& writers,
                        Make& make, Overlaps& overlaps) {
    auto local_copy = [&](size_t i) { return std::get_if<LocalCopy>(&plan.steps[i]); };
    const auto& wr = writers[b];
    if (wr.empty() || local_copy(wr.back()) || io_[wr.back()].recv_buffer != b) return;
    const size_t j = wr.back();
    std::vector<size_t> after;
    for (size_t i : readers[b])
      if (i > j) after.push_back(i);
    if (after.size() != 1 || !local_copy(after[0]) || local_copy(after[0])->to != Buffer::Dst) return;
    const size_t m = after[0];
    const LocalCopy& unpack = *local_copy(m);
    std::vector<std::pair<int64_t, int64_t>> others;  // DST elements other steps write
    for (size_t i : writers[Buffer::Dst]) {
      if (i == m) continue;
      if (const auto* lc = local_copy(i)) {
        for (const Run& r : lc->runs) others.push_back({r.to, r.to + r.len});
      } else {
        for (auto r : io_[i].peer_recvs) others.push_back(r);
        for (auto r : io_[i].local_writes) others.push_back(r);
      }
    }
    std::vector<std::pair<int64_t, int64_t>> fused;
    for (auto r : io_[j].peer_recvs) {
      if (overlaps(io_[j].local_writes, r) || overlaps(fused, r) || r.first == r.second) continue;
      const auto pieces = clip_runs(unpack.runs, true, r.first, r.second);
      if (pieces.empty()) continue;
      bool clash = false;
      for (const Run& p : pieces) clash = clash || overlaps(others, {p.to, p.to + p.len});
      if (clash) continue;
      Typed t = make(pieces, true, Buffer::Dst, r.second - r.first, j);
      if (t.type == MPI_DATATYPE_NULL) continue;
      recv_types_[{j, r.first}] = t, fused.push_back(r);
    }
    if (!fused.empty()) copies_[m] = compile_copy({unpack.device, unpack.from, unpack.to, cut_runs(unpack.runs, true, fused)});
  }

  // ExecutorOptions::receives_first: a collective's receives go out at this device's first local
  // copy of the local copies right before it, when neither those copies nor (the typed
  // receives') DST ranges clash with what the receives write.
  void plan_early(const Plan& plan) {
    const int64_t me = device();
    for (size_t j = 0; j < plan.steps.size(); ++j) {
      if (!std::holds_alternative<Collective>(plan.steps[j]) || !io_[j].active) continue;
      const auto kind = std::get<Collective>(plan.steps[j]).kind;
      std::vector<Range> writes = typed_writes(j);
      for (auto [a, b] : io_[j].peer_recvs) {
        if (kind == CollectiveKind::AllReduce) break;  // round 0 receives into the scratch; round 1 is posted later
        bool typed = recv_types_.count({j, a}) > 0;
        if (!typed) writes.push_back({io_[j].recv_buffer, a, b});
      }
      const Footprint f{{}, writes, kind == CollectiveKind::SendRecv};
      // A step whose receives land where it reads (an all-gather's send inside recv's other
      // blocks, copied to a scratch when the step runs) keeps its receives for its step.
      std::vector<Range> reads;
      for (auto [a, b] : io_[j].peer_sends) reads.push_back({io_[j].send_buffer, a, b});
      for (auto [a, b] : io_[j].local_reads) reads.push_back({io_[j].send_buffer, a, b});
      if (overlap(writes, reads)) continue;
      size_t first = SIZE_MAX;
      bool clash = false;
      for (size_t k = j; k-- > 0;) {
        const auto* lc = std::get_if<LocalCopy>(&plan.steps[k]);
        if (!lc) break;
        if (lc->device != me) continue;
        clash = clash || depends(f, copies_[k].footprint) || !copies_[k].error.empty();
        first = k;
      }
      if (first != SIZE_MAX && !clash) early_at_[first] = j;
    }
  }

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
      if (p.on_block) {  // reduce_on_arrival: each received block as it completes
        std::vector<int> idx(p.requests.size());
        int got = 0;
        const int rc = MPI_Testsome(static_cast<int>(p.requests.size()), p.requests.data(), &got, idx.data(), MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        for (int i = 0; got != MPI_UNDEFINED && i < got; ++i)
          if (const int b = p.block_of[static_cast<size_t>(idx[static_cast<size_t>(i)])]; b >= 0) p.on_block(p, b);
        // Done when every request is (a request completing after the test waits for the next one:
        // MPI_Testall here could complete a block without its reduction). Counted: a persistent
        // request is inactive, not MPI_REQUEST_NULL, once complete, and Testsome skips it after.
        if (got != MPI_UNDEFINED) p.completed += static_cast<size_t>(got);
        flag = p.completed == p.requests.size();
      } else {
        const int rc = MPI_Testall(static_cast<int>(p.requests.size()), p.requests.data(), &flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
      }
      if (!flag) continue;
      p.requests.clear(), p.block_of.clear(), p.on_block = nullptr, p.completed = 0;
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
    p.requests.emplace_back(), p.block_of.push_back(-1);
    check(MPI_Isend(data, as_int(count, "a send"), type_, peer, tag, comm, &p.requests.back()), "MPI_Isend", p.step);
  }
  void irecv(Posted& p, void* data, int64_t count, int peer, int tag, MPI_Comm comm, int block = -1) {
    p.requests.emplace_back(), p.block_of.push_back(block);
    check(MPI_Irecv(data, as_int(count, "a receive"), type_, peer, tag, comm, &p.requests.back()), "MPI_Irecv", p.step);
  }
  // A block of the step's SEND / RECV buffer (element offset `at`): through its datatype when
  // plan_types gave it one (out of SRC / into DST), else from / into the buffer itself.
  void send_block(Posted& p, Place place, int64_t count, int peer, int tag, MPI_Comm comm) {
    auto it = send_types_.find({p.step, place.offset});
    if (place.buffer != Buffer::Send || it == send_types_.end()) return isend(p, at(place, count), count, peer, tag, comm);
    p.requests.emplace_back(), p.block_of.push_back(-1);
    check(MPI_Isend(buf(Buffer::Src).data(), 1, it->second.type, peer, tag, comm, &p.requests.back()), "MPI_Isend", p.step);
  }
  void recv_block(Posted& p, Place place, int64_t count, int peer, int tag, MPI_Comm comm) {
    auto it = recv_types_.find({p.step, place.offset});
    if (it == recv_types_.end()) return irecv(p, at(place, count), count, peer, tag, comm);
    p.requests.emplace_back(), p.block_of.push_back(-1);
    check(MPI_Irecv(buf(Buffer::Dst).data(), 1, it->second.type, peer, tag, comm, &p.requests.back()), "MPI_Irecv", p.step);
  }
  // The group's other ranks in the order this rank posts to them: 0, 1, ... (pos left out), or
  // with `staggered` pos+1, pos+2, ... for sends and pos-1, pos-2, ... for receives (modulo n), so
  // that the ranks do not all send to rank 0 first and each receive is posted in the order its
  // sender sends.
  // The transfers in posting order: as given, or with `staggered` by the peer's distance from this
  // rank (receives from pos-1, pos-2, ..., sends to pos+1, pos+2, ..., modulo n; `at` maps a device
  // to its rank in the group).
  template <class At>
  std::vector<const Transfer*> in_order(const std::vector<Transfer>& ts, int n, int pos, At at) const {
    std::vector<const Transfer*> out;
    for (const Transfer& t : ts) out.push_back(&t);
    if (!opts_.staggered) return out;
    const int64_t me = device();
    auto key = [&](const Transfer* t) {
      if (t->from_device == me && t->to_device != me) return (at(t->to_device) - pos + n) % n;
      if (t->to_device == me && t->from_device != me) return (pos - at(t->from_device) + n) % n;
      return 0;
    };
    std::stable_sort(out.begin(), out.end(), [&](const Transfer* a, const Transfer* b) { return key(a) < key(b); });
    return out;
  }
  std::vector<int> peers(int n, int pos, bool receiving) const {
    std::vector<int> out;
    for (int i = 1; i < n; ++i)
      out.push_back(!opts_.staggered ? (i - 1 < pos ? i - 1 : i) : receiving ? (pos - i + n) % n : (pos + i) % n);
    return out;
  }
  // reduce_on_arrival: block q of the reduction's scratch is in; acc = the blocks 0..q reduced in
  // rank order as soon as they are all in (the default's order, so float sums round alike).
  void arrive(Posted& p, int q, unsigned char* acc, size_t block, int64_t count, char o) {
    p.arrived[static_cast<size_t>(q)] = 1;
    const int n = static_cast<int>(p.arrived.size());
    while (p.reduced < n && p.arrived[static_cast<size_t>(p.reduced)]) {
      const unsigned char* in = p.scratch.data() + static_cast<size_t>(p.reduced) * block;
      if (p.reduced == 0) std::memcpy(acc, in, block);
      else reduce_into(t_, acc, in, count, o);
      ++p.reduced;
    }
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

  void all_gather(const Collective& c, MPI_Comm comm, int n, int pos, size_t index, bool early);
  void reduce_scatter(const Collective& c, MPI_Comm comm, int n, int pos, size_t index, bool early);
  void all_reduce(const Collective& c, MPI_Comm comm, int n, int pos, size_t index, bool early);
  void all_to_all(const Collective& c, MPI_Comm comm, size_t index, bool early);
  void send_recv(const Collective& c, size_t index, bool early);

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
  ExecutorOptions opts_;
  std::vector<StepIo> io_;            // by step: this device's ranges of a collective
  std::vector<size_t> early_at_;      // by step: the collective whose receives this local copy posts first (SIZE_MAX: none)
  std::map<size_t, Posted> early_;    // receives posted early, by step, until their step runs
  std::map<std::pair<size_t, int64_t>, Typed> send_types_, recv_types_;  // by (step, SEND / RECV offset of the block)
  // One-round execution: a message per peer (its type over SRC, or over DST and the scratch by
  // address), the local copies, and the scratch's blocks of reductions (op, leaves m, elements, base).
  struct Fused {
    bool active = false;
    DeviceBytes bytes, planned;  // this rank's bytes in the exchange, and in the plan's steps
    std::vector<Message> sends, recvs;
    pack::CopyProgram src_to_dst, src_to_scratch, scratch_to_dst;
    std::vector<Group> groups;
    std::vector<std::vector<std::vector<int>>> rows;  // by group and row: the receives (indices in recvs) writing it
    std::vector<int64_t> next;                         // by group: the row it reduces next (arrival)
    std::vector<char> arrived;                         // by receive: completed in this run (arrival)
    std::vector<unsigned char> scratch, sendbuf, recvbuf;
    std::vector<MPI_Request> persistent;  // ExecutorOptions::persistent: the receives', then the sends' requests
    struct {  // ExecutorOptions::shm: the window, every rank's segment in it, this rank's reads from its peers
      MPI_Win win = MPI_WIN_NULL;
      std::vector<unsigned char*> segment;  // by rank
      std::vector<ShmRead> reads;
      int64_t sent = 0, received = 0;  // elements the peers read from this rank / it reads from them, each run
      uint64_t readers = 0, runs = 0;  // peers that read this rank's SRC; runs since load()
    } shm;
    struct {
      std::vector<int> counts[2], displs;  // [0] sends, [1] receives
      std::vector<MPI_Datatype> types[2];
    } w;
  } fused_;
  static constexpr int kFusedTag = 32100;
  static constexpr int64_t kShmReadFactor = 2;  // ExecutorOptions::shm: see reads_at_most (bench/RESULTS.md, the shared-memory exchange)
  static constexpr size_t kShmHeader = 64, kShmReady = 0, kShmDone = 8;  // ExecutorOptions::shm: a segment's flags, before its SRC
  static constexpr size_t kShmSlack = size_t{1} << 16;  // ... and what a rank's segment may take beyond its bytes (see window_fits)
  MPI_Comm node_ = MPI_COMM_NULL;  // ExecutorOptions::shm: this node's ranks (MPI_COMM_TYPE_SHARED, or node_ranks' groups)
  std::vector<int> node_rank_;     // ... by world rank: its rank on this node (-1: another node)
  int node_size_ = 0;              // ... how many
  bool node_all_ = false;          // ... and whether every rank's node is the whole world
  bool told_ = false;              // ... and whether this rank noted a window that did not fit
};

// ncclAllGather: rank pos's block goes to every other rank of the group, whose blocks land at
// recv + q*count; its own block is copied in. A send range inside another rank's block of recv
// (anything but NCCL's in-place form, send == recv + pos*count) is read from a scratch copy.
void MpiExecutor::all_gather(const Collective& c, MPI_Comm comm, int n, int pos, size_t index, bool early) {
  const int64_t me = device(), count = c.count;
  const Place sp = c.send.at(me), rp = c.recv.at(me);
  unsigned char* recv = at(rp, n * count);
  const unsigned char* send = at(sp, count);
  Posted p = begin(index, {{{sp.buffer, sp.offset, sp.offset + count}}, {{rp.buffer, rp.offset, rp.offset + n * count}}, false}, early);
  if (!p.receives_posted)
    for (const int q : peers(n, pos, true))
      if (q != pos) recv_block(p, {rp.buffer, rp.offset + q * count}, count, q, tag_of(index, 0), comm);
  if (early) return stash(std::move(p));
  const size_t block = static_cast<size_t>(count) * eb_;
  const bool in_place = sp.buffer == rp.buffer && sp.offset == rp.offset + pos * count;
  const bool overlapping = sp.buffer == rp.buffer && sp.offset < rp.offset + n * count && rp.offset < sp.offset + count;
  if (overlapping && !in_place) p.scratch.assign(send, send + block), send = p.scratch.data();
  if (!in_place) std::memmove(recv + static_cast<size_t>(pos) * block, send, block);
  for (const int q : peers(n, pos, false))
    if (q != pos) isend(p, send, count, q, tag_of(index, 0), comm);
  count_ring(c, n, pos);
  post(std::move(p));
}

// ncclReduceScatter: block q of send goes to rank q; when rank pos holds every rank's block pos
// (its own copied into the scratch), recv = their reduction in rank order (reduce_on_arrival:
// block by block as they arrive, where recv is apart from send's other blocks).
void MpiExecutor::reduce_scatter(const Collective& c, MPI_Comm comm, int n, int pos, size_t index, bool early) {
  const int64_t me = device(), count = c.count;
  const Place sp = c.send.at(me), rp = c.recv.at(me);
  unsigned char* recv = at(rp, count);
  const unsigned char* send = at(sp, n * count);
  Posted p = begin(index, {{{sp.buffer, sp.offset, sp.offset + n * count}}, {{rp.buffer, rp.offset, rp.offset + count}}, false}, early);
  const size_t block = static_cast<size_t>(count) * eb_;
  if (!p.receives_posted) {
    p.scratch.resize(static_cast<size_t>(n) * block);
    for (const int q : peers(n, pos, true))
      if (q != pos) irecv(p, p.scratch.data() + static_cast<size_t>(q) * block, count, q, tag_of(index, 0), comm, q);
  }
  if (early) return stash(std::move(p));
  std::memcpy(p.scratch.data() + static_cast<size_t>(pos) * block, send + static_cast<size_t>(pos) * block, block);
  for (const int q : peers(n, pos, false))
    if (q != pos) send_block(p, {sp.buffer, sp.offset + q * count}, count, q, tag_of(index, 0), comm);
  const char o = op(c, index);
  const bool apart = sp.buffer != rp.buffer || rp.offset == sp.offset + pos * count || rp.offset + count <= sp.offset || sp.offset + n * count <= rp.offset;
  if (opts_.reduce_on_arrival && apart) {
    p.arrived.assign(static_cast<size_t>(n), 0);
    p.on_block = [this, recv, block, count, o](Posted& self, int q) { arrive(self, q, recv, block, count, o); };
    arrive(p, pos, recv, block, count, o);
  } else {
    p.then = [this, recv, block, n, count, o](Posted& self) {
      std::memcpy(recv, self.scratch.data(), block);
      for (int q = 1; q < n; ++q) reduce_into(t_, recv, self.scratch.data() + static_cast<size_t>(q) * block, count, o);
    };
  }
  count_ring(c, n, pos);
  post(std::move(p));
}

// ncclAllReduce over the ring's chunks c_0..c_(n-1) (c_i = N/n, the first N mod n one more, at
// offsets o_i): round 0 sends chunk q to rank q and gathers every rank's chunk pos in the
// scratch; then recv's chunk pos = their reduction in rank order, and round 1 sends it to every
// rank and receives the others' reduced chunks. Send is read in round 0 only and recv written
// after it, so any overlap of the two (the in-place form included) is safe; reduce_on_arrival
// writes recv's chunk pos during round 0, so only where it is apart from send's other chunks.
void MpiExecutor::all_reduce(const Collective& c, MPI_Comm comm, int n, int pos, size_t index, bool early) {
  const int64_t me = device(), total = c.count;
  const Place sp = c.send.at(me), rp = c.recv.at(me);
  unsigned char* recv = at(rp, total);
  const unsigned char* send = at(sp, total);
  Posted p = begin(index, {{{sp.buffer, sp.offset, sp.offset + total}}, {{rp.buffer, rp.offset, rp.offset + total}}, false}, early);
  std::vector<int64_t> len(static_cast<size_t>(n)), off(static_cast<size_t>(n) + 1, 0);
  for (size_t q = 0; q < len.size(); ++q) len[q] = total / n + (static_cast<int64_t>(q) < total % n ? 1 : 0), off[q + 1] = off[q] + len[q];
  const auto mine = static_cast<size_t>(pos);
  const size_t chunk = static_cast<size_t>(len[mine]) * eb_;
  if (!p.receives_posted) {
    p.scratch.resize(static_cast<size_t>(n) * chunk);
    for (const int q : peers(n, pos, true))
      if (q != pos) irecv(p, p.scratch.data() + static_cast<size_t>(q) * chunk, len[mine], q, tag_of(index, 0), comm, q);
  }
  if (early) return stash(std::move(p));
  std::memcpy(p.scratch.data() + mine * chunk, send + static_cast<size_t>(off[mine]) * eb_, chunk);
  for (const int q : peers(n, pos, false))
    if (q != pos) send_block(p, {sp.buffer, sp.offset + off[static_cast<size_t>(q)]}, len[static_cast<size_t>(q)], q, tag_of(index, 0), comm);
  const char o = op(c, index);
  unsigned char* acc = recv + static_cast<size_t>(off[mine]) * eb_;
  auto round1 = [this, rp, acc, len, off, n, pos, comm](Posted& self) {
    for (const int q : peers(n, pos, true))
      if (q != pos) recv_block(self, {rp.buffer, rp.offset + off[static_cast<size_t>(q)]}, len[static_cast<size_t>(q)], q, tag_of(self.step, 1), comm);
    for (const int q : peers(n, pos, false))
      if (q != pos) isend(self, acc, len[static_cast<size_t>(pos)], q, tag_of(self.step, 1), comm);
  };
  const bool apart = sp.buffer != rp.buffer || sp.offset == rp.offset || rp.offset + total <= sp.offset || sp.offset + total <= rp.offset;
  if (opts_.reduce_on_arrival && apart) {
    const int64_t k = len[mine];
    p.arrived.assign(static_cast<size_t>(n), 0);
    p.on_block = [this, acc, chunk, k, o](Posted& self, int q) { arrive(self, q, acc, chunk, k, o); };
    arrive(p, pos, acc, chunk, k, o);
    p.then = round1;
  } else {
    p.then = [this, acc, chunk, len, n, pos, o, round1](Posted& self) {
      std::memcpy(acc, self.scratch.data(), chunk);
      for (int q = 1; q < n; ++q) reduce_into(t_, acc, self.scratch.data() + static_cast<size_t>(q) * chunk, len[static_cast<size_t>(pos)], o);
      round1(self);
    };
  }
  count_ring(c, n, pos);
  post(std::move(p));
}

// The all-to-all inside the group: the plan has at most one transfer per (from, to) pair, the
// block at send_offset of `from` landing at recv_offset of `to`; peers are group positions.
void MpiExecutor::all_to_all(const Collective& c, MPI_Comm comm, size_t index, bool early) {
  const auto& group = *std::find_if(c.groups.begin(), c.groups.end(), [&](const auto& g) { return std::find(g.begin(), g.end(), device()) != g.end(); });
  auto position = [&](int64_t d) {
    auto it = std::find(group.begin(), group.end(), d);
    if (it == group.end()) fail(rule::kInternal, describe_step(*plan_, index) + ": a transfer leaves the group of device " + std::to_string(device()));
    return static_cast<int>(it - group.begin());
  };
  Footprint f;
  for (const Transfer& t : c.transfers) {
    if (t.from_device == device()) f.reads.push_back({Buffer::Send, t.send_offset, t.send_offset + t.count});
    if (t.to_device == device()) f.writes.push_back({Buffer::Recv, t.recv_offset, t.recv_offset + t.count});
  }
  Posted p = begin(index, f, early);
  const int n = static_cast<int>(group.size()), pos = position(device());
  const std::vector<const Transfer*> ts = in_order(c.transfers, n, pos, [&](int64_t d) { return position(d); });
  if (!p.receives_posted)
    for (const Transfer* tp : ts)
      if (const Transfer& t = *tp; t.to_device == device() && t.from_device != device()) {
        recv_block(p, {Buffer::Recv, t.recv_offset}, t.count, position(t.from_device), tag_of(index, 0), comm);
        moved_.received += t.count;
      }
  if (early) return stash(std::move(p));
  for (const Transfer& t : c.transfers)
    if (t.from_device == device() && t.to_device == device())
      std::memmove(at({Buffer::Recv, t.recv_offset}, t.count), at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count) * eb_);
  for (const Transfer* tp : ts)
    if (const Transfer& t = *tp; t.from_device == device() && t.to_device != device()) {
      send_block(p, {Buffer::Send, t.send_offset}, t.count, position(t.to_device), tag_of(index, 0), comm);
      moved_.sent += t.count;
    }
  post(std::move(p));
}

// Grouped send / recv on the world: transfer i of the step is tag 1 + i (both sides number
// them alike; a step's messages are all complete before the next such step posts any, its
// early receives included: begin() waits for the world's point-to-point steps in flight).
void MpiExecutor::send_recv(const Collective& c, size_t index, bool early) {
  Footprint f{{}, {}, true};
  for (const Transfer& t : c.transfers) {
    if (t.from_device == device()) f.reads.push_back({Buffer::Send, t.send_offset, t.send_offset + t.count});
    if (t.to_device == device()) f.writes.push_back({Buffer::Recv, t.recv_offset, t.recv_offset + t.count});
  }
  if (f.reads.empty() && f.writes.empty()) return;
  Posted p = begin(index, f, early);
  auto tag = [](size_t i) { return 1 + static_cast<int>(i % 30000); };
  const int n = w_.size(), pos = w_.rank();
  const std::vector<const Transfer*> ts = in_order(c.transfers, n, pos, [](int64_t d) { return static_cast<int>(d); });
  if (!p.receives_posted)
    for (const Transfer* tp : ts) {
      const size_t i = static_cast<size_t>(tp - c.transfers.data());
      const Transfer& t = *tp;
      if (t.to_device != device() || t.from_device == device()) continue;
      recv_block(p, {Buffer::Recv, t.recv_offset}, t.count, static_cast<int>(t.from_device), tag(i), w_.comm());
      moved_.received += t.count;
    }
  if (early) return stash(std::move(p));
  for (const Transfer* tp : ts) {
    const size_t i = static_cast<size_t>(tp - c.transfers.data());
    const Transfer& t = *tp;
    if (t.from_device == device() && t.to_device == device()) {
      std::memmove(at({Buffer::Recv, t.recv_offset}, t.count), at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count) * eb_);
    } else if (t.from_device == device()) {
      send_block(p, {Buffer::Send, t.send_offset}, t.count, static_cast<int>(t.to_device), tag(i), w_.comm());
      moved_.sent += t.count;
    }
  }
  post(std::move(p));
}

// The K of an executor word nodes-of-K: a positive integer (at most 2^31 - 1), else a usage error.
constexpr std::string_view kNodesOf = "nodes-of-";
int node_ranks_of(const std::string& word, const std::string& text) {
  const std::string digits = word.substr(kNodesOf.size());
  int64_t k = 0;
  bool ok = !digits.empty() && digits.size() <= 10;
  for (char c : digits) ok = ok && c >= '0' && c <= '9', k = ok ? k * 10 + (c - '0') : k;
  if (!ok || k < 1 || k > INT_MAX)
    fail(rule::kUsage, "executor variant '" + word + "' (in '" + text + "'): nodes-of-K takes a positive integer K, the world ranks each node is split into groups of (spec/MULTIGPU.md \"Executor variants\")");
  return static_cast<int>(k);
}
}  // namespace

ExecutorOptions parse_executor_options(const std::string& text) {
  ExecutorOptions o;
  if (text == "default") return default_executor_options();
  if (text == "none" || text == "base") return o;
  if (text == "all") return {true, true, true, true};
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('+', start), text.size());
    const std::string word = text.substr(start, end - start);
    if (word == "default") {  // the default's words, with the others named beside it (default+shm)
      const ExecutorOptions d = default_executor_options();
      o.datatypes |= d.datatypes, o.one_round |= d.one_round, o.pack |= d.pack, o.persistent |= d.persistent, o.shm |= d.shm;
    } else if (word == "recv-first") o.receives_first = true;
    else if (word == "reduce-arrival") o.reduce_on_arrival = true;
    else if (word == "datatypes") o.datatypes = true;
    else if (word == "stagger") o.staggered = true;
    else if (word == "one-round") o.one_round = true;
    else if (word == "one-round-always") o.one_round_always = true;
    else if (word == "alltoallw") o.alltoallw = true;
    else if (word == "pack") o.pack = true;
    else if (word == "persistent") o.persistent = true;
    else if (word == "arrival") o.arrival = true;
    else if (word == "shm") o.shm = true;
    else if (word.starts_with(kNodesOf)) o.node_ranks = node_ranks_of(word, text);
    else
      fail(rule::kUsage, "executor variant '" + word + "' (in '" + text +
                             "'): expected default, base, all, or recv-first / reduce-arrival / datatypes / stagger / one-round / one-round-always / alltoallw / pack / persistent / arrival / shm / nodes-of-K joined by '+' (spec/MULTIGPU.md \"Executor variants\")");
    start = end + 1;
  }
  if (o.node_ranks > 0 && !o.shm)
    fail(rule::kUsage, "executor variants '" + text + "': nodes-of-K splits the nodes of the shared-memory exchange; join it with shm or default (spec/MULTIGPU.md \"Executor variants\")");
  return o;
}

std::string to_string(const ExecutorOptions& o) {
  std::string s;
  for (auto [on, word] : {std::pair{o.receives_first, "recv-first"}, std::pair{o.reduce_on_arrival, "reduce-arrival"}, std::pair{o.datatypes, "datatypes"}, std::pair{o.staggered, "stagger"},
                            std::pair{o.one_round, "one-round"}, std::pair{o.one_round_always, "one-round-always"},
                            std::pair{o.alltoallw, "alltoallw"}, std::pair{o.pack, "pack"}, std::pair{o.persistent, "persistent"},
                            std::pair{o.arrival, "arrival"}, std::pair{o.shm, "shm"}})
    if (on) s += (s.empty() ? "" : "+") + std::string(word);
  if (o.node_ranks > 0) s += (s.empty() ? "" : "+") + std::string(kNodesOf) + std::to_string(o.node_ranks);
  return s.empty() ? "base" : s;
}

// Issue 47's measurements (bench/RESULTS.md, "the executor variants of issue 47"): derived
// datatypes alone lowered the all-to-all and point-to-point rows at 4 ranks and the all-gather,
// reduce-scatter and point-to-point rows at 8, and hurt none beyond the noise; the other three
// moved no row beyond it (stagger raised the 8-rank all-to-all), so they stay off.
// The one-round exchange with persistent requests (bench/RESULTS.md, "one-round execution")
// lowered every row where the plan chooses it and changes none where it does not (the steps then
// run with derived datatypes as before), so it is on too.
// Packing a message of several runs (pack; bench/RESULTS.md, "the one-round executor profiled"):
// OpenMPI moves a contiguous message of more than 4 KB between two processes with one copy (CMA),
// a derived datatype's through copy-in / copy-out fragments; contiguous messages made the
// all-to-all and point-to-point rows faster in every run, and pack changes nothing on a row whose
// messages are single runs (all-gather, reduce-scatter), so it is on as well.
// The one exchange through shared memory (shm; bench/RESULTS.md, "the shared-memory exchange"):
// with every rank on one node it took 0.3-0.6x the naive MPI_Alltoallv where messages took
// 1.0-1.4x, on every row at 4 and 8 ranks; across nodes the messages run as before.
ExecutorOptions default_executor_options() {
  ExecutorOptions o;
  o.datatypes = true;
  o.one_round = true;
  o.pack = true;
  o.persistent = true;
  o.shm = true;
  return o;
}

std::unique_ptr<Executor> make_mpi_executor(World& world, const Dtype& dtype, const ExecutorOptions& options) {
  return std::make_unique<MpiExecutor>(world, dtype, options);
}
std::unique_ptr<Executor> make_mpi_executor(World& world, const Dtype& dtype) { return make_mpi_executor(world, dtype, default_executor_options()); }

}  // namespace tfspec::multigpu::mpi
