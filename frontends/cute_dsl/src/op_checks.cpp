// Checks of single ops, for kernels the pipeline mapping (§4) does not reach (spec/CUTE_DSL.md
// §6): the shared-memory operands wgmma reads by descriptor (an SM90 tiled MMA with
// `frag_kind = ss`), the TMA loads into them, and the kernel's shared-memory footprint against
// its architecture's limit.
#include <algorithm>
#include <cmath>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/gmma.hpp"
#include "tfspec/kernel/tma.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace {

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
  f.loc = op_where(op);
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


// The shared view a TMA partition writes: its fourth operand, back through `cute.group_modes`.
std::string view_of(const Module& m, std::string v) {
  for (int hops = 0; hops < 8; ++hops) {
    const Op* d = defining_op(m, v);
    if (!d || d->name != "cute.group_modes" || d->operands.empty()) break;
    v = d->operands[0];
  }
  return v;
}

// `tma_gbasis = <"(b0,b1,...):(1@j0,1@j1,...)">`: box mode i (TMA dimension i, 0 innermost) has
// extent b_i along the tensor's mode j_i. False where the text is not of that flat form.
bool read_gbasis(const std::string& atom, std::vector<std::pair<int64_t, int64_t>>& modes) {
  const size_t at = atom.find("tma_gbasis = <\"");
  if (at == std::string::npos) return false;
  const size_t open = at + 15, close = atom.find('"', open);
  const std::string text = atom.substr(open, close - open);
  const size_t colon = text.find("):(");
  if (text.empty() || text.front() != '(' || colon == std::string::npos || text.back() != ')') return false;
  auto split = [](const std::string& t) {
    std::vector<std::string> out(1);
    for (char c : t) {
      if (c == ',') out.emplace_back();
      else out.back().push_back(c);
    }
    return out;
  };
  const std::vector<std::string> ext = split(text.substr(1, colon - 1)), basis = split(text.substr(colon + 3, text.size() - colon - 4));
  if (ext.size() != basis.size()) return false;
  for (size_t i = 0; i < ext.size(); ++i) {
    const size_t a = basis[i].find('@');
    if (ext[i].empty() || ext[i].find_first_not_of("0123456789") != std::string::npos || a == std::string::npos || basis[i].substr(0, a) != "1" ||
        basis[i].substr(a + 1).find_first_not_of("0123456789") != std::string::npos || basis[i].size() == a + 1)
      return false;
    modes.emplace_back(std::stoll(ext[i]), std::stoll(basis[i].substr(a + 1)));
  }
  return true;
}

// The TMA mode's span in bytes that writes a stage tile (as smem_stage_layout reads it: a swizzle
// on element offsets, Sw<b, 4 - log2 E, 3> for the b-bit byte swizzle Sw<b,4,3>): 16 << b, 0
// without a swizzle, -1 where no mode writes that swizzle.
int64_t tma_span(const LayoutBase& tile, int64_t elem_bytes) {
  if (tile.kind() != LayoutKind::Composed) return 0;
  const auto& c = static_cast<const ComposedLayout&>(tile);
  if (c.inner()->kind() != LayoutKind::Swizzle) return -1;
  const auto& e = static_cast<const Swizzle&>(*c.inner());
  if (e.bits() == 0) return 0;
  const int64_t byte_base = e.base() + static_cast<int64_t>(std::log2(static_cast<double>(elem_bytes)));
  if (byte_base != 4 || e.shift() != 3 || e.bits() > 3) return -1;
  return int64_t{16} << e.bits();
}

