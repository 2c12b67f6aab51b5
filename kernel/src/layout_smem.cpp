// spec/TRITON.md §3.1, §3.2, §3.5 on a LayoutProgram: shared-memory accesses (banks and vector
// width with spec/SMEM.md's model, on tables built from the linear layouts), convert_layout
// classified, and the shared-memory footprint; check_layout_program runs every family.
#include <map>
#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "tfspec/kernel/layout_program.hpp"
#include "tfspec/reference/smem.hpp"

namespace tfspec::kernel {
namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

// A flat element of `from` (dim0 fastest, the linear layouts' flattening) as one of `to`, the view
// starting at `origin` of `to` (empty: at 0).
int64_t reflatten(int64_t flat, const std::vector<int64_t>& from, const std::vector<int64_t>& to, const std::vector<int64_t>& origin) {
  int64_t out = 0, scale = 1;
  for (size_t d = 0; d < from.size(); ++d) {
    out += ((flat % from[d] + (d < origin.size() ? origin[d] : 0)) % to[d]) * scale;
    flat /= from[d];
    scale *= to[d];
  }
  return out;
}

Finding finding(const Move& m, const char* check, Outcome o, const RuleId* rule, std::string message, Json detail = Json::object()) {
  Finding f{check, m.subject, o, rule, std::move(message), std::move(detail)};
  f.loc = m.loc;
  return f;
}

// §3.1: the element offset each (thread, value) of the move touches in shared memory.
std::vector<int64_t> smem_offsets(const Move& m, int64_t& threads, int64_t& values) {
  const std::vector<int64_t> elems = element_table(*m.regs, m.shape, threads, values);
  std::vector<int64_t> offset_of(static_cast<size_t>(product(m.smem_shape)), -1);
  for (int64_t o = m.smem->size() - 1; o >= 0; --o) offset_of[static_cast<size_t>((*m.smem)(o))] = o;  // the lowest offset wins
  std::vector<int64_t> off(elems.size());
  for (size_t i = 0; i < elems.size(); ++i) off[i] = offset_of[static_cast<size_t>(reflatten(elems[i], m.shape, m.smem_shape, m.smem_origin))];
  return off;
}

const char* move_name(MoveKind k) {
  return k == MoveKind::SharedLoad ? "local_load" : k == MoveKind::SharedStore ? "local_store" : "async copy";
}

}  // namespace

std::vector<int64_t> element_table(const LinearLayout& regs, const std::vector<int64_t>& shape, int64_t& threads, int64_t& values) {
  (void)shape;
  values = int64_t{1} << regs.in_dim_bits(0);
  threads = regs.size() / values;
  std::vector<int64_t> out(static_cast<size_t>(regs.size()));
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t v = 0; v < values; ++v) out[static_cast<size_t>(t * values + v)] = regs(v + t * values);
  return out;
}

