// The agreement of an operand the MMA reads from shared memory (wgmma's SS mode, spec/KERNEL.md):
// a wgmma descriptor can only express canonical layouts, tilings of the atoms of gmma.hpp.
// K-major: atoms of 8 rows x W bytes, one stride between the 8-row groups (the descriptor's SBO);
// the K-direction atoms are separate descriptors. MN-major (extension K1, CuTe's
// make_gmma_desc<Major::MN>): atoms of W bytes along MN x 8 along K, one stride between the atoms
// along MN (LBO) and one between the 8-wide K groups (SBO); one stride over the whole tile is
// what CuTe's tile_to_shape gives and enough for every k-block's descriptor.
#include "bits.hpp"
#include "s2r.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/gmma.hpp"

namespace tfspec::kernel {
namespace {

struct Mismatch {
  int64_t element = -1, offset = 0, expected = 0;
};

// One stride between consecutive atom starts along a direction, or the first element breaking it.
struct StrideCheck {
  std::optional<int64_t> stride;
  std::optional<Mismatch> step(int64_t element, int64_t start, int64_t previous_start) {
    const int64_t s = start - previous_start;
    if (stride && s != *stride) return Mismatch{element, start, previous_start + *stride};
    stride = s;
    return std::nullopt;
  }
};

// The first element of the (rows, bk) tile that breaks a tiling of `atom`, or none.
std::optional<Mismatch> tiling_mismatch(const SmemMap& m, int64_t rows, int64_t bk, const GmmaAtom& atom) {
  const int64_t am = atom.mn_extent(), ak = atom.k_extent();
  const auto start = [&](int64_t g, int64_t h) {
    const int64_t o = m.offset[static_cast<size_t>(am * g + rows * (ak * h))];
    return o - o % atom.size();
  };
  StrideCheck along_mn, along_k;
  for (int64_t h = 0; h < bk / ak; ++h)
    for (int64_t g = 0; g < rows / am; ++g) {
      const int64_t first = am * g + rows * (ak * h), base = start(g, h);
      if (g > 0)
        if (auto bad = along_mn.step(first, base, start(g - 1, h))) return bad;
      if (h > 0 && atom.major == GmmaMajor::MN)
        if (auto bad = along_k.step(first, base, start(g, h - 1))) return bad;
      for (int64_t c = 0; c < ak; ++c)
        for (int64_t r = 0; r < am; ++r) {
          const int64_t e = (am * g + r) + rows * (ak * h + c);
          const int64_t want = base + atom(r, c);
          if (m.offset[static_cast<size_t>(e)] != want) return Mismatch{e, m.offset[static_cast<size_t>(e)], want};
        }
    }
  return std::nullopt;
}

}  // namespace

GmmaAtom::GmmaAtom(GmmaMajor m, int64_t bytes, int64_t elem)
    : major(m), atom_bytes(bytes), elem_bytes(elem), swizzle_(log2_exact(bytes / 16), 4 - log2_exact(elem), 3) {}

int64_t GmmaAtom::operator()(int64_t mn, int64_t k) const {
  return swizzle_(major == GmmaMajor::K ? mn * width() + k : k * width() + mn);
}

std::string GmmaAtom::name() const {
  return std::string(major == GmmaMajor::K ? "K-major " : "MN-major ") +
         (atom_bytes == 16 ? std::string("interleaved (unswizzled)") : std::to_string(atom_bytes) + "-byte swizzled");
}

GmmaMatch match_gmma_atom(const std::vector<int64_t>& offset, int64_t rows, int64_t bk, int64_t elem_bytes) {
  SmemMap m;
  m.offset = offset;
  GmmaMatch r;
  for (GmmaMajor major : {GmmaMajor::K, GmmaMajor::MN})
    for (int64_t bytes : {128, 64, 32, 16}) {
      if (bytes < elem_bytes) continue;
      const GmmaAtom atom(major, bytes, elem_bytes);
      if (rows % atom.mn_extent() != 0 || bk % atom.k_extent() != 0) continue;
      const std::optional<Mismatch> bad = tiling_mismatch(m, rows, bk, atom);
      if (!bad) {
        r.atom = atom;
        return r;
      }
      if (r.element < 0) r.element = bad->element, r.offset = bad->offset, r.expected = bad->expected;
    }
  return r;
}

Finding gmma_layout(const Pipeline& p, const Operand& o) {
  const int64_t rows = o.name == 'A' ? p.bm : p.bn, elem_bytes = o.bits / 8;
  const SmemMap m = smem_map(o, rows, p.bk);
  Finding f{"agreement", std::string(1, o.name) + " mma (smem)", Outcome::Ok, nullptr, "", Json::object()};
  const GmmaMatch g = match_gmma_atom(m.offset, rows, p.bk, elem_bytes);
  if (g.atom) {
    const GmmaAtom& atom = *g.atom;
    f.message = "matches wgmma's " + atom.name() + " atoms (" + std::to_string(atom.mn_extent()) + " x " + std::to_string(atom.k_extent()) +
                " elements), as its descriptor requires";
    f.detail = {{"atom_bytes", atom.atom_bytes}, {"major", atom.major == GmmaMajor::K ? "K" : "MN"}};
    return f;
  }
  f.outcome = Outcome::Undecided;
  f.rule = &rule::kKernelGmmaLayout;
  f.message = "not a canonical GMMA layout, K- or MN-major";
  if (g.element >= 0)
    f.message += " (with K-major 128-byte atoms, " + element_name(o.name, g.element, rows) + " is at offset " + std::to_string(g.offset) +
                 ", the atom puts it at " + std::to_string(g.expected) + ")";
  f.message += "; wgmma's reading of any other layout is not modelled, so it is undecided";
  return f;
}

}  // namespace tfspec::kernel
