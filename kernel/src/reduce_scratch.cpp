// spec/TRITON.md §3.5.1: the shared-memory scratch Triton 3.9 takes for a tt.reduce, derived in our
// words from its ReduceOpHelper (lib/Analysis/Utility.cpp) and the allocation that sizes it, and
// checked against Triton's own metadata.shared (frontends/triton/tests/fixtures/reduce_cases.py).
// Everything works on the layout's bases per in-dim (register, lane, warp, block), each basis its
// coordinates per tensor dim.
#include <algorithm>

#include "tfspec/kernel/layout_program.hpp"

namespace tfspec::kernel {
namespace {

using Basis = std::vector<int64_t>;
using Bases = std::vector<Basis>;

struct Dims {  // the in-dims by name, in Triton's order
  Bases reg, lane, warp, block;
  std::vector<Bases*> all() { return {&reg, &lane, &warp, &block}; }
};

bool zero(const Basis& b) { return std::all_of(b.begin(), b.end(), [](int64_t x) { return x == 0; }); }

Dims dims_of(const LinearLayout& l) {
  Dims d;
  for (const LinearInDim& in : l.ins()) {
    if (in.name == "register") d.reg = in.bases;
    else if (in.name == "lane") d.lane = in.bases;
    else if (in.name == "warp") d.warp = in.bases;
    else if (in.name == "block") d.block = in.bases;
  }
  return d;
}

// The axis coordinate of every basis of `which` set to 0, then every basis still reaching along the
// axis renumbered 1, 2, 4, ... in in-dim order (the partial results, one per such bit, packed).
void fold_along(Dims& d, Bases& which, int axis) {
  for (Basis& b : which) b[static_cast<size_t>(axis)] = 0;
  int64_t next = 1;
  for (Bases* in : d.all())
    for (Basis& b : *in)
      if (b[static_cast<size_t>(axis)] != 0) b[static_cast<size_t>(axis)] = next, next *= 2;
}

int64_t axis_bits(Dims& d, int axis) {
  int64_t n = 0;
  for (Bases* in : d.all())
    for (const Basis& b : *in) n += b[static_cast<size_t>(axis)] != 0;
  return n;
}

LinearLayout layout_of(Dims& d, std::vector<LinearOutDim> outs, int axis) {
  outs[static_cast<size_t>(axis)].size = int64_t{1} << axis_bits(d, axis);
  return LinearLayout({{"register", d.reg}, {"lane", d.lane}, {"warp", d.warp}, {"block", d.block}}, outs);
}

// One round's destination: the warp bits along the axis trade places with lanes, lanes that hold
// nothing (zero bases) first; where too few are zero, lanes 0, 1, ... in order.
Dims into_lanes(Dims d, int axis) {
  std::vector<size_t> along, empty;
  for (size_t i = 0; i < d.warp.size(); ++i)
    if (d.warp[i][static_cast<size_t>(axis)] != 0) along.push_back(i);
  for (size_t i = 0; i < d.lane.size(); ++i)
    if (zero(d.lane[i])) empty.push_back(i);
  for (size_t k = 0; k < along.size() && k < d.lane.size(); ++k)
    std::swap(d.warp[along[k]], d.lane[empty.size() >= along.size() ? empty[k] : k]);
  return d;
}

}  // namespace

std::optional<ReduceScratch> triton_reduce_scratch(const LinearLayout& src, int axis, const std::vector<int64_t>& operand_bits, std::string& why_not) {
  if (axis < 0 || axis >= static_cast<int>(src.outs().size())) {
    why_not = "the reduced axis is not a dim of the operand";
    return std::nullopt;
  }
  Dims d = dims_of(src);
  if (std::any_of(d.block.begin(), d.block.end(), [](const Basis& b) { return !zero(b); })) {
    why_not = "the layout spans several CTAs (block bases): not modelled";
    return std::nullopt;
  }
  // Each thread folds its registers along the axis (repeated registers dropped), then each warp its
  // lanes (shuffles): what is left along the axis lies in warps only.
  fold_along(d, d.reg, axis);
  d.reg.erase(std::remove_if(d.reg.begin(), d.reg.end(), zero), d.reg.end());
  fold_along(d, d.lane, axis);
  ReduceScratch r;
  r.warps_on_axis = int64_t{1} << axis_bits(d, axis);
  while (axis_bits(d, axis) > 0) {
    Dims to = into_lanes(d, axis);
    const LinearLayout a = layout_of(d, src.outs(), axis), b = layout_of(to, src.outs(), axis);
    int64_t bytes = 0;  // every operand's scratch, side by side
    for (int64_t bits : operand_bits) {
      const std::optional<ConvertScratch> s = triton_ld_st_scratch(a, b, bits);
      if (!s) {
        why_not = "a round's scratch bases do not span its tile";
        return std::nullopt;
      }
      bytes += s->bytes;
    }
    r.round_bytes.push_back(bytes);
    r.bytes = std::max(r.bytes, bytes);
    // the round leaves the axis in lanes, which the warps then fold by shuffles
    fold_along(to, to.lane, axis);
    d = std::move(to);
  }
  return r;
}

std::optional<int64_t> triton_scan_scratch(const LinearLayout& src, int axis, const std::vector<int64_t>& operand_bits, std::string& why_not) {
  const size_t rank = src.outs().size();
  if (axis < 0 || axis >= static_cast<int>(rank)) {
    why_not = "the scanned axis is not a dim of the operand";
    return std::nullopt;
  }
  Dims d = dims_of(src);
  if (std::any_of(d.block.begin(), d.block.end(), [](const Basis& b) { return !zero(b); })) {
    why_not = "the layout spans several CTAs (block bases): not modelled";
    return std::nullopt;
  }
  d.reg.erase(std::remove_if(d.reg.begin(), d.reg.end(), zero), d.reg.end());  // a repeated register holds nothing new
  // Per dim: how many lanes and warps run along it (a basis counts for its first nonzero dim; 0
  // bases, a broadcast, for none), and each thread's contiguous run (its leading registers 1, 2, 4,
  // ... along a dim, the dims taken in the order the registers first reach them).
  const auto per_dim = [&](const Bases& in) {
    std::vector<int64_t> n(rank, 1);
    for (const Basis& b : in) {
      const auto it = std::find_if(b.begin(), b.end(), [](int64_t x) { return x != 0; });
      if (it != b.end()) n[static_cast<size_t>(it - b.begin())] *= 2;
    }
    return n;
  };
  const std::vector<int64_t> lanes = per_dim(d.lane), warps = per_dim(d.warp);
  std::vector<size_t> order;
  for (const Basis& b : d.reg)
    for (size_t k = 0; k < rank; ++k)
      if (b[k] != 0) {
        if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
        break;
      }
  for (size_t k = rank; k-- > 0;)
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  std::vector<int64_t> run(rank, 1);
  size_t next = 0;
  for (size_t k : order)
    for (; next < d.reg.size(); ++next) {
      Basis unit(rank, 0);
      unit[k] = run[k];
      if (d.reg[next] != unit) break;
      run[k] *= 2;
    }
  const size_t a = static_cast<size_t>(axis);
  if (warps[a] == 1) return 0;  // the scan stays within each warp
  int64_t all_warps = 1, lanes_off = 1, run_off = 1, blocks_off = 1;
  for (size_t k = 0; k < rank; ++k) {
    all_warps *= warps[k];
    if (k == a) continue;
    lanes_off *= lanes[k], run_off *= run[k];
    const int64_t tile = run[k] * lanes[k] * warps[k];
    blocks_off *= (src.outs()[k].size + tile - 1) / tile;
  }
  const int64_t tile_a = run[a] * lanes[a] * warps[a], blocks_a = (src.outs()[a].size + tile_a - 1) / tile_a;
  int64_t bytes_per = 0;  // one element of every operand, side by side
  for (int64_t bits : operand_bits) bytes_per += (bits + 7) / 8;
  return bytes_per * all_warps * lanes_off * run_off * blocks_a * blocks_off;
}

}  // namespace tfspec::kernel
