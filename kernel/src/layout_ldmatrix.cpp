// spec/TRITON.md §3.1 (ldmatrix) and §3.3 (wgmma's shared-memory operands) on a LayoutProgram.
// ldmatrix: a local_load into an mma operand reads 8x8 matrices of 16-bit elements; each matrix is
// one phase: its eight 16-byte rows (one address each) are served at once when no two distinct rows
// fall in the same four banks (16-byte slot), so a phase costs the most rows sharing a slot.
// wgmma: an operand read by descriptor must tile one of the canonical atoms (gmma.hpp), the atom's
// swizzle must be the one the encoding declares (the descriptor's swizzle mode), and 32-bit and
// 8-bit operands must be K-major.
#include <algorithm>
#include <map>
#include <set>

#include "tfspec/kernel/gmma.hpp"
#include "tfspec/kernel/layout_program.hpp"

namespace tfspec::kernel {
namespace {

Finding finding(const Move& m, const char* check, Outcome o, const RuleId* rule, std::string message, Json detail = Json::object()) {
  Finding f{check, m.subject, o, rule, std::move(message), std::move(detail)};
  f.loc = m.loc;
  return f;
}

// One matrix (a warp's lanes over registers [first, first + per)): the wavefronts of its phase, or
// -1 when its bytes are not eight whole 16-byte rows.
int64_t matrix_wavefronts(const std::vector<int64_t>& off, int64_t warp_first_thread, int64_t lanes, int64_t values, int64_t first, int64_t per,
                          int64_t elem_bytes, int64_t& worst_slot) {
  std::map<int64_t, std::set<int64_t>> rows;  // 16-byte row -> the element offsets read in it
  for (int64_t lane = 0; lane < lanes; ++lane)
    for (int64_t v = first; v < first + per; ++v) {
      const int64_t o = off[static_cast<size_t>((warp_first_thread + lane) * values + v)];
      rows[o * elem_bytes / 16].insert(o);
    }
  if (rows.size() != 8) return -1;
  std::map<int64_t, int64_t> per_slot;
  for (const auto& [row, elems] : rows) {
    if (static_cast<int64_t>(elems.size()) != 16 / elem_bytes) return -1;
    ++per_slot[row % 8];
  }
  int64_t worst = 0;
  for (const auto& [slot, n] : per_slot)
    if (n > worst) worst = n, worst_slot = slot;
  return worst;
}

}  // namespace

std::optional<LdmatrixReport> ldmatrix_phases(const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t threads_per_warp, int64_t elem_bytes,
                                              std::string& why_not) {
  // The PTX ISA's ldmatrix moves 8x8 matrices of 16-bit cells: a lane receives the 32 bits at
  // bytes 4 (lane % 4) .. +3 of row lane / 4 of each matrix, whatever its elements are; so 8- and
  // 32-bit elements load through it as well where each thread's 32 bits are consecutive elements
  // (4 of 8 bits, 1 of 32), and only 16-bit ones may take `.trans` (it transposes 16-bit cells).
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4) {
    why_not = "ldmatrix moves 32 bits a lane: " + std::to_string(elem_bytes * 8) + "-bit elements do not fit";
    return std::nullopt;
  }
  const int64_t per = 4 / elem_bytes;  // a matrix is 128 bytes: 32 lanes x 4 bytes
  if (threads_per_warp != 32 || values % per != 0) {
    why_not = "the load's registers do not split into 8x8 matrices";
    return std::nullopt;
  }
  LdmatrixReport r;
  // Which lane receives what (the PTX ISA): without .trans, lane l gets the 32-bit word l % 4 of row
  // l / 4 (the rows are the 8 addresses, in any order: the four lanes l / 4 = i share row i); with
  // .trans (16-bit), lane l gets the 16-bit cell l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1. A load
  // whose registers are neither is not an ldmatrix.
  auto at = [&](int64_t t, int64_t v) { return off[static_cast<size_t>(t * values + v)] * elem_bytes; };  // byte address
  bool plain = true, trans = elem_bytes == 2;
  for (int64_t t = 0; t < threads; ++t) {
    const int64_t l = t % threads_per_warp, lead = t - l;  // lead: the warp's lane 0
    for (int64_t g = 0; g < values / per; ++g) {
      const int64_t v = g * per;
      for (int64_t i = 0; i < per; ++i) plain = plain && at(t, v + i) == at(t, v) + i * elem_bytes;
      plain = plain && at(t, v) % 16 / 4 == l % 4 && at(t, v) / 16 == at(lead + l / 4 * 4, v) / 16;
      if (elem_bytes == 2) {
        const int64_t partner = lead + l % 4;  // the lane l / 4 = 0 of the same two rows
        trans = trans && at(t, v) % 16 / 2 == l / 4 && at(t, v + 1) % 16 / 2 == l / 4 && at(t, v) / 16 != at(t, v + 1) / 16 &&
                at(t, v) / 16 == at(partner, v) / 16 && at(t, v + 1) / 16 == at(partner, v + 1) / 16;
      }
    }
  }
  if (!plain && !trans) {
    why_not = "a lane's 32 bits are not where ldmatrix puts them (the word lane % 4 of row lane / 4" +
              std::string(elem_bytes == 2 ? ", or with .trans the cell lane / 4 of rows 2 (lane % 4) and 2 (lane % 4) + 1)" : "; .trans is for 16-bit cells only)");
    return std::nullopt;
  }
  r.trans = !plain;
  for (int64_t w = 0; w < threads / threads_per_warp; ++w)
    for (int64_t g = 0; g < values / per; ++g) {
      int64_t slot = 0;
      const int64_t wf = matrix_wavefronts(off, w * threads_per_warp, threads_per_warp, values, g * per, per, elem_bytes, slot);
      if (wf < 0) {
        why_not = "registers " + std::to_string(g * per) + ".." + std::to_string(g * per + per - 1) + " of warp " + std::to_string(w) +
                  " are not eight whole 16-byte rows (ldmatrix reads aligned 16-byte rows)";
        return std::nullopt;
      }
      r.wavefronts += wf, r.ideal += 1, ++r.matrices;
      if (wf > r.degree) r.degree = wf, r.worst_warp = w, r.worst_group = g, r.worst_slot = slot;
    }
  return r;
}

