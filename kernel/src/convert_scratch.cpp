// spec/TRITON.md §3.2.1: the shared-memory scratch Triton 3.9 builds for a convert_layout that goes
// through shared memory, derived in our words from its lib/Tools/GenericSwizzling.cpp (the ld/st
// path Allocation.cpp sizes the scratch with) and lib/Analysis/Allocation.cpp. Everything works on
// flat element indices (dim0 fastest) over F2: a basis is the element one in-bit reaches.
#include <algorithm>
#include <bit>

#include "tfspec/kernel/layout_program.hpp"

namespace tfspec::kernel {
namespace cvt_scratch {

using Bases = std::vector<int64_t>;

bool has(const Bases& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

Bases nonzero(const Bases& v) {
  Bases r;
  for (int64_t x : v)
    if (x != 0) r.push_back(x);
  return r;
}

// The rows reduced over F2 with each pivot the lowest set bit of its row, that bit cleared from
// every other row (the reduced echelon form is unique for the span, so the bases derived from it
// below do not depend on how the rows were given).
Bases reduced_rows(Bases rows, int dim) {
  Bases out;
  for (int c = 0; c < dim; ++c) {
    const int64_t bit = int64_t{1} << c;
    auto it = std::find_if(rows.begin(), rows.end(), [&](int64_t r) { return (r & bit) != 0; });
    if (it == rows.end()) continue;
    const int64_t pivot = *it;
    rows.erase(it);
    for (int64_t& r : rows)
      if (r & bit) r ^= pivot;
    for (int64_t& r : out)
      if (r & bit) r ^= pivot;
    out.push_back(pivot);
  }
  return out;
}

// The vectors x with x . v = 0 for every given v: one per non-pivot bit f (ascending), f plus the
// pivots of the rows holding f.
Bases orthogonal(const Bases& vectors, int dim) {
  const Bases rows = reduced_rows(vectors, dim);
  Bases pivots;
  for (int64_t r : rows) pivots.push_back(r & -r);
  Bases out;
  for (int f = 0; f < dim; ++f) {
    const int64_t bit = int64_t{1} << f;
    if (has(pivots, bit)) continue;
    int64_t x = bit;
    for (int64_t r : rows)
      if (r & bit) x ^= r & -r;
    out.push_back(x);
  }
  return out;
}

// The span both lists share. Single bits: a's entries that b also has, in a's order (Triton's
// heuristic keeps the first list's order); otherwise the orthogonal of the two orthogonals.
Bases shared_span(const Bases& a, const Bases& b, int dim) {
  const auto single = [](int64_t x) { return x > 0 && std::has_single_bit(static_cast<uint64_t>(x)); };
  if (std::all_of(a.begin(), a.end(), single) && std::all_of(b.begin(), b.end(), single)) {
    Bases r;
    for (int64_t x : a)
      if (has(b, x)) r.push_back(x);
    return r;
  }
  Bases both = orthogonal(a, dim);
  for (int64_t x : orthogonal(b, dim)) both.push_back(x);
  return orthogonal(both, dim);
}

// The unit vectors of the bits that are not pivots of the given span (ascending).
Bases complement_units(const Bases& span, int dim) {
  Bases pivots;
  for (int64_t r : reduced_rows(span, dim)) pivots.push_back(r & -r);
  Bases out;
  for (int c = 0; c < dim; ++c)
    if (!has(pivots, int64_t{1} << c)) out.push_back(int64_t{1} << c);
  return out;
}

Bases without(const Bases& v, const Bases& drop) {
  Bases r;
  for (int64_t x : v)
    if (!has(drop, x)) r.push_back(x);
  return r;
}

struct Sides {
  Bases reg_src, reg_dst, lane_src, lane_dst, warp_src, warp_dst;
};

// The vector bits: registers both sides hold (at most 128 bits of them); under 32 bits, topped up
// to a word with one side's registers the other holds in warps (the side with more of them; a tie
// goes to the side whose lowest such basis is lower), then warps both share, then each side's
// warps in turn. `src_fills` says which side's registers topped it up (none: no top-up chose).
Bases vector_bits(const Sides& s, int64_t bits, int dim, std::optional<bool>& src_fills) {
  Bases v = shared_span(s.reg_src, s.reg_dst, dim);
  const size_t most = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(128 / bits)));
  if (v.size() > most) v.resize(most);
  if ((int64_t{1} << v.size()) * bits >= 32) return v;
  const size_t per_word = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(32 / bits)));
  const Bases ws = nonzero(s.warp_src), wd = nonzero(s.warp_dst);
  const Bases src_in_dst_warps = shared_span(without(s.reg_src, v), wd, dim), dst_in_src_warps = shared_span(without(s.reg_dst, v), ws, dim);
  if (src_in_dst_warps.size() == dst_in_src_warps.size() && !src_in_dst_warps.empty())
    src_fills = *std::min_element(src_in_dst_warps.begin(), src_in_dst_warps.end()) < *std::min_element(dst_in_src_warps.begin(), dst_in_src_warps.end());
  else
    src_fills = src_in_dst_warps.size() > dst_in_src_warps.size();
  for (int64_t x : *src_fills ? src_in_dst_warps : dst_in_src_warps) v.push_back(x);
  if (v.size() < per_word)
    for (int64_t x : shared_span(ws, wd, dim)) v.push_back(x);
  for (size_t i = 0; v.size() < per_word && (i < ws.size() || i < wd.size()); ++i) {
    if (i < ws.size() && !has(v, ws[i])) v.push_back(ws[i]);
    if (v.size() < per_word && i < wd.size() && !has(v, wd[i])) v.push_back(wd[i]);
  }
  if (v.size() > per_word) v.resize(per_word);
  return v;
}

