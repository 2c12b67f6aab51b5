// spec/TRITON.md §3.2.1: the shared-memory scratch Triton 3.9 builds for a convert_layout that goes
// through shared memory, derived in our words from its lib/Tools/GenericSwizzling.cpp (the pairs of
// instruction tiles, and the ld/st path when no pair fits), the tiles NVIDIA targets offer, and the
// NVIDIA backend's Allocation.cpp (which sizes the scratch with the same choice). Everything works
// on flat element indices (dim0 fastest) over F2: a basis is the element one in-bit reaches. Checked
// against Triton's own allocation and PTX (frontends/triton/tests/fixtures/convert_cases.py).
#include <algorithm>
#include <array>
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

namespace cvt_scratch {

// The scratch from its vector and each side's wavefront bits: segment bits first, bank bits the
// single bits left, reps the segment's registers of both sides (after the first `leave_reps`, which
// a pair of matrix instructions needs to stay whole).
ConvertScratch lay_out(const Sides& s, int64_t bits, int dim, const Bases& vector, const Bases& tile_src, const Bases& tile_dst, int leave_reps) {
  ConvertScratch r;
  r.bits = bits;
  r.vector = vector;
  const int64_t vec_total = (int64_t{1} << vector.size()) * bits;
  Bases bank_src = vector, bank_dst = vector;
  bank_src.insert(bank_src.end(), tile_src.begin(), tile_src.end());
  bank_dst.insert(bank_dst.end(), tile_dst.begin(), tile_dst.end());
  const int vec_n = static_cast<int>(vector.size());
  const int bank_n = std::min(std::countr_zero(static_cast<uint64_t>(std::max<int64_t>(1, 1024 / vec_total))), dim - vec_n);
  const Bases seg = segment_bits(bank_src, bank_dst, dim, static_cast<size_t>(dim - bank_n - vec_n));
  Bases taken = vector;
  taken.insert(taken.end(), seg.begin(), seg.end());
  r.bank = complement_units(taken, dim);
  for (int64_t x : seg) {
    const bool both = has(s.reg_src, x) && has(s.reg_dst, x);  // registers both hold: replayed
    if (both && leave_reps > 0) --leave_reps, r.segment.push_back(x);
    else (both ? r.reps : r.segment).push_back(x);
  }
  r.bytes = (int64_t{1} << (r.vector.size() + r.bank.size() + r.segment.size())) * bits / 8;
  return r;
}

// The ld/st path: Triton's vector, each side's wavefront lanes; under a 128-bit vector the bank bits
// one side holds in registers come first (that side's wider accesses).
ConvertScratch ld_st_scratch(const Sides& s, int64_t bits, int dim) {
  std::optional<bool> src_fills;
  const Bases vector = vector_bits(s, bits, dim, src_fills);
  const int64_t vec_total = (int64_t{1} << vector.size()) * bits;
  ConvertScratch r = lay_out(s, bits, dim, vector, wavefront_lanes(s.lane_src, vec_total), wavefront_lanes(s.lane_dst, vec_total), 0);
  r.store = "st.shared", r.load = "ld.shared";
  if (vec_total >= 128) return r;
  const auto in_regs = [&](const Bases& regs) {
    Bases v;
    for (int64_t x : r.bank)
      if (has(regs, x)) v.push_back(x);
    return v;
  };
  const Bases bs = in_regs(s.reg_src), bd = in_regs(s.reg_dst);
  Bases first = src_fills ? (*src_fills ? bs : bd) : (bs.size() > bd.size() ? bs : bd);
  for (int64_t x : r.bank)
    if (!has(first, x)) first.push_back(x);
  r.bank = first;
  return r;
}

// One instruction's tile (spec/TRITON.md §3.2.1): the lanes whose bits run along its 16-byte rows
// (`contig`; the rest of the row is registers) and the lanes that pick one phase's rows (`addr`;
// the rest of the 8 rows is registers).
struct Instr {
  const char* name;
  std::vector<int> contig, addr;
};

std::vector<Instr> instructions(bool store, int sm, int64_t bits) {
  std::vector<Instr> v{{store ? "st.shared" : "ld.shared", {}, {0, 1, 2}}};
  const bool has_it = store ? sm >= 90 : sm >= 75;  // stmatrix from sm90, ldmatrix from sm75
  if (has_it && bits <= 32) v.push_back({store ? "stmatrix" : "ldmatrix", {0, 1}, {2, 3, 4}});
  if (has_it && bits == 16) v.push_back({store ? "stmatrix.trans" : "ldmatrix.trans", {2, 3, 4}, {0, 1}});
  return v;
}

// Which in-bits of `l` (registers without repeats first, then lanes, then warps) make element e:
// a mask over the bases, or none when e is not reached.
std::optional<int64_t> preimage(const Bases& bases, int64_t e) {
  std::vector<std::pair<int64_t, int64_t>> rows;  // (value, which bases), reduced on lowest set bits
  for (size_t i = 0; i < bases.size(); ++i) {
    std::pair<int64_t, int64_t> r{bases[i], int64_t{1} << i};
    for (const auto& [v, m] : rows)
      if (r.first & (v & -v)) r.first ^= v, r.second ^= m;
    if (r.first) rows.push_back(r);
  }
  int64_t mask = 0;
  for (const auto& [v, m] : rows)
    if (e & (v & -v)) e ^= v, mask ^= m;
  return e == 0 ? std::optional<int64_t>(mask) : std::nullopt;
}


struct Side {
  Bases regs, lanes, all;  // registers without repeats, the five lanes, then regs + lanes + warps
};

Side side_of(const LinearLayout& l) {
  Side d{nonzero(in_dim(l, "register")), in_dim(l, "lane"), {}};
  d.all = d.regs;
  d.all.insert(d.all.end(), d.lanes.begin(), d.lanes.end());
  for (int64_t x : in_dim(l, "warp")) d.all.push_back(x);
  return d;
}

// The 128-bit vector a pair of instructions can share (Triton's optimalSwizzlingTile, in our words):
// the registers both sides hold, as many as the side with fewer register bits in its row needs,
// then that side's row lanes; the other side's surplus row bits must be registers where the first
// side has row lanes, and their row lanes must be the same lanes in both.
std::optional<Bases> pair_vector(const Side& a, const Side& b, int n_a, int n_b, const std::vector<int>& ids_a, const std::vector<int>& ids_b, int dim) {
  if (n_a < n_b) return pair_vector(b, a, n_b, n_a, ids_b, ids_a, dim);
  Bases v = shared_span(a.regs, b.regs, dim);
  if (static_cast<int>(v.size()) < n_b) return std::nullopt;
  v.resize(static_cast<size_t>(n_b));
  for (int i : ids_a)
    if (a.lanes[static_cast<size_t>(i)] == 0) return std::nullopt;
  for (int i : ids_b)
    if (b.lanes[static_cast<size_t>(i)] == 0) return std::nullopt;
  const int64_t reg_mask = (int64_t{1} << a.regs.size()) - 1, lane_mask = int64_t{31} << a.regs.size();
  for (int i = 0; i < n_a - n_b; ++i) {
    const std::optional<int64_t> m = preimage(a.all, b.lanes[static_cast<size_t>(ids_b[static_cast<size_t>(i)])]);
    if (!m || (*m & reg_mask) == 0) return std::nullopt;
  }
  for (size_t k = 0; k < ids_a.size(); ++k) {
    const std::optional<int64_t> m = preimage(a.all, b.lanes[static_cast<size_t>(ids_b[ids_b.size() - ids_a.size() + k])]);
    if (!m || (*m & lane_mask) != (int64_t{1} << (a.regs.size() + static_cast<size_t>(ids_a[k])))) return std::nullopt;
  }
  for (int i : ids_b) v.push_back(b.lanes[static_cast<size_t>(i)]);
  return v;
}

// One phase's rows of an instruction on a side: its first registers outside the vector, then its
// address lanes (8 rows in all); none when it has too few registers.
std::optional<Bases> phase_rows(const Instr& in, const Side& d, const Bases& vector) {
  Bases rows;
  for (int64_t r : d.regs)
    if (rows.size() + in.addr.size() < 3 && !has(vector, r)) rows.push_back(r);
  if (rows.size() + in.addr.size() < 3) return std::nullopt;
  for (int i : in.addr) rows.push_back(d.lanes[static_cast<size_t>(i)]);
  return rows;
}

}  // namespace cvt_scratch

