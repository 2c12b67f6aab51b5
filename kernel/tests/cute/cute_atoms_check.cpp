// The atoms' layouts of spec/kernel-atoms.json (and the GMMA atoms of kernel/src/gmma.cpp)
// against CuTe's own traits: an independent oracle, compared as functions at every index (the two
// may be written in different forms). Built only where CUTLASS's headers are found
// (-DTFSPEC_CUTLASS_DIR=...; docs/kernels.md "Checked against CuTe"); no CUTLASS code is copied.
//
// Units. CuTe's copy traits map (thread, bit) to a bit position; tfspec's map (thread, element)
// to an element position over 16-bit elements. CuTe's upcast reads 16 consecutive bit values as
// one element, so the two agree when CuTe(t, 16 v + b) == 16 tfspec(t, v) + b for every thread t,
// element v and bit b < 16. The MMA traits are in elements on both sides. The GMMA atoms carry a
// swizzle CuTe applies to the shared-memory *byte address* (swizzle_ptr): the oracle is the
// address CuTe computes for element i of a tensor over a 1024-byte aligned buffer, minus the
// buffer, in elements.
//
// Hand derivations of what the data says (each then confirmed by CuTe below):
// - ldmatrix (non-transposed) delivers an 8x8 matrix of 16-bit values, row r from the address of
//   lane r (rows of matrix j from lanes 8j..8j+7), lane t receiving row t/4, columns 2 (t%4) +
//   {0,1}: position 8 (t/4) + 2 (t%4) + e = 2t + e of the matrix, + 64 j for matrix j:
//   x1 dst (32,2):(2,1), x4 dst (32,(2,4)):(2,(1,64)). Lane t's source row is positions 8t..8t+7;
//   x1 reads only lanes 0..7's addresses and x2 lanes 0..15's: the other lanes repeat them
//   (stride 0), src ((8,4),8):((8,0),1) and ((16,2),8):((8,0),1).
// - .trans delivers the transposed matrix: lane t0 + 4 t1 receives column t1 at rows 2 t0 + e,
//   position 8 (2 t0 + e) + t1 = 16 t0 + t1 + 8 e: dst ((4,8),2):((16,1),8) (+ 64 j for matrix j).
// - mma.sync m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"): lane t0 + 4 t1 holds A
//   rows t1, t1 + 8 at columns 2 t0 + {0,1}, + 8: A(m, k) at m + 16 k gives
//   ((4,8),(2,2,2)):((32,1),(16,8,128)); B columns... likewise ((4,8),(2,2)):((16,1),(8,64)) over
//   (n, k) at n + 8 k; C rows t1, t1 + 8, columns 2 t0 + {0,1}: ((4,8),(2,2)):((32,1),(16,8)).
// - wgmma 64xN: warp w of the warpgroup holds rows 16 w .. 16 w + 15 of C, each as m16n8's C per
//   8 columns: ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) over (m, n) at m + 64 n.
// - TMA modes: 128B xors the byte address's bits 7..9 into 4..6, 64B two bits, 32B one: CuTe's
//   get_tma_swizzle_bits maps Swizzle<B,4,3> to the mode of span 16 * 2^B (B = 0: none). A box
//   lands dense along its contiguous mode, so a GMMA atom is also what a TMA of that mode writes.
// - GMMA atoms: 8 x W bytes; the byte swizzle Sw<B,4,3> moves bits 4.. and 7.. of a byte address,
//   which are bits 3.. and 6.. of a 2-byte element's offset: Sw<B,3,3> on elements.
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm90_tma_swizzle.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/tensor.hpp>
#include <cutlass/version.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tfspec/kernel/atoms.hpp"
#include "tfspec/kernel/gmma.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/kernel/tma.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"