namespace {

// §3.1: a local_load into an mma operand is read by ldmatrix, one phase per 8x8 matrix.
bool check_ldmatrix(const LayoutProgram& p, const Move& m, const std::vector<int64_t>& off, int64_t threads, int64_t values, std::string& why_not,
                    std::vector<Finding>& out) {
  const int64_t bytes = std::max<int64_t>(1, m.elem_bits / 8);
  const std::optional<LdmatrixReport> r = ldmatrix_phases(off, threads, values, p.threads_per_warp, bytes, why_not);
  if (!r) return false;
  const std::string instruction = r->trans ? "ldmatrix.trans" : "ldmatrix";
  out.push_back(finding(m, "width", Outcome::Ok, nullptr, "local_load by " + instruction + ": 16-byte rows, 8 rows a matrix (" + std::to_string(r->matrices) + " matrices)",
                        {{"bits", 128}, {"model", "ldmatrix"}, {"instruction", instruction}}));
  // the buffer's row: the extent of the dim its consecutive offsets walk (with no swizzle, a phase's
  // 8 rows are that many bytes apart)
  int64_t row_bytes = 0;
  for (const LinearInDim& d : m.smem->ins())
    if (d.name == "offset" && !d.bases.empty())
      for (size_t k = 0; k < d.bases[0].size() && k < m.smem_shape.size(); ++k)
        if (d.bases[0][k] != 0) row_bytes = m.smem_shape[k] * bytes;
  Json detail{{"wavefronts", r->wavefronts}, {"ideal", r->ideal}, {"degree", r->degree}, {"model", "ldmatrix"}, {"instruction", instruction}, {"phases", r->matrices}, {"row_bytes", row_bytes}};
  if (r->wavefronts == r->ideal) {
    out.push_back(finding(m, "banks", Outcome::Ok, nullptr, "conflict-free (ldmatrix phases): " + std::to_string(r->wavefronts) + " wavefronts = ideal", detail));
    return true;
  }
  out.push_back(finding(m, "banks", Outcome::Violation, &rule::kKernelBankConflict,
                        std::to_string(r->degree) + "-way conflict (ldmatrix phases): " + std::to_string(r->wavefronts) + " wavefronts for an ideal of " +
                            std::to_string(r->ideal) + "; first worst: warp " + std::to_string(r->worst_warp) + " matrix " + std::to_string(r->worst_group) +
                            ", " + std::to_string(r->degree) + " of its eight 16-byte rows in the banks " + std::to_string(4 * r->worst_slot) + "-" +
                            std::to_string(4 * r->worst_slot + 3),
                        detail));
  return true;
}

// spec/SMEM.md's report of a conflict, in words: the degree, the totals and the first worst phase.
std::string conflict_text(const BankReport& r) {
  const PhaseCost& p = *r.worst;
  std::string who;
  for (size_t i = 0; i < p.colliding.size() && i < 8; ++i) who += (i ? ", " : "") + std::to_string(p.colliding[i].first);
  return std::to_string(r.degree()) + "-way conflict: " + std::to_string(r.wavefronts) + " wavefronts for an ideal of " + std::to_string(r.ideal) + " (" +
         std::to_string(r.access_bytes * 8) + "-bit accesses); first worst: warp " + std::to_string(p.warp) + " access " + std::to_string(p.access) + ", bank " +
         std::to_string(p.bank) + " serves " + std::to_string(p.wavefronts) + " words to threads " + who;
}

}  // namespace

void check_layout_smem(const LayoutProgram& prog, const Move& m, std::vector<Finding>& out) {
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = smem_offsets(m, threads, values);
  std::string why_not;
  if (m.to_mma_operand && check_ldmatrix(prog, m, off, threads, values, why_not, out)) return;
  const int64_t bytes = std::max<int64_t>(1, m.elem_bits / 8);
  const VectorWidth w = vector_width(off, threads, values, bytes);
  out.push_back(finding(m, "width", Outcome::Ok, nullptr,
                        std::string(move_name(m.kind)) + ": " + std::to_string(w.bytes * 8) + "-bit vectors (" + std::to_string(w.elems) + (w.elems == 1 ? " element" : " elements") + " a thread" +
                            (w.next_elems ? "; not " + std::to_string(*w.next_elems) + ": " + w.reason : "") + ")" + (why_not.empty() ? "" : "; not ldmatrix: " + why_not),
                        {{"bits", w.bytes * 8}, {"elements", w.elems}}));
  SmemAccess access;
  access.elem_bytes = bytes;
  access.vector = w.elems;
  const BankReport r = bank_conflicts(off, threads, values, access);
  Json detail{{"wavefronts", r.wavefronts}, {"ideal", r.ideal}, {"degree", r.degree()}, {"access_bits", r.access_bytes * 8}, {"phases", r.phases}};
  if (r.conflict_free()) {
    out.push_back(finding(m, "banks", Outcome::Ok, nullptr, "conflict-free: " + std::to_string(r.wavefronts) + " wavefronts = ideal", detail));
    return;
  }
  out.push_back(finding(m, "banks", Outcome::Violation, &rule::kKernelBankConflict, conflict_text(r), detail));
}