TritonConvertPath triton_convert_path(const LinearLayout& src, const LinearLayout& dst) {
  using namespace cvt_scratch;
  // Triton's map from each destination basis to the source's hardware bits (its invertAndCompose):
  // an input dimension whose bases are the same list on both sides maps to itself; the others are
  // solved over the source's bases of those dimensions in order (register, lane, warp, block), a
  // basis in the span of earlier ones (a repeat, a broadcast) never used.
  static const char* kDims[] = {"register", "lane", "warp", "block"};
  std::vector<bool> same(4);
  Bases a;
  std::vector<std::pair<size_t, size_t>> range(4);  // where each dimension's bases sit in `a`
  for (int d = 0; d < 4; ++d) {
    const Bases bs = in_dim(src, kDims[d]);
    same[static_cast<size_t>(d)] = bs == in_dim(dst, kDims[d]);
    range[static_cast<size_t>(d)] = {a.size(), a.size() + (same[static_cast<size_t>(d)] ? 0 : bs.size())};
    if (!same[static_cast<size_t>(d)]) a.insert(a.end(), bs.begin(), bs.end());
  }
  const auto bits_of = [&](int d, int64_t mask) { return (mask >> range[static_cast<size_t>(d)].first) & ((int64_t{1} << (range[static_cast<size_t>(d)].second - range[static_cast<size_t>(d)].first)) - 1); };
  TritonConvertPath p;
  // From the slowest dimension: it is quotiented out (no data crosses it) when it maps to itself,
  // or when destination basis k of it is source basis k of it alone and no other destination basis
  // reaches it. The first dimension that is not decides: block or warp 2, lane 1; none 0.
  for (int d = 3; d >= 1 && p.level == 0; --d) {
    if (same[static_cast<size_t>(d)]) continue;
    bool ok = true;
    for (int e = 0; e < 4 && ok; ++e) {
      if (same[static_cast<size_t>(e)] || e > d) continue;  // slower dimensions were quotiented out
      const Bases bs = in_dim(dst, kDims[e]);
      for (size_t k = 0; k < bs.size() && ok; ++k) {
        const std::optional<int64_t> m = preimage(a, bs[k]);
        if (!m) ok = false;
        else if (e == d) ok = *m == (int64_t{1} << (range[static_cast<size_t>(d)].first + k));
        else ok = bits_of(d, *m) == 0;
      }
    }
    if (!ok) p.level = d >= 2 ? 2 : 1;
  }
  // Where the data stays within a warp, shuffles serve when no destination warp basis comes from a
  // source register (a register choice that differs by warp) and registers and lanes trade at most
  // one bit each way (one mixed transposition): destination lanes from source registers, and
  // destination registers from source lanes.
  const auto from = [&](const char* dim_of_dst, int dim_of_src) {
    int n = 0;
    if (same[static_cast<size_t>(dim_of_src)]) return 0;
    for (int64_t x : in_dim(dst, dim_of_dst)) {
      const std::optional<int64_t> m = x == 0 ? std::nullopt : preimage(a, x);
      n += m && bits_of(dim_of_src, *m) != 0;
    }
    return n;
  };
  p.shuffles = p.level > 0 && (same[2] || from("warp", 0) == 0) && from("lane", 0) <= 1 && from("register", 1) <= 1;
  return p;
}

