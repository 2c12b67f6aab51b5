// The index core: flat, trivially copyable plans and the __host__ __device__ functions that
// evaluate them. The host backend and the CUDA kernels run exactly these functions.
//
// A FnPlan is a layout function as a chain of stages applied to an integer (§3, §4):
//   Layout stage: v must lie in [0, size); v is decomposed colexicographically over the flat
//                 extents (D1) and the coordinates are dotted with the strides;
//   Add stage:    v + add (the offset of a ComposedLayout; an absent inner / outer is identity).
//   Swizzle stage: v xor ((v & mask) >> shift) (a left shift for a negative shift): the swizzle
//                 Sw<B,M,S> of extension X1 (spec/ALGEBRA.md), an F2-linear map of the offset's bits.
// ComposedLayout(inner, o, outer) is stages(outer) ++ [Add o] ++ stages(inner).
#pragma once
#include <cstdint>
#include <cstring>

#include "tfspec/gpu/fast_divmod.hpp"

namespace tfspec::gpu {

inline constexpr int kMaxModes = 32;   // flat modes per stage / flat dims of G
inline constexpr int kMaxStages = 6;   // a ComposedLayout nested twice
inline constexpr int kMaxMeshAxes = 8;

// Per-element outcome; anything but Ok names the rule the host reports.
enum Status : uint32_t {
  kOk = 0,
  kCoordInDomain,     // coord-in-domain
  kOverflow,          // int64-overflow
  kEngineMissing,     // engine-missing
  kEngineBufferSize,  // engine-buffer-size (also a gather/scatter offset past the buffer)
  kOffsetNegative,    // engine-offset-negative
  kReplicaMismatch,   // replica-mismatch
  kCollision,         // layout-injective (scatter: two indices write one slot)
};

// Index arithmetic a plan is proved to need (decided by the plan compiler from the bounds).
enum IndexMode : int32_t { kIndex32 = 0, kIndex64 = 1, kIndex64Checked = 2 };

enum StageKind : int32_t { kStageAdd = 0, kStageLayout = 1, kStageSwizzle = 2 };

struct Stage {
  int32_t is_layout = 0;  // a StageKind
  int32_t sw_shift = 0;   // swizzle: S (negative: a left shift)
  int64_t sw_mask = 0;    // swizzle: the bits read (Y)
  int32_t n = 0;     // flat modes
  int64_t size = 1;  // product of extents
  int64_t add = 0;
  int64_t extent[kMaxModes];
  int64_t stride[kMaxModes];
  FastDivmod32 div32[kMaxModes];
  FastDivmod64 div64[kMaxModes];
};

struct FnPlan {
  int32_t num_stages = 0;
  IndexMode mode = kIndex64Checked;
  int32_t domain_rank = 0;  // flat rank of the domain (the coordinate path)
  int64_t domain_size = 1;
  int64_t domain_extent[kMaxModes];
  Stage stages[kMaxStages];
};

// ---- evaluation

// One Layout stage on v, in the plan's index width (Int = int32_t or int64_t). Sums wrap in the
// unsigned type: the plan compiler proved they do not, and a wrong proof must show as a wrong
// answer to the fuzzer, not as undefined behaviour.
template <class Int>
struct Width;
template <>
struct Width<int32_t> {
  using U = uint32_t;
  TFSPEC_HD static const FastDivmod32& div(const FastDivmod32* d32, const FastDivmod64*, int k) { return d32[k]; }
};
template <>
struct Width<int64_t> {
  using U = uint64_t;
  TFSPEC_HD static const FastDivmod64& div(const FastDivmod32*, const FastDivmod64* d64, int k) { return d64[k]; }
};

template <class Int>
TFSPEC_HD Status eval_layout_stage(const Stage& s, Int v, Int& out) {
  using U = typename Width<Int>::U;
  if (v < 0 || v >= s.size) return kCoordInDomain;
  U rest = static_cast<U>(v), q, r;
  U acc = 0;
  for (int k = 0; k + 1 < s.n; ++k) {
    Width<Int>::div(s.div32, s.div64, k).divmod(rest, q, r);
    acc += r * static_cast<U>(s.stride[k]);
    rest = q;
  }
  if (s.n > 0) acc += rest * static_cast<U>(s.stride[s.n - 1]);
  out = static_cast<Int>(acc);
  return kOk;
}

// The checked variant: every product and sum is tested (plans whose bounds exceed int64).
TFSPEC_HD Status eval_layout_stage_checked(const Stage& s, int64_t v, int64_t& out) {
  if (v < 0 || v >= s.size) return kCoordInDomain;
  uint64_t rest = static_cast<uint64_t>(v), q, r;
  int64_t acc = 0, t;
  for (int k = 0; k < s.n; ++k) {
    if (k + 1 < s.n) {
      s.div64[k].divmod(rest, q, r);
    } else {
      r = rest;
      q = 0;
    }
    if (mul_overflows(static_cast<int64_t>(r), s.stride[k], t) || add_overflows(acc, t, acc)) return kOverflow;
    rest = q;
  }
  out = acc;
  return kOk;
}

// A swizzle stage on v, in the plan's width. The plan compiler chose a width that holds the
// swizzle's bits (it never reads or changes the sign bit), so it cannot overflow.
template <class Int>
TFSPEC_HD Int eval_swizzle_stage(const Stage& s, Int v) {
  using U = typename Width<Int>::U;
  const U x = static_cast<U>(v), y = x & static_cast<U>(s.sw_mask);
  return static_cast<Int>(x ^ (s.sw_shift >= 0 ? y >> s.sw_shift : y << -s.sw_shift));
}

// Runs stages [first, num_stages) on v.
template <class Int>
TFSPEC_HD Status eval_stages(const FnPlan& p, int first, Int v, Int& out) {
  for (int i = first; i < p.num_stages; ++i) {
    const Stage& s = p.stages[i];
    if (s.is_layout == kStageLayout) {
      Status st = eval_layout_stage<Int>(s, v, v);
      if (st != kOk) return st;
    } else if (s.is_layout == kStageSwizzle) {
      v = eval_swizzle_stage<Int>(s, v);
    } else {
      v = static_cast<Int>(static_cast<typename Width<Int>::U>(v) + static_cast<typename Width<Int>::U>(s.add));
    }
  }
  out = v;
  return kOk;
}

TFSPEC_HD Status eval_stages_checked(const FnPlan& p, int first, int64_t v, int64_t& out) {
  for (int i = first; i < p.num_stages; ++i) {
    const Stage& s = p.stages[i];
    if (s.is_layout == kStageSwizzle) {  // bits below the sign bit only: never overflows
      v = eval_swizzle_stage<int64_t>(s, v);
      continue;
    }
    Status st = s.is_layout == kStageLayout ? eval_layout_stage_checked(s, v, v) : (add_overflows(v, s.add, v) ? kOverflow : kOk);
    if (st != kOk) return st;
  }
  out = v;
  return kOk;
}

// L(i) for an integer index i of the domain (D1 colexicographic).
TFSPEC_HD Status eval_index(const FnPlan& p, int64_t i, int64_t& out) {
  if (p.mode == kIndex32) {
    int32_t r = 0;
    Status st = eval_stages<int32_t>(p, 0, static_cast<int32_t>(i), r);
    out = r;
    return st;
  }
  if (p.mode == kIndex64) return eval_stages<int64_t>(p, 0, i, out);
  return eval_stages_checked(p, 0, i, out);
}

// The outputs of Layout stage `s` for the consecutive inputs [i, i + count) (all inside the
// stage's domain): i is decomposed once, then the coordinates step like an odometer, so the
// inner run along mode 0 is one add per element. Same values as eval_layout_stage, element by
// element (the plan compiler proved the width).
template <class Int>
TFSPEC_HD void layout_stage_run(const Stage& s, int64_t i, int64_t count, int64_t* out) {
  using U = typename Width<Int>::U;
  if (s.n == 0) {
    for (int64_t j = 0; j < count; ++j) out[j] = 0;
    return;
  }
  U c[kMaxModes];
  U rest = static_cast<U>(i), q, r, base = 0;
  for (int k = 0; k + 1 < s.n; ++k) {
    Width<Int>::div(s.div32, s.div64, k).divmod(rest, q, r);
    c[k] = r;
    rest = q;
  }
  c[s.n - 1] = rest;
  for (int k = 0; k < s.n; ++k) base += c[k] * static_cast<U>(s.stride[k]);
  const U s0 = static_cast<U>(s.stride[0]), e0 = static_cast<U>(s.extent[0]);
  for (int64_t j = 0; j < count;) {
    const int64_t left = count - j, room = static_cast<int64_t>(e0 - c[0]);
    const int64_t run = left < room ? left : room;
    U v = base;
    for (int64_t t = 0; t < run; ++t, v += s0) out[j + t] = static_cast<Int>(v);
    j += run;
    c[0] += static_cast<U>(run);
    base = v;
    for (int k = 0; k + 1 < s.n && c[k] == static_cast<U>(s.extent[k]); ++k) {  // carry
      base -= static_cast<U>(s.extent[k]) * static_cast<U>(s.stride[k]);
      c[k] = 0;
      ++c[k + 1];
      base += static_cast<U>(s.stride[k + 1]);
    }
  }
}

// The host's widened odometer (issue 23, host backend at the limit): a tile is the table of a
// Layout stage's first `modes` modes (their product `size` at most kTileMax; their offsets from
// the tile's start, in the plan's width), so the innermost run of the odometer is `size` elements
// of out[t] = base + at[t]: a loop with no carry and no multiply inside, which the compiler
// vectorizes; the carry runs once a tile. Host only (a table this size does not belong on a
// device thread's stack). Same values as eval_layout_stage, element by element.
inline constexpr int64_t kTileMax = 4096;
template <class Int>
struct StageTile {
  int modes = 0;     // 0: no tile (the first mode alone is longer than kTileMax)
  int64_t size = 1;
  typename Width<Int>::U at[kTileMax];
};
template <class Int>
inline void make_stage_tile(const Stage& s, StageTile<Int>& t) {
  using U = typename Width<Int>::U;
  t.modes = 0;
  t.size = 1;
  while (t.modes < s.n && t.size * s.extent[t.modes] <= kTileMax) t.size *= s.extent[t.modes++];
  if (t.modes == 0) return;
  U c[kMaxModes] = {}, v = 0;
  for (int64_t p = 0; p < t.size; ++p) {  // an odometer over the tile's modes
    t.at[p] = v;
    for (int k = 0; k < t.modes; ++k) {
      v += static_cast<U>(s.stride[k]);
      if (++c[k] < static_cast<U>(s.extent[k]) || k + 1 == t.modes) break;
      v -= static_cast<U>(s.extent[k]) * static_cast<U>(s.stride[k]);
      c[k] = 0;
    }
  }
}
template <class Int>
__attribute__((always_inline)) inline void layout_stage_tiled_run(const Stage& s, const StageTile<Int>& tile, int64_t i, int64_t count, int64_t* out) {
  using U = typename Width<Int>::U;
  const int m = tile.modes, n = s.n;
  U c[kMaxModes];
  U rest = static_cast<U>(i), q, r, base = 0;
  for (int k = 0; k < m && k + 1 < n; ++k) {
    Width<Int>::div(s.div32, s.div64, k).divmod(rest, q, r);
    rest = q;
  }
  if (m == n) rest = 0;  // the tile is the whole stage: i < size
  int64_t pos = i - static_cast<int64_t>(rest) * tile.size;
  for (int k = m; k + 1 < n; ++k) {
    Width<Int>::div(s.div32, s.div64, k).divmod(rest, q, r);
    c[k] = r;
    rest = q;
  }
  if (m < n) c[n - 1] = rest;
  for (int k = m; k < n; ++k) base += c[k] * static_cast<U>(s.stride[k]);
  for (int64_t j = 0; j < count;) {
    const int64_t run = count - j < tile.size - pos ? count - j : tile.size - pos;
    int64_t* __restrict__ o = out + j;
    const U* __restrict__ a = tile.at + pos;
    for (int64_t t = 0; t < run; ++t) o[t] = static_cast<Int>(base + a[t]);
    j += run;
    pos = 0;
    for (int k = m; k < n; ++k) {  // carry: the next tile
      base += static_cast<U>(s.stride[k]);
      if (++c[k] < static_cast<U>(s.extent[k]) || k + 1 == n) break;
      base -= static_cast<U>(s.extent[k]) * static_cast<U>(s.stride[k]);
      c[k] = 0;
    }
  }
}

// L(c) for a flat coordinate of the domain (batched crd2idx). The first stage, when it is a
// Layout, dots the coordinate directly; otherwise (no outer) the coordinate becomes its
// colexicographic index first.
TFSPEC_HD Status eval_coord(const FnPlan& p, const int64_t* crd, int64_t& out) {
  for (int k = 0; k < p.domain_rank; ++k)
    if (crd[k] < 0 || crd[k] >= p.domain_extent[k]) return kCoordInDomain;
  if (p.num_stages == 0 || p.stages[0].is_layout != kStageLayout) {
    int64_t idx = 0;
    for (int k = p.domain_rank; k-- > 0;) idx = idx * p.domain_extent[k] + crd[k];
    return eval_index(p, idx, out);
  }
  const Stage& s = p.stages[0];
  if (p.mode == kIndex64Checked) {
    int64_t acc = 0, t;
    for (int k = 0; k < s.n; ++k)
      if (mul_overflows(crd[k], s.stride[k], t) || add_overflows(acc, t, acc)) return kOverflow;
    return eval_stages_checked(p, 1, acc, out);
  }
  if (p.mode == kIndex32) {
    uint32_t acc = 0;
    for (int k = 0; k < s.n; ++k) acc += static_cast<uint32_t>(crd[k]) * static_cast<uint32_t>(s.stride[k]);
    int32_t r = 0;
    Status st = eval_stages<int32_t>(p, 1, static_cast<int32_t>(acc), r);
    out = r;
    return st;
  }
  uint64_t acc = 0;
  for (int k = 0; k < s.n; ++k) acc += static_cast<uint64_t>(crd[k]) * static_cast<uint64_t>(s.stride[k]);
  return eval_stages<int64_t>(p, 1, static_cast<int64_t>(acc), out);
}

// ---- shard layouts (§7, D3): one side of a reshard

enum AxisKind : int32_t { kAxisSplit = 0, kAxisBroadcast = 1, kAxisSum = 2, kAxisMax = 3, kAxisMin = 4 };

struct ShardPlan {
  FnPlan layout;  // over flat G
  int32_t rank = 0;                    // flat dims of G
  int64_t g[kMaxModes] = {};
  int64_t local[kMaxModes];
  int32_t bind[kMaxModes];             // mesh axis Splitting dim k, or -1
  FastDivmod64 g_div[kMaxModes];       // row-major decomposition of the logical index over G (D2)
  FastDivmod64 local_div[kMaxModes];   // g[k] -> (mesh coordinate, local coordinate)
  int32_t mesh_rank = 0;
  int64_t mesh_extent[kMaxMeshAxes];
  FastDivmod64 mesh_div[kMaxMeshAxes]; // by mesh_extent (free / partial combinations)
  int64_t mesh_step[kMaxMeshAxes];     // row-major instance index steps
  int32_t kind[kMaxMeshAxes];
  int32_t num_free = 0;                // non-Split axes, in axis order
  int32_t free_axis[kMaxMeshAxes];
  int64_t free_combos = 1;
  int32_t num_partial = 0;             // Partial axes, in axis order
  int32_t partial_axis[kMaxMeshAxes];
  int64_t partial_combos = 1;
  // Engines: instance (row-major mesh index) -> engine id; engine id -> base in the packed
  // buffer (-1: no buffer) and its size.
  const int64_t* engine_of_instance = nullptr;
  int64_t num_engine_ids = 0;
  const int64_t* engine_base = nullptr;
  const int64_t* engine_size = nullptr;
};

// Row-major decomposition of the logical index l over G (D2: the row-major index over flat G is
// the logical index).
TFSPEC_HD void logical_to_global(const ShardPlan& s, int64_t l, int64_t* g) {
  uint64_t rest = static_cast<uint64_t>(l), q, r;
  for (int k = s.rank; k-- > 0;) {
    s.g_div[k].divmod(rest, q, r);
    g[k] = static_cast<int64_t>(r);
    rest = q;
  }
}

// Instance index of the Split part of g (the mesh coordinate on Split axes is g[k] / local[k]).
TFSPEC_HD int64_t split_instance(const ShardPlan& s, const int64_t* g) {
  int64_t mi = 0;
  uint64_t q, r;
  for (int k = 0; k < s.rank; ++k)
    if (s.bind[k] >= 0) {
      s.local_div[k].divmod(static_cast<uint64_t>(g[k]), q, r);
      mi += static_cast<int64_t>(q) * s.mesh_step[s.bind[k]];
    }
  return mi;
}

// Decomposes a free-axis combination f (row-major over the free axes) into its instance-index
// contribution, the part of it on Broadcast axes, whether any sum-Partial coordinate is nonzero,
// and its partial index (row-major over the Partial axes).
struct FreeCoord {
  int64_t instance_part;
  int64_t broadcast_part;
  bool sum_nonzero;
  int64_t partial_index;
};
TFSPEC_HD FreeCoord free_coord(const ShardPlan& s, int64_t f) {
  FreeCoord c{0, 0, false, 0};
  int64_t pstep = 1;
  uint64_t rest = static_cast<uint64_t>(f), q, r;
  for (int i = s.num_free; i-- > 0;) {
    const int a = s.free_axis[i];
    s.mesh_div[a].divmod(rest, q, r);
    const int64_t x = static_cast<int64_t>(r);
    rest = q;
    c.instance_part += x * s.mesh_step[a];
    if (s.kind[a] == kAxisBroadcast) {
      c.broadcast_part += x * s.mesh_step[a];
    } else {
      c.partial_index += x * pstep;
      pstep *= s.mesh_extent[a];
      if (s.kind[a] == kAxisSum && x != 0) c.sum_nonzero = true;
    }
  }
  return c;
}

// Instance-index contribution of partial combination j (row-major over the Partial axes).
TFSPEC_HD int64_t partial_instance(const ShardPlan& s, int64_t j, int64_t* coord) {
  int64_t part = 0;
  uint64_t rest = static_cast<uint64_t>(j), q, r;
  for (int i = s.num_partial; i-- > 0;) {
    const int a = s.partial_axis[i];
    s.mesh_div[a].divmod(rest, q, r);
    coord[i] = static_cast<int64_t>(r);
    rest = q;
    part += coord[i] * s.mesh_step[a];
  }
  return part;
}

TFSPEC_HD Status read_engine(const ShardPlan& s, const int64_t* data, int64_t instance, int64_t offset, int64_t& v) {
  const int64_t e = s.engine_of_instance[instance];
  if (e < 0 || e >= s.num_engine_ids || s.engine_base[e] < 0) return kEngineMissing;
  if (offset < 0 || offset >= s.engine_size[e]) return kEngineBufferSize;
  v = data[s.engine_base[e] + offset];
  return kOk;
}

TFSPEC_HD Status reduce_into(int32_t kind, int64_t& acc, int64_t v) {
  if (kind == kAxisSum) return add_overflows(acc, v, acc) ? kOverflow : kOk;
  if (kind == kAxisMax) acc = v > acc ? v : acc;
  else acc = v < acc ? v : acc;
  return kOk;
}

// assemble at logical index l: every holder's value (Broadcast replicas must agree), Partial
// axes reduced with the highest Partial mesh axis first.
TFSPEC_HD Status assemble_element(const ShardPlan& s, const int64_t* data, int64_t l, int64_t& x) {
  int64_t g[kMaxModes] = {};
  logical_to_global(s, l, g);
  int64_t offset = 0;
  Status st = eval_coord(s.layout, g, offset);
  if (st != kOk) return st;
  const int64_t base = split_instance(s, g);
  for (int64_t f = 0; f < s.free_combos; ++f) {  // the reference's order: row-major over free axes
    const FreeCoord c = free_coord(s, f);
    int64_t v = 0;
    if ((st = read_engine(s, data, base + c.instance_part, offset, v)) != kOk) return st;
    if (c.broadcast_part != 0) {  // the replica with Broadcast coordinates 0 was read earlier
      int64_t v0 = 0;
      read_engine(s, data, base + c.instance_part - c.broadcast_part, offset, v0);
      if (v0 != v) return kReplicaMismatch;
    }
  }
  int64_t acc[kMaxMeshAxes], coord[kMaxMeshAxes];
  for (int64_t j = 0; j < s.partial_combos; ++j) {
    int64_t v = 0;
    read_engine(s, data, base + partial_instance(s, j, coord), offset, v);
    if (s.num_partial == 0) {
      x = v;
      return kOk;
    }
    for (int lv = s.num_partial - 1;; --lv) {  // fold v into level lv, carrying finished levels up
      const int32_t kind = s.kind[s.partial_axis[lv]];
      if (coord[lv] == 0) acc[lv] = v;
      else if ((st = reduce_into(kind, acc[lv], v)) != kOk) return st;
      if (lv == 0 || coord[lv] != s.mesh_extent[s.partial_axis[lv]] - 1) break;
      v = acc[lv];
    }
  }
  x = acc[0];
  return kOk;
}

// distribute x at logical index l (D9: on a sum axis only coordinate 0 holds x, max / min
// replicate). `out` is the packed destination buffer.
TFSPEC_HD Status distribute_element(const ShardPlan& s, int64_t* out, int64_t l, int64_t x) {
  int64_t g[kMaxModes] = {};
  logical_to_global(s, l, g);
  int64_t offset = 0;
  Status st = eval_coord(s.layout, g, offset);
  if (st != kOk) return st;
  if (offset < 0) return kOffsetNegative;
  const int64_t base = split_instance(s, g);
  for (int64_t f = 0; f < s.free_combos; ++f) {
    const FreeCoord c = free_coord(s, f);
    const int64_t e = s.engine_of_instance[base + c.instance_part];
    out[s.engine_base[e] + offset] = c.sum_nonzero ? 0 : x;
  }
  return kOk;
}

// ---- reshard by contiguous runs (both sides step by 1; issue 11's vectorized copies)

// The device kernel's work split: each thread copies a chunk of at most kRunChunk elements
// (64 bytes) that lies inside one common run. A run of length R is cut into ceil(R / kRunChunk)
// chunks, all full but the last, so a run of any length (a prime above 8 included) moves 8
// elements per thread; chunk c is chunk c mod per_run of run c / per_run (FastDivmod: no division
// on the device). The logical size n need not be a multiple of the run.
inline constexpr int64_t kRunChunk = 8;
struct RunChunks {
  int64_t n = 0, run = 1, per_run = 1, total = 0;
  FastDivmod64 by_per_run;
};
inline RunChunks make_run_chunks(int64_t n, int64_t run) {
  RunChunks rc;
  rc.n = n;
  rc.run = run < 1 ? 1 : run;
  rc.per_run = (rc.run + kRunChunk - 1) / kRunChunk;
  rc.by_per_run = make_fast_divmod64(static_cast<uint64_t>(rc.per_run));
  const int64_t runs = n / rc.run + (n % rc.run != 0);
  rc.total = runs * rc.per_run;
  return rc;
}
// Chunk c as the logical segment [l, l + count); count is 0 for a chunk past n (a last run cut short).
TFSPEC_HD void run_chunk(const RunChunks& rc, int64_t c, int64_t& l, int64_t& count) {
  uint64_t r = 0, k = 0;
  rc.by_per_run.divmod(static_cast<uint64_t>(c), r, k);
  l = static_cast<int64_t>(r) * rc.run + static_cast<int64_t>(k) * kRunChunk;
  const int64_t in_run = rc.run - static_cast<int64_t>(k) * kRunChunk;
  count = in_run < kRunChunk ? in_run : kRunChunk;
  if (count > rc.n - l) count = rc.n - l > 0 ? rc.n - l : 0;
}

// dst[0, count) = src[0, count), two ways. MemCopy (the host backend): memcpy. PairCopy<V2> (the
// kernels, V2 = longlong2; a template, so the emulated grid runs this very path on the host
// without clashing with the host's copy): 128-bit loads / stores once both pointers are 16-byte
// aligned (a scalar head when both are off by one element, a scalar tail); pointers of different
// alignment go element by element.
struct MemCopy {
  static void run(int64_t* dst, const int64_t* src, int64_t count) {
    if (count > 0) std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(int64_t));
  }
};
template <class V2>
struct PairCopy {
  TFSPEC_HD static void run(int64_t* dst, const int64_t* src, int64_t count) {
    int64_t t = 0;
    const uintptr_t a = reinterpret_cast<uintptr_t>(src), b = reinterpret_cast<uintptr_t>(dst);
    if (((a ^ b) & 15) == 0) {
      if ((a & 15) != 0 && count > 0) dst[t] = src[t], ++t;
      for (; t + 2 <= count; t += 2) *reinterpret_cast<V2*>(dst + t) = *reinterpret_cast<const V2*>(src + t);
    }
    for (; t < count; ++t) dst[t] = src[t];
  }
};
TFSPEC_HD void zero_run(int64_t* dst, int64_t count) {
  for (int64_t t = 0; t < count; ++t) dst[t] = 0;
}
TFSPEC_HD bool equal_run(const int64_t* a, const int64_t* b, int64_t count) {
  for (int64_t t = 0; t < count; ++t)
    if (a[t] != b[t]) return false;
  return true;
}