namespace {

// §3.2.1: one side of the move through Triton's scratch (the source's store, the destination's
// load): by ld.shared / st.shared at the widest vector spec/SMEM.md allows on its offsets, with
// that model's wavefronts; by ldmatrix / stmatrix in phases of eight 16-byte rows. A side costing
// more than its ideal is a conflict (kernel-bank-conflict).
struct SideCost {
  Json detail;
  std::string text, conflict;  // conflict: empty when the side costs its ideal
  bool spans = true;
};

SideCost side_cost(const Move& m, const ConvertScratch& s, bool store) {
  const LinearLayout& layout = store ? *m.regs : *m.regs_to;
  const std::string& instr = store ? s.store : s.load;
  SideCost c;
  if (instr.find("matrix") != std::string::npos) {
    const std::optional<MatrixPhases> mp = matrix_phases(s, store ? s.store_rows : s.load_rows, layout.out_bits());
    if (!mp) return c.spans = false, c;
    c.detail = {{"instruction", instr}, {"bits", 128}, {"wavefronts", mp->wavefronts}, {"ideal", mp->ideal}, {"degree", mp->worst}};
    c.text = instr + ", " + std::to_string(mp->wavefronts) + " wavefronts" + (mp->wavefronts == mp->ideal ? " = ideal" : " for an ideal of " + std::to_string(mp->ideal));
    if (mp->wavefronts != mp->ideal)
      c.conflict = std::to_string(mp->worst) + "-way conflict (" + instr + " phases): " + std::to_string(mp->wavefronts) + " wavefronts for an ideal of " +
                   std::to_string(mp->ideal) + "; the worst phase has " + std::to_string(mp->worst) + " of its eight 16-byte rows in one 16-byte slot";
    return c;
  }
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = scratch_offsets(layout, s, threads, values);
  if (off.empty()) return c.spans = false, c;
  const VectorWidth w = vector_width(off, threads, values, s.bits / 8);
  SmemAccess access;
  access.elem_bytes = s.bits / 8;
  access.vector = w.elems;
  const BankReport r = bank_conflicts(off, threads, values, access);
  c.detail = {{"instruction", instr}, {"bits", w.bytes * 8}, {"elements", w.elems}, {"wavefronts", r.wavefronts}, {"ideal", r.ideal}, {"degree", r.degree()}};
  c.text = std::to_string(w.bytes * 8) + "-bit vectors, " + std::to_string(r.wavefronts) + " wavefronts" + (r.conflict_free() ? " = ideal" : " for an ideal of " + std::to_string(r.ideal));
  if (!r.conflict_free()) c.conflict = conflict_text(r);
  return c;
}

void check_convert_scratch(const Move& m, const ConvertScratch& s, Json& detail, std::string& msg, std::vector<Finding>& out) {
  detail["scratch_bytes"] = s.bytes, detail["rounds"] = int64_t{1} << s.reps.size();
  detail["scratch_bases"] = {{"vector", s.vector}, {"bank", s.bank}, {"segment", s.segment}, {"reps", s.reps}};
  msg += " (Triton's scratch: " + std::to_string(s.bytes) + " B, " + std::to_string(int64_t{1} << s.reps.size()) + (s.reps.empty() ? " round" : " rounds");
  std::vector<std::pair<const char*, SideCost>> sides{{"store", side_cost(m, s, true)}, {"load", side_cost(m, s, false)}};
  for (const auto& [name, c] : sides) {
    if (!c.spans) {
      out.push_back(finding(m, "convert", Outcome::Undecided, &rule::kKernelBankConflict, msg + "): the scratch's bases do not span the tile", detail));
      return;
    }
    detail[name] = c.detail;
    msg += std::string("; ") + name + " " + c.text;
  }
  msg += ")";
  out.push_back(finding(m, "convert", Outcome::Ok, nullptr, msg, detail));
  for (const auto& [name, c] : sides)
    if (!c.conflict.empty()) {
      Json d = c.detail;
      d["side"] = name;
      out.push_back(finding(m, "banks", Outcome::Violation, &rule::kKernelBankConflict, std::string("convert scratch ") + name + ": " + c.conflict, d));
    }
}

}  // namespace

