// Checks of single ops, for kernels the pipeline mapping (§4) does not reach (spec/CUTE_DSL.md
// §5): the shared-memory operands wgmma reads by descriptor (an SM90 tiled MMA with
// `frag_kind = ss`), and the kernel's shared-memory footprint against its architecture's limit.
#include <cmath>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/gmma.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace {

std::string where(const Op& op) { return op.loc.empty() ? "line " + std::to_string(op.line) : op.loc; }

// `ab_major = (k, mn)` of an SM90 MMA atom: the major of operand A (0) or B (1); empty if unstated.
std::string declared_major(const std::string& mma, int operand) {
  const size_t at = mma.find("ab_major = (");
  if (at == std::string::npos) return "";
  const size_t open = at + 12, comma = mma.find(',', open), close = mma.find(')', open);
  if (comma == std::string::npos || close == std::string::npos || comma > close) return "";
  std::string s = operand == 0 ? mma.substr(open, comma - open) : mma.substr(comma + 1, close - comma - 1);
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

kernel::Finding wgmma_operand(const Op& op, char name) {
  const Type& mma = op.operand_types[0];
  const Type& view = op.operand_types[1];
  kernel::Finding f = make_finding("agreement", std::string(1, name) + " mma (smem)");
  f.loc = where(op);
  int64_t stages = 1;
  std::string why;
  const LayoutPtr tile = smem_stage_layout(view, stages, why);
  const int64_t bits = elem_bits(view.elem);
  if (!tile || bits < 8) {
    f.outcome = kernel::Outcome::Skipped;
    f.message = "not checked: " + (tile ? "the element type " + view.elem + " is not known" : why);
    return f;
  }
  const IntTuple shape = tile->shape();
  const int64_t rows = product_int(shape[0]), bk = product_int(shape[1]), eb = bits / 8;
  std::vector<int64_t> offset(static_cast<size_t>(rows * bk));
  for (int64_t i = 0; i < rows * bk; ++i) offset[static_cast<size_t>(i)] = tile->apply(IntTuple(i));
  const kernel::GmmaMatch g = kernel::match_gmma_atom(offset, rows, bk, eb);
  const std::string major = declared_major(mma.full, name == 'A' ? 0 : 1);
  f.detail = {{"tile", {rows, bk}}, {"stages", stages}, {"declared_major", major}};
  if (!g.atom) {
    f.outcome = kernel::Outcome::Undecided, f.rule = &rule::kKernelGmmaLayout;
    f.message = "the " + std::to_string(rows) + "x" + std::to_string(bk) + " stage tile " + to_string(*tile) +
                " is not a canonical GMMA layout, K- or MN-major";
    if (g.element >= 0)
      f.message += " (with K-major 128-byte atoms, element " + std::to_string(g.element) + " is at offset " + std::to_string(g.offset) +
                   ", the atom puts it at " + std::to_string(g.expected) + ")";
    f.message += "; wgmma's reading of any other layout is not modelled, so it is undecided";
    return f;
  }
  const kernel::GmmaAtom& atom = *g.atom;
  const std::string found = atom.major == kernel::GmmaMajor::K ? "k" : "mn";
  f.detail["atom_bytes"] = atom.atom_bytes, f.detail["major"] = found;
  const std::string shape_text = std::to_string(atom.mn_extent()) + " x " + std::to_string(atom.k_extent()) + " elements";
  if (!major.empty() && major != found) {
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kKernelGmmaLayout;
    f.message = "the stage tile " + to_string(*tile) + " tiles wgmma's " + atom.name() + " atoms (" + shape_text + "), but the MMA declares ab_major " +
                major + " for " + std::string(1, name) + ": its descriptor would read the tile the other way";
    return f;
  }
  if (bits != 16 && atom.major == kernel::GmmaMajor::MN) {
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kKernelGmmaLayout;
    f.message = "the stage tile is MN-major, but wgmma reads " + std::to_string(bits) + "-bit operands K-major only";
    return f;
  }
  f.message = "the " + std::to_string(rows) + "x" + std::to_string(bk) + " stage tile (" + std::to_string(stages) + " stages) matches wgmma's " + atom.name() +
              " atoms (" + shape_text + ")" + (major.empty() ? "" : ", the ab_major " + major + " the MMA declares") + ", as its descriptor requires";
  return f;
}

}  // namespace

void check_wgmma_operands(const Module& m, std::vector<kernel::Finding>& out) {
  for (const Op& op : m.ops) {
    if (op.name != "cute.tiled.mma.partition" || (op.keyword != "A" && op.keyword != "B") || op.operand_types.size() < 2) continue;
    if (op.operand_types[0].full.find("sm90.mma<") == std::string::npos) continue;
    const Type& view = op.operand_types[1];
    if (view.kind != "memref" || view.space != "smem") continue;  // an operand from registers (frag_kind = rs)
    out.push_back(wgmma_operand(op, op.keyword[0]));
  }
}

void check_smem_footprint(const Module& m, const std::string& arch, std::vector<kernel::Finding>& out) {
  int64_t bytes = 0;
  std::vector<std::string> parts;
  const Op* first = nullptr;
  for (const Op& op : m.ops) {
    if (op.name != "cute.memref.alloca") continue;
    // `cute.memref.alloca() {...} : T`: with no operands the one type after the colon is the result's
    const std::vector<Type>& types = !op.result_types.empty() ? op.result_types : op.operands.empty() ? op.operand_types : op.result_types;
    if (types.size() != 1) continue;
    const Type& t = types[0];
    if (t.kind != "memref" || t.space != "smem") continue;
    Symbols syms;
    const LayoutPtr l = read_layout(t.text, syms);
    const int64_t bits = elem_bits(t.elem);
    kernel::Finding f = make_finding("footprint", "shared memory");
    f.loc = where(op);
    if (!syms.divisors.empty() || l->kind() != LayoutKind::Layout || bits == 0) {
      f.outcome = kernel::Outcome::Skipped;
      f.message = "not checked: the allocation at " + where(op) + " is " + t.full + " (not a static layout of a known element type)";
      out.push_back(std::move(f));
      return;
    }
    const int64_t b = static_cast<const Layout&>(*l).cosize() * bits / 8;
    bytes += b;
    parts.push_back(std::to_string(b) + " B at " + where(op));
    if (!first) first = &op;
  }
  if (!first) return;
  kernel::Finding f = make_finding("footprint", "shared memory");
  f.loc = where(*first);
  const std::optional<int64_t> limit = kernel::smem_limit_for(arch);
  std::string list;
  for (const std::string& p : parts) list += (list.empty() ? "" : ", ") + p;
  f.detail = {{"bytes", bytes}, {"arch", arch}};
  if (!limit) {
    f.outcome = kernel::Outcome::Skipped;
    f.message = "allocations " + std::to_string(bytes) + " B (" + list + "); no limit is known for " + arch;
    return out.push_back(std::move(f));
  }
  f.detail["limit"] = *limit;
  const bool fits = bytes <= *limit;
  f.outcome = fits ? kernel::Outcome::Ok : kernel::Outcome::Violation;
  if (!fits) f.rule = &rule::kKernelSmemFootprint;
  f.message = "the kernel allocates " + std::to_string(bytes) + " B of shared memory (" + list + ")" + (fits ? " <= " : " > ") + "the " + arch +
              " limit " + std::to_string(*limit) + " B";
  out.push_back(std::move(f));
}

}  // namespace tfspec::cute_dsl
