// The packing core: run lists compiled into strided blocks, and the copy loops that run them
// (spec/DESIGN.md "Packing: one core below gpu/ and multigpu/").
#include "tfspec/pack/pack.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tfspec::pack {
namespace {

using Byte = unsigned char;

void widen(CopyProgram& p, const Run& r) {
  if (p.elements == 0) {
    p.src_lo = r.from, p.src_hi = r.from + r.len, p.dst_lo = r.to, p.dst_hi = r.to + r.len;
    return;
  }
  p.src_lo = std::min(p.src_lo, r.from), p.src_hi = std::max(p.src_hi, r.from + r.len);
  p.dst_lo = std::min(p.dst_lo, r.to), p.dst_hi = std::max(p.dst_hi, r.to + r.len);
}

// Appends r to the last block when it continues it: the same run one element further on both
// sides (a longer run), or the block's next run at its strides (the second run of a block sets them).
bool extend(Block& b, const Run& r) {
  if (b.count == 1 && r.from == b.from + b.len && r.to == b.to + b.len) {
    b.len += r.len;
    return true;
  }
  if (r.len != b.len) return false;
  if (b.count == 1) {
    b.from_step = r.from - b.from, b.to_step = r.to - b.to, b.count = 2;
    return true;
  }
  if (r.from != b.from + b.count * b.from_step || r.to != b.to + b.count * b.to_step) return false;
  ++b.count;
  return true;
}

// A block whose run is B bytes: one fixed-size copy per run (the compiler turns it into moves).
template <size_t B>
void copy_fixed(Byte* d, const Byte* s, int64_t count, int64_t ds, int64_t ss) {
  for (int64_t k = 0; k < count; ++k) std::memcpy(d + k * ds, s + k * ss, B);
}

void run_block(const Block& b, size_t eb, const Byte* src, Byte* dst) {
  const size_t bytes = static_cast<size_t>(b.len) * eb;
  const Byte* s = src + static_cast<size_t>(b.from) * eb;
  Byte* d = dst + static_cast<size_t>(b.to) * eb;
  const int64_t ss = b.from_step * static_cast<int64_t>(eb), ds = b.to_step * static_cast<int64_t>(eb);
  switch (bytes) {
    case 1: return copy_fixed<1>(d, s, b.count, ds, ss);
    case 2: return copy_fixed<2>(d, s, b.count, ds, ss);
    case 4: return copy_fixed<4>(d, s, b.count, ds, ss);
    case 8: return copy_fixed<8>(d, s, b.count, ds, ss);
    case 16: return copy_fixed<16>(d, s, b.count, ds, ss);
    case 32: return copy_fixed<32>(d, s, b.count, ds, ss);
    case 64: return copy_fixed<64>(d, s, b.count, ds, ss);
    default:
      for (int64_t k = 0; k < b.count; ++k) std::memcpy(d + k * ds, s + k * ss, bytes);
  }
}

}  // namespace

CopyProgram compile(const std::vector<Run>& runs) {
  CopyProgram p;
  for (const Run& r : runs) {
    if (r.from < 0 || r.to < 0 || r.len < 0)
      throw std::invalid_argument("pack::compile: a run [" + std::to_string(r.from) + " -> " + std::to_string(r.to) + ", " + std::to_string(r.len) +
                                  "] has a negative offset or length");
    if (r.len == 0) continue;
    widen(p, r);
    p.elements += r.len;
    if (p.blocks.empty() || !extend(p.blocks.back(), r)) p.blocks.push_back({r.from, r.to, r.len, 1, 0, 0});
  }
  return p;
}

void run(const CopyProgram& p, size_t elem_bytes, const void* src, void* dst) {
  for (const Block& b : p.blocks) run_block(b, elem_bytes, static_cast<const Byte*>(src), static_cast<Byte*>(dst));
}

void run_overlapping(const CopyProgram& p, size_t elem_bytes, const void* src, void* dst) {
  const auto* s = static_cast<const Byte*>(src);
  auto* d = static_cast<Byte*>(dst);
  const auto eb = static_cast<int64_t>(elem_bytes);
  for (const Block& b : p.blocks)
    for (int64_t k = 0; k < b.count; ++k)
      std::memmove(d + (b.to + k * b.to_step) * eb, s + (b.from + k * b.from_step) * eb, static_cast<size_t>(b.len * eb));
}

void copy_elements(void* dst, const void* src, int64_t count, size_t elem_bytes) {
  if (count > 0) std::memmove(dst, src, static_cast<size_t>(count) * elem_bytes);
}

// The gather, compiled twice: for AVX2 and for any x86-64, picked at run time (the default build
// stays free of -march=native: the binary runs on any x86-64).
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define TFSPEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TFSPEC_CLONES
#endif
TFSPEC_CLONES bool gather_in_bounds(const int64_t* off, int64_t count, const int64_t* src, int64_t n, int64_t* out) {
  int64_t lo = 0, hi = 0;
  for (int64_t t = 0; t < count; ++t) {
    lo = off[t] < lo ? off[t] : lo;
    hi = off[t] > hi ? off[t] : hi;
  }
  if (lo < 0 || (count > 0 && hi >= n)) return false;
  for (int64_t t = 0; t < count; ++t) out[t] = src[off[t]];
  return true;
}

}  // namespace tfspec::pack