// The engine address of (instance, offset .. offset + count) when the whole segment lies inside
// a buffer, else nullptr.
TFSPEC_HD int64_t engine_slot(const ShardPlan& s, int64_t instance, int64_t offset, int64_t count) {
  const int64_t e = s.engine_of_instance[instance];
  if (e < 0 || e >= s.num_engine_ids || s.engine_base[e] < 0) return -1;
  if (offset < 0 || count > s.engine_size[e] - offset) return -1;
  return s.engine_base[e] + offset;
}

// The logical segment [l, l + count), which the plan compiler proved lies inside one common run
// of src and dst (ReshardPlan::run): on both sides the offset steps by 1 along it and the instance
// does not change. Copies it from the source's holder to every destination holder as whole runs
// (D9: zeros where a sum axis coordinate is nonzero), after checking every replica and bound the
// element path checks. Returns false, having written nothing, when any of those checks could fail
// or the source has Partial axes: the caller then runs the segment element by element, which
// reports the failure of the smallest element exactly as assemble_element / distribute_element.
template <class Copy = MemCopy>
TFSPEC_HD bool reshard_segment(const ShardPlan& s, const int64_t* src, const ShardPlan& d, int64_t* dst, int64_t l, int64_t count) {
  if (s.num_partial != 0) return false;
  int64_t g[kMaxModes] = {};
  logical_to_global(s, l, g);
  int64_t so = 0, dof = 0;
  if (eval_coord(s.layout, g, so) != kOk) return false;
  const int64_t sbase = split_instance(s, g);
  const int64_t from = engine_slot(s, sbase, so, count);  // free combination 0: every Broadcast coordinate 0
  if (from < 0) return false;
  for (int64_t f = 1; f < s.free_combos; ++f) {  // no Partial axes: every free axis is Broadcast
    const int64_t at = engine_slot(s, sbase + free_coord(s, f).instance_part, so, count);
    if (at < 0 || !equal_run(src + from, src + at, count)) return false;
  }
  logical_to_global(d, l, g);
  if (eval_coord(d.layout, g, dof) != kOk) return false;
  const int64_t dbase = split_instance(d, g);
  for (int64_t f = 0; f < d.free_combos; ++f)
    if (engine_slot(d, dbase + free_coord(d, f).instance_part, dof, count) < 0) return false;
  for (int64_t f = 0; f < d.free_combos; ++f) {
    const FreeCoord c = free_coord(d, f);
    int64_t* to = dst + engine_slot(d, dbase + c.instance_part, dof, count);
    if (c.sum_nonzero) zero_run(to, count);
    else Copy::run(to, src + from, count);
  }
  return true;
}

// One logical element through assemble and distribute (the segment path's fallback). A
// distribute failure is reported as `distribute_failed` (the reference reports those only after
// every element assembled).
TFSPEC_HD Status reshard_element(const ShardPlan& s, const int64_t* src, const ShardPlan& d, int64_t* dst, int64_t l, bool& distribute_failed) {
  int64_t x = 0;
  Status st = assemble_element(s, src, l, x);
  distribute_failed = false;
  if (st != kOk) return st;
  st = distribute_element(d, dst, l, x);
  distribute_failed = st != kOk;
  return st;
}

}  // namespace tfspec::gpu
