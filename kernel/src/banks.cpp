// Check 3, banks and width (spec/KERNEL.md): every shared-memory write (g2s) and read (s2r) of
// every stage, through spec/SMEM.md's model (reference/src/smem: one model, used here on tables
// of offsets). First the width: each access is one vector at the atom's width; then the banks.
#include <algorithm>
#include <optional>

#include "s2r.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/tma.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/smem.hpp"

namespace tfspec::kernel {
namespace {

std::string plural(int64_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// The width check: the widest vector every thread's values allow, against the atom's.
std::optional<Finding> width_of(const std::string& subject, const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t elem_bytes,
                                int64_t vector) {
  const VectorWidth w = vector_width(off, threads, values, elem_bytes);
  if (w.elems >= vector) return std::nullopt;
  return Finding{"width", subject, Outcome::Violation, &rule::kKernelVectorWidth,
                 "thread " + std::to_string(w.thread) + " value " + std::to_string(w.value) + ": " + w.reason + ", so the " +
                     std::to_string(vector * elem_bytes * 8) + "-bit accesses are at most " + std::to_string(w.bytes * 8) + "-bit vectors",
                 {{"thread", w.thread}, {"value", w.value}, {"bits", w.bytes * 8}, {"atom_bits", vector * elem_bytes * 8}}};
}

// `stage`: which stage of a staged buffer (none for the epilogue's staging buffer, which has none).
Finding banks_of(const std::string& subject, const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t elem_bytes, int64_t vector,
                 std::optional<int64_t> stage) {
  SmemAccess access;
  access.elem_bytes = elem_bytes;
  access.vector = vector;
  const BankReport r = bank_conflicts(off, threads, values, access);
  Finding f{"banks", subject, Outcome::Ok, nullptr, "", Json::object()};
  f.detail = {{"wavefronts", r.wavefronts}, {"ideal", r.ideal}, {"degree", r.degree()}, {"phases", r.phases}, {"conflicting_phases", r.conflicting_phases},
              {"access_bits", r.access_bytes * 8}, {"phase_threads", r.phase_threads}};
  if (stage) f.detail["stage"] = *stage;
  const std::string shape = std::to_string(r.access_bytes * 8) + "-bit accesses, " + std::to_string(r.phase_threads) + " threads a phase";
  if (r.conflict_free()) {
    f.message = "conflict-free: " + plural(r.wavefronts, "wavefront") + " = ideal (" + shape + ")";
    return f;
  }
  f.outcome = Outcome::Violation;
  f.rule = &rule::kKernelBankConflict;
  const PhaseCost& w = *r.worst;
  std::string who, where;
  for (size_t i = 0; i < w.colliding.size() && i < 8; ++i) {
    who += (i ? ", " : "") + std::to_string(w.colliding[i].first);
    where += (i ? ", " : "") + std::to_string(w.colliding_offsets[i]);
  }
  if (w.colliding.size() > 8) who += ", ...", where += ", ...";
  f.message = std::to_string(r.degree()) + "-way conflict: " + plural(r.wavefronts, "wavefront") + " for an ideal of " + std::to_string(r.ideal) + " (" + shape +
              ", " + std::to_string(r.conflicting_phases) + " of " + std::to_string(r.phases) + " phases conflict); first worst: " + (stage ? "stage " + std::to_string(*stage) + ", " : std::string()) +
              "warp " + std::to_string(w.warp) + " access " + std::to_string(w.access) + " phase " + std::to_string(w.phase) + ", bank " +
              std::to_string(w.bank) + " serves " + std::to_string(w.wavefronts) + " words to threads " + who + " at element offsets " + where;
  f.detail["worst"] = {{"warp", w.warp}, {"access", w.access}, {"phase", w.phase}, {"bank", w.bank}, {"wavefronts", w.wavefronts}, {"ideal", w.ideal},
                       {"threads", Json::array()}};
  for (const auto& [t, word] : w.colliding) f.detail["worst"]["threads"].push_back(t);
  f.detail["worst"]["offsets"] = w.colliding_offsets;
  return f;
}

// A conflict's hint (issue 44): the swizzle over the buffer that the model confirms removes it for
// these accesses in every stage, or that none of the swizzles tried does.
std::string hint_for(const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t elem_bytes, int64_t vector, int64_t stages, int64_t stage_stride,
                     const LayoutBase& smem) {
  if (smem.kind() != LayoutKind::Layout) return "";  // a swizzle over a swizzled or linear buffer is no layout to name
  SmemAccess access;
  access.elem_bytes = elem_bytes;
  access.vector = vector;
  const auto h = conflict_free_swizzle(off, threads, values, access, stage_stride, stages);
  if (!h) return "; no Sw<B,M,S> (B <= 5) over the buffer removes it";
  return "; hint: Sw<" + std::to_string(h->bits) + "," + std::to_string(h->base) + "," + std::to_string(h->shift) + "> o 0 o " + to_string(smem) +
         " makes these accesses conflict-free (checked by the bank model)";
}

// Width, then banks in every stage of a staged buffer (stages > 0; stage s starts s * stage_stride
// elements after stage 0: the tile's cosize, or a padded buffer's own stride), or of the one
// unstaged buffer (stages == 0, the epilogue's); reports the first stage that conflicts, or stage
// 0's cost when none does.
void width_and_banks(const std::string& subject, std::vector<int64_t> off, int64_t threads, int64_t values, int64_t elem_bytes, int64_t vector,
                     int64_t stages, int64_t stage_stride, const LayoutBase& smem, std::vector<Finding>& out) {
  const bool staged = stages > 0;
  stages = std::max<int64_t>(stages, 1);
  const std::vector<int64_t> stage0 = off;
  if (auto bad = width_of(subject, off, threads, values, elem_bytes, vector)) {
    out.push_back(std::move(*bad));
    return;
  }
  if (staged && stages > 1 && stage_stride % vector != 0) {  // a padded stride: stage 1's vectors start off their alignment
    out.push_back({"width", subject, Outcome::Violation, &rule::kKernelVectorWidth,
                   "stage 1 starts " + std::to_string(stage_stride) + " elements after stage 0, not a multiple of the " + std::to_string(vector) +
                       "-element vector, so the " + std::to_string(vector * elem_bytes * 8) + "-bit accesses of every odd stage are misaligned",
                   {{"stage", 1}, {"stage_stride", stage_stride}, {"atom_bits", vector * elem_bytes * 8}}});
    return;
  }
  out.push_back({"width", subject, Outcome::Ok, nullptr,
                 std::to_string(vector * elem_bytes * 8) + "-bit vector accesses (" + std::to_string(vector) + " x " + std::to_string(elem_bytes * 8) + " bit)",
                 {{"bits", vector * elem_bytes * 8}}});
  // Stage s starts s * stage_stride elements on. When every element is in an aligned vector (the
  // width check above, with full coverage) a packed stage's cosize is a multiple of the vector and
  // each stage stays aligned; otherwise (a padded stride that is not, or a partial coverage) the
  // model refuses the stage, and the check is skipped saying why.
  std::optional<Finding> first;
  for (int64_t s = 0; s < stages; ++s) {
    if (s > 0)
      for (int64_t& o : off)
        if (o >= 0) o += stage_stride;  // -1: a lane that takes no part stays so
    Finding f;
    try {
      f = banks_of(subject, off, threads, values, elem_bytes, vector, staged ? std::optional<int64_t>(s) : std::nullopt);
    } catch (const SpecError& e) {
      out.push_back({"banks", subject, Outcome::Skipped, nullptr, "not checked: " + (staged ? "stage " + std::to_string(s) : std::string("the buffer")) + " is not vector-aligned (" + e.what() + ")", Json::object()});
      return;
    }
    if (!first || (first->outcome == Outcome::Ok && f.outcome != Outcome::Ok)) first = std::move(f);
  }
  if (first->outcome == Outcome::Ok && stages > 1) first->message += ", in each of the " + std::to_string(stages) + " stages";
  if (first->outcome == Outcome::Violation) first->message += hint_for(stage0, threads, values, elem_bytes, vector, stages, stage_stride, smem);
  out.push_back(std::move(*first));
}

void g2s_banks(const Pipeline& p, const Operand& o, std::vector<Finding>& out) {
  const std::string subject = std::string(1, o.name) + " g2s";
  const int64_t rows = o.name == 'A' ? p.bm : p.bn;
  const Partition part = copy_partition(o.g2s, rows, p.bk);
  const SmemMap m = smem_map(o, rows, p.bk);
  std::vector<int64_t> off(part.index.size());
  for (size_t i = 0; i < off.size(); ++i) {
    if (part.index[i] < 0) {
      out.push_back({"banks", subject, Outcome::Skipped, nullptr, "not checked: the copy names no element for some value (see coverage)", Json::object()});
      return;
    }
    off[i] = m.offset[static_cast<size_t>(part.index[i])];
  }
  width_and_banks(subject + " (write)", std::move(off), part.threads, part.values, o.bits / 8, o.g2s.atom_bits / o.bits, p.stages, stage_stride_of(o, m.cosize),
                  *o.smem, out);
}

// ldmatrix as spec/SMEM.md's model sees it: each source thread's 16-byte row, a quarter-warp a phase.
void s2r_banks(const Pipeline& p, const Operand& o, std::vector<Finding>& out) {
  const std::string subject = std::string(1, o.name) + " s2r (read)";
  const int64_t rows = o.name == 'A' ? p.bm : p.bn;
  const S2rCopy s = derive_s2r(p, o, mma_partition(p, o.name));
  const SmemMap m = smem_map(o, rows, p.bk);
  std::vector<int64_t> off(s.src.size());
  for (size_t i = 0; i < off.size(); ++i) off[i] = m.offset[static_cast<size_t>(s.src[i])];
  if (auto bad = width_of(subject, off, s.threads, s.values(), o.bits / 8, s.vector)) {
    out.push_back(std::move(*bad));
    out.push_back({"banks", subject, Outcome::Skipped, nullptr, "not checked: the accesses are not vectors at the atom's width (see width)", Json::object()});
    return;
  }
  // The lanes whose addresses the hardware ignores (ldmatrix x1 / x2 repeat others' rows) take no
  // part in the bank model (offset -1); the width check above saw their addresses too.
  for (int64_t t = 0; t < s.threads; ++t)
    for (int64_t x = 0; x < s.values(); ++x)
      if (!s.src_reads[static_cast<size_t>(t % s.atom_threads + s.atom_threads * (x % s.src_values))]) off[static_cast<size_t>(t * s.values() + x)] = -1;
  width_and_banks(subject, std::move(off), s.threads, s.values(), o.bits / 8, s.vector, p.stages, stage_stride_of(o, m.cosize), *o.smem, out);
}

// The epilogue through its staging buffer (extension K1): each thread's accumulator fragment (the
// C partition) stored r2s_bits at a time, then the epilogue copy's reads. One buffer, no stages
// (stages 0 below: its findings name no stage).
void epilogue_banks(const Pipeline& p, std::vector<Finding>& out) {
  const Operand staging = epilogue_staging(p);
  const SmemMap m = smem_map(staging, p.bm, p.bn);
  const auto offsets = [&](const Partition& part) {
    std::vector<int64_t> off(part.index.size());
    for (size_t i = 0; i < off.size(); ++i) off[i] = part.index[i] < 0 ? -1 : m.offset[static_cast<size_t>(part.index[i])];
    return off;
  };
  const Partition held = mma_partition(p, 'C'), read = copy_partition(*p.epilogue, p.bm, p.bn);
  if (held.values % (p.r2s_bits / p.bits_c) != 0)
    fail(rule::kKernelInput, "epilogue.r2s_bits: " + std::to_string(p.r2s_bits) + "-bit stores do not divide the " + std::to_string(held.values) + " accumulators a thread holds",
         "epilogue.r2s_bits");
  width_and_banks("C r2s (write)", offsets(held), held.threads, held.values, p.bits_c / 8, p.r2s_bits / p.bits_c, 0, m.cosize, *staging.smem, out);
  if (std::find(read.index.begin(), read.index.end(), -1) != read.index.end())
    out.push_back({"banks", "C s2g (read)", Outcome::Skipped, nullptr, "not checked: the copy names no element for some value (see coverage)", Json::object()});
  else
    width_and_banks("C s2g (read)", offsets(read), read.threads, read.values, p.bits_c / 8, p.epilogue->atom_bits / p.bits_c, 0, m.cosize, *staging.smem, out);
}

}  // namespace

void check_banks(const Pipeline& p, std::vector<Finding>& out) {
  for (const Operand* o : {&p.a, &p.b}) {
    if (o->tma) out.push_back(tma_banks(p, *o));
    else g2s_banks(p, *o, out);
    if (o->s2r) s2r_banks(p, *o, out);
  }
  if (p.epilogue && p.epilogue_smem) epilogue_banks(p, out);
}

}  // namespace tfspec::kernel
