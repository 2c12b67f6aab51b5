// A linear shared-memory layout in a pipeline reads in spec/ALGEBRA.md's one direction (X2
// "Direction", issue 44 item 3): Triton's form (in-dim `offset`, maybe with a size-1 `block`)
// maps offsets to tile coordinates and is read through its inverse; a layout without an `offset`
// in-dim maps the tile index to the offset. The bases below are derived by hand from the passing
// configuration's `Sw<3,3,3> o 0 o (128,32):(32,1)` (tile element (m, k) is index m + 128 k).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/check.hpp"

namespace tfspec::kernel {
namespace {

std::string read_text(const std::string& name) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/" + name + ".json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The passing SM80 configuration with A's and B's smem layout replaced by `smem`.
KernelReport with_smem(const std::string& smem) {
  Json j = Json::parse(read_text("sm80_f16_128x128x32"));
  j["A"]["smem"] = smem;
  j["B"]["smem"] = smem;
  return check_pipeline(read_pipeline(j));
}

// Stored offset y -> (m, k): the swizzle is its own inverse, so o = y ^ (((y >> 6) & 7) << 3) and
// (m, k) = (o / 32, o % 32). Bits 0-4 of y: k 1, 2, 4, 8, 16. Bit 5: o = 32, m 1. Bit 6: o = 64 ^ 8
// = 72: (2, 8). Bit 7: 128 ^ 16 = 144: (4, 16). Bit 8: 256 ^ 32 = 288: (9, 0). Bits 9-11: m 16, 32, 64.
const std::string kTritonSw333 =
    " - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (0, 4)\n   offset=8 -> (0, 8)\n   offset=16 -> (0, 16)\n"
    "   offset=32 -> (1, 0)\n   offset=64 -> (2, 8)\n   offset=128 -> (4, 16)\n   offset=256 -> (9, 0)\n   offset=512 -> (16, 0)\n"
    "   offset=1024 -> (32, 0)\n   offset=2048 -> (64, 0)\n - block is a size 1 dimension\nwhere out dims are: [dim0 (size 128), dim1 (size 32)]";

TEST(KernelLinearSmem, TritonsOffsetFormWithASizeOneBlockReadsLikeTheCuteForm) {
  const KernelReport r = with_smem(kTritonSw333);
  for (const Finding& f : r.findings) EXPECT_EQ(f.outcome, Outcome::Ok) << f.check << " " << f.subject << ": " << f.message;
  EXPECT_EQ(r.exit_code(), 0);
  // As in KernelCases.PassingSm80ConfigurationPasses: one wavefront per ldmatrix phase.
  EXPECT_EQ(finding(r, "banks", "A s2r (read)").detail["wavefronts"], 128);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("A.smem: smem is Triton's form (in-dim `offset`: offset -> coordinates)"), std::string::npos) << r.notes[0];
  EXPECT_NE(to_text(r).find("note: B.smem: smem is Triton's form"), std::string::npos);
  EXPECT_EQ(to_json(r)["notes"].size(), 2u);
  // The size-1 in-dim listed first changes nothing.
  const std::string block_first = "linear[block=[], offset=[(0,1),(0,2),(0,4),(0,8),(0,16),(1,0),(2,8),(4,16),(9,0),(16,0),(32,0),(64,0)] -> dim0=128, dim1=32]";
  EXPECT_EQ(with_smem(block_first).exit_code(), 0);
}

// Tile index -> offset: index bit j < 7 is m = 2^j at o = 32 * 2^j, swizzled: 32, 64 ^ 8 = 72,
// 128 ^ 16 = 144, 256 ^ 32 = 288, 512, 1024, 2048; bits 7-11 are k = 1 .. 16 (no swizzle bits).
TEST(KernelLinearSmem, ALayoutWithoutAnOffsetInDimMapsTheTileIndexToTheOffset) {
  const KernelReport r = with_smem("linear[dim0=[32,72,144,288,512,1024,2048], dim1=[1,2,4,8,16] -> offset=4096]");
  EXPECT_EQ(r.exit_code(), 0);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("read as tile index -> offset"), std::string::npos) << r.notes[0];
}

// An in-dim with bits beside `offset` stays part of the input: its bits follow offset's (X2
// flattening), so offset bit 11 written as block bit 0 is the same function.
TEST(KernelLinearSmem, AnotherInDimWithBitsBesideOffsetTakesTheHighOffsetBits) {
  const KernelReport r =
      with_smem("linear[offset=[(0,1),(0,2),(0,4),(0,8),(0,16),(1,0),(2,8),(4,16),(9,0),(16,0),(32,0)], block=[(64,0)] -> dim0=128, dim1=32]");
  EXPECT_EQ(r.exit_code(), 0);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("`block` take offset bits"), std::string::npos) << r.notes[0];
}

}  // namespace
}  // namespace tfspec::kernel
