// A kernel as the data movement between its linear layouts (spec/TRITON.md §3; issue 48): what a
// frontend (frontends/triton/ reads Triton's TTGIR) hands to kernel/ to check. Distributed layouts
// map in-dims register, lane, warp, block to the tensor's dims (dim0, dim1, ...); shared layouts
// map in-dims offset, block to the element an offset holds. The checks run here, on the layouts;
// the frontend decides nothing.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/kernel/check.hpp"
#include "tfspec/reference/linear.hpp"

namespace tfspec::kernel {

enum class MoveKind { SharedLoad, SharedStore, AsyncCopy, Convert, GlobalLoad, GlobalStore, Dot, Alloc, Reduce, Scan };

// What the IR says about a global pointer tensor (§3.4): the dim along which consecutive elements
// are consecutive addresses (-1: none known), how many of them are (contiguity), and the alignment
// in elements every thread's first address along it has (from tt.divisibility).
// A mask (tt.load's, tt.store's, an async copy's) caps the vector at its constancy along that dim
// (`mask_constancy`, elements; 0: no mask): a vector is one predicate (§3.4.1).
struct GlobalFacts {
  int contiguous_dim = -1;
  int64_t contiguity = 1, align_elems = 1;
  int64_t mask_constancy = 0;
};

struct DotOperand {
  std::optional<LinearLayout> layout;  // on the operand's shape: A is M x K, B is K x N
  std::string parent;                  // the dot_op's parent encoding, as written
  int64_t op_idx = -1, k_width = 0;    // -1: the operand is read from shared memory (wgmma)
  // An operand in shared memory (wgmma's descriptor): its layout on `shape` (offset -> element),
  // the encoding as written, and what it declares (nvmma_shared: swizzle bytes, transposed).
  std::optional<LinearLayout> smem;
  std::vector<int64_t> shape;
  std::string encoding;
  int64_t elem_bits = 0, swizzle_bytes = -1;  // -1: not an nvmma_shared encoding
  bool transposed = false;
};

// §3.2.1: the scratch Triton 3.9 builds for a convert through shared memory (convert_scratch.cpp):
// the elements (flat index, dim0 fastest) each scratch offset bit holds, lowest first: `vector`
// (one thread's access), `bank` (the rest of a 128-byte line), `segment` (the lines); `reps`:
// register bits both layouts hold that are not allocated but replayed, one round each. `bits`: the
// element width Triton moves (at least 8); `bytes`: the scratch (the tile divided by the rounds).
// Several CTAs: none, with the reason.
struct ConvertScratch {
  std::vector<int64_t> vector, bank, segment, reps;
  int64_t bits = 8, bytes = 0;
  // The instructions that move it (st.shared / stmatrix / stmatrix.trans, ld.shared / ldmatrix /
  // ldmatrix.trans) and, for a matrix instruction, the bases that pick one phase's 8 rows.
  std::string store = "st.shared", load = "ld.shared";
  std::vector<int64_t> store_rows, load_rows;
};
struct Move {
  MoveKind kind = MoveKind::SharedLoad;
  std::string subject, loc;  // "ttg.local_load %a_52 (line 72)", "kernels.py:20:12"
  int64_t elem_bits = 0;
  std::vector<int64_t> shape;
  std::optional<LinearLayout> regs;     // the distributed side (a convert's source)
  std::optional<LinearLayout> regs_to;  // a convert's destination
  std::optional<LinearLayout> smem;     // the shared side, on smem_shape (the allocation's)
  std::vector<int64_t> smem_shape;
  std::vector<int64_t> smem_origin;  // where the view starts in the allocation (memdesc_subslice); empty: 0
  int64_t alloc_bytes = 0;  // Alloc: the allocation's bytes (every buffer of it)
  // §3.5 the program points (the IR's lines) from the op to the last that uses its buffer (an
  // Alloc), or the op's own (a convert's scratch); 0: not known, live throughout.
  int64_t live_from = 0, live_to = 0;
  GlobalFacts global;
  DotOperand a, b;
  std::string accumulator;  // the dot's result encoding, as written
  std::string undecided;    // why a layout this move needs was not derived (then it is not checked)
  bool to_mma_operand = false;  // a local_load into a dot_op with an nvidia_mma parent (ldmatrix, §3.1)
  // A convert's scratch to check instead of the one Triton 3.9 builds (§3.2.1): a planted fault, or
  // another compiler's choice. Its bases must span the tile.
  std::optional<ConvertScratch> scratch;
  // A tt.reduce (§3.5.1) or tt.scan (§3.5.2): `regs` is its operands' layout, `axis` the dim it reduces, and
  // `operand_bits` each operand's element width (a pointer: 64).
  int axis = -1;
  std::vector<int64_t> operand_bits;
};

struct LayoutProgram {
  std::string name, arch;  // arch: sm80, sm90
  std::string loc;         // the kernel's own location: the findings about the whole kernel carry it
  int64_t threads_per_warp = 32, num_warps = 4;
  std::optional<int64_t> declared_shared;  // what the compiler allocated (Triton's metadata.shared)
  std::vector<Move> moves;
  std::vector<std::string> unknown;  // ops and encodings the frontend listed and did not read
};

// Checks 1-5 of spec/TRITON.md §3 over every move, in program order, then the footprint.
KernelReport check_layout_program(const LayoutProgram& p, const KernelOptions& o = {});

// The families, one file each (layout_smem.cpp, layout_convert.cpp, layout_global.cpp).
void check_layout_smem(const LayoutProgram& p, const Move& m, std::vector<Finding>& out);
void check_layout_convert(const LayoutProgram& p, const Move& m, std::vector<Finding>& out);
void check_layout_dot(const LayoutProgram& p, const Move& m, std::vector<Finding>& out);
// dest_elems: for an async copy's global read, the elements of one thread's vector its shared
// destination keeps contiguous and aligned (0: not an async copy).
void check_layout_global(const LayoutProgram& p, const Move& m, std::vector<Finding>& out, int64_t dest_elems = 0);
void check_wgmma_operands(const LayoutProgram& p, const Move& m, std::vector<Finding>& out);
void check_layout_footprint(const LayoutProgram& p, const KernelOptions& o, std::vector<Finding>& out);

// §3.1's ldmatrix phases, when every group of the load's registers (32 bits a lane) is eight whole
// 16-byte rows, for 8-, 16- and 32-bit elements (layout_ldmatrix.cpp); none: the generic model applies. `off` is smem_offsets' table.
struct LdmatrixReport {
  int64_t wavefronts = 0, ideal = 0, degree = 1, matrices = 0;
  int64_t worst_warp = 0, worst_group = 0, worst_slot = 0;
  bool trans = false;  // a thread's 32 bits are not consecutive elements: ldmatrix.trans (16-bit only)
};
std::optional<LdmatrixReport> ldmatrix_phases(const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t threads_per_warp, int64_t elem_bytes,
                                              std::string& why_not);

// spec/TRITON.md §3.2: how Triton 3.9 lowers a convert between two distributed layouts, from its
// own map of the destination's hardware bits to the source's. `level`: 2 the map moves warps (or
// blocks), 1 lanes, 0 registers only. Triton decides on that map, not on where the data is: a
// convert whose data never leaves its thread can still move (a broadcast source). `shuffles`: where
// the data stays within a warp and the map moves something, Triton's choice of warp shuffles over
// its shared-memory scratch (the rule §3.2 states, checked against Triton 3.9's output).
struct TritonConvertPath {
  int level = 0;
  bool shuffles = false;
};
TritonConvertPath triton_convert_path(const LinearLayout& src, const LinearLayout& dst);
// `sm`: the target's compute capability (ldmatrix from 75, stmatrix from 90; 0: neither).
std::optional<ConvertScratch> triton_convert_scratch(const LinearLayout& src, const LinearLayout& dst, int64_t elem_bits, int sm, std::string& why_not);
// spec/TRITON.md §3.5.1: the shared-memory scratch Triton 3.9 takes for a tt.reduce whose reduced
// axis spans several warps (reduce_scratch.cpp). After each thread folds its registers and each warp
// its lanes along the axis, the partial results cross warps in rounds: each round a convert through
// shared memory (ld.shared / st.shared only) that moves the axis' warp bits into lanes. `bytes`: the
// largest round, each operand's scratch side by side; `round_bytes` each round's; `warps_on_axis`:
// the warps with distinct data along the axis (1: no scratch, no round). Several CTAs along the
// axis or any block bases: none, with the reason.
struct ReduceScratch {
  int64_t bytes = 0, warps_on_axis = 1;
  std::vector<int64_t> round_bytes;
};
std::optional<ReduceScratch> triton_reduce_scratch(const LinearLayout& src, int axis, const std::vector<int64_t>& operand_bits, std::string& why_not);
// The scratch of Triton's ld.shared / st.shared path for a convert (§3.2.1), without matrix
// instructions; none when its bases do not span the tile.
std::optional<ConvertScratch> triton_ld_st_scratch(const LinearLayout& src, const LinearLayout& dst, int64_t elem_bits);
// spec/TRITON.md §3.5.2: the scratch Triton 3.9 takes for a tt.scan (of a blocked layout) whose axis
// spans several warps: each operand's element for every (warp, the lanes and run positions off the
// axis, the layout's repeats along and off the axis); 0 within warps. None with block bases.
std::optional<int64_t> triton_scan_scratch(const LinearLayout& src, int axis, const std::vector<int64_t>& operand_bits, std::string& why_not);
// §3.5.1, §3.5.2: a tt.reduce's or tt.scan's finding (its scratch, or that it stays within warps).
void check_layout_reduce(const LayoutProgram& p, const Move& m, std::vector<Finding>& out);

// A side moved by ldmatrix / stmatrix (§3.2.1): each phase is one 8x8 matrix, eight 16-byte rows
// (its first row's vector, XORed with the span of `rows`), served in one wavefront when no two
// rows share a 16-byte slot of the 128-byte line; a phase costs its most rows in one slot. Rows are
// counted once each (the tile's phases, not each warp's). None when the vector is not 16 bytes or
// the bases do not span the tile.
struct MatrixPhases {
  int64_t wavefronts = 0, ideal = 0, worst = 1;  // worst: the most rows of one phase in one slot
};
std::optional<MatrixPhases> matrix_phases(const ConvertScratch& s, const std::vector<int64_t>& rows, int dim);
// The scratch offset (in elements) each (thread, value) of one side of the convert stores or loads:
// result[t * values + v], the side's registers in the order Triton's lowering vectorises them (those
// at scratch offsets 1, 2, 4, ... first, spec/TRITON.md §3.2.1). Empty
// when the scratch's bases do not span the side's tile.
std::vector<int64_t> scratch_offsets(const LinearLayout& side, const ConvertScratch& s, int64_t& threads, int64_t& values);

// The (thread, value) -> element tables the checks use (thread = lane + threads_per_warp * warp;
// value = register index), element = row-major index into `shape`.
std::vector<int64_t> element_table(const LinearLayout& regs, const std::vector<int64_t>& shape, int64_t& threads, int64_t& values);

}  // namespace tfspec::kernel
