// Executing a reshard plan on a real distributed engine (spec/MULTIGPU.md "Executing a plan"):
// one process per device, each running its own part of every step. The Executor is the data
// plane (buffers, local copies, collectives); an MPI implementation is built when find_package(MPI)
// finds MPI (multigpu/src/mpi/), an NCCL one when NCCL is found as well (multigpu/src/nccl/).
// Values travel as the plan's dtype (its bytes are what the plan prices), so this header also
// holds the element codec; and the byte model an executor counts its calls with.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/multigpu/reshard_plan.hpp"

namespace tfspec::multigpu {

// An NCCL datatype (dtype_bytes' names) as data moves in it.
struct Dtype {
  enum class Kind { Signed, Unsigned, Float, Half, BFloat };
  std::string name;  // canonical: int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32 float64
  Kind kind = Kind::Float;
  int64_t bytes = 4;
};
Dtype dtype_of(std::string_view name);  // mgpu-dtype for anything dtype_bytes refuses

// int64 values -> the dtype's bytes (little endian, as the machine stores them); a value the dtype
// cannot hold exactly is `internal` (the caller draws values every dtype holds: see run_values).
std::vector<unsigned char> encode(const Dtype& t, const std::vector<int64_t>& values);
std::vector<int64_t> decode(const Dtype& t, const std::vector<unsigned char>& bytes);
// half / bfloat16 <-> float (round to nearest even), for the reductions an engine lacks.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat_to_float(uint16_t h);
uint16_t float_to_bfloat(float f);

// The bytes (in elements; times the dtype size for bytes) one rank sends and receives in one call,
// priced as spec/MULTIGPU.md "The byte model" prices them, from the call's own arguments: the
// communicator's size n, the rank's position in it, and the count passed. AllToAll / SendRecv are
// priced per transfer by the caller (exact).
DeviceBytes ring_elements(CollectiveKind kind, int64_t count, int64_t n, int64_t position);

// The data plane of one device. A driver loads SRC, runs the steps in order and reads DST back.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;  // "MPI", "NCCL"
  virtual int64_t device() const = 0;    // this process's device id (the world rank)
  // Allocates the plan's buffers for this device (DST zero-filled) and loads its SRC bytes.
  virtual void load(const Plan& plan, const std::vector<unsigned char>& src) = 0;
  // Step `index` of the plan: this device's LocalCopy, or its part of a collective (none if it is
  // in no group). Every device calls it for every step, in order.
  // An executor may return before the step's data has moved (a non-blocking call in flight);
  // it keeps the plan's order for every buffer range a later step touches.
  virtual void run(const Plan& plan, size_t index) = 0;
  // Waits until every step run so far has completed on this device (dst() waits too).
  virtual void finish() {}
  virtual std::vector<unsigned char> dst() = 0;  // this device's DST buffer
  // Bytes this device moved to and from other devices, counted from the calls it issued.
  virtual DeviceBytes moved() const = 0;
  // Where the executor ran the plan as another exchange that moves other bytes than its steps (a
  // one-round exchange the plan did not choose): the bytes that exchange plans for this device,
  // which moved() is checked against instead of the plan's.
  virtual std::optional<DeviceBytes> own_bytes() const { return std::nullopt; }
};

// A step's name for messages: "step 2 (ncclAllGather along x, groups [[0,1] [2,3]])".
std::string describe_step(const Plan& plan, size_t index);

}  // namespace tfspec::multigpu
