// Coalescing of the global copies read from the IR (spec/CUTE_DSL.md §3): the frontend reads the
// copy and the global tensor; the sector model is kernel/'s (coalescing.hpp), shared with Triton's.
#include "tfspec/kernel/coalescing.hpp"

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace {

// `?{div=N}` -> N * factor, `?` -> factor: one representative of the dynamic strides.
std::string concretize(std::string_view cute, int64_t factor) {
  Symbols syms;
  std::string t = to_tfspec_notation(cute, syms);
  for (auto it = syms.divisors.rbegin(); it != syms.divisors.rend(); ++it) {  // s10 before s1
    for (size_t p; (p = t.find(it->first)) != std::string::npos;) t.replace(p, it->first.size(), std::to_string(it->second * factor));
  }
  return t;
}

const TiledCopy* copy_of(const Module& m, const Type& t) {
  for (const TiledCopy& c : m.copies)
    if (m.aliases.at(c.alias) == t.full) return &c;
  return nullptr;
}

kernel::Finding check_one(const Op& op, const TiledCopy& c, const Type& g) {
  kernel::Finding f = make_finding("global", c.alias + " " + op.name.substr(op.name.rfind('.') + 1));
  f.loc = "line " + std::to_string(op.line);
  Symbols none;
  const LayoutPtr tvp = read_layout(c.layout_tv, none);
  const Tiler tiler = read_tiler(c.tiler);
  const int64_t bits = elem_bits(g.elem), abits = atom_bits(c.atom);
  if (tvp->kind() != LayoutKind::Layout || tiler.is_layout() || tiler.modes.size() != 2 || bits == 0 || abits == 0) {
    f.outcome = kernel::Outcome::Skipped;
    f.message = "not a 2-D tiled copy of a known element and width: " + c.atom;
    return f;
  }
  const Layout& tv = static_cast<const Layout&>(*tvp);
  const int64_t tile_m = tiler.modes[0].layout->size(), bytes = bits / 8, vec = abits / bits;
  // Two representatives of the dynamic strides: their divisors, and 1024 times them.
  kernel::CopyCoalescing w;
  for (int64_t factor : {int64_t{1}, int64_t{1024}}) {
    const Layout gl = parse_layout(concretize(g.text, factor));
    const kernel::CopyCoalescing x = kernel::copy_coalescing(tv, tile_m, gl, vec, bytes);
    if (x.sectors * std::max<int64_t>(w.ideal, 1) >= w.sectors * x.ideal) w = x;
  }
  f.detail = {{"tv", c.layout_tv}, {"tiler", c.tiler}, {"global", g.text}, {"sectors", w.sectors}, {"ideal", w.ideal},
              {"warp", w.warp}, {"access", w.access}};
  const std::string what = "threads " + c.layout_tv + " over the tile " + c.tiler + " of global " + g.text;
  if (w.sectors > w.ideal) {
    f.outcome = kernel::Outcome::Violation;
    f.rule = &rule::kKernelCoalescing;
    f.message = what + ": warp " + std::to_string(w.warp) + "'s access " + std::to_string(w.access) + " touches " +
                std::to_string(w.sectors) + " 32-byte sectors where " + std::to_string(w.ideal) +
                " would hold its bytes (consecutive threads walk a strided dimension)";
  } else {
    f.message = what + ": " + std::to_string(w.sectors) + " sectors per warp access, the ideal";
  }
  return f;
}

}  // namespace

void check_global_copies(const Module& m, std::vector<kernel::Finding>& out) {
  for (const Op& op : m.ops) {
    const bool src = op.name == "cute.tiled.copy.partition_S", dst = op.name == "cute.tiled.copy.partition_D";
    if (!(src || dst) || op.operand_types.size() < 2 || op.operand_types[0].kind != "tiled_copy") continue;
    const Type& g = op.operand_types[1];
    if (g.kind != "memref" || g.space != "gmem") continue;
    const TiledCopy* c = copy_of(m, op.operand_types[0]);
    if (!c) continue;
    try {
      out.push_back(check_one(op, *c, g));
    } catch (const SpecError& e) {  // a layout this reader cannot read: listed, not guessed
      kernel::Finding f = make_finding("global", c->alias, kernel::Outcome::Skipped);
      f.loc = "line " + std::to_string(op.line);
      f.message = std::string("not read: ") + e.what();
      out.push_back(std::move(f));
    }
  }
}

}  // namespace tfspec::cute_dsl