// §3.2: where each destination value comes from. Every element a destination thread holds is held
// by that same thread in the source (registers only), by a thread of its warp (shuffles), or only
// by another warp (through shared memory).
void check_layout_convert(const LayoutProgram& p, const Move& m, std::vector<Finding>& out) {
  const int64_t bytes = std::max<int64_t>(1, m.elem_bits / 8), tile = product(m.shape) * bytes;
  if (*m.regs == *m.regs_to) {
    out.push_back(finding(m, "convert", Outcome::Ok, nullptr, "no data movement: the two encodings are the same linear layout", {{"class", "none"}}));
    return;
  }
  int64_t ts = 0, vs = 0, td = 0, vd = 0;
  const std::vector<int64_t> src = element_table(*m.regs, m.shape, ts, vs), dst = element_table(*m.regs_to, m.shape, td, vd);
  std::vector<std::vector<int64_t>> holders(static_cast<size_t>(product(m.shape)));
  for (size_t i = 0; i < src.size(); ++i) holders[static_cast<size_t>(src[i])].push_back(static_cast<int64_t>(i) / vs);
  int level = 0;  // 0 registers, 1 shuffles, 2 shared memory
  for (size_t i = 0; i < dst.size() && level < 2; ++i) {
    const int64_t t = static_cast<int64_t>(i) / vd;
    const auto& h = holders[static_cast<size_t>(dst[i])];
    if (std::find(h.begin(), h.end(), t) != h.end()) continue;
    const bool same_warp = std::any_of(h.begin(), h.end(), [&](int64_t s) { return s / p.threads_per_warp == t / p.threads_per_warp; });
    level = std::max(level, same_warp ? 1 : 2);
  }
  static const char* kClass[] = {"registers", "shuffles", "shared"};
  static const char* kText[] = {"within each thread (register moves only)", "across lanes of a warp (warp shuffles suffice)",
                                "across warps: through shared memory"};
  Json detail{{"class", kClass[level]}};
  std::string msg = kText[level];
  std::string why_not;
  const int sm = p.arch.starts_with("sm") ? std::atoi(p.arch.c_str() + 2) : 0;
  // Triton 3.9 decides on its own map of the destination's hardware bits to the source's
  // (triton_convert_path), which can move warps or lanes where the data does not (a broadcast
  // layout: every thread, or every warp, already holds what it needs); where the data stays within
  // a warp, it then picks warp shuffles or its scratch.
  const TritonConvertPath path = triton_convert_path(*m.regs, *m.regs_to);
  bool through_scratch = level == 2;
  if (level < 2 && path.level > 0) {
    detail["triton_moves"] = path.level == 2 ? "warps" : "lanes";
    detail["triton"] = path.shuffles ? "shuffles" : "shared";
    through_scratch = !path.shuffles;
    msg += std::string("; Triton 3.9's map of the destination's hardware to the source's moves ") + (path.level == 2 ? "warps" : "lanes") +
           (level == 0 || path.level == 2 ? " (a broadcast layout)" : "") +
           (path.shuffles ? ": it moves the values by warp shuffles" : ": it still goes through its shared-memory scratch");
  }
  if (through_scratch) {
    if (const std::optional<ConvertScratch> s = m.scratch ? m.scratch : triton_convert_scratch(*m.regs, *m.regs_to, m.elem_bits, sm, why_not)) {
      check_convert_scratch(m, *s, detail, msg, out);
      return;
    }
    detail["scratch_bytes"] = tile, msg += " (a scratch of at most " + std::to_string(tile) + " B, the whole tile; Triton's choice not modelled: " + why_not + ")";
  }
  out.push_back(finding(m, "convert", Outcome::Ok, nullptr, msg, detail));
}

