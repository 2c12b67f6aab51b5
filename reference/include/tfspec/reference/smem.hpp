// Shared-memory access analysis (extension; the model and its limits: spec/SMEM.md): the bank
// conflicts of a thread-value partition read through a (possibly swizzled) shared-memory layout,
// and the vector width the pair allows. Concrete and exact under the model.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/layout.hpp"

namespace tfspec {

struct BankModel {
  int64_t banks = 32;       // banks per wavefront
  int64_t bank_bytes = 4;   // bytes one bank serves per wavefront (one word)
  int64_t warp_size = 32;   // threads per warp
};

struct SmemAccess {
  int64_t elem_bytes = 0;  // bytes per element (1, 2, 4, 8 or 16)
  int64_t vector = 1;      // consecutive values each thread moves per access instruction
  BankModel model;
};

// One phase of one warp's access instruction: the lanes served together, and what they cost.
struct PhaseCost {
  int64_t warp = 0, access = 0, phase = 0;  // access k moves values [kV, kV + V) of every thread
  int64_t first_thread = 0, threads = 0;
  int64_t wavefronts = 0;  // the most distinct words any one bank serves
  int64_t ideal = 0;       // ceil(distinct words / banks): what a conflict-free placement costs
  int64_t bank = 0;        // a bank that serves `wavefronts` words (the lowest)
  // The threads that reach `bank` and the word each reads there (distinct words collide).
  std::vector<std::pair<int64_t, int64_t>> colliding;  // (thread, word)
  std::vector<int64_t> colliding_offsets;  // the element offset each of them accesses (its first value)
};

struct BankReport {
  int64_t threads = 0, values = 0;  // TV's two modes
  int64_t accesses = 0;             // access instructions per thread: values / vector
  int64_t access_bytes = 0;         // vector * elem_bytes
  int64_t phase_threads = 0;        // threads per phase: warp, half-warp or quarter-warp
  int64_t wavefronts = 0, ideal = 0;  // totals over every warp, access and phase
  int64_t conflicting_phases = 0, phases = 0;
  std::optional<PhaseCost> worst;  // the phase of the highest wavefronts / ideal (first such)
  bool conflict_free() const { return wavefronts == ideal; }
  int64_t degree() const;  // ceil(worst wavefronts / worst ideal); 1 when conflict-free
};

// The shared-memory layout as the model reads it, tile index -> element offset: a plain or
// swizzled layout as it is; a linear one (X2) in the direction spec/ALGEBRA.md "Direction" gives
// (linear.hpp as_tile_to_offset), `said` then naming it (empty for the other kinds).
LayoutPtr smem_tile_to_offset(LayoutPtr smem, std::string& said);

// TV: a rank-2 layout (thread, value) -> index into the tile, the domain of `smem` (CuTe's TV
// convention); smem: tile index -> element offset (Layout or swizzled ComposedLayout).
// smem-access-params, smem-tv, smem-vector-access (spec/SMEM.md).
BankReport bank_conflicts(const Layout& tv, const LayoutBase& smem, const SmemAccess& access);
// The same model over a table of element offsets, off[t * values + v] for thread t's value v
// (what tv_offsets computes; a kernel pipeline builds its tables from several layouts). An offset
// of -1 is a lane that takes no part in that access (ldmatrix x1 / x2: the lanes past the row
// addresses it reads); a phase where no lane accesses costs nothing and is not counted.
BankReport bank_conflicts(const std::vector<int64_t>& offsets, int64_t threads, int64_t values, const SmemAccess& access);

// A hint toward the swizzle that removes a conflict, checked: the first Sw<B,M,S> (B 1..5, then M
// 0..4, then S B..8) whose block of 2^(B+M+S) offsets divides `stage_stride` (so a swizzle over the
// whole buffer moves no offset out of its stage) under which the accesses of `offsets` in each of
// `stages` stages (stage s adds s * stage_stride) are conflict-free by bank_conflicts, at the same
// vector. nullopt when none is (offsets of -1 take no part, as above).
struct SwizzleHint {
  int bits = 0, base = 0, shift = 0;
  int64_t wavefronts = 0;  // under it, over every stage: the ideal
};
std::optional<SwizzleHint> conflict_free_swizzle(const std::vector<int64_t>& offsets, int64_t threads, int64_t values, const SmemAccess& access,
                                                 int64_t stage_stride, int64_t stages = 1);

struct VectorWidth {
  int64_t elems = 1, bytes = 0;  // the largest width every thread's values allow (<= 16 bytes)
  // Why the next width up (2 * elems) fails, when it is a width the hardware has:
  std::optional<int64_t> next_elems;
  int64_t thread = 0, value = 0;  // the first (thread, value) that breaks it
  std::string reason;             // "not contiguous", "not aligned", or "does not divide the values"
};
VectorWidth vector_width(const Layout& tv, const LayoutBase& smem, int64_t elem_bytes);
VectorWidth vector_width(const std::vector<int64_t>& offsets, int64_t threads, int64_t values, int64_t elem_bytes);

// The element offsets of every (thread, value): result[t * values + v] (checked: smem-tv).
std::vector<int64_t> tv_offsets(const Layout& tv, const LayoutBase& smem, int64_t& threads, int64_t& values);

}  // namespace tfspec