namespace {

// One operand read by wgmma's descriptor (§3.3): A is M x K (tile index m + M k), B is K x N (n + N k).
void check_wgmma_operand(const Move& m, const DotOperand& d, char name, std::vector<Finding>& out) {
  const std::string who = std::string(1, name) + " (wgmma, shared memory): ";
  const int64_t rows = name == 'A' ? d.shape[0] : d.shape[1], bk = name == 'A' ? d.shape[1] : d.shape[0], eb = std::max<int64_t>(1, d.elem_bits / 8);
  std::vector<int64_t> offset(static_cast<size_t>(rows * bk), -1);
  for (int64_t o = d.smem->size() - 1; o >= 0; --o) {
    const int64_t flat = (*d.smem)(o), d0 = flat % d.shape[0], d1 = flat / d.shape[0];
    const int64_t mn = name == 'A' ? d0 : d1, k = name == 'A' ? d1 : d0;
    offset[static_cast<size_t>(mn + rows * k)] = o;  // the lowest offset holding the element
  }
  const GmmaMatch g = match_gmma_atom(offset, rows, bk, eb);
  Json detail{{"operand", std::string(1, name)}, {"encoding", d.encoding}};
  if (!g.atom) {
    out.push_back(finding(m, "dot", Outcome::Undecided, &rule::kKernelGmmaLayout,
                          who + d.encoding + " is not a tiling of any canonical wgmma atom (K- or MN-major, 16 to 128 bytes): a descriptor cannot express it", detail));
    return;
  }
  const GmmaAtom& atom = *g.atom;
  const bool k_major = atom.major == GmmaMajor::K;
  detail["atom_bytes"] = atom.atom_bytes, detail["major"] = k_major ? "K" : "MN";
  const int64_t declared = d.swizzle_bytes == 0 ? 16 : d.swizzle_bytes;
  std::string problem;
  if (d.swizzle_bytes >= 0 && declared != atom.atom_bytes)
    problem = "the layout tiles the " + atom.name() + " atom but the encoding declares swizzlingByteWidth = " + std::to_string(d.swizzle_bytes) + ", the descriptor's swizzle mode";
  else if (d.elem_bits != 16 && !k_major)
    problem = "the layout is MN-major but wgmma reads " + std::to_string(d.elem_bits) + "-bit operands K-major only (its transpose is for 16-bit types)";
  if (!problem.empty()) {
    out.push_back(finding(m, "dot", Outcome::Violation, &rule::kKernelDotOperands, who + problem, detail));
    return;
  }
  out.push_back(finding(m, "dot", Outcome::Ok, nullptr,
                        who + "tiles wgmma's " + atom.name() + " atoms" + (d.swizzle_bytes >= 0 ? ", the swizzle the encoding declares" : "") +
                            (d.elem_bits == 16 ? "" : ", K-major as " + std::to_string(d.elem_bits) + "-bit operands must be"),
                        detail));
}

}  // namespace

void check_wgmma_operands(const LayoutProgram&, const Move& m, std::vector<Finding>& out) {
  if (m.a.smem && m.a.shape.size() == 2) check_wgmma_operand(m, m.a, 'A', out);
  if (m.b.smem && m.b.shape.size() == 2) check_wgmma_operand(m, m.b, 'B', out);
}

}  // namespace tfspec::kernel