// §3.5.1 a tt.reduce, §3.5.2 a tt.scan: within warps when the axis lies in one warp's registers and
// lanes; else the scratch Triton takes to carry the partial results across warps.
std::optional<int64_t> op_scratch(const Move& m, std::string& why_not) {
  if (m.kind == MoveKind::Scan) return triton_scan_scratch(*m.regs, m.axis, m.operand_bits, why_not);
  const std::optional<ReduceScratch> s = triton_reduce_scratch(*m.regs, m.axis, m.operand_bits, why_not);
  return s ? std::optional<int64_t>(s->bytes) : std::nullopt;
}

void check_layout_reduce(const LayoutProgram&, const Move& m, std::vector<Finding>& out) {
  const bool scan = m.kind == MoveKind::Scan;
  const std::string what = std::string(scan ? "tt.scan" : "tt.reduce") + " along dim" + std::to_string(m.axis), clause = scan ? "§3.5.2" : "§3.5.1";
  const char* check = scan ? "scan" : "reduce";
  std::string why_not;
  std::optional<ReduceScratch> s;
  if (!scan) s = triton_reduce_scratch(*m.regs, m.axis, m.operand_bits, why_not);
  const std::optional<int64_t> bytes = scan ? triton_scan_scratch(*m.regs, m.axis, m.operand_bits, why_not) : s ? std::optional<int64_t>(s->bytes) : std::nullopt;
  if (!bytes) {
    out.push_back(finding(m, check, Outcome::Undecided, &rule::kTritonEncoding, what + ": Triton's scratch not derived (spec/TRITON.md " + clause + "): " + why_not, {{"axis", m.axis}}));
    return;
  }
  Json detail{{"axis", m.axis}, {"scratch_bytes", *bytes}};
  if (s) detail["warps_on_axis"] = s->warps_on_axis, detail["round_bytes"] = s->round_bytes;
  if (*bytes == 0) {
    out.push_back(finding(m, check, Outcome::Ok, nullptr, what + " within each warp (registers, then shuffles): no shared memory (spec/TRITON.md " + clause + ")", detail));
    return;
  }
  const std::string operands = std::to_string(m.operand_bits.size()) + (m.operand_bits.size() == 1 ? " operand" : " operands");
  std::string msg = what + " across ";
  if (s) {
    const size_t n = s->round_bytes.size();
    msg += std::to_string(s->warps_on_axis) + " warps: Triton's scratch " + std::to_string(*bytes) + " B (" + operands + ", " + std::to_string(n) + (n == 1 ? " round" : " rounds") +
           " through shared memory; spec/TRITON.md " + clause + ")";
  } else {
    msg += "warps: Triton's scratch " + std::to_string(*bytes) + " B (" + operands + ": each warp's carries; spec/TRITON.md " + clause + ")";
  }
  out.push_back(finding(m, check, Outcome::Ok, nullptr, msg, detail));
}

