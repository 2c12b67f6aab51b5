// The packing core against element-by-element copies written here (the oracle is the definition
// of a run: element k of run r goes from src[r.from + k] to dst[r.to + k], runs in order).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>

#include "tfspec/pack/pack.hpp"

using namespace tfspec::pack;
namespace pack = tfspec::pack;

namespace {

std::vector<unsigned char> by_elements(const std::vector<pack::Run>& runs, size_t eb, const std::vector<unsigned char>& src, std::vector<unsigned char> dst) {
  for (const pack::Run& r : runs)
    for (int64_t k = 0; k < r.len; ++k)
      for (size_t b = 0; b < eb; ++b) dst[static_cast<size_t>(r.to + k) * eb + b] = src[static_cast<size_t>(r.from + k) * eb + b];
  return dst;
}

std::vector<unsigned char> bytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<unsigned char> v(n);
  for (auto& x : v) x = static_cast<unsigned char>(gen());
  return v;
}

}  // namespace

TEST(Pack, AStridedPackIsOneBlock) {
  // 8 rows of 64 elements, every second row's first 16: runs of 16 at source stride 128, packed.
  std::vector<pack::Run> runs;
  for (int64_t k = 0; k < 8; ++k) runs.push_back({2 * k * 64, 16 * k, 16});
  const CopyProgram p = compile(runs);
  ASSERT_EQ(p.blocks.size(), 1u);
  EXPECT_EQ(p.blocks[0], (Block{0, 0, 16, 8, 128, 16}));
  EXPECT_EQ(p.elements, 128);
  EXPECT_EQ(p.src_lo, 0);
  EXPECT_EQ(p.src_hi, 7 * 128 + 16);
  EXPECT_EQ(p.dst_lo, 0);
  EXPECT_EQ(p.dst_hi, 128);
}

TEST(Pack, ContiguousRunsMergeAndABreakStartsABlock) {
  const CopyProgram p = compile({{0, 10, 4}, {4, 14, 4}, {100, 0, 2}, {0, 50, 0}});
  ASSERT_EQ(p.blocks.size(), 2u);
  EXPECT_EQ(p.blocks[0], (Block{0, 10, 8, 1, 0, 0}));
  EXPECT_EQ(p.blocks[1], (Block{100, 0, 2, 1, 0, 0}));
  EXPECT_EQ(p.elements, 10);
  EXPECT_EQ(p.dst_lo, 0);
  EXPECT_EQ(p.dst_hi, 18);
}

TEST(Pack, NegativeRunsAreRefused) {
  EXPECT_THROW(compile({{-1, 0, 1}}), std::invalid_argument);
  EXPECT_THROW(compile({{0, 0, -1}}), std::invalid_argument);
}

// Random run lists (strided stretches, broken strides, overwrites, every element size the
// executors use) against the element-by-element copy.
TEST(Pack, RunEqualsElementByElementCopies) {
  std::mt19937 gen(20261202);
  for (int c = 0; c < 400; ++c) {
    const size_t eb = std::vector<size_t>{1, 2, 4, 8, 3}[gen() % 5];
    const int64_t n = 256;
    std::vector<pack::Run> runs;
    const int stretches = 1 + static_cast<int>(gen() % 4);
    for (int s = 0; s < stretches; ++s) {
      const int64_t len = 1 + gen() % 20, count = 1 + gen() % 6;
      const int64_t fs = static_cast<int64_t>(gen() % 30) - 5, ts = static_cast<int64_t>(gen() % 30) - 5;
      const int64_t f0 = gen() % 100, t0 = gen() % 100;
      for (int64_t k = 0; k < count; ++k) {
        const int64_t f = f0 + k * fs, t = t0 + k * ts;
        if (f >= 0 && t >= 0 && f + len <= n && t + len <= n) runs.push_back({f, t, len});
      }
    }
    const auto src = bytes(static_cast<size_t>(n) * eb, static_cast<unsigned>(c));
    const auto dst0 = bytes(static_cast<size_t>(n) * eb, static_cast<unsigned>(c) + 1000);
    auto got = dst0;
    const CopyProgram p = compile(runs);
    pack::run(p, eb, src.data(), got.data());
    ASSERT_EQ(got, by_elements(runs, eb, src, dst0)) << "case " << c << ", element size " << eb << ", " << runs.size() << " runs";
    // In one buffer (memmove order): the oracle copies run by run through a snapshot of each run.
    auto same = src;
    auto want = src;
    for (const pack::Run& r : runs) {
      std::vector<unsigned char> piece(want.begin() + r.from * static_cast<int64_t>(eb), want.begin() + (r.from + r.len) * static_cast<int64_t>(eb));
      std::memcpy(want.data() + r.to * static_cast<int64_t>(eb), piece.data(), piece.size());
    }
    run_overlapping(p, eb, same.data(), same.data());
    ASSERT_EQ(same, want) << "case " << c << " (one buffer)";
  }
}

TEST(Pack, GatherChecksBoundsBeforeWriting) {
  const std::vector<int64_t> src{10, 11, 12, 13};
  std::vector<int64_t> out(3, -1);
  const int64_t good[] = {3, 0, 2}, bad[] = {1, 4, 0};
  ASSERT_TRUE(gather_in_bounds(good, 3, src.data(), 4, out.data()));
  EXPECT_EQ(out, (std::vector<int64_t>{13, 10, 12}));
  std::vector<int64_t> untouched(3, -1);
  EXPECT_FALSE(gather_in_bounds(bad, 3, src.data(), 4, untouched.data()));
  EXPECT_EQ(untouched, (std::vector<int64_t>(3, -1)));
}
