// CuTe DSL MLIR read into tfspec's objects (issue 45, spec/CUTE_DSL.md). The DSL dumps its kernel
// IR with CUTE_DSL_KEEP=ir-debug; layouts are types in CuTe's notation (`!cute.layout<"...">`).
// This frontend decides no law: layouts go to reference/, the checks run on what was read.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/kernel/check.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec::cute_dsl {

// A type as the IR prints it, aliases resolved. kind: layout, composed_layout, tile, shape,
// int_tuple, coord, stride, memref, tiled_copy, tiled_mma, other. `text` is the CuTe string.
struct Type {
  std::string kind, text;
  std::string elem, space;  // memref: element type (f16) and address space (gmem, smem, rmem)
  int64_t align = 0;        // memref: align<N>, bytes
  std::string swizzle;      // memref: a swizzle on its pointer, in bytes (`S<2,4,3>`), else empty
  std::string full;         // the whole type text (aliases resolved)
};

// An op's operands, results or their types: indexed past its end (an edited dump whose op has
// fewer operands or types than the DSL writes for it), a cute-dsl-input error, never a crash.
template <class T>
struct Items : std::vector<T> {
  using std::vector<T>::vector;
  const T& operator[](size_t i) const {
    if (i >= this->size())
      fail(rule::kCuteDslInput, "cute-dsl (§1): an op has " + std::to_string(this->size()) + " operands, results or types where its form has at least " +
                                    std::to_string(i + 1) + ": not a dump the DSL writes");
    return std::vector<T>::operator[](i);
  }
  T& operator[](size_t i) { return const_cast<T&>(static_cast<const Items&>(*this)[i]); }
};

struct Op {
  int line = 0;  // 1-based line in the dump
  std::string loc, name;  // loc(...) where the dump has one; name: cute.composition, ...
  std::string keyword;    // a word between the name and its operands (`cute.tiled.mma.partition A (..)`)
  Items<std::string> results, operands;
  Items<Type> operand_types, result_types;
};

// `!cute.tiled_copy<ATOM, layout_copy_tv = <"TV">, tiler_mn = <"[..]">>`
struct TiledCopy {
  std::string alias, atom, layout_tv, tiler;
};
// `!cute.tiled_mma<ATOM, atom_layout_MNK = <"..">, permutation_MNK = <"[..]">>`
struct TiledMma {
  std::string alias, atom, shape_mnk, elem_types, atom_layout, permutation;
};

struct Module {
  std::map<std::string, std::string> aliases;  // `!name` -> type text
  std::vector<Op> ops;                          // every op whose name starts with `cute.`
  std::vector<TiledCopy> copies;
  std::vector<TiledMma> mmas;
  std::vector<std::string> unknown_ops;  // cute.* op names this reader does not know (listed once)
  std::vector<std::string> unknown_atoms;  // copy / MMA atoms of tiled copies and MMAs it does not know
};

// Fails closed (SpecError cute-dsl-input, naming the line) on a type it cannot read.
Module read_cute_ir(std::string_view text);
// Where a finding about an op points: its loc(...) where the dump has one, else "line N".
std::string op_where(const Op& op);
// The op whose results include the SSA value, or nullptr.
const Op* defining_op(const Module& m, const std::string& value);
Type parse_type(std::string_view text, const std::map<std::string, std::string>& aliases);

// CuTe notation -> tfspec layouts (§1 of spec/CUTE_DSL.md). `?{div=N}` / `?{i64 div=N}` become
// symbols s0, s1, ... with `s % N == 0`, recorded in `divisors` (symbol -> N).
struct Symbols {
  std::map<std::string, int64_t> divisors;
};
std::string to_tfspec_notation(std::string_view cute, Symbols& syms);
LayoutPtr read_layout(std::string_view cute, Symbols& syms);  // layout or `S<B,M,S> o off o L`
Tiler read_tiler(std::string_view cute);                      // `[a:b;c:d]` (static only)
bool is_static(std::string_view cute);                        // no `?`
int64_t elem_bits(const std::string& elem);                   // f16 -> 16, ...; 0 when unknown
int64_t atom_bits(const std::string& atom);                   // a copy atom's `..., 128 b>`; 0 when not stated