// §3.5 the footprint: the most bytes live at once. A buffer is live over its Move's program points
// (live_from .. live_to; 0: throughout), a convert's, a reduce's or a scan's scratch (§3.5.1,
// §3.5.2) at its op only;
// the peak is reached at the start of some buffer's range or at some scratch, so those points are
// the candidates.
void check_layout_footprint(const LayoutProgram& p, const KernelOptions& o, std::vector<Finding>& out) {
  int64_t allocs = 0, scratch = 0, reduce_scratch = 0;  // reduce_scratch: the largest of a reduce's or a scan's
  std::vector<std::pair<const Move*, int64_t>> scratches;  // each convert through shared memory and each reduce or scan across warps, its bytes
  const Move* unknown = nullptr;  // a convert, reduce or scan whose layouts were not derived: its scratch is not counted
  for (const Move& m : p.moves) {
    allocs += m.kind == MoveKind::Alloc ? m.alloc_bytes : 0;
    const bool scratchy = m.kind == MoveKind::Convert || m.kind == MoveKind::Reduce || m.kind == MoveKind::Scan;
    if (scratchy && (!m.regs || (m.kind == MoveKind::Convert && !m.regs_to)) && !unknown) unknown = &m;
    if (m.kind == MoveKind::Convert && m.regs && m.regs_to && !(*m.regs == *m.regs_to)) {
      std::vector<Finding> c;
      check_layout_convert(p, m, c);
      if (c[0].detail.contains("scratch_bytes")) {
        scratch = std::max(scratch, c[0].detail["scratch_bytes"].get<int64_t>());
        scratches.emplace_back(&m, c[0].detail["scratch_bytes"].get<int64_t>());
      }
    }
    std::string why_not;
    if ((m.kind == MoveKind::Reduce || m.kind == MoveKind::Scan) && m.regs)
      if (const std::optional<int64_t> b = op_scratch(m, why_not); b && *b > 0) {
        reduce_scratch = std::max(reduce_scratch, *b);
        scratches.emplace_back(&m, *b);
      }
  }
  const auto live_at = [](const Move& m, int64_t at) { return m.live_to == 0 || (m.live_from <= at && at <= m.live_to); };
  int64_t need = 0, peak_at = 0;
  std::vector<std::pair<int64_t, const Move*>> points;  // each candidate and the move it starts
  for (const Move& m : p.moves)
    if (m.kind == MoveKind::Alloc || m.kind == MoveKind::Convert || m.kind == MoveKind::Reduce || m.kind == MoveKind::Scan) points.emplace_back(m.live_from, &m);
  for (const auto& [at, from] : points) {
    int64_t bytes = 0;
    for (const Move& m : p.moves) bytes += m.kind == MoveKind::Alloc && live_at(m, at) ? m.alloc_bytes : 0;
    // a scratch lives at its own op only (one with no point known: at its own candidate alone)
    for (const auto& [m, b] : scratches) bytes += m == from || (at > 0 && m->live_from == at) ? b : 0;
    if (bytes > need) need = bytes, peak_at = at;
  }
  Move whole;
  whole.subject = "shared memory";
  whole.loc = p.loc;
  Finding f = finding(whole, "footprint", Outcome::Ok, nullptr, "", {{"allocations_bytes", allocs}, {"scratch_bytes", scratch}, {"bytes", need}});
  if (peak_at > 0) f.detail["peak_line"] = peak_at;
  f.message = "allocations " + std::to_string(allocs) + " B, largest convert scratch " + std::to_string(scratch) + " B";
  if (reduce_scratch > 0) f.detail["reduce_scratch_bytes"] = reduce_scratch, f.message += ", largest reduce / scan scratch " + std::to_string(reduce_scratch) + " B (§3.5.1, §3.5.2)";
  f.message += "; the most live at once " + std::to_string(need) + " B" + (peak_at > 0 ? " (IR line " + std::to_string(peak_at) + ")" : "");
  if (p.declared_shared) f.message += "; Triton allocated " + std::to_string(*p.declared_shared) + " B", f.detail["declared_bytes"] = *p.declared_shared;
  const std::optional<int64_t> limit = o.smem_limit ? o.smem_limit : smem_limit_for(p.arch);
  const int64_t used = std::max(need, p.declared_shared.value_or(0));
  if (limit) f.detail["limit_bytes"] = *limit;
  if (limit && used > *limit) f.outcome = Outcome::Violation, f.rule = &rule::kKernelSmemFootprint, f.message += " > the limit " + std::to_string(*limit) + " B";
  else if (limit) f.message += " <= the limit " + std::to_string(*limit) + " B";
  // a scratch not counted leaves the peak a lower bound: ok only on Triton's own allocation
  std::string uncounted = unknown ? unknown->subject + " (its layouts were not derived)" : "";
  for (const std::string& u : p.unknown)  // ops the frontend did not read that Triton may give scratch (§3.5)
    for (const char* op : {"tt.gather ", "tt.histogram ", "tt.atomic_rmw ", "tt.atomic_cas "})
      if (uncounted.empty() && u.find(op) != std::string::npos) uncounted = u;
  if (!uncounted.empty() && f.outcome == Outcome::Ok && !p.declared_shared) {
    f.outcome = Outcome::Undecided;
    f.message += "; but the scratch of " + uncounted + " is not counted, so " + std::to_string(need) +
                 " B is only a lower bound and no Triton metadata gives the allocation";
  }
  out.push_back(std::move(f));
}