// The segment bits: free bits neither side's bank tile (vector + the lanes of one wavefront)
// touches; when too few, the XOR of a store-only and a load-only lane bit (both land in distinct
// banks), and only then lane bits themselves (a conflict Triton accepts).
Bases segment_bits(const Bases& bank_src, const Bases& bank_dst, int dim, size_t len) {
  const Bases src = nonzero(bank_src), dst = nonzero(bank_dst);
  Bases seg;
  for (int c = 0; c < dim; ++c)
    if (!has(src, int64_t{1} << c) && !has(dst, int64_t{1} << c)) seg.push_back(int64_t{1} << c);
  if (seg.size() >= len) return seg.resize(len), seg;
  Bases a = without(src, dst), b = without(dst, src);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  if (a.size() > b.size()) std::swap(a, b);
  const size_t forced = std::min(a.size(), static_cast<size_t>(std::max<int64_t>(0, static_cast<int64_t>(len) - static_cast<int64_t>(a.size() + seg.size()))));
  for (size_t i = forced; i < a.size(); ++i) seg.push_back(a[i] ^ b[i]);
  for (size_t i = 0; i < forced; ++i) seg.push_back(a[i]);
  for (size_t i = 0; i < forced; ++i) seg.push_back(b[i]);
  if (seg.size() > len) seg.resize(len);
  return seg;
}

// One wavefront's lanes of a side: every lane bit, less the top ones when a vector of more than a
// word is served by half or quarter warps.
Bases wavefront_lanes(const Bases& lanes, int64_t vector_bits_total) {
  const int64_t words = std::max<int64_t>(1, vector_bits_total / 32);
  const int log2_words = std::countr_zero(static_cast<uint64_t>(words));
  const int drop = std::max(0, log2_words + static_cast<int>(lanes.size()) - 5);
  return Bases(lanes.begin(), lanes.end() - std::min<int>(drop, static_cast<int>(lanes.size())));
}

