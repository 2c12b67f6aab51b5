// One direction for a linear shared-memory layout (spec/ALGEBRA.md X2 "Direction", issue 44
// item 3): a size-1 in-dim (Triton prints ` - block is a size 1 dimension`) never changes it, and
// the answer says which direction it read.
#include <gtest/gtest.h>

#include <string>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

// Triton's swizzled shared layout of a 64x64 f16 tile (vec 8, perPhase 1, maxPhase 8, order
// [1,0]), as it prints it: offset bits 0-5 are the column, bits 6-11 the row, and row bit b also
// flips column bit 3 + b. So the element (r, c) is at offset 64 r + (c ^ 8 (r % 8)).
const std::string kBases = " - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (0, 4)\n   offset=8 -> (0, 8)\n"
                           "   offset=16 -> (0, 16)\n   offset=32 -> (0, 32)\n   offset=64 -> (1, 8)\n   offset=128 -> (2, 16)\n"
                           "   offset=256 -> (4, 32)\n   offset=512 -> (8, 0)\n   offset=1024 -> (16, 0)\n   offset=2048 -> (32, 0)\n";
const std::string kOutDims = "where out dims are: [dim0 (size 64), dim1 (size 64)]";
const std::string kWithBlock = kBases + " - block is a size 1 dimension\n" + kOutDims;
const std::string kWithoutBlock = kBases + kOutDims;

// TV (32,(64,2)):(1,(64,32)): thread t, value (v0, v1) is tile index t + 32 v1 + 64 v0, i.e. row
// r = t + 32 v1, column c = v0 of the 64x64 tile (dim0 fastest). With --elem-bytes 2 and one
// element per access, a phase is the 32 threads of one value: rows t + 32 v1 at column c, words
// 32 r + (c ^ 8 (r % 8)) / 2, banks (c ^ 8 (t % 8)) / 2: eight banks, four rows each (t, t + 8,
// t + 16, t + 24), four distinct words: 4 wavefronts for an ideal of 1, in each of the 128
// accesses: 512 wavefronts, ideal 128, 4-way. A thread's columns c .. c + 7 (c % 8 == 0) are eight
// contiguous offsets (the xor moves whole chunks of 8): vector width 8 elements, 16 bytes.
const std::string kTv = "'(32,(64,2)):(1,(64,32))'";

void expect_four_way(const std::string& smem) {
  const auto r = run_tfspec("layout banks " + kTv + " " + shell_quote(smem) + " --elem-bytes 2");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("wavefronts 512, ideal 128: 4-way bank conflict"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector width: 8 elements (16 bytes)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: smem is Triton's form (in-dim `offset`: offset -> coordinates); read through its inverse"), std::string::npos) << r.out;
}

TEST(LinearDirectionCli, ASizeOneBlockInDimDoesNotTurnTritonsSharedLayoutAround) {
  expect_four_way(kWithBlock);
  expect_four_way(kWithoutBlock);
  expect_four_way("linear[block=[], offset=[(0,1),(0,2),(0,4),(0,8),(0,16),(0,32),(1,8),(2,16),(4,32),(8,0),(16,0),(32,0)] -> dim0=64, dim1=64]");
  const auto w = run_tfspec("layout vector_width " + kTv + " " + shell_quote(kWithBlock) + " --elem-bytes 2");
  EXPECT_EQ(w.rc, 0) << w.out;
  EXPECT_NE(w.out.find("vector width: 8 elements (16 bytes)"), std::string::npos) << w.out;
  EXPECT_NE(w.out.find("note: smem is Triton's form"), std::string::npos) << w.out;
}

// The same function written tile index -> offset (no `offset` in-dim): index bit j < 6 is row
// 2^j at 64 * 2^j, xor 8 * 2^j for j < 3 (72, 144, 288); bits 6-11 are columns 1 .. 32.
TEST(LinearDirectionCli, ALayoutWithoutAnOffsetInDimIsReadAsTileIndexToOffsetAndSaysSo) {
  const auto r = run_tfspec("layout banks " + kTv + " 'linear[dim0=[72,144,288,512,1024,2048], dim1=[1,2,4,8,16,32] -> offset=4096]' --elem-bytes 2 --json");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("\"wavefronts\":512"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"degree\":4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read as tile index -> offset"), std::string::npos) << r.out;
}

// equivalent's note follows the same rule: Sw<3,3,3> o 0 o (8,64):(64,1) against Triton's form of
// it (docs/linear-layouts.md's example) with a size-1 `block` listed first.
TEST(LinearDirectionCli, EquivalentNotesTheDirectionWithASizeOneBlockToo) {
  const std::string triton = "'linear[block=[], offset=[(0,1),(0,2),(0,4),(0,8),(0,16),(0,32),(1,8),(2,16),(4,32)] -> dim0=8, dim1=64]'";
  const auto inv = run_tfspec("layout equivalent 'Sw<3,3,3> o 0 o (8,64):(64,1)' " + triton + " --inverse");
  EXPECT_EQ(inv.rc, 0) << inv.out;
  const auto plain = run_tfspec("layout equivalent 'Sw<3,3,3> o 0 o (8,64):(64,1)' " + triton);
  EXPECT_EQ(plain.rc, 1) << plain.out;
  EXPECT_NE(plain.out.find("note: B's in-dim `offset` says it maps shared-memory offsets to coordinates"), std::string::npos) << plain.out;
}

// Not a bijection onto the tile: offset bits 0 and 6 both reach column 1 (the layout is not
// invertible), refused with the inverse's rule.
TEST(LinearDirectionCli, ATritonLayoutWithNoInverseIsRefusedWithTheInversesRule) {
  const auto r = run_tfspec("layout banks " + kTv +
                            " 'linear[offset=[(0,1),(0,2),(0,4),(0,8),(0,16),(0,32),(0,1),(2,16),(4,32),(8,0),(16,0),(32,0)], block=[] -> dim0=64, dim1=64]' --elem-bytes 2");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("[linear-not-invertible §2]"), std::string::npos) << r.out;
}

}  // namespace
