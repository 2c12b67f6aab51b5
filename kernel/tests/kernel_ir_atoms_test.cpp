// The atoms a reader of a compiler's IR names by kind (atoms.hpp) against the catalogue
// spec/kernel-atoms.json (itself compared with CuTe's traits by kernel_cute_atoms), and the
// global sector model (coalescing.hpp) on hand-derived accesses.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tfspec/kernel/atoms.hpp"
#include "tfspec/kernel/coalescing.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

const Json& catalogue() {
  static const Json j = [] {
    std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/spec/kernel-atoms.json");
    std::stringstream s;
    s << in.rdbuf();
    return Json::parse(s.str());
  }();
  return j;
}

void expect_same(const Layout& ours, const std::string& theirs, const std::string& what) {
  const Layout t = parse_layout(theirs);
  ASSERT_EQ(ours.size(), t.size()) << what;
  for (int64_t i = 0; i < t.size(); ++i) ASSERT_EQ(ours(i), t(i)) << what << " at index " << i;
}

TEST(KernelIrAtoms, LdmatrixAtomsAreTheCatalogues) {
  for (int64_t n : {1, 2, 4})
    for (bool t : {false, true}) {
      const auto a = ldmatrix_atom(n, t, 16);
      ASSERT_TRUE(a);
      const Json& e = catalogue()["copy"][a->name];
      ASSERT_TRUE(e.is_object()) << a->name;
      EXPECT_EQ(a->bits, e["bits"].get<int64_t>());
      expect_same(a->src, e["src"], a->name + " src");
      expect_same(a->dst, e["dst"], a->name + " dst");
    }
  EXPECT_FALSE(ldmatrix_atom(3, false, 16));
  EXPECT_FALSE(ldmatrix_atom(4, false, 8));  // 8-bit ldmatrix is not in the catalogue
}

TEST(KernelIrAtoms, Sm80MmaIsTheCatalogues) {
  const auto m = sm80_mma_atom(16, 8, 16, 16);
  ASSERT_TRUE(m);
  const Json& e = catalogue()["mma"]["SM80_16x8x16_F16F16F16F16_TN"];
  expect_same(*m->a, e["A"], "A");
  expect_same(*m->b, e["B"], "B");
  expect_same(m->c, e["C"], "C");
  EXPECT_EQ(m->atom_threads, 32);
  EXPECT_FALSE(sm80_mma_atom(16, 8, 8, 16));
}

// 32 threads each reading 16 consecutive bytes (8 f16) of one row: 512 bytes, 16 sectors, ideal.
// The same 32 threads one row each, rows 64 bytes apart (a K-major tile walked along M): each
// thread's 16 bytes sit in its own sector, 32 for the ideal 16. Unknown rows never share.
TEST(KernelSectors, CountsSectorsAgainstTheBytesMoved) {
  std::vector<std::pair<int64_t, int64_t>> along, across, rows;
  for (int64_t t = 0; t < 32; ++t)
    for (int64_t v = 0; v < 8; ++v) {
      along.push_back({0, (8 * t + v) * 2});
      across.push_back({0, (32 * t + v) * 2});
      rows.push_back({t, v * 2});
    }
  EXPECT_EQ(sectors_of(along, 2).sectors, 16);
  EXPECT_EQ(sectors_of(along, 2).ideal, 16);
  EXPECT_EQ(sectors_of(across, 2).sectors, 32);
  EXPECT_EQ(sectors_of(across, 2).ideal, 16);
  EXPECT_EQ(sectors_of(rows, 2).sectors, 32);
}

// A tiled copy over a (64, 32) K-major f16 tile, global stride 32 along M: threads (64,4):(1,64)
// put 32 consecutive threads on 32 rows (32 sectors, ideal 16); threads (16,8):(8,1) put 4 threads
// on each row's 64 bytes (16 sectors).
TEST(KernelSectors, CopyCoalescingOfATiledCopy) {
  const Layout global = parse_layout("(64,32):(32,1)");
  // TV from thread t = m + 64 kq (walking M), value v: element (m, 8 kq + v) = index m + 64 (8 kq + v).
  const Layout walk_m = parse_layout("((64,4),8):((1,512),64)");
  // thread t = kq + 4 m: element (m, 8 kq + v).
  const Layout walk_k = parse_layout("((4,16),8):((512,1),64)");
  EXPECT_EQ(copy_coalescing(walk_m, 64, global, 8, 2).sectors, 32);
  EXPECT_EQ(copy_coalescing(walk_m, 64, global, 8, 2).ideal, 16);
  EXPECT_EQ(copy_coalescing(walk_k, 64, global, 8, 2).sectors, 16);
}

// CUTLASS's tensorop_gemm, A M-major, a 256-row copy tile: TV (64,8):(8,1) gives thread t the
// tile index 8t + v, i.e. m = (8t + v) % 256, k = (8t + v) / 256: warp 0 holds k = 0, warp 1
// k = 1, each m = 0..255. With the global K stride 8 (the divisor the IR states, `?{i64 div=8}`),
// warp 0's 512 bytes are bytes 0..511 (16 sectors), warp 1's run from element 8, bytes 16..527:
// sectors 0..16, 17. No warp could move those bytes from byte 16 in fewer, so its ideal is 17 (not
// ceil(512 / 32) = 16, which read as a violation): every warp at its ideal, the first reported.
TEST(KernelSectors, TheIdealCountsFromWhereTheWarpStarts) {
  const Layout tv = parse_layout("(64,8):(8,1)");
  const CopyCoalescing c = copy_coalescing(tv, 256, parse_layout("(256,2):(1,8)"), 8, 2);
  EXPECT_EQ(c.sectors, 16);
  EXPECT_EQ(c.ideal, 16);
  EXPECT_EQ(c.warp, 0);
  // K stride 16 elements (32 bytes): warp 1 starts aligned, 16 sectors, ideal 16 too.
  const CopyCoalescing aligned = copy_coalescing(tv, 256, parse_layout("(256,2):(1,16)"), 8, 2);
  EXPECT_EQ(aligned.sectors, aligned.ideal);
  // The walk stays a violation wherever it starts: threads (64,4):(1,64) of the K-major test
  // above with the tile shifted 8 bytes into a sector (M stride 36: rows 72 bytes apart).
  const CopyCoalescing walk = copy_coalescing(parse_layout("((64,4),8):((1,512),64)"), 64, parse_layout("(64,32):(36,1)"), 8, 2);
  EXPECT_GT(walk.sectors, walk.ideal);
  // sectors_of (the Triton path) is unchanged: 512 bytes from byte 16 still read as ideal 16.
  std::vector<std::pair<int64_t, int64_t>> from16;
  for (int64_t e = 0; e < 256; ++e) from16.push_back({0, 16 + 2 * e});
  EXPECT_EQ(sectors_of(from16, 2).sectors, 17);
  EXPECT_EQ(sectors_of(from16, 2).ideal, 16);
}

}  // namespace
}  // namespace tfspec::kernel
