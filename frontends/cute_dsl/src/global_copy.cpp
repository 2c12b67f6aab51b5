// Coalescing of the global copies read from the IR (spec/CUTE_DSL.md §3). The kernel laws of
// kernel/ have no sector model yet (the Triton frontend's branch adds one); this is a small one,
// to move there: a warp's one vector access touches sectors(32 B) against the bytes it moves.
#include <set>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace {

int64_t elem_bits(const std::string& e) {
  if (e == "f64" || e == "i64") return 64;
  if (e == "f32" || e == "i32" || e == "tf32") return 32;
  if (e == "f16" || e == "bf16" || e == "i16") return 16;
  if (e == "i8" || e.rfind("f8", 0) == 0) return 8;
  return 0;
}

// `?{div=N}` -> N * factor, `?` -> factor: one representative of the dynamic strides.
std::string concretize(std::string_view cute, int64_t factor) {
  Symbols syms;
  std::string t = to_tfspec_notation(cute, syms);
  for (auto it = syms.divisors.rbegin(); it != syms.divisors.rend(); ++it) {  // s10 before s1
    for (size_t p; (p = t.find(it->first)) != std::string::npos;) t.replace(p, it->first.size(), std::to_string(it->second * factor));
  }
  return t;
}

// The copy's atom width in bits (`..., 128 b>`), 0 when not stated.
int64_t atom_bits(const std::string& atom) {
  const size_t b = atom.rfind(" b>");
  if (b == std::string::npos) return 0;
  size_t a = b;
  while (a > 0 && std::isdigit(static_cast<unsigned char>(atom[a - 1]))) --a;
  return std::stoll(atom.substr(a, b - a));
}

struct Worst {
  int64_t sectors = 0, ideal = 0, warp = 0, access = 0;
};

// Every warp's every vector access: distinct 32-byte sectors against the ideal.
Worst walk(const Layout& tv, int64_t tile_m, const Layout& g, int64_t vec, int64_t bytes) {
  const int64_t threads = product_int(tv.mode(0).shape_ref()), values = product_int(tv.mode(1).shape_ref());
  const Layout gm = g.mode(0), gk = g.mode(1);
  Worst w;
  for (int64_t warp = 0; warp * 32 < threads; ++warp) {
    for (int64_t a = 0; a * vec < values; ++a) {
      std::set<int64_t> sectors;
      for (int64_t t = warp * 32; t < std::min(threads, warp * 32 + 32); ++t)
        for (int64_t v = a * vec; v < std::min(values, a * vec + vec); ++v) {
          const int64_t idx = tv(t + threads * v);
          sectors.insert((gm(idx % tile_m) + gk(idx / tile_m)) * bytes / 32);
        }
      const int64_t moved = std::min<int64_t>(32, threads - warp * 32) * std::min(vec, values - a * vec) * bytes;
      const int64_t ideal = (moved + 31) / 32;
      if (static_cast<int64_t>(sectors.size()) * w.ideal > w.sectors * ideal || w.ideal == 0)
        w = {static_cast<int64_t>(sectors.size()), ideal, warp, a};
    }
  }
  return w;
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
  Worst w;
  for (int64_t factor : {int64_t{1}, int64_t{1024}}) {
    const Layout gl = parse_layout(concretize(g.text, factor));
    const Worst x = walk(tv, tile_m, gl, vec, bytes);
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

kernel::KernelReport check_module(const Module& m) {
  kernel::KernelReport r;
  r.name = "cute-dsl";
  r.arch = "sm80";
  kernel::Finding read = make_finding("reader", "the IR", kernel::Outcome::Ok);
  read.message = std::to_string(m.ops.size()) + " cute ops, " + std::to_string(m.copies.size()) + " tiled copies, " +
                 std::to_string(m.mmas.size()) + " tiled MMAs read";
  if (!m.unknown_ops.empty()) {
    read.outcome = kernel::Outcome::Skipped;
    read.message += "; ops this reader does not know (not interpreted):";
    for (const std::string& n : m.unknown_ops) read.message += " " + n;
  }
  r.findings.push_back(std::move(read));
  validate_layout_ops(m, r.findings);
  check_global_copies(m, r.findings);
  return r;
}

}  // namespace tfspec::cute_dsl