namespace {

using tfspec::IntTuple;
using tfspec::Json;
using tfspec::Layout;

int failures = 0, checks = 0;

void report(bool ok, const std::string& what, const std::string& detail) {
  ++checks;
  if (!ok) ++failures;
  std::printf("%-9s %s: %s\n", ok ? "agree" : "DISAGREE", what.c_str(), detail.c_str());
}

template <class L>
std::string cute_text(L const& l) {
  // CuTe prints to stdout; capture through a buffer the test writes itself.
  std::ostringstream os;
  os << l;
  return os.str();
}

// Both in elements: ours(i) == theirs(i) at every index, same size and thread count.
template <class CuteLayout>
void same_elements(const std::string& what, const Layout& ours, CuteLayout theirs) {
  const int64_t n = cute::size(theirs), threads = cute::size<0>(theirs);
  std::string why;
  if (ours.size() != n || ours.mode(0).size() != threads) {
    why = "size " + std::to_string(ours.size()) + " vs CuTe's " + std::to_string(n);
  } else {
    for (int64_t i = 0; i < n && why.empty(); ++i)
      if (ours(i) != int64_t(theirs(i)))
        why = "at thread " + std::to_string(i % threads) + " value " + std::to_string(i / threads) + ": " + std::to_string(ours(i)) + " vs CuTe's " +
              std::to_string(int64_t(theirs(i)));
  }
  report(why.empty(), what, why.empty() ? to_string(ours) + " == CuTe's " + cute_text(theirs) + " at all " + std::to_string(n) + " indices" : why);
}

// ours in elements of `ebits`, CuTe's in bits.
template <class CuteLayout>
void same_in_bits(const std::string& what, const Layout& ours, CuteLayout theirs, int64_t ebits) {
  const int64_t n = cute::size(theirs), threads = cute::size<0>(theirs);
  std::string why;
  if (ours.size() * ebits != n || ours.mode(0).size() != threads) {
    why = "size " + std::to_string(ours.size()) + " elements vs CuTe's " + std::to_string(n) + " bits";
  } else {
    const int64_t values = ours.size() / threads;
    for (int64_t t = 0; t < threads && why.empty(); ++t)
      for (int64_t v = 0; v < values && why.empty(); ++v)
        for (int64_t b = 0; b < ebits && why.empty(); ++b) {
          const int64_t cute_bit = theirs(t + threads * (ebits * v + b)), want = ebits * ours(t + threads * v) + b;
          if (cute_bit != want)
            why = "thread " + std::to_string(t) + " element " + std::to_string(v) + " bit " + std::to_string(b) + ": CuTe's bit " + std::to_string(cute_bit) +
                  ", ours " + std::to_string(want);
        }
  }
  report(why.empty(), what, why.empty() ? to_string(ours) + " (elements) == CuTe's " + cute_text(theirs) + " (bits) at all " + std::to_string(n) + " bits" : why);
}

// The element offsets CuTe addresses for a swizzled shared-memory atom, against a function of i.
template <class Atom, class Ours>
void same_addresses(const std::string& what, Atom atom, Ours ours, const std::string& ours_text) {
  alignas(1024) static cute::half_t buffer[1 << 14];
  auto tensor = cute::make_tensor(cute::make_smem_ptr(buffer), atom);
  const int64_t n = cute::size(atom);
  std::string why;
  for (int64_t i = 0; i < n && why.empty(); ++i) {
    const int64_t theirs = &tensor(int(i)) - buffer;
    if (ours(i) != theirs) why = "element " + std::to_string(i) + ": " + std::to_string(ours(i)) + " vs CuTe's address " + std::to_string(theirs);
  }
  report(why.empty(), what, why.empty() ? ours_text + " == CuTe's " + cute_text(atom) + " (addresses) at all " + std::to_string(n) + " elements" : why);
}

Json read_atoms() {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/spec/kernel-atoms.json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

Layout mma_layout(const Json& atoms, const char* name, const char* operand) { return tfspec::parse_layout(atoms["mma"][name][operand].get<std::string>()); }

void check_mma(const Json& atoms) {
  using T = cute::MMA_Traits<cute::SM80_16x8x16_F16F16F16F16_TN>;
  const char* sm80 = "SM80_16x8x16_F16F16F16F16_TN";
  same_elements(std::string(sm80) + " A", mma_layout(atoms, sm80, "A"), typename T::ALayout{});
  same_elements(std::string(sm80) + " B", mma_layout(atoms, sm80, "B"), typename T::BLayout{});
  same_elements(std::string(sm80) + " C", mma_layout(atoms, sm80, "C"), typename T::CLayout{});
  same_elements("SM90_64x8x16 C", mma_layout(atoms, "SM90_64x8x16_F16F16F16_SS", "C"), cute::SM90::GMMA::CLayout_64xN<8>{});
  same_elements("SM90_64x16x16 C", mma_layout(atoms, "SM90_64x16x16_F16F16F16_SS", "C"), cute::SM90::GMMA::CLayout_64xN<16>{});
  same_elements("SM90_64x64x16 C", mma_layout(atoms, "SM90_64x64x16_F16F16F16_SS", "C"), cute::SM90::GMMA::CLayout_64xN<64>{});
  same_elements("SM90_64x128x16 C", mma_layout(atoms, "SM90_64x128x16_F16F16F16_SS", "C"), cute::SM90::GMMA::CLayout_64xN<128>{});
  same_elements("SM90_64x256x16 C", mma_layout(atoms, "SM90_64x256x16_F16F16F16_SS", "C"), cute::SM90::GMMA::CLayout_64xN<256>{});
}

template <class Op>
void check_copy(const Json& atoms, const char* name) {
  using T = cute::Copy_Traits<Op>;
  const Json& a = atoms["copy"][name];
  same_in_bits(std::string(name) + " src", tfspec::parse_layout(a["src"].get<std::string>()), typename T::SrcLayout{}, 16);
  same_in_bits(std::string(name) + " dst", tfspec::parse_layout(a["dst"].get<std::string>()), typename T::DstLayout{}, 16);
}

void check_copies(const Json& atoms) {
  check_copy<cute::SM75_U32x1_LDSM_N>(atoms, "SM75_U32x1_LDSM_N");
  check_copy<cute::SM75_U32x2_LDSM_N>(atoms, "SM75_U32x2_LDSM_N");
  check_copy<cute::SM75_U32x4_LDSM_N>(atoms, "SM75_U32x4_LDSM_N");
  check_copy<cute::SM75_U16x2_LDSM_T>(atoms, "SM75_U16x2_LDSM_T");
  check_copy<cute::SM75_U16x4_LDSM_T>(atoms, "SM75_U16x4_LDSM_T");
  check_copy<cute::SM75_U16x8_LDSM_T>(atoms, "SM75_U16x8_LDSM_T");
  check_copy<cute::SM80_CP_ASYNC_CACHEALWAYS<cute::uint128_t>>(atoms, "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>");
}

// One GMMA atom three ways: the catalogue's notation, gmma.cpp's function, CuTe's addresses.
template <class Atom>
void check_gmma_atom(const Json& atoms, const char* key, tfspec::kernel::GmmaMajor major, int64_t bytes) {
  const tfspec::LayoutPtr ours = tfspec::parse_any_layout(atoms["gmma_smem"][key].get<std::string>());
  const tfspec::kernel::GmmaAtom fn(major, bytes, 2);
  const int64_t rows = fn.mn_extent();
  same_addresses(std::string("GMMA ") + key + " (spec/kernel-atoms.json)", Atom{}, [&](int64_t i) { return ours->apply(IntTuple(i)); }, to_string(*ours));
  same_addresses(std::string("GMMA ") + key + " (kernel gmma.cpp)", Atom{}, [&](int64_t i) { return fn(i % rows, i / rows); },
                 "GmmaAtom(" + fn.name() + ")");
}

void check_gmma(const Json& atoms) {
  using namespace cute::SM90::GMMA;
  using K = tfspec::kernel::GmmaMajor;
  check_gmma_atom<Layout_K_INTER_Atom<cute::half_t>>(atoms, "K_INTER", K::K, 16);
  check_gmma_atom<Layout_K_SW32_Atom<cute::half_t>>(atoms, "K_SW32", K::K, 32);
  check_gmma_atom<Layout_K_SW64_Atom<cute::half_t>>(atoms, "K_SW64", K::K, 64);
  check_gmma_atom<Layout_K_SW128_Atom<cute::half_t>>(atoms, "K_SW128", K::K, 128);
  check_gmma_atom<Layout_MN_INTER_Atom<cute::half_t>>(atoms, "MN_INTER", K::MN, 16);
  check_gmma_atom<Layout_MN_SW32_Atom<cute::half_t>>(atoms, "MN_SW32", K::MN, 32);
  check_gmma_atom<Layout_MN_SW64_Atom<cute::half_t>>(atoms, "MN_SW64", K::MN, 64);
  check_gmma_atom<Layout_MN_SW128_Atom<cute::half_t>>(atoms, "MN_SW128", K::MN, 128);
}

int64_t span_of(cute::TMA::SmemSwizzleBits bits) {
  switch (bits) {
    case cute::TMA::SmemSwizzleBits::B32: return 32;
    case cute::TMA::SmemSwizzleBits::B64: return 64;
    case cute::TMA::SmemSwizzleBits::B128: return 128;
    default: return 0;
  }
}

// CuTe's TMA mode for the atom's swizzle, and tfspec's placement under that mode (the atom's
// dense offsets through tma_element_swizzle) against CuTe's addresses.
template <class Atom>
void check_tma_mode(const char* key, tfspec::kernel::GmmaMajor major, int64_t bytes) {
  const int64_t span = span_of(cute::detail::get_tma_swizzle_bits(Atom{}));
  const tfspec::Swizzle ours = tfspec::kernel::tma_byte_swizzle(span);
  using S = decltype(cute::get_swizzle_portion(Atom{}));
  const bool same = ours.bits() == S::num_bits && ours.base() == S::num_base && ours.shift() == S::num_shft;
  report(same, std::string("TMA mode of GMMA ") + key,
         "CuTe's get_tma_swizzle_bits says the " + std::to_string(span) + "B mode (0: none); tfspec's mode swizzle " + to_string(ours) + (same ? " ==" : " !=") +
             " the atom's " + cute_text(S{}));
  const tfspec::kernel::GmmaAtom fn(major, bytes, 2);
  const tfspec::Swizzle sw = tfspec::kernel::tma_element_swizzle(span, 2);
  const int64_t rows = fn.mn_extent(), w = fn.width();
  same_addresses(std::string("TMA ") + std::to_string(span) + "B box of GMMA " + key, Atom{},
                 [&](int64_t i) { return sw(major == tfspec::kernel::GmmaMajor::K ? (i % rows) * w + i / rows : (i / rows) * w + i % rows); },
                 to_string(sw) + " o dense box");
}

void check_tma(const Json&) {
  using namespace cute::SM90::GMMA;
  using K = tfspec::kernel::GmmaMajor;
  check_tma_mode<Layout_K_INTER_Atom<cute::half_t>>("K_INTER", K::K, 16);
  check_tma_mode<Layout_K_SW32_Atom<cute::half_t>>("K_SW32", K::K, 32);
  check_tma_mode<Layout_K_SW64_Atom<cute::half_t>>("K_SW64", K::K, 64);
  check_tma_mode<Layout_K_SW128_Atom<cute::half_t>>("K_SW128", K::K, 128);
  check_tma_mode<Layout_MN_SW128_Atom<cute::half_t>>("MN_SW128", K::MN, 128);
}

}  // namespace

// make_tiled_copy_A/B (spec/CUTE_DSL.md §5): kernel::mma_copy_layout against the TiledCopy CuTe
// builds from the same tiled MMA, its TV layout at every index and its tile's extents.
tfspec::kernel::Mma tiled_mma(const char* atoms, const std::array<const char*, 3>& perm) {
  tfspec::kernel::Mma m = *tfspec::kernel::sm80_mma_atom(16, 8, 16, 16);
  m.atoms = tfspec::parse_layout(atoms);
  for (size_t i = 0; i < 3; ++i) m.perm[i] = tfspec::parse_layout(perm[i]);
  return m;
}

template <class AtomLayout, class Permutation>
void check_mma_copy(const std::string& what, const tfspec::kernel::Mma& ours, AtomLayout atoms, Permutation perm) {
  using namespace cute;
  const auto mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, atoms, perm);
  using A = decltype(make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma));
  using B = decltype(make_tiled_copy_B(Copy_Atom<SM75_U16x8_LDSM_T, half_t>{}, mma));
  const tfspec::kernel::MmaCopyLayout a = tfspec::kernel::mma_copy_layout(ours, 'A'), b = tfspec::kernel::mma_copy_layout(ours, 'B');
  same_elements("make_tiled_copy_A " + what, a.tv, typename A::TiledLayout_TV{});
  same_elements("make_tiled_copy_B " + what, b.tv, typename B::TiledLayout_TV{});
  const bool tiles = a.rows == int64_t(size<0>(typename A::Tiler_MN{})) && a.cols == int64_t(size<1>(typename A::Tiler_MN{})) &&
                     b.rows == int64_t(size<0>(typename B::Tiler_MN{})) && b.cols == int64_t(size<1>(typename B::Tiler_MN{}));
  report(tiles, "make_tiled_copy_A/B tiles " + what,
         "A (" + std::to_string(a.rows) + "," + std::to_string(a.cols) + ") vs CuTe's " + cute_text(typename A::Tiler_MN{}) + ", B (" + std::to_string(b.rows) + "," +
             std::to_string(b.cols) + ") vs CuTe's " + cute_text(typename B::Tiler_MN{}));
}

