// make_tiled_copy_A/B's TV layout (mma_copy_layout: CuTe's get_layoutA/B_TV through the reference's
// algebra) against the MMA partition of one MMA tile, which partition.cpp computes independently
// by index arithmetic (spec/KERNEL.md "Partitions"), over tiled MMAs with and without
// permutations, atoms numbered M- or N-first and atoms along K; and one layout derived by hand.
#include <gtest/gtest.h>

#include "tfspec/kernel/atoms.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

Mma tiled(const std::string& atoms, const std::array<const char*, 3>& perm) {
  Mma m = *sm80_mma_atom(16, 8, 16, 16);
  m.atoms = parse_layout(atoms);
  for (size_t i = 0; i < 3; ++i)
    if (perm[i] != nullptr) m.perm[i] = parse_layout(perm[i]);
  return m;
}

// Both operands, every (thread, value): the copy's tile index equals the partition's element.
void expect_copy_is_the_partition(const Mma& m, const std::string& what) {
  for (char op : {'A', 'B'}) {
    const MmaCopyLayout c = mma_copy_layout(m, op);
    Pipeline p;
    p.mma = m;
    p.threads = m.atom_threads * m.atoms.size();
    (op == 'A' ? p.bm : p.bn) = c.rows;
    p.bk = c.cols;
    (op == 'A' ? p.bn : p.bm) = op == 'A' ? m.n * product_int(m.atoms.shape_ref()[1]) : m.m * product_int(m.atoms.shape_ref()[0]);
    const Partition part = mma_partition(p, op);
    ASSERT_EQ(c.threads(), part.threads) << what << " " << op;
    ASSERT_EQ(c.values(), part.values) << what << " " << op;
    for (int64_t t = 0; t < part.threads; ++t)
      for (int64_t v = 0; v < part.values; ++v) ASSERT_EQ(c.tv(t + part.threads * v), part.at(t, v)) << what << " " << op << " thread " << t << " value " << v;
  }
}

TEST(KernelMmaCopy, IsTheMmaPartitionOfOneTile) {
  expect_copy_is_the_partition(tiled("(2,2,1):(1,2,0)", {"32:1", "32:1", "16:1"}), "2x2, tile 32x32x16");
  expect_copy_is_the_partition(tiled("(4,2,1):(1,4,0)", {"64:1", "32:1", "16:1"}), "4x2");
  expect_copy_is_the_partition(tiled("(2,2,1):(2,1,0)", {"32:1", "32:1", "16:1"}), "atoms numbered N first");
  expect_copy_is_the_partition(tiled("(2,2,1):(1,2,0)", {nullptr, nullptr, nullptr}), "no permutation");
  expect_copy_is_the_partition(tiled("(2,1,2):(1,0,2)", {"32:1", "16:1", "32:1"}), "two atoms along K");
  expect_copy_is_the_partition(tiled("(2,2,1):(1,2,0)", {"(16,2):(2,1)", "64:1", "16:1"}), "M permuted, N repeated twice");
}

// By hand, A of 2x2 atoms (thread t = v + 32 (wm + 2 wn)) over the 32x16 tile, index m + 32 k:
// the atom's A TV ((4,8),(2,2,2)):((32,1),(16,8,128)) over (16,16) gives thread v = t0 + 4 t1
// value (f0,f1,f2) m = t1 + 8 f1, k = 2 t0 + f0 + 8 f2, and atom wm adds 16 to m. So t0 -> 64,
// t1 -> 1, wm -> 16, wn -> 0 (A ignores N); f0 -> 32, f1 -> 8, f2 -> 256.
TEST(KernelMmaCopy, TwoByTwoAByHand) {
  const MmaCopyLayout c = mma_copy_layout(tiled("(2,2,1):(1,2,0)", {"32:1", "32:1", "16:1"}), 'A');
  const Layout hand = parse_layout("((4,8,2,2),(2,2,2)):((64,1,16,0),(32,8,256))");
  EXPECT_EQ(std::vector<int64_t>({c.rows, c.cols}), std::vector<int64_t>({32, 16}));
  ASSERT_EQ(c.tv.size(), hand.size());
  for (int64_t i = 0; i < hand.size(); ++i) ASSERT_EQ(c.tv(i), hand(i)) << i;
}

TEST(KernelMmaCopy, AnOperandReadFromSharedMemoryHasNoCopy) {
  Mma m = tiled("(1,1,1):(0,0,0)", {nullptr, nullptr, nullptr});
  m.a.reset();
  try {
    mma_copy_layout(m, 'A');
    FAIL() << "no refusal";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "kernel-input");
  }
}

}  // namespace
}  // namespace tfspec::kernel
