// The shared-to-register copy of an operand, tiled as CuTe's make_tiled_copy_A/B does (private to
// kernel/src): the source addresses each thread computes, derived from the MMA's partition through
// the atom's layouts (spec/KERNEL.md "The shared-to-register copy").
#pragma once
#include <vector>

#include "tfspec/kernel/partition.hpp"

namespace tfspec::kernel {

struct S2rCopy {
  int64_t atom_threads = 0;
  int64_t src_values = 0, dst_values = 0;  // per atom thread
  int64_t vector = 0;                      // values one source access moves (bits / element bits)
  int64_t chunks = 0;                      // atom instructions per thread: MMA values / dst values
  std::vector<int64_t> dst_pos;                             // dst(t + AT * v) -> atom position
  std::vector<std::pair<int64_t, int64_t>> src_of_pos;      // atom position -> (src thread, src value)
  // src_reads[ts + AT * vs]: whether source thread ts's value vs is the one the hardware reads
  // (the first source of its position); false for ldmatrix x1 / x2's repeated lanes.
  std::vector<char> src_reads;
  // The element thread T's source value x = c * src_values + vs addresses: src[T * values() + x].
  std::vector<int64_t> src;
  int64_t threads = 0;
  int64_t values() const { return chunks * src_values; }
};

// kernel-input when the atom's layouts are not bijections of one element space, or its width
// does not divide its values, or its values do not divide the MMA fragment.
S2rCopy derive_s2r(const Pipeline& p, const Operand& o, const Partition& expected);

// What each register slot really receives (agreement.cpp): received[t * values + v] is the tile
// element in thread t's MMA value v after the copy, -1 when its offset holds no tile element.
std::vector<int64_t> received(const Pipeline& p, const Operand& o, const S2rCopy& s, const Partition& expected);

// An operand the MMA reads from shared memory against wgmma's K-major canonical layouts (gmma.cpp).
struct Finding;
Finding gmma_layout(const Pipeline& p, const Operand& o);

}  // namespace tfspec::kernel