void check_mma_copies() {
  using namespace cute;
  check_mma_copy("(2,2,1):(1,2,0) [32;32;16]", tiled_mma("(2,2,1):(1,2,0)", {"32:1", "32:1", "16:1"}), cute::Layout<Shape<_2, _2, _1>, Stride<_1, _2, _0>>{},
                 Tile<_32, _32, _16>{});
  check_mma_copy("(4,2,1):(1,4,0) [64;32;16]", tiled_mma("(4,2,1):(1,4,0)", {"64:1", "32:1", "16:1"}), cute::Layout<Shape<_4, _2, _1>, Stride<_1, _4, _0>>{},
                 Tile<_64, _32, _16>{});
  check_mma_copy("(2,2,1):(2,1,0) [32;32;16]", tiled_mma("(2,2,1):(2,1,0)", {"32:1", "32:1", "16:1"}), cute::Layout<Shape<_2, _2, _1>, Stride<_2, _1, _0>>{},
                 Tile<_32, _32, _16>{});
  check_mma_copy("(2,1,2):(1,0,2) [32;16;32]", tiled_mma("(2,1,2):(1,0,2)", {"32:1", "16:1", "32:1"}), cute::Layout<Shape<_2, _1, _2>, Stride<_1, _0, _2>>{},
                 Tile<_32, _16, _32>{});
  check_mma_copy("(2,2,1):(1,2,0) [(16,2):(2,1);64;16]", tiled_mma("(2,2,1):(1,2,0)", {"(16,2):(2,1)", "64:1", "16:1"}),
                 cute::Layout<Shape<_2, _2, _1>, Stride<_1, _2, _0>>{}, Tile<cute::Layout<Shape<_16, _2>, Stride<_2, _1>>, _64, _16>{});
}

int main() {
  std::printf("CuTe cross-check of spec/kernel-atoms.json (CUTLASS %d.%d.%d headers)\n", CUTLASS_MAJOR, CUTLASS_MINOR, CUTLASS_PATCH);
  const Json atoms = read_atoms();
  check_mma(atoms);
  check_copies(atoms);
  check_gmma(atoms);
  check_tma(atoms);
  check_mma_copies();
  std::printf("result: %d of %d agree\n", checks - failures, checks);
  return failures == 0 ? 0 : 1;
}