Bases in_dim(const LinearLayout& l, const std::string& name) {
  size_t at = 0;
  for (size_t i = 0; i < l.ins().size(); ++i) {
    const int n = l.in_dim_bits(i);
    if (l.ins()[i].name == name) return Bases(l.flat_bases().begin() + static_cast<std::ptrdiff_t>(at), l.flat_bases().begin() + static_cast<std::ptrdiff_t>(at) + n);
    at += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace cvt_scratch

std::optional<ConvertScratch> triton_convert_scratch(const LinearLayout& src, const LinearLayout& dst, int64_t elem_bits, std::string& why_not) {
  using namespace cvt_scratch;
  if (!nonzero(in_dim(src, "block")).empty() || !nonzero(in_dim(dst, "block")).empty()) {
    why_not = "the layouts span several CTAs (block bases): not modelled";
    return std::nullopt;
  }
  const int dim = src.out_bits();
  const int64_t bits = std::max<int64_t>(8, elem_bits);
  const Sides s{nonzero(in_dim(src, "register")), nonzero(in_dim(dst, "register")), in_dim(src, "lane"), in_dim(dst, "lane"), in_dim(src, "warp"), in_dim(dst, "warp")};
  ConvertScratch r;
  r.bits = bits;
  std::optional<bool> src_fills;
  r.vector = vector_bits(s, bits, dim, src_fills);
  const int64_t vec_total = (int64_t{1} << r.vector.size()) * bits;
  Bases bank_src = r.vector, bank_dst = r.vector;
  for (int64_t x : without(wavefront_lanes(s.lane_src, vec_total), r.vector)) bank_src.push_back(x);
  for (int64_t x : without(wavefront_lanes(s.lane_dst, vec_total), r.vector)) bank_dst.push_back(x);
  const int vec_n = static_cast<int>(r.vector.size());
  const int bank_n = std::min(std::countr_zero(static_cast<uint64_t>(std::max<int64_t>(1, 1024 / vec_total))), dim - vec_n);
  const Bases seg = segment_bits(bank_src, bank_dst, dim, static_cast<size_t>(dim - bank_n - vec_n));
  Bases taken = r.vector;
  for (int64_t x : seg) taken.push_back(x);
  r.bank = complement_units(taken, dim);
  for (int64_t x : seg) (has(s.reg_src, x) && has(s.reg_dst, x) ? r.reps : r.segment).push_back(x);  // registers both hold: replayed
  if (vec_total < 128) {  // the bank bits one side holds in registers first (that side's wider accesses)
    Bases first;
    const auto in_regs = [&](const Bases& regs) {
      Bases v;
      for (int64_t x : r.bank)
        if (has(regs, x)) v.push_back(x);
      return v;
    };
    const Bases bs = in_regs(s.reg_src), bd = in_regs(s.reg_dst);
    first = src_fills ? (*src_fills ? bs : bd) : (bs.size() > bd.size() ? bs : bd);
    for (int64_t x : r.bank)
      if (!has(first, x)) first.push_back(x);
    r.bank = first;
  }
  r.bytes = (int64_t{1} << (r.vector.size() + r.bank.size() + r.segment.size())) * bits / 8;
  if (static_cast<int>(r.vector.size() + r.bank.size() + r.segment.size() + r.reps.size()) != dim) {
    why_not = "the scratch bits do not cover the tile";
    return std::nullopt;
  }
  return r;
}

std::vector<int64_t> scratch_offsets(const LinearLayout& side, const ConvertScratch& s, int64_t& threads, int64_t& values) {
  using namespace cvt_scratch;
  Bases order = s.vector;  // the scratch's bits, lowest first; the reps last
  for (const Bases* b : {&s.bank, &s.segment, &s.reps}) order.insert(order.end(), b->begin(), b->end());
  const int dim = static_cast<int>(order.size());
  const int64_t kept = int64_t{1} << (s.vector.size() + s.bank.size() + s.segment.size());
  if (dim != side.out_bits()) return {};
  std::vector<int64_t> offset_of(static_cast<size_t>(int64_t{1} << dim), -1);
  for (int64_t i = 0; i < (int64_t{1} << dim); ++i) {
    int64_t e = 0;
    for (int k = 0; k < dim; ++k)
      if ((i >> k) & 1) e ^= order[static_cast<size_t>(k)];
    if (e < 0 || e >= (int64_t{1} << dim) || offset_of[static_cast<size_t>(e)] != -1) return {};  // the bases do not span the tile
    offset_of[static_cast<size_t>(e)] = i % kept;  // the reps bits pick the round, not the place
  }
  // The register bits holding vector bits first (in the vector's order), so that one thread's access
  // is consecutive values; a register basis of 0 (a repeat) is not moved.
  const Bases regs = in_dim(side, "register");
  std::vector<int> bits;
  for (int64_t x : s.vector)
    for (size_t k = 0; k < regs.size(); ++k)
      if (regs[k] == x) bits.push_back(static_cast<int>(k));
  for (size_t k = 0; k < regs.size(); ++k)
    if (regs[k] != 0 && std::find(bits.begin(), bits.end(), static_cast<int>(k)) == bits.end()) bits.push_back(static_cast<int>(k));
  values = int64_t{1} << bits.size();
  threads = side.size() >> regs.size();
  std::vector<int64_t> off(static_cast<size_t>(threads * values));
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t v = 0; v < values; ++v) {
      int64_t index = t << regs.size();
      for (size_t k = 0; k < bits.size(); ++k)
        if ((v >> k) & 1) index |= int64_t{1} << bits[k];
      off[static_cast<size_t>(t * values + v)] = offset_of[static_cast<size_t>(side(index))];
    }
  return off;
}

}  // namespace tfspec::kernel
