// A GEMM mainloop + epilogue's data movement, as spec/KERNEL.md describes it (extension K1):
// the CTA tile, the global layouts of A, B and C, the pipeline stages, and per operand the
// global-to-shared copy, the shared-memory layout and the shared-to-register copy, then the
// tiled MMA and the epilogue copy. Read from JSON; every error names its JSON path.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec::kernel {

// A tiled copy over a tile of `rows` x `cols` elements (CuTe's make_tiled_copy): thread t's value
// v is the copy tile's element tv(t, v), a colexicographic index row + rows * col (D1). Given in
// the description as CuTe's (thread layout, value layout) pair, or as the TV layout and its tile.
struct TiledCopy {
  int64_t atom_bits = 0;  // bits one thread moves per access (cp.async 128)
  Layout tv;              // (thread, value) -> index into the copy tile
  int64_t rows = 0, cols = 0;
  std::string path;       // where it was read ("A.g2s")
  int64_t threads() const;
  int64_t values() const;
};

// A copy atom by its two thread-value layouts over the atom's element space (CuTe's SrcLayout /
// DstLayout, in elements rather than bits): src thread ts supplies the addresses of positions
// src(ts, v) (`bits` per access), dst thread td receives positions dst(td, v) in its registers.
struct CopyAtom {
  std::string name;  // informative only (SM75_U32x4_LDSM_N)
  int64_t bits = 0;  // bits per access of one source thread (ldmatrix: 128, one row of 8 halves)
  Layout src, dst;
  bool in_bits = false;  // "units": "bits": src and dst exactly as CuTe's traits write them
  std::string path;
};

// The MMA atom (its A, B, C thread-value layouts over (M,K), (N,K), (M,N) colexicographic) and the
// tiled MMA: the atom layout (WM, WN, WK) -> atom index and the permutation of each mode.
struct Mma {
  int64_t m = 0, n = 0, k = 0;
  int64_t atom_threads = 0;
  std::optional<Layout> a, b;  // none: the operand is read from shared memory (wgmma's SS mode)
  Layout c;
  Layout atoms;                              // rank 3
  std::array<std::optional<Layout>, 3> perm;  // M, N, K; none: the identity over atom * ways
  std::string path;
};

// A TMA load (SM90; extension K1, spec/KERNEL.md "TMA loads"): the copy engine writes the tile as
// boxes of box_rows x box_cols elements (the tile's (rows, K) order), each dense along the global
// layout's stride-1 mode and swizzled by the tensor map's mode; no thread makes an access.
struct TmaLoad {
  int64_t swizzle_bytes = 0;  // the mode's span: 0 (none), 32, 64 or 128
  int64_t box_rows = 0, box_cols = 0;
  std::string path;
};

struct Operand {
  char name = 'A';
  int64_t bits = 16;              // element bits
  Layout global;                  // rank 2 (rows, K), symbolic extents and strides allowed
  TiledCopy g2s;                  // global -> shared, over the (rows, BK) tile (empty under a TMA load)
  std::optional<TmaLoad> tma;     // global -> shared by TMA instead of g2s
  LayoutPtr smem;                 // (rows, BK) tile -> element offset of one stage (Layout or swizzled)
  // Elements from one stage's start to the next (extension K1): none, the default, is the tile's
  // cosize (stages packed); a padded buffer states its own (CUTLASS's sgemm: rows of 128 padded to
  // 132, stages 1056 apart where the tile's cosize is 1052). See stage_stride_of.
  std::optional<int64_t> stage_stride;
  std::optional<CopyAtom> s2r;    // shared -> registers (none: the MMA reads shared memory)
  // The g2s copy takes a predicate (a reader of a compiler's IR saw one): its tiles may run past
  // the global extents, so the extents need no divisibility condition (check 4).
  bool predicated = false;
};

struct Pipeline {
  std::string name, arch;
  int64_t threads = 0;
  int64_t bm = 0, bn = 0, bk = 0;
  int64_t stages = 1;
  std::vector<std::string> assume;  // for the bounds conditions (`prove` syntax)
  Operand a, b;
  int64_t bits_c = 16;
  Layout global_c;
  Mma mma;
  std::optional<TiledCopy> epilogue;  // the C tile to global over the (BM, BN) tile
  // "source": "accumulators": the epilogue stores straight from each thread's accumulator
  // registers, so each thread may store only what its C partition holds; "smem" (the default):
  // through a staging buffer, not described.
  bool epilogue_from_accumulators = false;
  bool epilogue_predicated = false;  // as Operand::predicated, for the C tiles
  // The staging buffer of an epilogue through shared memory (extension K1): the (BM, BN) C tile
  // to element offsets, and the bits of one register-to-shared store (each thread stores its
  // accumulator fragment, the C partition, r2s_bits at a time). None: the step is not described.
  LayoutPtr epilogue_smem;
  int64_t r2s_bits = 0;
  // What the reader decided that the report says (a linear smem layout's direction, X2).
  std::vector<std::string> notes;
};

// The elements from one stage's start to the next: o.stage_stride, or the tile's cosize when unset.
int64_t stage_stride_of(const Operand& o, int64_t cosize);

// The staging buffer as an operand 'C' over the (BM, BN) tile, for the shared-memory views.
Operand epilogue_staging(const Pipeline& p);

// kernel-input (with the JSON path) for anything malformed; layout text errors keep their rule.
Pipeline read_pipeline(const Json& description);
Pipeline read_pipeline_text(const std::string& text);  // json-malformed when the text is not JSON

}  // namespace tfspec::kernel
