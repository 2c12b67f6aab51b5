// TMA loads (SM90; extension K1, spec/KERNEL.md "TMA loads"): the copy engine writes a box of the
// global tensor into shared memory, dense along the tensor's contiguous mode, at addresses the
// tensor map's swizzle mode permutes: the 16-byte chunk bits 4..6 of the byte address xored with
// bits 7..9, as many as the mode's span needs (32B: one bit, 64B: two, 128B: three), i.e. CuTe's
// Sw<log2(span/16),4,3> on bytes (its get_tma_swizzle_bits; kernel/tests/cute/ compares the two).
#pragma once
#include <cstdint>
#include <vector>

#include "tfspec/kernel/check.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec::kernel {

// The mode's swizzle over byte addresses (span 0: none, the identity Sw<0,4,3>).
Swizzle tma_byte_swizzle(int64_t span_bytes);
// The same over offsets of E-byte elements: Sw<log2(span/16), 4 - log2(E), 3>.
Swizzle tma_element_swizzle(int64_t span_bytes, int64_t elem_bytes);

// Checks 1 and 3 for an operand loaded by TMA: the box fits (kernel-tma-box), the shared-memory
// layout is where the mode writes each element (kernel-tma-swizzle), and the bank finding says the
// per-thread model does not apply (a bulk copy).
void check_tma_load(const Pipeline& p, const Operand& o, std::vector<Finding>& out);
Finding tma_banks(const Pipeline& p, const Operand& o);

}  // namespace tfspec::kernel