namespace {

// §3.4: the longest run (a power of two, at most 16 bytes) of consecutive elements along the
// contiguous dim `cd` that the shared encoding keeps at consecutive offsets from an offset that is
// a multiple of the run, for every run of the view: the widest vector a cp.async can write there.
// A property of the shared layout alone, not of the registers the copy reads from.
int64_t destination_run(const Move& to, int cd) {
  if (cd < 0) return 0;
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = smem_offsets(to, threads, values);
  const std::vector<int64_t> elems = element_table(*to.regs, to.shape, threads, values);
  std::map<int64_t, int64_t> at;  // element -> its offset
  for (size_t i = 0; i < elems.size(); ++i) at.emplace(elems[i], off[i]);
  int64_t stride = 1;
  for (int i = 0; i < cd; ++i) stride *= to.shape[static_cast<size_t>(i)];
  const int64_t extent = to.shape[static_cast<size_t>(cd)], most = std::max<int64_t>(1, 16 / std::max<int64_t>(1, to.elem_bits / 8));
  int64_t run = 1;
  for (int64_t r = 2; r <= most && r <= extent; r *= 2) {
    bool ok = true;
    for (auto it = at.begin(); ok && it != at.end(); ++it) {
      const int64_t e = it->first, c = (e / stride) % extent;
      if (c % r != 0) continue;
      if (it->second % r != 0) ok = false;
      for (int64_t i = 1; ok && i < r; ++i) {
        const auto n = at.find(e + i * stride);
        ok = n != at.end() && n->second == it->second + i;
      }
    }
    if (!ok) break;
    run = r;
  }
  return run;
}

}  // namespace

KernelReport check_layout_program(const LayoutProgram& p, const KernelOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  KernelReport r{p.name, p.arch, {}, {}, 0};
  for (const std::string& u : p.unknown) {
    r.findings.push_back(Finding{"reader", "not read", Outcome::Skipped, nullptr, u, Json::object()});
    r.findings.back().loc = p.loc;
  }
  for (size_t i = 0; i < p.moves.size(); ++i) {
    const Move& m = p.moves[i];
    if (m.kind == MoveKind::Alloc) continue;
    if (!m.undecided.empty()) {
      r.findings.push_back(finding(m, "layout", Outcome::Undecided, &rule::kTritonEncoding, m.undecided));
      continue;
    }
    if (m.kind == MoveKind::SharedLoad || m.kind == MoveKind::SharedStore || m.kind == MoveKind::AsyncCopy) check_layout_smem(p, m, r.findings);
    else if (m.kind == MoveKind::Convert) check_layout_convert(p, m, r.findings);
    else if (m.kind == MoveKind::Dot) check_layout_dot(p, m, r.findings);
    else if (m.kind == MoveKind::Reduce || m.kind == MoveKind::Scan) check_layout_reduce(p, m, r.findings);
    else {
      // An async copy's global read (§3.4) is one cp.async per vector: its width is also bounded
      // by the run each thread's values make in the shared destination (the move after it).
      int64_t dest = 0;
      if (m.kind == MoveKind::GlobalLoad && i + 1 < p.moves.size()) {
        const Move& to = p.moves[i + 1];
        if (to.kind == MoveKind::AsyncCopy && to.subject == m.subject && to.undecided.empty() && to.smem && to.regs && to.shape == m.shape)
          dest = destination_run(to, m.global.contiguous_dim);
      }
      check_layout_global(p, m, r.findings, dest);
    }
  }
  check_layout_footprint(p, o, r.findings);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tfspec::kernel