// One TMA load into a view an SM90 MMA partitions: the box (from the atom's gbasis) against the
// view's stage tile, and the tile against where the mode writes each element (kernel/tma.hpp).
void tma_load(const Module& m, const Op& op, std::vector<kernel::Finding>& out) {
  const std::string& atom = op.operand_types[0].full;
  const std::string view = view_of(m, op.operands[3]);
  char name = 0;
  const Op* part = nullptr;
  for (const Op& p : m.ops)
    if (p.name == "cute.tiled.mma.partition" && (p.keyword == "A" || p.keyword == "B") && p.operands.size() >= 2 && p.operands[1] == view)
      name = p.keyword[0], part = &p;
  if (!part) return;  // a TMA load into memory no MMA reads: not a GEMM operand
  const std::string subject = std::string(1, name) + " g2s";
  kernel::Finding skip = make_finding("coverage", subject, kernel::Outcome::Skipped);
  skip.loc = op_where(op);
  const Type& vt = part->operand_types[1];
  int64_t stages = 1;
  std::string why;
  const LayoutPtr tile = smem_stage_layout(vt, stages, why);
  std::vector<std::pair<int64_t, int64_t>> modes;
  const int64_t bits = elem_bits(vt.elem);
  if (!tile || bits < 8 || !read_gbasis(atom, modes)) {
    skip.message = "TMA load not checked: " + (!tile ? why : bits < 8 ? "the element type " + vt.elem + " is not known" : "its tma_gbasis is not a flat box: " + atom);
    return out.push_back(std::move(skip));
  }
  int64_t box_rows = 0, box_cols = 0, box_bits = bits;
  for (const auto& [extent, mode] : modes) {
    box_bits *= extent;
    if (mode == 0) box_rows = extent;
    else if (mode == 1) box_cols = extent;
    else if (extent != 1) box_rows = -1;
  }
  const int64_t span = tma_span(*tile, bits / 8);
  if (box_rows <= 0 || box_cols <= 0 || modes[0].second > 1 || span < 0) {
    skip.message = "TMA load not checked: " +
                   (span < 0 ? "the view's swizzle is none a TMA mode writes (" + vt.full + ")" : "its box " + atom + " is not a (rows, K) box");
    return out.push_back(std::move(skip));
  }
  const size_t cb = atom.find("copy_bits = ");
  if (cb != std::string::npos && std::stoll(atom.substr(cb + 12)) != box_bits) {
    skip.outcome = kernel::Outcome::Undecided;
    skip.message = "TMA load not checked: the atom's copy_bits (" + atom.substr(cb + 12, atom.find_first_of(",>", cb) - cb - 12) + ") are not its box's " +
                   std::to_string(box_rows) + "x" + std::to_string(box_cols) + " x " + std::to_string(bits) + " bits = " + std::to_string(box_bits) +
                   ": the box was not read as the DSL built it";
    return out.push_back(std::move(skip));
  }
  kernel::Pipeline p;
  p.arch = "sm90", p.stages = stages;
  const IntTuple shape = tile->shape();
  (name == 'A' ? p.bm : p.bn) = product_int(shape[0]);
  p.bk = product_int(shape[1]);
  kernel::Operand o;
  o.name = name, o.bits = bits, o.smem = tile;
  // TMA's innermost dimension (box mode 0) is the tensor's contiguous one; the other stride lives in
  // the host's tensor map, so it is a symbol here.
  o.global = parse_layout(modes[0].second == 0 ? "(R,K):(1,S)" : "(R,K):(S,1)");
  o.tma = kernel::TmaLoad{span, box_rows, box_cols, subject};
  std::vector<kernel::Finding> found;
  kernel::check_tma_load(p, o, found);
  for (kernel::Finding& f : found) {
    f.loc = op_where(op);
    f.detail["box"] = {box_rows, box_cols}, f.detail["span_bytes"] = span;
    out.push_back(std::move(f));
  }
}

}  // namespace

void check_tma_loads(const Module& m, std::vector<kernel::Finding>& out) {
  for (const Op& op : m.ops)
    if (op.name == "cute_nvgpu.atom.tma_partition" && op.operands.size() >= 5 && !op.operand_types.empty() &&
        op.operand_types[0].full.find("tma_load<") != std::string::npos)
      tma_load(m, op, out);
}

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
    f.loc = op_where(op);
    if (!syms.divisors.empty() || l->kind() != LayoutKind::Layout || bits == 0) {
      f.outcome = kernel::Outcome::Skipped;
      f.message = "not checked: the allocation at " + op_where(op) + " is " + t.full + " (not a static layout of a known element type)";
      out.push_back(std::move(f));
      return;
    }
    const int64_t b = static_cast<const Layout&>(*l).cosize() * bits / 8;
    bytes += b;
    parts.push_back(std::to_string(b) + " B at " + op_where(op));
    if (!first) first = &op;
  }
  if (!first) return;
  kernel::Finding f = make_finding("footprint", "shared memory");
  f.loc = op_where(*first);
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
