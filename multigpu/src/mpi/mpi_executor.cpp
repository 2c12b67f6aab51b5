// The MPI executor (spec/MULTIGPU.md "Executing a plan on MPI"): each plan step as MPI calls on
// this rank's host buffers. ncclAllGather -> MPI_Iallgather, ncclReduceScatter ->
// MPI_Ireduce_scatter_block, ncclAllReduce -> MPI_Iallreduce (sum / max / min -> MPI_SUM / MPI_MAX
// / MPI_MIN), the all-to-all -> MPI_Ialltoallv inside the group, grouped send/recv ->
// MPI_Isend / MPI_Irecv pairs; local copies as memcpy of the plan's runs.
#include <climits>
#include <cstring>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::mpi {
namespace {

// MPI has no 16-bit float type: float16 / bfloat16 travel as MPI_UINT16_T, and their reductions
// are user operations computed in float (exact on the integers the runs use).
template <float (*To)(uint16_t), uint16_t (*From)(float), int Op>
void half_op(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) {
    const float x = To(a[i]), y = To(b[i]);
    b[i] = From(Op == 0 ? x + y : Op == 1 ? std::max(x, y) : std::min(x, y));
  }
}

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

class MpiExecutor final : public Executor {
 public:
  MpiExecutor(World& w, const Dtype& t) : w_(w), t_(t), type_(mpi_type(t)), eb_(static_cast<size_t>(t.bytes)) {
    using H = Dtype::Kind;
    if (t.kind == H::Half || t.kind == H::BFloat) {
      const bool half = t.kind == H::Half;
      MPI_Op_create(half ? half_op<half_to_float, float_to_half, 0> : half_op<bfloat_to_float, float_to_bfloat, 0>, 1, &ops_["sum"]);
      MPI_Op_create(half ? half_op<half_to_float, float_to_half, 1> : half_op<bfloat_to_float, float_to_bfloat, 1>, 1, &ops_["max"]);
      MPI_Op_create(half ? half_op<half_to_float, float_to_half, 2> : half_op<bfloat_to_float, float_to_bfloat, 2>, 1, &ops_["min"]);
      user_ops_ = true;
    } else {
      ops_ = {{"sum", MPI_SUM}, {"max", MPI_MAX}, {"min", MPI_MIN}};
    }
  }
  ~MpiExecutor() override {
    for (auto& [groups, comm] : comms_)
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (user_ops_)
      for (auto& [name, op] : ops_) MPI_Op_free(&op);
  }

  std::string name() const override { return "MPI"; }
  int64_t device() const override { return w_.rank(); }
  DeviceBytes moved() const override { return {moved_.sent * t_.bytes, moved_.received * t_.bytes}; }
  std::vector<unsigned char> dst() override { return buf_[Buffer::Dst]; }

  void load(const Plan& plan, const std::vector<unsigned char>& src) override {
    const int64_t me = device();
    auto size = [&](const std::map<int64_t, int64_t>& m) { return static_cast<size_t>(m.count(me) ? m.at(me) : 0) * eb_; };
    if (src.size() != size(plan.src_size))
      fail(rule::kEngineBufferSize, "device " + std::to_string(me) + " brings " + std::to_string(src.size()) + " SRC bytes; the plan needs " +
                                        std::to_string(size(plan.src_size)));
    buf_[Buffer::Src] = src;
    for (Buffer k : kBuffers)
      if (k != Buffer::Src) buf_[k].assign(static_cast<size_t>(plan.size_of(k, me)) * eb_, 0);
    moved_ = {};
    // Every step's communicators now: MPI_Comm_split is collective over the world and blocking.
    for (size_t i = 0; i < plan.steps.size(); ++i)
      if (const auto* c = std::get_if<Collective>(&plan.steps[i]); c && !c->groups.empty()) comm_of(*c, describe_step(plan, i));
  }

