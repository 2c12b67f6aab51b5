// spec/TRITON.md §3.3 and §3.4 on a LayoutProgram: a dot's operands against its MMA and each
// other, and each global load or store's vector width and 32-byte sectors against the ideal.
#include <algorithm>

#include "tfspec/kernel/coalescing.hpp"
#include "tfspec/kernel/layout_program.hpp"

namespace tfspec::kernel {
namespace {

Finding finding(const Move& m, const char* check, Outcome o, const RuleId* rule, std::string message, Json detail = Json::object()) {
  Finding f{check, m.subject, o, rule, std::move(message), std::move(detail)};
  f.loc = m.loc;
  return f;
}

const std::vector<std::vector<int64_t>>& bases(const LinearLayout& l, const std::string& in) {
  static const std::vector<std::vector<int64_t>> none;
  for (const LinearInDim& d : l.ins())
    if (d.name == in) return d.bases;
  return none;
}

// The k each bit of a dot operand walks (§3.3): registers that move only along k, in order, then
// the lanes that do (A is M x K: k is dim 1; B is K x N: k is dim 0).
std::vector<int64_t> k_steps(const LinearLayout& l, size_t k, std::vector<int64_t>& lane_steps) {
  const size_t other = 1 - k;
  std::vector<int64_t> regs;
  for (const auto& b : bases(l, "register"))
    if (b[other] == 0 && b[k] != 0) regs.push_back(b[k]);
  for (const auto& b : bases(l, "lane"))
    if (b[other] == 0 && b[k] != 0) lane_steps.push_back(b[k]);
  return regs;
}

int64_t coord(int64_t flat, const std::vector<int64_t>& shape, size_t d) {
  for (size_t i = 0; i < d; ++i) flat /= shape[i];
  return flat % shape[d];
}

}  // namespace

// §3.3.2 wgmma's A operand in registers: the instruction fixes its fragment (the PTX ISA's register
// fragment of wgmma's A, m64 x K with K = 256 / element bits, one 16-row slice a warp): in a warp,
// each lane's 32-bit register holds w = 32 / element bits consecutive k, lanes step k by w and 2w
// (lane % 4) and m by 1, 2, 4 (lane / 4), a second register pair the rows m + 8, and the next
// registers k + K/2. So A's register k steps begin 1, 2, .., w/2 then K/2, its lane k steps are
// w, 2w, and its first register step along m alone is 8. A dot_op whose kWidth is not w puts other
// k in the lanes' registers than the instruction reads there.
void check_wgmma_register_a(const Move& m, std::vector<Finding>& out) {
  const int64_t bits = m.elem_bits > 0 ? m.elem_bits : 16;
  const int64_t w = std::max<int64_t>(1, 32 / bits), k_inst = 256 / bits;
  std::vector<int64_t> la, want_regs, want_lanes{w, 2 * w};
  const std::vector<int64_t> ra = k_steps(*m.a.layout, 1, la);
  for (int64_t s = 1; s < w; s *= 2) want_regs.push_back(s);
  want_regs.push_back(k_inst / 2);
  int64_t m_reg = 0;  // the first register basis that moves m alone
  std::vector<int64_t> lane_m;
  for (const auto& b : bases(*m.a.layout, "register"))
    if (b[1] == 0 && b[0] != 0) {
      m_reg = b[0];
      break;
    }
  for (const auto& b : bases(*m.a.layout, "lane"))
    if (b[1] == 0 && b[0] != 0) lane_m.push_back(b[0]);
  Json detail{{"operand", "A"}, {"a_kwidth", m.a.k_width}, {"elem_bits", bits}, {"a_register_k", ra}, {"a_lane_k", la}, {"a_lane_m", lane_m}, {"a_register_m", m_reg},
              {"wgmma_register_k", want_regs}, {"wgmma_lane_k", want_lanes}};
  std::string problem;
  if (m.a.op_idx != 0) problem = "the register operand has opIdx " + std::to_string(m.a.op_idx) + " (wgmma takes A from registers, opIdx 0)";
  else if (m.a.parent != m.accumulator) problem = "the register A's parent " + m.a.parent + " is not the accumulator's encoding " + m.accumulator;
  else if (la != want_lanes)
    problem = "the register A's lanes step k by " + Json(la).dump() + " but wgmma's fragment (" + std::to_string(bits) + "-bit: " + std::to_string(w) +
              " consecutive k a 32-bit register) has lanes at k + " + Json(want_lanes).dump() + " (kWidth " + std::to_string(m.a.k_width) + ", wgmma's " + std::to_string(w) + ")";
  else if (ra.size() < want_regs.size() || !std::equal(want_regs.begin(), want_regs.end(), ra.begin()))
    problem = "the register A's registers step k by " + Json(ra).dump() + " but wgmma's fragment steps them by " + Json(want_regs).dump() + " first (kWidth " + std::to_string(m.a.k_width) + ")";
  else if (lane_m != std::vector<int64_t>{1, 2, 4} || m_reg != 8)
    problem = "the register A's lanes step m by " + Json(lane_m).dump() + " and its first m register by " + std::to_string(m_reg) + " but wgmma's fragment by [1, 2, 4] and 8";
  if (!problem.empty()) out.push_back(finding(m, "dot", Outcome::Violation, &rule::kKernelDotOperands, problem, detail));
  else
    out.push_back(finding(m, "dot", Outcome::Ok, nullptr,
                          "wgmma's A in registers: the fragment the instruction reads (k steps " + Json(want_regs).dump() + " in registers, " + Json(want_lanes).dump() + " in lanes; kWidth " + std::to_string(m.a.k_width) + ")",
                          detail));
}

void check_layout_dot(const LayoutProgram& p, const Move& m, std::vector<Finding>& out) {
  if (m.a.op_idx < 0 || m.b.op_idx < 0 || !m.a.layout || !m.b.layout) {
    const size_t before = out.size();
    if (m.a.layout && m.a.op_idx >= 0 && m.b.op_idx < 0) check_wgmma_register_a(m, out);  // §3.3.2
    check_wgmma_operands(p, m, out);  // §3.3: the shared-memory operands against wgmma's descriptor
    if (out.size() == before)
      out.push_back(finding(m, "dot", Outcome::Skipped, nullptr, "an operand is read from shared memory by the instruction's descriptor (wgmma): its layout is the shared encoding's, not a register layout"));
    return;
  }
  std::string problem;
  if (m.a.op_idx != 0 || m.b.op_idx != 1) problem = "operand indices " + std::to_string(m.a.op_idx) + ", " + std::to_string(m.b.op_idx) + " (A is opIdx 0, B opIdx 1)";
  else if (m.a.parent != m.accumulator || m.b.parent != m.accumulator) problem = "an operand's parent is not the accumulator's encoding " + m.accumulator;
  std::vector<int64_t> la, lb;
  const std::vector<int64_t> ra = k_steps(*m.a.layout, 1, la), rb = k_steps(*m.b.layout, 0, lb);
  Json detail{{"a_kwidth", m.a.k_width}, {"b_kwidth", m.b.k_width}, {"a_register_k", ra}, {"b_register_k", rb}, {"a_lane_k", la}, {"b_lane_k", lb}};
  if (problem.empty() && la != lb) problem = "lanes walk k differently: A's lane bits step k by " + Json(la).dump() + ", B's by " + Json(lb).dump();
  for (size_t j = 0; problem.empty() && j < std::min(ra.size(), rb.size()); ++j)
    if (ra[j] != rb[j])
      problem = "the operands do not meet at the same k: k-register bit " + std::to_string(j) + " of a thread holds A's k + " + std::to_string(ra[j]) +
                " but B's k + " + std::to_string(rb[j]) + " (kWidth " + std::to_string(m.a.k_width) + " vs " + std::to_string(m.b.k_width) + ")";
  if (!problem.empty()) {
    out.push_back(finding(m, "dot", Outcome::Violation, &rule::kKernelDotOperands, problem, detail));
    return;
  }
  out.push_back(finding(m, "dot", Outcome::Ok, nullptr, "A and B share the accumulator's parent and meet slot by slot: k steps " + Json(ra).dump() + " in registers, " + Json(la).dump() + " in lanes (kWidth " + std::to_string(m.a.k_width) + ")", detail));
}

// §3.4: each thread's vector along the contiguous dim (the register bits that step it by 1, 2,
// 4, ...), capped by 16 bytes, the contiguity and the alignment; and each warp's 32-byte sectors per
// access instruction (rows of other dims are distinct sectors) against the bytes it moves.
void check_layout_global(const LayoutProgram& p, const Move& m, std::vector<Finding>& out, int64_t dest_elems) {
  const int cd = m.global.contiguous_dim;
  const int64_t bytes = std::max<int64_t>(1, m.elem_bits / 8);
  if (cd < 0) {
    out.push_back(finding(m, "global", Outcome::Skipped, nullptr, "no dim of the pointer tensor is known to be contiguous from the IR's facts: not checked"));
    return;
  }
  int64_t own = 1;
  for (const auto& b : bases(*m.regs, "register")) {
    std::vector<int64_t> unit(b.size(), 0);
    unit[static_cast<size_t>(cd)] = own;
    if (b != unit) break;
    own *= 2;
  }
  const int64_t values = int64_t{1} << m.regs->in_dim_bits(0);
  const int64_t address_cap = std::max<int64_t>(1, std::min({16 / bytes, m.global.contiguity, m.global.align_elems}));
  // §3.4.1 a vector is one predicate: a mask caps it at its constancy along the contiguous dim. A
  // fact of the program (a ragged bound), not of the layout: it lowers the ideal as well.
  const bool mask_bound = m.global.mask_constancy > 0 && m.global.mask_constancy < address_cap;
  const int64_t source_cap = mask_bound ? m.global.mask_constancy : address_cap;
  // cp.async moves one vector to consecutive shared addresses: no wider than its destination's run
  const bool dest_bound = dest_elems > 0 && dest_elems < source_cap;
  const int64_t cap = dest_bound ? dest_elems : source_cap;
  const int64_t vec = std::min(own, cap), ideal_vec = std::min(cap, values);
  int64_t stride = 1;  // of the contiguous dim in the flat element index (dim0 fastest)
  for (int i = 0; i < cd; ++i) stride *= m.shape[static_cast<size_t>(i)];
  // Every warp (§3.4): the warp with the most sectors over its ideal is reported (the first such).
  int64_t sectors = -1, ideal = 0, worst_warp = 0;
  const int64_t warps = m.regs->size() / (values * p.threads_per_warp);
  for (int64_t w = 0; w < warps; ++w) {
    int64_t ws = 0, wi = 0;
    for (int64_t k = 0; k < values / vec; ++k) {
      // Rows of the other dims have unknown distances: each is its own row of sectors.
      std::vector<std::pair<int64_t, int64_t>> row_and_byte;
      for (int64_t lane = 0; lane < p.threads_per_warp; ++lane)
        for (int64_t v = k * vec; v < (k + 1) * vec; ++v) {
          const int64_t e = (*m.regs)(v + (lane + w * p.threads_per_warp) * values), c = coord(e, m.shape, static_cast<size_t>(cd));
          row_and_byte.push_back({e - c * stride, c * bytes});
        }
      const SectorCount n = sectors_of(row_and_byte, bytes, m.shape[static_cast<size_t>(cd)] * bytes);
      ws += n.sectors;
      wi += n.ideal;
    }
    if (sectors < 0 || ws - wi > sectors - ideal) sectors = ws, ideal = wi, worst_warp = w;
  }
  Json detail{{"vector_bits", vec * bytes * 8}, {"ideal_vector_bits", ideal_vec * bytes * 8}, {"sectors", sectors}, {"ideal_sectors", ideal}, {"contiguous_dim", cd}, {"warp", worst_warp}, {"warps", warps}};
  if (dest_elems > 0) detail["shared_destination_bits"] = dest_elems * bytes * 8;
  if (m.shape[static_cast<size_t>(cd)] * bytes < 32) detail["row_bytes"] = m.shape[static_cast<size_t>(cd)] * bytes;  // a short row: one sector each
  if (m.global.mask_constancy > 0) detail["mask_constancy"] = m.global.mask_constancy;
  detail["vector_cap"] = dest_bound ? "shared destination" : mask_bound ? "mask" : "address";
  const std::string mask_note = mask_bound ? " (the mask is constant over runs of " + std::to_string(m.global.mask_constancy) + " elements along dim " + std::to_string(cd) +
                                                 ": one predicate a vector caps it there, §3.4.1)"
                                           : "";
  // §3.4.1 the capped vector is no fault; sectors over the ideal still are: a thread's run along the
  // dim longer than the vector spreads each of the warp's narrow requests over the run
  const std::string spread = mask_bound && own > vec && sectors > ideal
                                 ? "; each thread holds " + std::to_string(own) + " consecutive elements but the mask lets it move " + std::to_string(vec) +
                                       " at a time, so each request's lanes are " + std::to_string(own * bytes) + " bytes apart: a layout whose run along dim " + std::to_string(cd) +
                                       " is at most the mask's constancy would move the same data over the ideal sectors (§3.4.1)"
                                 : "";
  const std::string what = std::to_string(vec * bytes * 8) + "-bit accesses along dim " + std::to_string(cd) + ", warp " + std::to_string(worst_warp) + (warps > 1 ? " (the worst of " + std::to_string(warps) + ")" : "") + " touches " + std::to_string(sectors) + " sectors for " + std::to_string(ideal) + " ideal";
  const std::string dest_note = dest_bound ? " (the shared destination keeps " + std::to_string(dest_elems * bytes * 8) + " bits of a thread contiguous: a cp.async is no wider)" : "";
  if (vec < ideal_vec || sectors > ideal)
    out.push_back(finding(m, "global", Outcome::Violation, &rule::kKernelGlobalAccess,
                          what + " (the contiguity, alignment" + (dest_elems > 0 ? ", the shared destination's " + std::to_string(dest_elems * bytes * 8) + "-bit run" : "") + " and each thread's " + std::to_string(values) + " values allow " + std::to_string(ideal_vec * bytes * 8) + "-bit" + (mask_bound ? "; the mask caps it" : "") + ")" + spread, detail));
  else out.push_back(finding(m, "global", Outcome::Ok, nullptr, what + dest_note + mask_note, detail));
}

}  // namespace tfspec::kernel
