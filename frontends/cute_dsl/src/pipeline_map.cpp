// The kernel pipeline of spec/KERNEL.md read from the DSL's ops (spec/CUTE_DSL.md §4). The ops
// say which tensor each copy and MMA partition touches (SSA names), and the types say where it
// lives (gmem, smem): A's shared view is the operand of `cute.tiled.mma.partition A`; its g2s copy
// is the tiled copy partitioned over that view as destination; its s2r copy the ldmatrix copy
// partitioned over it as source; its global tensor the source of that g2s copy, traced back to
// the `cute.local_tile` that cut it from the kernel's tensor. Nothing is guessed: a step not found
// leaves the pipeline unmapped, saying which.
#include <cmath>
#include <cstdio>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/kernel/atoms.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec::cute_dsl {
namespace {

struct Unmapped {
  std::string why;
};
[[noreturn]] void unmapped(const std::string& why) { throw Unmapped{why}; }

// The plain layout under a (possibly swizzled) shared-memory layout.
const LayoutBase* smem_outer(const LayoutPtr& l) {
  return l->kind() == LayoutKind::Composed ? static_cast<const ComposedLayout&>(*l).outer().get() : l.get();
}


const Op* find_op(const Module& m, const std::string& name, const std::string& operand1, const char* atom_kind) {
  for (const Op& op : m.ops)
    if (op.name == name && op.operands.size() >= 2 && op.operands[1] == operand1 && !op.operand_types.empty() &&
        (atom_kind == nullptr || op.operand_types[0].full.find(atom_kind) != std::string::npos))
      return &op;
  return nullptr;
}

// The global tensor a gmem view was cut from: back through operand 0 to a cute.local_tile.
const Type& traced_global(const Module& m, const std::string& view) {
  std::string v = view;
  for (int hops = 0; hops < 64; ++hops) {
    const Op* d = defining_op(m, v);
    if (!d || d->operands.empty()) break;
    if (d->name == "cute.local_tile" && !d->operand_types.empty()) return d->operand_types[0];
    v = d->operands[0];
  }
  unmapped("the global tensor of " + view + " is not traced to a cute.local_tile");
}

const TiledCopy& copy_named(const Module& m, const Type& t) {
  for (const TiledCopy& c : m.copies)
    if (m.aliases.at(c.alias) == t.full) return c;
  unmapped("a tiled copy type not among the aliases: " + t.full);
}

// The first two modes of a layout (rows, cols); rank-2 layouts are kept whole.
Layout first_two(const Layout& l) {
  if (l.rank() < 2) unmapped("a rank-" + std::to_string(l.rank()) + " layout where (rows, cols) was expected: " + to_string(l));
  return l.rank() == 2 ? l : Layout(IntTuple::tuple({l.shape_ref()[0], l.shape_ref()[1]}), IntTuple::tuple({l.stride()[0], l.stride()[1]}));
}

// A shared view's (rows, K) tile -> element offset, and its stages (a third mode) with the stride
// between them (`stage_stride`: none where the stages are packed one tile's cosize apart, as
// spec/KERNEL.md's default; a padded buffer's own stride otherwise, CUTLASS's sgemm 1056 for a
// 1052 cosize). A swizzle on the pointer acts on byte addresses: S<B,M,S> over E-byte elements is
// Sw<B, M - log2 E, S> on offsets.
LayoutPtr smem_layout(const Type& t, int64_t& stages, std::optional<int64_t>& stage_stride, std::vector<std::string>& notes, const std::string& who) {
  if (t.kind != "memref" || t.space != "smem") unmapped("not a shared-memory view: " + t.full);
  Symbols none;
  const LayoutPtr whole = read_layout(t.text, none);
  if (!none.divisors.empty()) unmapped("a dynamic shared-memory layout: " + t.text);
  std::shared_ptr<const LayoutBase> inner;
  int64_t offset = 0;
  const Layout* outer = nullptr;
  if (whole->kind() == LayoutKind::Composed) {
    const auto& c = static_cast<const ComposedLayout&>(*whole);
    if (c.outer()->kind() != LayoutKind::Layout) unmapped("a shared-memory layout of another kind: " + t.text);
    inner = c.inner(), offset = c.offset(), outer = static_cast<const Layout*>(c.outer().get());
  } else {
    outer = static_cast<const Layout*>(whole.get());
  }
  if (!t.swizzle.empty()) {
    if (inner) unmapped("two swizzles on one shared view: " + t.full);
    const int64_t log_e = static_cast<int64_t>(std::log2(static_cast<double>(elem_bits(t.elem) / 8)));
    const LayoutPtr s = parse_pure_layout(to_tfspec_notation(t.swizzle, none));
    const auto& bytes = static_cast<const Swizzle&>(*s);
    if (bytes.base() < log_e) unmapped("a byte swizzle " + t.swizzle + " below the element's bytes");
    inner = std::make_shared<Swizzle>(bytes.bits(), bytes.base() - log_e, bytes.shift());
    notes.push_back("the shared view's pointer swizzle " + t.swizzle + " (bytes) is " + to_string(*inner) + " on " + t.elem + " element offsets");
  }
  if (outer->rank() > 3) unmapped("a shared view of rank " + std::to_string(outer->rank()) + ": " + t.text);
  stages = outer->rank() == 3 ? outer->mode(2).size() : 1;
  const Layout tile = first_two(*outer);
  // spec/KERNEL.md: stage s starts s * stage_stride elements on, one stride for every stage (a
  // view whose stages lie otherwise is not what the checks model); kernel/ checks that the stages
  // keep apart where the stride is below the tile's cosize.
  const int64_t stride = stages > 1 ? outer->mode(2)(1) : tile.cosize();
  if (stride < 0) unmapped("the stages of " + t.text + " run backwards (stride " + std::to_string(stride) + ")");
  for (int64_t s = 2; s < stages; ++s)
    if (outer->mode(2)(s) != s * stride) unmapped("the stages of " + t.text + " are not one stride apart");
  stage_stride.reset();
  if (stride != tile.cosize()) {
    stage_stride = stride;
    notes.push_back(who + "'s shared view " + t.text + " places its stages " + std::to_string(stride) + " elements apart, not at the tile's cosize " +
                    std::to_string(tile.cosize()));
  }
  if (!inner) return std::make_shared<Layout>(tile);
  return std::make_shared<ComposedLayout>(inner, offset, std::make_shared<Layout>(tile));
}

// A tiled copy of the IR as kernel/'s: its TV layout over the tiler's (rows, cols) tile, whose
// modes must be identities (`[32:1;32:1]`) for the TV's index to be the tile's colexicographic one.
kernel::TiledCopy kernel_copy(const TiledCopy& c, const std::string& path) {
  Symbols none;
  const LayoutPtr tv = read_layout(c.layout_tv, none);
  const Tiler tiler = read_tiler(c.tiler);
  if (tv->kind() != LayoutKind::Layout || !none.divisors.empty() || tiler.is_layout() || tiler.modes.size() != 2)
    unmapped(c.alias + ": not a static 2-D tiled copy");
  kernel::TiledCopy k;
  k.tv = static_cast<const Layout&>(*tv);
  for (const Tiler& mode : tiler.modes)
    if (!mode.is_layout() || mode.layout->rank() != 1 || const_value(mode.layout->stride().as_dim()) != 1)
      unmapped(c.alias + ": a tiler mode that is not an identity (" + c.tiler + ")");
  k.rows = tiler.modes[0].layout->size();
  k.cols = tiler.modes[1].layout->size();
  k.atom_bits = atom_bits(c.atom);
  k.path = path;
  if (k.atom_bits == 0) unmapped(c.alias + ": the atom states no width: " + c.atom);
  return k;
}

// `ldsm<val_type = f16, ..., num_matrices = 4, n>` (n: plain, t: transposed).
kernel::CopyAtom ldsm_atom(const TiledCopy& c, int64_t bits) {
  const size_t at = c.atom.find("num_matrices = ");
  if (at == std::string::npos) unmapped(c.alias + ": an ldsm atom without num_matrices");
  const int64_t n = std::stoll(c.atom.substr(at + 15));
  const bool transposed = c.atom.find(", t>") != std::string::npos;
  auto atom = kernel::ldmatrix_atom(n, transposed, bits);
  if (!atom) unmapped(c.alias + ": no ldmatrix atom of " + std::to_string(n) + " matrices over " + std::to_string(bits) + "-bit elements is known");
  return *atom;
}

// The tiled MMA's atom: SM80's warp MMA (`sm80.mma<16x8x16, ...>`) or the SIMT FMA
// (`atom.universal_fma<1x1x1, (f32, f32) -> f32 >`, CuTe's UniversalFMA).
kernel::Mma tiled_mma(const TiledMma& t, int64_t ab_bits) {
  const bool fma = t.atom.rfind("!cute_nvgpu.atom.universal_fma<", 0) == 0;
  if (!fma && t.atom.find("sm80.mma<") == std::string::npos) unmapped(t.alias + ": neither an SM80 warp MMA nor a universal FMA: " + t.atom);
  int64_t m = 0, n = 0, k = 0;
  if (std::sscanf(t.shape_mnk.c_str(), "%ldx%ldx%ld", &m, &n, &k) != 3) unmapped(t.alias + ": the MMA shape does not read: " + t.shape_mnk);
  if (fma && (m != 1 || n != 1 || k != 1)) unmapped(t.alias + ": a universal FMA of shape " + t.shape_mnk + " (CuTe's is 1x1x1)");
  auto mma = fma ? std::optional<kernel::Mma>(kernel::universal_fma_atom()) : kernel::sm80_mma_atom(m, n, k, ab_bits);
  if (!mma) unmapped(t.alias + ": no SM80 MMA atom " + t.shape_mnk + " over " + std::to_string(ab_bits) + "-bit A and B is known");
  mma->atoms = parse_layout(t.atom_layout);
  // `[PM;PN;PK]`, a mode `_` where the DSL was given None (the identity over atom x atoms: the
  // kernel/ default), as CUTLASS's sgemm permutes M and N only: `[(16,4):(4,1);(16,4):(4,1);_]`.
  std::vector<std::string> modes;
  if (t.permutation.size() < 2 || t.permutation.front() != '[' || t.permutation.back() != ']') unmapped(t.alias + ": a permutation that is not `[..]`: " + t.permutation);
  int depth = 0;
  modes.emplace_back();
  for (size_t i = 1; i + 1 < t.permutation.size(); ++i) {
    const char c = t.permutation[i];
    depth += c == '(' || c == '[' ? 1 : c == ')' || c == ']' ? -1 : 0;
    if (c == ';' && depth == 0) modes.emplace_back();
    else modes.back() += c;
  }
  if (modes.size() != 3) unmapped(t.alias + ": a permutation of other than three modes: " + t.permutation);
  for (size_t i = 0; i < 3; ++i) {
    if (modes[i] == "_") continue;
    const Tiler mode = read_tiler("[" + modes[i] + "]");
    if (mode.is_layout() || mode.modes.size() != 1 || !mode.modes[0].is_layout()) unmapped(t.alias + ": a permutation mode that is not a layout: " + modes[i]);
    mma->perm[i] = mode.modes[0].layout;
  }
  mma->path = t.alias;
  return *mma;
}

struct Locs {
  std::vector<std::pair<std::string, std::string>>& out;
  void add(const std::string& subject, const Op& op) { out.push_back({subject, op_where(op)}); }
};

const Op* mma_partition_op(const Module& m, const std::string& which, const char* space) {
  for (const Op& op : m.ops)
    if (op.name == "cute.tiled.mma.partition" && op.keyword == which && op.operand_types.size() >= 2 && op.operand_types[1].space == space) return &op;
  return nullptr;
}

// Whether `value` is `root` or derived from it through operand 0 (logical_divide, slice, ...).
bool derived_from(const Module& m, std::string value, const std::string& root) {
  for (int hops = 0; hops < 64; ++hops) {
    if (value == root) return true;
    const Op* d = defining_op(m, value);
    if (!d || d->operands.empty()) return false;
    value = d->operands[0];
  }
  return false;
}

// Whether a layout is the identity over its domain (i -> i): registers in the MMA's value order.
bool in_value_order(const std::string& cute_layout) {
  Symbols none;
  const LayoutPtr l = read_layout(cute_layout, none);
  if (l->kind() != LayoutKind::Layout || !none.divisors.empty()) return false;
  const auto& plain = static_cast<const Layout&>(*l);
  for (int64_t i = 0; i < plain.size(); ++i)
    if (plain(i) != i) return false;
  return true;
}

// A thread's own loads of its MMA fragment (CuTe's autovec_copy, as CUTLASS's sgemm reads A and B):
// a `cute.copy` of a stated-width universal copy from a slice of the MMA's partition of the shared
// view (`part`'s result, through operand 0) into registers. Each access then moves the atom's width
// of consecutive fragment values, which holds where the `cute.mma.make_fragment` of the operand
// keeps the registers in value order (checked; otherwise no such copy is read).
const Op* own_fragment_copy(const Module& m, const Op& part) {
  if (part.results.empty()) return nullptr;
  for (const Op& f : m.ops)
    if (f.name == "cute.mma.make_fragment" && f.keyword == part.keyword && !f.result_types.empty() && !in_value_order(f.result_types[0].text)) return nullptr;
  for (const Op& op : m.ops)
    if (op.name == "cute.copy" && op.operands.size() == 3 && op.operand_types.size() == 3 &&
        op.operand_types[0].full.rfind("!cute_nvgpu.atom.universal_copy<", 0) == 0 && atom_bits(op.operand_types[0].full) > 0 &&
        op.operand_types[1].space == "smem" && op.operand_types[2].space == "rmem" && derived_from(m, op.operands[1], part.results[0]))
      return &op;
  return nullptr;
}

// One operand of the MMA, from its `cute.tiled.mma.partition A|B` op.
kernel::Operand read_operand(const Module& m, const Op& part, Symbols& syms, kernel::Pipeline& p, int64_t& stages, Locs locs,
                             std::vector<StatedS2r>& stated, std::vector<StatedPartition>& partitions) {
  kernel::Operand o;
  o.name = part.keyword[0];
  const std::string view = part.operands[1], name(1, o.name);
  const Type& vt = part.operand_types[1];
  o.bits = elem_bits(vt.elem);
  o.smem = smem_layout(vt, stages, o.stage_stride, p.notes, name);
  if (o.smem->kind() == LayoutKind::Layout && !part.result_types.empty() && part.result_types[0].kind == "memref" && part.result_types[0].swizzle.empty())
    partitions.push_back({o.name, part.result_types[0].text, op_where(part)});
  const Op* dst = find_op(m, "cute.tiled.copy.partition_D", view, "!cute.tiled_copy<");
  if (!dst) unmapped(name + ": no tiled copy writes its shared view " + view);
  const Op* src = nullptr;
  for (const Op& op : m.ops)
    if (op.name == "cute.tiled.copy.partition_S" && op.operands.size() >= 2 && op.operands[0] == dst->operands[0] && op.operand_types[1].space == "gmem") src = &op;
  if (!src) unmapped(name + ": the copy into " + view + " reads no global tensor");
  o.g2s = kernel_copy(copy_named(m, dst->operand_types[0]), name + ".g2s");
  const LayoutPtr g = read_layout(traced_global(m, src->operands[1]).text, syms);
  if (g->kind() != LayoutKind::Layout) unmapped(name + ": a global tensor that is not a plain layout");
  o.global = first_two(static_cast<const Layout&>(*g));
  for (const Op& op : m.ops)  // `cute.copy(%copy, %src, %dst, %pred)`: a predicated copy
    if (op.name == "cute.copy" && op.operands.size() >= 4 && op.operands[0] == dst->operands[0]) o.predicated = true;
  if (const Op* ldsm = find_op(m, "cute.tiled.copy.partition_S", view, "atom.ldsm<")) {
    o.s2r = ldsm_atom(copy_named(m, ldsm->operand_types[0]), o.bits);
    locs.add(name + " s2r", *ldsm);
  } else if (const Op* own = own_fragment_copy(m, part)) {
    o.s2r = kernel::universal_copy_atom(atom_bits(own->operand_types[0].full), o.bits);
    if (!o.s2r) unmapped(name + ": the copy " + own->operand_types[0].full + " moves no whole number of " + vt.elem + " elements");
    locs.add(name + " s2r", *own);
  }
  // Any tiled copy out of the view (ldsm or another atom) states its TV layout: kept for §5.
  const Op* s2r = find_op(m, "cute.tiled.copy.partition_S", view, "atom.ldsm<");
  if (!s2r) s2r = find_op(m, "cute.tiled.copy.partition_S", view, "!cute.tiled_copy<");
  if (s2r) {
    const TiledCopy& c = copy_named(m, s2r->operand_types[0]);
    stated.push_back({o.name, c.alias, c.atom, c.layout_tv, c.tiler, op_where(*s2r)});
  }
  locs.add(name + " g2s (global)", *src);
  locs.add(name + " g2s", *dst);
  locs.add(name + " smem", *dst);
  return o;
}

// The epilogue's staging buffer (spec/CUTE_DSL.md §4): the shared view the epilogue copy reads
// (its partition_S over smem) that the MMA's C partition also covers, and the width of the
// register-to-shared store: a `cute.copy` of a plain atom from registers into that C partition.
// Not found: the buffer is not described (kernel/ then checks no r2s store), and a note says so.
void read_staging(const Module& m, const Op& epilogue_dst, kernel::Pipeline& p, Locs locs) {
  const Op* s2g = nullptr;
  for (const Op& op : m.ops)
    if (op.name == "cute.tiled.copy.partition_S" && op.operands.size() >= 2 && op.operands[0] == epilogue_dst.operands[0] && op.operand_types[1].space == "smem") s2g = &op;
  if (!s2g) return;
  const Op* part = nullptr;
  for (const Op& op : m.ops)
    if (op.name == "cute.tiled.mma.partition" && op.keyword == "C" && op.operands.size() >= 2 && op.operands[1] == s2g->operands[1] && !op.results.empty()) part = &op;
  const Op* r2s = nullptr;
  for (const Op& op : m.ops)
    if (part && op.name == "cute.copy" && op.operands.size() == 3 && op.operand_types.size() == 3 && op.operand_types[0].full.rfind("!cute_nvgpu.atom.", 0) == 0 &&
        op.operand_types[1].space == "rmem" && derived_from(m, op.operands[2], part->results[0]))
      r2s = &op;
  if (!r2s || atom_bits(r2s->operand_types[0].full) == 0) {
    p.notes.push_back("the epilogue reads the shared view " + s2g->operands[1] + ", but no register-to-shared store of a stated width into the MMA's C partition of it was found: the staging buffer is not checked");
    return;
  }
  int64_t stages = 1;
  std::optional<int64_t> stride;
  p.epilogue_smem = smem_layout(s2g->operand_types[1], stages, stride, p.notes, "the epilogue");
  if (stages != 1) unmapped("the epilogue's staging buffer " + s2g->operand_types[1].text + " has stages");
  p.r2s_bits = atom_bits(r2s->operand_types[0].full);
  locs.add("C r2s", *r2s);
  locs.add("C s2g", *s2g);
  locs.add("C smem", *part);
}

// C: its global tensor from the MMA's partition of it; the epilogue copy, where a tiled copy moves
// a shared view to that tensor, and its staging buffer where one is found.
// The MMA's partition of C's identity tensor (`cute.make_identity_tensor` of the BM x BN tile,
// `(BM,BN):(1@0,1@1)`), as the IR states it: a thread's (V, M-rest, N-rest) -> coordinate offset
// from its first value (spec/CUTE_DSL.md §5.1). The last quoted string of a coord_tensor type is
// its layout.
void read_c_coordinates(const Module& m, const kernel::Pipeline& p, std::vector<StatedPartition>& partitions) {
  const auto layout_of = [](const std::string& full) {
    const size_t close = full.rfind('"'), open = close == std::string::npos || close == 0 ? std::string::npos : full.rfind('"', close - 1);
    return open == std::string::npos ? std::string() : full.substr(open + 1, close - open - 1);
  };
  const std::string identity = "(" + std::to_string(p.bm) + "," + std::to_string(p.bn) + "):(1@0,1@1)";
  for (const Op& op : m.ops)
    if (op.name == "cute.tiled.mma.partition" && op.keyword == "C" && op.operand_types.size() >= 2 && !op.result_types.empty() &&
        op.operand_types[1].full.rfind("!cute.coord_tensor<", 0) == 0 && layout_of(op.operand_types[1].full) == identity) {
      partitions.push_back({'C', layout_of(op.result_types[0].full), op_where(op)});
      return;
    }
}

void read_c(const Module& m, Symbols& syms, kernel::Pipeline& p, Locs locs) {
  const Op* part = mma_partition_op(m, "C", "gmem");
  if (!part) unmapped("no MMA partition of a global C");
  const Type& gc = traced_global(m, part->operands[1]);
  p.bits_c = elem_bits(gc.elem);
  const LayoutPtr g = read_layout(gc.text, syms);
  if (g->kind() != LayoutKind::Layout) unmapped("C: a global tensor that is not a plain layout");
  p.global_c = first_two(static_cast<const Layout&>(*g));
  locs.add("C mma", *part);
  for (const Op& dst : m.ops) {
    if (dst.name != "cute.tiled.copy.partition_D" || dst.operands.size() < 2 || dst.operands[1] != part->operands[1]) continue;
    p.epilogue = kernel_copy(copy_named(m, dst.operand_types[0]), "epilogue");
    for (const Op& op : m.ops)
      if (op.name == "cute.copy" && op.operands.size() >= 4 && op.operands[0] == dst.operands[0]) p.epilogue_predicated = true;
    locs.add("C epilogue", dst);
    read_staging(m, dst, p, locs);
    return;
  }
  p.epilogue_from_accumulators = true;
  // `cute.copy(%atom, %acc, %dst, %pred)` into (a view of) the MMA's partition of the global C: the
  // stores are predicated (CUTLASS's sgemm: elem_less of each C coordinate against the residue).
  for (const Op& op : m.ops)
    if (op.name == "cute.copy" && op.operands.size() >= 4 && op.operand_types.size() >= 3 && op.operand_types[2].space == "gmem" && !part->results.empty() &&
        derived_from(m, op.operands[2], part->results[0]))
      p.epilogue_predicated = true;
  p.notes.push_back("C is stored from the accumulators (no tiled copy to global): its coverage is the C mma partition's" +
                    std::string(p.epilogue_predicated ? ", its stores predicated" : ""));
}

kernel::Pipeline read_pipeline(const Module& m, std::vector<std::pair<std::string, std::string>>& loc_out, std::vector<StatedS2r>& stated,
                               std::vector<StatedPartition>& partitions) {
  if (m.mmas.size() != 1) unmapped(std::to_string(m.mmas.size()) + " tiled MMAs (one is mapped)");
  const Op* pa = mma_partition_op(m, "A", "smem");
  const Op* pb = mma_partition_op(m, "B", "smem");
  if (!pa || !pb) unmapped("the MMA does not partition shared views of both A and B");
  kernel::Pipeline p;
  p.name = "cute-dsl";
  p.arch = "sm80";
  Symbols syms;
  Locs locs{loc_out};
  int64_t stages_a = 1, stages_b = 1;
  p.a = read_operand(m, *pa, syms, p, stages_a, locs, stated, partitions);
  p.b = read_operand(m, *pb, syms, p, stages_b, locs, stated, partitions);
  p.mma = tiled_mma(m.mmas[0], p.a.bits);
  p.threads = p.mma.atom_threads * p.mma.atoms.size();
  const auto extent = [](const kernel::Operand& o, size_t mode) { return product_int(static_cast<const Layout&>(*smem_outer(o.smem)).shape_ref()[mode]); };
  p.bm = extent(p.a, 0), p.bn = extent(p.b, 0), p.bk = extent(p.a, 1);
  if (extent(p.b, 1) != p.bk || stages_a != stages_b) unmapped("A and B's shared views differ in K or in stages");
  p.stages = stages_a;
  read_c(m, syms, p, locs);
  read_c_coordinates(m, p, partitions);
  for (const auto& [sym, div] : syms.divisors)
    if (div > 1) p.assume.push_back(sym + " % " + std::to_string(div) + " == 0");
  return p;
}

}  // namespace

MappedPipeline map_pipeline(const Module& m) {
  MappedPipeline out;
  try {
    out.pipeline = read_pipeline(m, out.locs, out.s2r, out.partitions);
  } catch (const Unmapped& u) {
    out.unmapped.push_back(u.why);
    out.locs.clear(), out.s2r.clear(), out.partitions.clear();
  } catch (const SpecError& e) {
    out.unmapped.push_back(std::string("a layout does not read: ") + e.what());
    out.locs.clear(), out.s2r.clear(), out.partitions.clear();
  }
  return out;
}

LayoutPtr smem_stage_layout(const Type& view, int64_t& stages, std::string& why) {
  std::vector<std::string> notes;
  std::optional<int64_t> stride;  // the one-stage tile is what the op-by-op checks read
  try {
    return smem_layout(view, stages, stride, notes, "the view");
  } catch (const Unmapped& u) {
    why = u.why;
    return nullptr;
  }
}

}  // namespace tfspec::cute_dsl