// The kernel pipeline of spec/KERNEL.md read from the ops (spec/CUTE_DSL.md §4): per operand the
// g2s copy, the smem layout (with its swizzle), the s2r copy and the tiled MMA, found from the
// copies' address spaces and the MMA partitions' operands. `pipeline` is empty when the module
// cannot be mapped; `unmapped` says why. `locs`: a finding's subject prefix -> the op's line.
// `s2r`: the shared-to-register tiled copy of each operand as the IR states it (its TV layout and
// tiler), which kernel/ is not given (it derives the delivery from the atom): compared with the
// tiled MMA's make_tiled_copy_A/B by check_s2r_copies.
struct StatedS2r {
  char operand = 'A';
  std::string alias, atom, tv, tiler, loc;
};
// The IR's own partition of an operand's shared view by the tiled MMA (`cute.tiled.mma.partition
// A|B` over smem): its result layout, a thread's (V, M-rest, K-rest[, stage]) -> element offset from
// its first value (the thread's base is a run-time value). Kept where the view is unswizzled. For
// 'C', the partition of C's identity tensor: (V, M-rest, N-rest) -> coordinates `n@0`, `n@1`.
struct StatedPartition {
  char operand = 'A';
  std::string layout, loc;
};
struct MappedPipeline {
  std::optional<kernel::Pipeline> pipeline;
  std::vector<std::string> unmapped;
  std::vector<std::pair<std::string, std::string>> locs;
  std::vector<StatedS2r> s2r;
  std::vector<StatedPartition> partitions;
};
MappedPipeline map_pipeline(const Module& m);
// A shared view's one-stage (rows, cols) tile with its swizzle on element offsets, as the mapping
// reads it (a pointer swizzle in bytes converted), and its stages; nullptr with `why` otherwise.
LayoutPtr smem_stage_layout(const Type& view, int64_t& stages, std::string& why);

// spec/CUTE_DSL.md §5: each stated s2r tiled copy against make_tiled_copy_A/B of the mapped tiled
// MMA, as a function over every (thread, value): ok, a kernel-s2r-layout violation naming the
// first differing (thread, value) with both (row, k), or undecided saying why it is not derived.
void check_s2r_copies(const MappedPipeline& mp, std::vector<kernel::Finding>& out);

// spec/CUTE_DSL.md §5.1: each stated partition against kernel/'s mma_partition through the view's
// layout, at every (thread, value) relative to the thread's value 0 (and the stage mode against
// the stage stride): ok, or a cute-dsl-layout-op violation naming the first differing pair.
void check_mma_partitions(const MappedPipeline& mp, std::vector<kernel::Finding>& out);

inline kernel::Finding make_finding(std::string check, std::string subject, kernel::Outcome o = kernel::Outcome::Ok,
                                    const RuleId* rule = nullptr) {
  kernel::Finding f;
  f.check = std::move(check), f.subject = std::move(subject), f.outcome = o, f.rule = rule;
  return f;
}

// The checks on what was read: translation validation of every static layout op (§2), the
// coalescing of global copies (§3) and, where the ops map to a pipeline (§4), kernel/'s checks
// of it (coverage, agreement, width and banks, bounds, footprint); where they do not, the op-by-op
// checks of §6 (wgmma's shared-memory operands, the footprint). The report's arch is the one the
// atoms name (sm80 where none does).
kernel::KernelReport check_module(const Module& m);
void check_wgmma_operands(const Module& m, std::vector<kernel::Finding>& out);
void check_tma_loads(const Module& m, std::vector<kernel::Finding>& out);
void check_smem_footprint(const Module& m, const std::string& arch, std::vector<kernel::Finding>& out);
void validate_layout_ops(const Module& m, std::vector<kernel::Finding>& out);
void check_global_copies(const Module& m, std::vector<kernel::Finding>& out);

}  // namespace tfspec::cute_dsl