  void run(const Plan& plan, size_t index) override {
    const std::string what = describe_step(plan, index);
    if (const auto* lc = std::get_if<LocalCopy>(&plan.steps[index])) {
      if (lc->device != device()) return;
      for (const Run& r : lc->runs) std::memmove(at({lc->to, r.to}, r.len), at({lc->from, r.from}, r.len), static_cast<size_t>(r.len) * eb_);
      return;
    }
    const auto& c = std::get<Collective>(plan.steps[index]);
    if (c.kind == CollectiveKind::SendRecv) return send_recv(c, index, what);
    MPI_Comm comm = comm_of(c, what);
    if (comm == MPI_COMM_NULL) return;  // this device is in none of the step's groups
    int n = 0, pos = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &pos);
    if (c.kind == CollectiveKind::AllToAll) return all_to_all(c, comm, pos, what);
    ring_collective(c, comm, n, pos, what);
  }

 private:
  unsigned char* at(Place p, int64_t len) {
    auto& b = buf_[p.buffer];
    if (p.offset < 0 || len < 0 || static_cast<size_t>(p.offset + len) * eb_ > b.size())
      fail(rule::kInternal, "the plan touches " + to_string(p.buffer) + "[" + std::to_string(p.offset) + ", +" + std::to_string(len) +
                                ") of device " + std::to_string(device()) + ", which holds " + std::to_string(b.size() / eb_));
    return b.data() + static_cast<size_t>(p.offset) * eb_;
  }

  // The communicator of this device for the step's groups (cached by the group list): color = the
  // group's index, key = the position in it, so the communicator's rank i is groups[g][i].
  MPI_Comm comm_of(const Collective& c, const std::string& what) {
    auto it = comms_.find(c.groups);
    if (it != comms_.end()) return it->second;
    int color = MPI_UNDEFINED, key = 0;
    for (size_t g = 0; g < c.groups.size(); ++g)
      for (size_t i = 0; i < c.groups[g].size(); ++i)
        if (c.groups[g][i] == device()) color = static_cast<int>(g), key = static_cast<int>(i);
    MPI_Comm comm = MPI_COMM_NULL;
    w_.check(MPI_Comm_split(w_.comm(), color, key, &comm), "MPI_Comm_split", what);
    if (comm != MPI_COMM_NULL) MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return comms_[c.groups] = comm;
  }

  // AllGather / ReduceScatter / AllReduce. A send range overlapping the receive range is either
  // NCCL's in-place form of an all-reduce (the same place: MPI_IN_PLACE) or copied first.
  void ring_collective(const Collective& c, MPI_Comm comm, int n, int pos, const std::string& what) {
    const int64_t me = device();
    const bool gather = c.kind == CollectiveKind::AllGather, scatter = c.kind == CollectiveKind::ReduceScatter;
    const int64_t send_len = scatter ? n * c.count : c.count, recv_len = gather ? n * c.count : c.count;
    const Place sp = c.send.at(me), rp = c.recv.at(me);
    unsigned char* recv = at(rp, recv_len);
    const void* send = at(sp, send_len);
    std::vector<unsigned char> copy;
    const bool overlap = sp.buffer == rp.buffer && sp.offset < rp.offset + recv_len && rp.offset < sp.offset + send_len;
    if (overlap && c.kind == CollectiveKind::AllReduce && sp == rp) send = MPI_IN_PLACE;
    else if (overlap) copy.assign(static_cast<const unsigned char*>(send), static_cast<const unsigned char*>(send) + send_len * t_.bytes), send = copy.data();
    const int count = as_int(c.count, what);
    std::vector<MPI_Request> req(1);
    if (gather) w_.check(MPI_Iallgather(send, count, type_, recv, count, type_, comm, &req[0]), "MPI_Iallgather", what);
    else if (scatter) w_.check(MPI_Ireduce_scatter_block(send, recv, count, type_, op(c, what), comm, &req[0]), "MPI_Ireduce_scatter_block", what);
    else w_.check(MPI_Iallreduce(send, recv, count, type_, op(c, what), comm, &req[0]), "MPI_Iallreduce", what);
    w_.wait(req, what);
    const DeviceBytes b = ring_elements(c.kind, c.count, n, pos);
    moved_.sent += b.sent, moved_.received += b.received;
  }

  MPI_Op op(const Collective& c, const std::string& what) {
    auto it = ops_.find(c.reduction);
    if (it == ops_.end()) fail(rule::kPartialReduction, what + ": reduction '" + c.reduction + "' is not sum, max or min");
    return it->second;
  }

  // The all-to-all: one MPI_Ialltoallv inside the group; the plan has at most one transfer per
  // (from, to) pair, the block at send_offset of `from` landing at recv_offset of `to`.
  void all_to_all(const Collective& c, MPI_Comm comm, int pos, const std::string& what) {
    const auto& group = *std::find_if(c.groups.begin(), c.groups.end(), [&](const auto& g) { return std::find(g.begin(), g.end(), device()) != g.end(); });
    const size_t n = group.size();
    std::vector<int> sc(n, 0), sd(n, 0), rc(n, 0), rd(n, 0);
    auto position = [&](int64_t d) {
      auto it = std::find(group.begin(), group.end(), d);
      if (it == group.end()) fail(rule::kInternal, what + ": a transfer leaves the group of device " + std::to_string(device()));
      return static_cast<size_t>(it - group.begin());
    };
    for (const Transfer& t : c.transfers) {
      if (t.from_device == device()) {
        const size_t q = position(t.to_device);
        sc[q] = as_int(t.count, what), sd[q] = as_int(t.send_offset, what);
        at({Buffer::Send, t.send_offset}, t.count);
        if (t.to_device != device()) moved_.sent += t.count;
      }
      if (t.to_device == device()) {
        const size_t q = position(t.from_device);
        rc[q] = as_int(t.count, what), rd[q] = as_int(t.recv_offset, what);
        at({Buffer::Recv, t.recv_offset}, t.count);
        if (t.from_device != device()) moved_.received += t.count;
      }
    }
    (void)pos;
    std::vector<MPI_Request> req(1);
    w_.check(MPI_Ialltoallv(buf_[Buffer::Send].data(), sc.data(), sd.data(), type_, buf_[Buffer::Recv].data(), rc.data(), rd.data(), type_, comm, &req[0]),
             "MPI_Ialltoallv", what);
    w_.wait(req, what);
  }

  // Grouped send / recv on the world: transfer i of the step is tag 1 + i (both sides number
  // them alike; one step's messages are all complete before the next step posts any).
  void send_recv(const Collective& c, size_t index, const std::string& what) {
    std::vector<MPI_Request> reqs;
    for (size_t i = 0; i < c.transfers.size(); ++i) {
      const Transfer& t = c.transfers[i];
      const int tag = 1 + static_cast<int>(i % 30000);
      if (t.from_device == device() && t.to_device == device()) {
        std::memmove(at({Buffer::Recv, t.recv_offset}, t.count), at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count) * eb_);
        continue;
      }
      if (t.from_device == device()) {
        reqs.emplace_back();
        w_.check(MPI_Isend(at({Buffer::Send, t.send_offset}, t.count), as_int(t.count, what), type_, static_cast<int>(t.to_device), tag, w_.comm(), &reqs.back()),
                 "MPI_Isend", what);
        moved_.sent += t.count;
      } else if (t.to_device == device()) {
        reqs.emplace_back();
        w_.check(MPI_Irecv(at({Buffer::Recv, t.recv_offset}, t.count), as_int(t.count, what), type_, static_cast<int>(t.from_device), tag, w_.comm(), &reqs.back()),
                 "MPI_Irecv", what);
        moved_.received += t.count;
      }
    }
    (void)index;
    w_.wait(reqs, what);
  }

  World& w_;
  Dtype t_;
  MPI_Datatype type_;
  size_t eb_;
  std::map<std::string, MPI_Op> ops_;
  bool user_ops_ = false;
  std::map<Buffer, std::vector<unsigned char>> buf_;
  std::map<std::vector<std::vector<int64_t>>, MPI_Comm> comms_;
  DeviceBytes moved_;  // elements
};

}  // namespace

std::unique_ptr<Executor> make_mpi_executor(World& world, const Dtype& dtype) { return std::make_unique<MpiExecutor>(world, dtype); }

}  // namespace tfspec::multigpu::mpi
