// The packing core (spec/DESIGN.md "Packing: one core below gpu/ and multigpu/"): copies of
// element runs between flat buffers and gathers by offset tables, the host code that both the
// optimized reshard (gpu/'s host backend) and the plan executors (multigpu/) move data with.
// Standard library only: it sits below both and knows neither layouts nor plans, only offsets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tfspec::pack {

// len elements from element offset `from` of the source to element offset `to` of the destination.
struct Run {
  int64_t from, to, len;
  friend bool operator==(const Run&, const Run&) = default;
};

// `count` runs of `len` elements each: run k copies source [from + k * from_step, +len) to
// destination [to + k * to_step, +len). A list of runs compiles into few of these (a pack of a
// strided tile is one block), so the copy loop runs with its length known per block.
struct Block {
  int64_t from, to, len, count, from_step, to_step;
  friend bool operator==(const Block&, const Block&) = default;
};

// A run list, compiled once and run many times. The extents say what a run touches: elements
// [src_lo, src_hi) of the source and [dst_lo, dst_hi) of the destination (all 0 when empty), so
// an executor can bound-check a program once and tell which copies may overlap a transfer.
struct CopyProgram {
  std::vector<Block> blocks;
  int64_t elements = 0;
  int64_t src_lo = 0, src_hi = 0, dst_lo = 0, dst_hi = 0;
};

// Runs in the order given (later runs win where destinations overlap; compile keeps the order).
// A negative offset or length is refused with std::invalid_argument.
CopyProgram compile(const std::vector<Run>& runs);
// Any run type with from / to / len members (multigpu's plan runs).
template <class R>
CopyProgram compile_runs(const std::vector<R>& runs) {
  std::vector<Run> r;
  r.reserve(runs.size());
  for (const auto& x : runs) r.push_back({x.from, x.to, x.len});
  return compile(r);
}

// Runs the program on buffers of elem_bytes-sized elements. src and dst must not overlap (the
// caller copies through a scratch buffer, or uses run_overlapping, when they are one buffer).
void run(const CopyProgram& p, size_t elem_bytes, const void* src, void* dst);
// The same, element runs one after another with memmove semantics (source and destination in one buffer).
void run_overlapping(const CopyProgram& p, size_t elem_bytes, const void* src, void* dst);

// dst[0, count) = src[0, count) for count elements of elem_bytes (memmove).
void copy_elements(void* dst, const void* src, int64_t count, size_t elem_bytes);

// out[t] = src[off[t]] for t < count when every offset lies in [0, n): the bounds first (a
// vectorized min / max), then the gather (AVX2's where the CPU has it); false, having written
// nothing, otherwise (the caller then finds the first bad offset).
bool gather_in_bounds(const int64_t* off, int64_t count, const int64_t* src, int64_t n, int64_t* out);

}  // namespace tfspec::pack