std::optional<ConvertScratch> triton_convert_scratch(const LinearLayout& src, const LinearLayout& dst, int64_t elem_bits, int sm, std::string& why_not) {
  using namespace cvt_scratch;
  if (!nonzero(in_dim(src, "block")).empty() || !nonzero(in_dim(dst, "block")).empty()) {
    why_not = "the layouts span several CTAs (block bases): not modelled";
    return std::nullopt;
  }
  const int dim = src.out_bits();
  const int64_t bits = std::max<int64_t>(8, elem_bits);
  const Sides s{nonzero(in_dim(src, "register")), nonzero(in_dim(dst, "register")), in_dim(src, "lane"), in_dim(dst, "lane"), in_dim(src, "warp"), in_dim(dst, "warp")};
  const Side a = side_of(src), b = side_of(dst);
  const int total = std::countr_zero(static_cast<uint64_t>(std::max<int64_t>(1, 128 / bits)));
  std::optional<ConvertScratch> best;
  int64_t best_cost = 0;
  for (const Instr& is : instructions(true, sm, bits))
    for (const Instr& il : instructions(false, sm, bits)) {
      const int n_s = total - static_cast<int>(is.contig.size()), n_l = total - static_cast<int>(il.contig.size());
      if (n_s < 0 || n_l < 0) continue;
      const std::optional<Bases> v = pair_vector(a, b, n_s, n_l, is.contig, il.contig, dim);
      const std::optional<Bases> rs = v ? phase_rows(is, a, *v) : std::nullopt, rl = v ? phase_rows(il, b, *v) : std::nullopt;
      if (!rs || !rl) continue;
      const int leave = static_cast<int>(std::min(is.contig.size() + is.addr.size(), il.contig.size() + il.addr.size())) - 3;
      ConvertScratch c = lay_out(s, bits, dim, *v, *rs, *rl, leave);
      c.store = is.name, c.load = il.name, c.store_rows = *rs, c.load_rows = *rl;
      const int64_t cost = (int64_t{1} << shared_span(c.segment, *rs, dim).size()) + (int64_t{1} << shared_span(c.segment, *rl, dim).size());
      if (!best || cost < best_cost || (cost == best_cost && c.reps.size() > best->reps.size())) best = c, best_cost = cost;
    }
  ConvertScratch r = best ? *best : ld_st_scratch(s, bits, dim);
  if (static_cast<int>(r.vector.size() + r.bank.size() + r.segment.size() + r.reps.size()) != dim) {
    why_not = "the scratch bits do not cover the tile";
    return std::nullopt;
  }
  return r;
}
std::optional<ConvertScratch> triton_ld_st_scratch(const LinearLayout& src, const LinearLayout& dst, int64_t elem_bits) {
  using namespace cvt_scratch;
  const int dim = src.out_bits();
  const Sides s{nonzero(in_dim(src, "register")), nonzero(in_dim(dst, "register")), in_dim(src, "lane"), in_dim(dst, "lane"), in_dim(src, "warp"), in_dim(dst, "warp")};
  ConvertScratch r = ld_st_scratch(s, std::max<int64_t>(8, elem_bits), dim);
  if (static_cast<int>(r.vector.size() + r.bank.size() + r.segment.size() + r.reps.size()) != dim) return std::nullopt;
  return r;
}

