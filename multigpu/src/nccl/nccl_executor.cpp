// The NCCL executor (spec/MULTIGPU.md "An NCCL executor: build and test"): the same Executor
// interface as the MPI one, one process per GPU, MPI only to start (the ncclUniqueId) and for the
// driver's gather; the steps run on the GPU. Built only when CMake finds nccl.h, libnccl and the
// CUDA toolkit (TFSPEC_HAVE_NCCL): CMake finds both in the CUDA toolkit's own folders on the
// project's machines, so CI compiles and links it (no GPU needed for that); running needs a GPU.
//
// What differs from MPI: (1) streams: every step is enqueued on one CUDA stream; the step is over
// when the stream is idle (cudaStreamQuery polled against the deadline), and a stuck collective is
// cancelled with ncclCommAbort on every communicator before the run is aborted. (2) In-place
// buffers: NCCL's in-place all-gather / reduce-scatter are recvbuff + rank*count == sendbuff and
// sendbuff + rank*count == recvbuff (MPI's MPI_IN_PLACE means something else); any other overlap
// goes through a scratch buffer. (3) Groups: communicators come from ncclCommSplit (NCCL >= 2.18),
// ranks are positions in the group as with MPI_Comm_split; the all-to-all and point-to-point steps
// are ncclSend / ncclRecv inside one ncclGroupStart / ncclGroupEnd.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <climits>
#include <thread>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/multigpu/nccl.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::nccl {
namespace {

void cuda_check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) fail(rule::kCudaError, what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
void nccl_check(ncclResult_t r, const std::string& what) {
  if (r != ncclSuccess) fail(rule::kCudaError, what + ": " + ncclGetErrorString(r));
}

ncclDataType_t nccl_type(const Dtype& t) {
  switch (t.kind) {
    case Dtype::Kind::Signed: return t.bytes == 1 ? ncclInt8 : t.bytes == 4 ? ncclInt32 : ncclInt64;
    case Dtype::Kind::Unsigned: return t.bytes == 1 ? ncclUint8 : t.bytes == 4 ? ncclUint32 : ncclUint64;
    case Dtype::Kind::Half: return ncclFloat16;
    case Dtype::Kind::BFloat: return ncclBfloat16;
    case Dtype::Kind::Float: return t.bytes == 4 ? ncclFloat32 : ncclFloat64;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(const std::string& r) {
  if (r == "sum") return ncclSum;
  if (r == "max") return ncclMax;
  if (r == "min") return ncclMin;
  fail(rule::kPartialReduction, "reduction '" + r + "' is not sum, max or min");
}

class NcclExecutor final : public Executor {
 public:
  NcclExecutor(mpi::World& w, const Dtype& t, int gpu) : w_(w), t_(t), type_(nccl_type(t)), eb_(static_cast<size_t>(t.bytes)) {
    cuda_check(cudaSetDevice(gpu), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    ncclUniqueId id{};
    if (w_.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    std::vector<MPI_Request> req(1);
    w_.check(MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, w_.comm(), &req[0]), "MPI_Ibcast", "the ncclUniqueId");
    w_.wait(req, "the ncclUniqueId's broadcast");
    nccl_check(ncclCommInitRank(&world_, w_.size(), id, w_.rank()), "ncclCommInitRank");
  }
  ~NcclExecutor() override {
    for (auto& [g, c] : comms_)
      if (c) ncclCommDestroy(c);
    if (world_) ncclCommDestroy(world_);
    for (auto& [b, p] : dev_) cudaFree(p);
    if (scratch_) cudaFree(scratch_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "NCCL"; }
  int64_t device() const override { return w_.rank(); }
  DeviceBytes moved() const override { return {moved_.sent * t_.bytes, moved_.received * t_.bytes}; }

  void load(const Plan& plan, const std::vector<unsigned char>& src) override {
    const int64_t me = device();
    sizes_.clear();
    for (Buffer k : kBuffers) sizes_[k] = static_cast<size_t>(plan.size_of(k, me)) * eb_;
    if (src.size() != sizes_[Buffer::Src]) fail(rule::kEngineBufferSize, "device " + std::to_string(me) + ": SRC bytes differ from the plan's");
    for (auto& [b, n] : sizes_) cuda_check(cudaMalloc(&dev_[b], std::max<size_t>(n, 1)), "cudaMalloc");
    cuda_check(cudaMemcpy(dev_[Buffer::Src], src.data(), src.size(), cudaMemcpyHostToDevice), "cudaMemcpy SRC");
    for (Buffer k : kBuffers)  // DST and the intermediate layouts start zero-filled, as the simulator's
      if (k != Buffer::Src && k != Buffer::Send && k != Buffer::Recv) cuda_check(cudaMemset(dev_[k], 0, sizes_[k]), "cudaMemset");
    moved_ = {};
    for (size_t i = 0; i < plan.steps.size(); ++i)  // ncclCommSplit is collective over the world comm
      if (const auto* c = std::get_if<Collective>(&plan.steps[i]); c && !c->groups.empty()) comm_of(*c);
  }

  std::vector<unsigned char> dst() override {
    std::vector<unsigned char> out(sizes_[Buffer::Dst]);
    cuda_check(cudaMemcpy(out.data(), dev_[Buffer::Dst], out.size(), cudaMemcpyDeviceToHost), "cudaMemcpy DST");
    return out;
  }

  void run(const Plan& plan, size_t index) override {
    const std::string what = describe_step(plan, index);
    if (const auto* lc = std::get_if<LocalCopy>(&plan.steps[index])) {
      if (lc->device != device()) return;
      for (const Run& r : lc->runs)
        cuda_check(cudaMemcpyAsync(at({lc->to, r.to}, r.len), at({lc->from, r.from}, r.len), static_cast<size_t>(r.len) * eb_, cudaMemcpyDeviceToDevice, stream_),
                   what);
    } else {
      const auto& c = std::get<Collective>(plan.steps[index]);
      if (c.kind == CollectiveKind::SendRecv || c.kind == CollectiveKind::AllToAll) transfers(c, what);
      else ring_collective(c, what);
    }
    await_stream(what);
  }

 private:
  unsigned char* at(Place p, int64_t len) {
    if (p.offset < 0 || len < 0 || static_cast<size_t>(p.offset + len) * eb_ > sizes_[p.buffer])
      fail(rule::kInternal, "the plan touches " + to_string(p.buffer) + " past its end on device " + std::to_string(device()));
    return dev_[p.buffer] + static_cast<size_t>(p.offset) * eb_;
  }

  ncclComm_t comm_of(const Collective& c) {
    if (auto it = comms_.find(c.groups); it != comms_.end()) return it->second;
    int color = NCCL_SPLIT_NOCOLOR, key = 0;
    for (size_t g = 0; g < c.groups.size(); ++g)
      for (size_t i = 0; i < c.groups[g].size(); ++i)
        if (c.groups[g][i] == device()) color = static_cast<int>(g), key = static_cast<int>(i);
    ncclComm_t comm = nullptr;
    nccl_check(ncclCommSplit(world_, color, key, &comm, nullptr), "ncclCommSplit");
    return comms_[c.groups] = comm;
  }

  // A device scratch copy of `len` elements (the send side of an overlapping call).
  unsigned char* scratch(const unsigned char* from, int64_t len, const std::string& what) {
    const size_t n = static_cast<size_t>(len) * eb_;
    if (n > scratch_size_) {
      if (scratch_) cudaFree(scratch_);
      cuda_check(cudaMalloc(&scratch_, n), what);
      scratch_size_ = n;
    }
    cuda_check(cudaMemcpyAsync(scratch_, from, n, cudaMemcpyDeviceToDevice, stream_), what);
    return scratch_;
  }

  void ring_collective(const Collective& c, const std::string& what) {
    ncclComm_t comm = comm_of(c);
    if (!comm) return;
    int n = 0, pos = 0;
    nccl_check(ncclCommCount(comm, &n), what);
    nccl_check(ncclCommUserRank(comm, &pos), what);
    const bool gather = c.kind == CollectiveKind::AllGather, scatter = c.kind == CollectiveKind::ReduceScatter;
    const int64_t send_len = scatter ? n * c.count : c.count, recv_len = gather ? n * c.count : c.count;
    const Place sp = c.send.at(device()), rp = c.recv.at(device());
    unsigned char* recv = at(rp, recv_len);
    const unsigned char* send = at(sp, send_len);
    const bool overlap = sp.buffer == rp.buffer && sp.offset < rp.offset + recv_len && rp.offset < sp.offset + send_len;
    // NCCL's own in-place forms need no copy; any other overlap reads a scratch copy.
    const bool in_place = (gather && sp.offset == rp.offset + pos * c.count) || (scatter && rp.offset == sp.offset + pos * c.count) ||
                          (c.kind == CollectiveKind::AllReduce && sp == rp);
    if (overlap && !in_place) send = scratch(send, send_len, what);
    const size_t count = static_cast<size_t>(c.count);
    if (gather) nccl_check(ncclAllGather(send, recv, count, type_, comm, stream_), what);
    else if (scatter) nccl_check(ncclReduceScatter(send, recv, count, type_, nccl_op(c.reduction), comm, stream_), what);
    else nccl_check(ncclAllReduce(send, recv, count, type_, nccl_op(c.reduction), comm, stream_), what);
    const DeviceBytes b = ring_elements(c.kind, c.count, n, pos);
    moved_.sent += b.sent, moved_.received += b.received;
  }

  // All-to-all (inside this device's group; peers are group positions) and point-to-point (the
  // world communicator; peers are device ids): one ncclGroupStart / ncclGroupEnd per step.
  void transfers(const Collective& c, const std::string& what) {
    ncclComm_t comm = world_;
    std::vector<int64_t> group;
    if (c.kind == CollectiveKind::AllToAll) {
      comm = comm_of(c);
      if (!comm) return;
      for (const auto& g : c.groups)
        if (std::find(g.begin(), g.end(), device()) != g.end()) group = g;
    }
    auto peer = [&](int64_t d) {
      if (group.empty()) return static_cast<int>(d);
      auto it = std::find(group.begin(), group.end(), d);
      if (it == group.end()) fail(rule::kInternal, what + ": a transfer leaves the group");
      return static_cast<int>(it - group.begin());
    };
    nccl_check(ncclGroupStart(), what);
    for (const Transfer& t : c.transfers) {
      if (t.from_device == device() && t.to_device == device()) {
        cuda_check(cudaMemcpyAsync(at({Buffer::Recv, t.recv_offset}, t.count), at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count) * eb_,
                                   cudaMemcpyDeviceToDevice, stream_),
                   what);
      } else if (t.from_device == device()) {
        nccl_check(ncclSend(at({Buffer::Send, t.send_offset}, t.count), static_cast<size_t>(t.count), type_, peer(t.to_device), comm, stream_), what);
        moved_.sent += t.count;
      } else if (t.to_device == device()) {
        nccl_check(ncclRecv(at({Buffer::Recv, t.recv_offset}, t.count), static_cast<size_t>(t.count), type_, peer(t.from_device), comm, stream_), what);
        moved_.received += t.count;
      }
    }
    nccl_check(ncclGroupEnd(), what);
  }

  // The step is over when the stream is idle. Past the deadline, or on an asynchronous NCCL
  // error (a peer died), every communicator is aborted so no kernel spins for ever.
  void await_stream(const std::string& what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(w_.timeout_seconds());
    for (;;) {
      const cudaError_t q = cudaStreamQuery(stream_);
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) cuda_check(q, what);
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(world_, &async);
      if (async != ncclSuccess || std::chrono::steady_clock::now() > deadline) {
        for (auto& [g, c] : comms_)
          if (c) ncclCommAbort(c), c = nullptr;
        ncclCommAbort(world_), world_ = nullptr;
        if (async != ncclSuccess) fail(rule::kCudaError, what + ": " + ncclGetErrorString(async));
        w_.abort_timed_out(what);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  mpi::World& w_;
  Dtype t_;
  ncclDataType_t type_;
  size_t eb_;
  cudaStream_t stream_{};
  ncclComm_t world_ = nullptr;
  std::map<std::vector<std::vector<int64_t>>, ncclComm_t> comms_;
  std::map<Buffer, unsigned char*> dev_;
  std::map<Buffer, size_t> sizes_;
  unsigned char* scratch_ = nullptr;
  size_t scratch_size_ = 0;
  DeviceBytes moved_;  // elements
};

}  // namespace

std::optional<std::string> unavailable() {
  int gpus = 0;
  const cudaError_t e = cudaGetDeviceCount(&gpus);
  if (e != cudaSuccess) return std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  if (gpus == 0) return std::string("cudaGetDeviceCount: no CUDA device");
  return std::nullopt;
}

std::unique_ptr<Executor> make_nccl_executor(mpi::World& world, const Dtype& dtype) {
  if (auto why = unavailable()) fail(rule::kCudaError, "the NCCL executor needs a CUDA device: " + *why);
  int gpus = 0;
  cuda_check(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
  // One rank per GPU: the node-local rank picks the GPU (OpenMPI sets OMPI_COMM_WORLD_LOCAL_RANK).
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const int gpu = (local ? std::atoi(local) : world.rank()) % gpus;
  return std::make_unique<NcclExecutor>(world, dtype, gpu);
}

}  // namespace tfspec::multigpu::nccl