namespace cvt_scratch {

// Each element's place in the scratch (the reps bits pick the round, not the place); empty when the
// bases do not span the `dim`-bit tile.
std::vector<int64_t> offsets_by_element(const ConvertScratch& s, int dim) {
  Bases order = s.vector;  // the scratch's bits, lowest first; the reps last
  for (const Bases* b : {&s.bank, &s.segment, &s.reps}) order.insert(order.end(), b->begin(), b->end());
  if (static_cast<int>(order.size()) != dim) return {};
  const int64_t kept = int64_t{1} << (s.vector.size() + s.bank.size() + s.segment.size());
  std::vector<int64_t> offset_of(static_cast<size_t>(int64_t{1} << dim), -1);
  for (int64_t i = 0; i < (int64_t{1} << dim); ++i) {
    int64_t e = 0;
    for (int k = 0; k < dim; ++k)
      if ((i >> k) & 1) e ^= order[static_cast<size_t>(k)];
    if (e < 0 || e >= (int64_t{1} << dim) || offset_of[static_cast<size_t>(e)] != -1) return {};
    offset_of[static_cast<size_t>(e)] = i % kept;
  }
  return offset_of;
}

}  // namespace cvt_scratch

std::vector<int64_t> scratch_offsets(const LinearLayout& side, const ConvertScratch& s, int64_t& threads, int64_t& values) {
  using namespace cvt_scratch;
  const std::vector<int64_t> offset_of = offsets_by_element(s, side.out_bits());
  if (offset_of.empty()) return {};
  // The registers ordered as Triton's lowering permutes them before it vectorises an access (the
  // largest vectorisation over any order of the registers): first the chain of registers whose
  // elements sit at offsets 1, 2, 4, ... of the scratch, then the others in their order. A register
  // basis of 0 (a repeat) is not moved.
  const Bases regs = in_dim(side, "register");
  std::vector<int> bits;
  const auto taken = [&](size_t k) { return std::find(bits.begin(), bits.end(), static_cast<int>(k)) != bits.end(); };
  for (int64_t want = 1;; want *= 2) {
    size_t k = 0;
    while (k < regs.size() && (regs[k] == 0 || taken(k) || offset_of[static_cast<size_t>(regs[k])] != want)) ++k;
    if (k == regs.size()) break;
    bits.push_back(static_cast<int>(k));
  }
  for (size_t k = 0; k < regs.size(); ++k)
    if (regs[k] != 0 && !taken(k)) bits.push_back(static_cast<int>(k));
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

std::optional<MatrixPhases> matrix_phases(const ConvertScratch& s, const std::vector<int64_t>& rows, int dim) {
  using namespace cvt_scratch;
  const std::vector<int64_t> offset_of = offsets_by_element(s, dim);
  const int64_t vec = int64_t{1} << s.vector.size();
  if (offset_of.empty() || vec * s.bits != 128) return std::nullopt;
  Bases span{0};  // the 8 rows of a phase, from its first
  for (int64_t r : rows)
    for (size_t k = 0, n = span.size(); k < n; ++k) span.push_back(span[k] ^ r);
  MatrixPhases out;
  std::vector<char> seen(offset_of.size(), 0);
  for (int64_t e = 0; e < static_cast<int64_t>(offset_of.size()); ++e) {
    if (offset_of[static_cast<size_t>(e)] % vec != 0 || seen[static_cast<size_t>(e)]) continue;  // rows start at a vector's first element
    std::array<int64_t, 8> slot{};  // distinct rows in each 16-byte slot of the 128-byte line
    std::vector<int64_t> places;
    for (int64_t d : span) {
      const int64_t row = e ^ d, o = offset_of[static_cast<size_t>(row)];
      seen[static_cast<size_t>(row)] = 1;
      if (std::find(places.begin(), places.end(), o) != places.end()) continue;
      places.push_back(o);
      ++slot[static_cast<size_t>((o / vec) % 8)];
    }
    const int64_t cost = *std::max_element(slot.begin(), slot.end());
    out.wavefronts += cost, out.ideal += 1, out.worst = std::max(out.worst, cost);
  }
  return out;
}

}  // namespace tfspec::kernel
