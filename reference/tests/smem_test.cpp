// Shared-memory bank conflicts and vector width (spec/SMEM.md). The worked examples of issue 21
// are derived by hand in each test; a second, deliberately simple simulator of the model checks
// bank_conflicts on generated TV/SMEM pairs, and a mutant of it (no phase split for wide
// accesses) is shown to be caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "test_support.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/smem.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {
namespace {

SmemAccess access(int64_t elem_bytes, int64_t vector = 1) {
  SmemAccess a;
  a.elem_bytes = elem_bytes;
  a.vector = vector;
  return a;
}

// Thread t reads column v of a 32x32 float tile: TV index t + 32v is the tile's (row t, column v).
const Layout kColumnTv = parse_layout("(32,32):(1,32)");

TEST(Banks, RowMajorFloatColumnsAre32WayConflicts) {
  // offset 32t + v: in access v every thread's word is 32t + v, all in bank v: 32 distinct words
  // in one bank = 32 wavefronts where 32 words need 1.
  const BankReport r = bank_conflicts(kColumnTv, *parse_any_layout("(32,32):(32,1)"), access(4));
  EXPECT_EQ(r.phase_threads, 32);
  EXPECT_EQ(r.accesses, 32);
  EXPECT_EQ(r.wavefronts, 32 * 32);
  EXPECT_EQ(r.ideal, 32);
  EXPECT_EQ(r.degree(), 32);
  EXPECT_FALSE(r.conflict_free());
  ASSERT_TRUE(r.worst);
  EXPECT_EQ(r.worst->access, 0);
  EXPECT_EQ(r.worst->bank, 0);
  EXPECT_EQ(r.worst->wavefronts, 32);
  ASSERT_EQ(r.worst->colliding.size(), 32u);
  for (int64_t t = 0; t < 32; ++t) EXPECT_EQ(r.worst->colliding[static_cast<size_t>(t)], std::make_pair(t, 32 * t));
}

// The table form with lanes that take no part (offset -1, as ldmatrix x1's lanes 8..31): one
// warp, 16-byte accesses (8 x fp16), a quarter-warp a phase. Lanes 0..7 read rows r of a
// (8,64):(64,1) fp16 tile at column 0: byte 128 r, all in bank group 0, 8 distinct 16-byte
// chunks on the same four banks: 8 wavefronts where 8 chunks (128 bytes) need 1. The other three
// phases have no lane accessing: not counted (a model that counted them, reading the same rows
// again, reported 32 wavefronts). A vector that is only partly -1 is refused (smem-vector-access).
TEST(Banks, LanesThatTakeNoPartAreNotCounted) {
  std::vector<int64_t> off(32 * 8, -1);
  for (int64_t t = 0; t < 8; ++t)
    for (int64_t v = 0; v < 8; ++v) off[static_cast<size_t>(t * 8 + v)] = 64 * t + v;
  const BankReport r = bank_conflicts(off, 32, 8, access(2, 8));
  EXPECT_EQ(r.phase_threads, 8);
  EXPECT_EQ(r.phases, 1);
  EXPECT_EQ(r.wavefronts, 8);
  EXPECT_EQ(r.ideal, 1);
  EXPECT_EQ(r.degree(), 8);
  off[static_cast<size_t>(9 * 8 + 3)] = 5;  // lane 9: value 3 accesses, its others do not
  EXPECT_EQ(testing::error_id([&] { bank_conflicts(off, 32, 8, access(2, 8)); }), "smem-vector-access");
}

TEST(Banks, PaddedRowsAreConflictFree) {
  // offset 33t + v: bank (t + v) % 32 differs for every thread of an access.
  const BankReport r = bank_conflicts(kColumnTv, *parse_any_layout("(32,32):(33,1)"), access(4));
  EXPECT_EQ(r.wavefronts, 32);
  EXPECT_EQ(r.ideal, 32);
  EXPECT_TRUE(r.conflict_free());
  EXPECT_EQ(r.degree(), 1);
}

TEST(Banks, Sw505RowsAreConflictFree) {
  // offset 32t + v = t in bits 5..9, v in bits 0..4; Sw<5,0,5> xors t into v: bank v xor t.
  const BankReport r = bank_conflicts(kColumnTv, *parse_any_layout("Sw<5,0,5> o 0 o (32,32):(32,1)"), access(4));
  EXPECT_TRUE(r.conflict_free());
  EXPECT_EQ(r.wavefronts, 32);
}

// A 128-bit copy of an (8,64) half tile by 64 threads: thread t moves row t % 8, halves
// 8 (t / 8) .. + 7. TV index t0 + 64 t1 + 8v (t = t0 + 8 t1) is the tile's (row t0, column 8 t1 + v).
const Layout kHalfTv = parse_layout("((8,8),8):((1,64),8)");

TEST(Banks, HalfTileUnswizzledIs8WavefrontsPerQuarterWarp) {
  // (8,64):(64,1): thread t0 + 8 t1 starts at element 64 t0 + 8 t1, byte 128 t0 + 16 t1. A phase
  // of 16-byte accesses is a quarter warp: threads 8q .. 8q + 7 share t1 = q, so they start at
  // bytes 128 t0 + 16q, words 32 t0 + 4q .. + 3: banks 4q .. 4q + 3 each hold 8 distinct words.
  const BankReport r = bank_conflicts(kHalfTv, *parse_any_layout("(8,64):(64,1)"), access(2, 8));
  EXPECT_EQ(r.access_bytes, 16);
  EXPECT_EQ(r.phase_threads, 8);
  EXPECT_EQ(r.phases, 8);  // 2 warps x 4 quarter-warps x 1 access
  EXPECT_EQ(r.wavefronts, 8 * 8);
  EXPECT_EQ(r.ideal, 8);
  EXPECT_EQ(r.degree(), 8);
  ASSERT_TRUE(r.worst);
  EXPECT_EQ(r.worst->bank, 0);
  EXPECT_EQ(r.worst->first_thread, 0);
  ASSERT_EQ(r.worst->colliding.size(), 8u);
  for (int64_t t = 0; t < 8; ++t) EXPECT_EQ(r.worst->colliding[static_cast<size_t>(t)], std::make_pair(t, 32 * t));
}

TEST(Banks, HalfTileSw333IsConflictFree) {
  // Sw<3,3,3>: Y = bits 6..8 = t0, Z = bits 3..5 = t1 (the 16-byte chunk): chunk t1 xor t0, so
  // thread t0 of quarter-warp q starts at word 32 t0 + 4 (q xor t0): banks 4 (q xor t0) + 0..3,
  // distinct for the 8 threads.
  const BankReport r = bank_conflicts(kHalfTv, *parse_any_layout("Sw<3,3,3> o 0 o (8,64):(64,1)"), access(2, 8));
  EXPECT_TRUE(r.conflict_free());
  EXPECT_EQ(r.wavefronts, 8);
}

// The model over a table of offsets (what a kernel pipeline builds from several layouts) is the
// same model: thread t0 + 8 t1 of kHalfTv at offsets 64 t0 + 8 t1 + v, written out by hand.
TEST(Banks, OffsetTableGivesTheLayoutsAnswer) {
  std::vector<int64_t> off;
  for (int64_t t = 0; t < 64; ++t)
    for (int64_t v = 0; v < 8; ++v) off.push_back(64 * (t % 8) + 8 * (t / 8) + v);
  const BankReport r = bank_conflicts(off, 64, 8, access(2, 8));
  EXPECT_EQ(r.wavefronts, 8 * 8);  // as HalfTileUnswizzledIs8WavefrontsPerQuarterWarp
  EXPECT_EQ(r.ideal, 8);
  EXPECT_EQ(vector_width(off, 64, 8, 2).elems, 8);
  EXPECT_THROW(bank_conflicts(off, 64, 4, access(2, 8)), SpecError);  // the table's size is threads x values
}

TEST(VectorWidth, HalfTileIs8HalvesSwizzledOrNot) {
  for (const char* smem : {"(8,64):(64,1)", "Sw<3,3,3> o 0 o (8,64):(64,1)"}) {
    const VectorWidth w = vector_width(kHalfTv, *parse_any_layout(smem), 2);
    EXPECT_EQ(w.elems, 8) << smem;  // 8 consecutive halves, starting at a multiple of 8
    EXPECT_EQ(w.bytes, 16) << smem;
    EXPECT_FALSE(w.next_elems) << smem;  // 32 bytes is wider than any access
  }
}

TEST(VectorWidth, ShowsTheFirstThreadThatBreaksTheNextWidth) {
  // Row-major floats: thread t's 32 values are contiguous from 32t: 4 floats = 16 bytes.
  EXPECT_EQ(vector_width(kColumnTv, *parse_any_layout("(32,32):(32,1)"), 4).elems, 4);
  // Padded: thread 1 starts at offset 33, not a multiple of 2.
  const VectorWidth padded = vector_width(kColumnTv, *parse_any_layout("(32,32):(33,1)"), 4);
  EXPECT_EQ(padded.elems, 1);
  EXPECT_EQ(padded.next_elems, 2);
  EXPECT_EQ(padded.thread, 1);
  EXPECT_EQ(padded.value, 0);
  EXPECT_NE(padded.reason.find("not aligned"), std::string::npos);
  // Sw<5,0,5>: thread 1's values 0, 1 land at 32 + (0 xor 1) = 33 and 32 + (1 xor 1) = 32.
  const VectorWidth sw = vector_width(kColumnTv, *parse_any_layout("Sw<5,0,5> o 0 o (32,32):(32,1)"), 4);
  EXPECT_EQ(sw.elems, 1);
  EXPECT_EQ(sw.thread, 1);
  EXPECT_EQ(sw.value, 0);
}

TEST(Banks, InputErrorsNameTheirRules) {
  const LayoutPtr rows = parse_any_layout("(32,32):(32,1)");
  EXPECT_RULE(bank_conflicts(kColumnTv, *rows, access(3)), "smem-access-params");
  EXPECT_RULE(bank_conflicts(kColumnTv, *rows, access(4, 3)), "smem-access-params");
  EXPECT_RULE(bank_conflicts(kColumnTv, *rows, access(4, 8)), "smem-access-params");  // 32 bytes
  EXPECT_RULE(bank_conflicts(parse_layout("(32,32,2):(1,32,1024)"), *rows, access(4)), "smem-tv");
  EXPECT_RULE(bank_conflicts(parse_layout("(32,33):(1,32)"), *rows, access(4)), "smem-tv");  // index 1055 > 1023
  EXPECT_RULE(bank_conflicts(kColumnTv, *parse_any_layout("(32,32):(33,1)"), access(4, 2)), "smem-vector-access");
  EXPECT_RULE(vector_width(kColumnTv, *rows, 5), "smem-access-params");
}

// ---- an independent simulator of spec/SMEM.md's model, as plain as it can be written
struct Sim {
  int64_t wavefronts = 0, ideal = 0;
};
// `active(t, k)`: whether thread t takes part in access k (all do unless given).
Sim simulate(const Layout& tv, const LayoutBase& smem, int64_t elem_bytes, int64_t vector, bool split_wide_accesses,
             const std::function<bool(int64_t, int64_t)>& active = nullptr) {
  const int64_t threads = product_int(tv.shape_ref()[0], "threads"), values = product_int(tv.shape_ref()[1], "values");
  const int64_t bytes = elem_bytes * vector;
  int64_t lanes = 32;  // the table of spec/SMEM.md: up to 4 bytes a warp, 8 a half, 16 a quarter
  if (split_wide_accesses && bytes == 8) lanes = 16;
  if (split_wide_accesses && bytes == 16) lanes = 8;
  Sim s;
  for (int64_t k = 0; k < values / vector; ++k)
    for (int64_t first = 0; first < threads; first += lanes) {
      if (first % 32 + lanes > 32) continue;  // never: lanes divides 32
      std::map<int64_t, std::set<int64_t>> words_of_bank;
      std::set<int64_t> words;
      for (int64_t t = first; t < first + lanes && t < threads; ++t) {
        if (active && !active(t, k)) continue;
        const int64_t elem = smem.apply(IntTuple(tv.apply(IntTuple::tuple({IntTuple(t), IntTuple(k * vector)}))));
        for (int64_t b = elem * elem_bytes; b < elem * elem_bytes + bytes; ++b) {
          words_of_bank[(b / 4) % 32].insert(b / 4);
          words.insert(b / 4);
        }
      }
      int64_t most = 0;
      for (const auto& [bank, ws] : words_of_bank) most = std::max<int64_t>(most, static_cast<int64_t>(ws.size()));
      s.wavefronts += most;
      s.ideal += (static_cast<int64_t>(words.size()) + 31) / 32;
    }
  return s;
}

struct Pair {
  Layout tv;
  LayoutPtr smem;
  int64_t elem_bytes, vector;
};

// Tiles of 2^a x 2^b elements; smem row-major, column-major, padded or swizzled; TV by rows or
// by columns with 2^t threads; the widest vector the pair allows, or a random smaller one.
std::vector<Pair> generated_pairs(int n) {
  std::mt19937_64 rng(21);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<Pair> out;
  while (static_cast<int>(out.size()) < n) {
    const int64_t r = int64_t{1} << pick(2, 6), c = int64_t{1} << pick(2, 6), e = int64_t{1} << pick(0, 3);
    const int64_t threads = std::min<int64_t>(r * c, int64_t{1} << pick(3, 7)), values = r * c / threads;
    std::string smem;
    switch (pick(0, 3)) {
      case 0: smem = "(" + std::to_string(r) + "," + std::to_string(c) + "):(" + std::to_string(c) + ",1)"; break;
      case 1: smem = "(" + std::to_string(r) + "," + std::to_string(c) + "):(1," + std::to_string(r) + ")"; break;
      case 2: smem = "(" + std::to_string(r) + "," + std::to_string(c) + "):(" + std::to_string(c + pick(1, 4)) + ",1)"; break;
      default: {
        const int64_t b = pick(0, 3), m = pick(0, 3), s = (pick(0, 1) ? 1 : -1) * pick(b, b + 3);
        smem = "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) + "> o 0 o (" + std::to_string(r) + "," +
               std::to_string(c) + "):(" + std::to_string(c) + ",1)";
      }
    }
    const std::string tv = pick(0, 1) ? "(" + std::to_string(threads) + "," + std::to_string(values) + "):(1," + std::to_string(threads) + ")"
                                      : "(" + std::to_string(threads) + "," + std::to_string(values) + "):(" + std::to_string(values) + ",1)";
    Pair p{parse_layout(tv), parse_any_layout(smem), e, 1};
    const int64_t widest = vector_width(p.tv, *p.smem, e).elems;
    p.vector = int64_t{1} << pick(0, __builtin_ctzll(static_cast<uint64_t>(widest)));
    out.push_back(std::move(p));
  }
  return out;
}

TEST(BanksProperty, AgreesWithAnIndependentSimulator) {
  int wide = 0;
  for (const Pair& p : generated_pairs(150)) {
    const BankReport r = bank_conflicts(p.tv, *p.smem, access(p.elem_bytes, p.vector));
    const Sim s = simulate(p.tv, *p.smem, p.elem_bytes, p.vector, true);
    ASSERT_EQ(r.wavefronts, s.wavefronts) << to_string(p.tv) << " through " << to_string(*p.smem) << " E=" << p.elem_bytes << " V=" << p.vector;
    ASSERT_EQ(r.ideal, s.ideal) << to_string(p.tv) << " through " << to_string(*p.smem);
    wide += r.access_bytes >= 8 ? 1 : 0;
  }
  EXPECT_GT(wide, 10);  // the split phases are exercised
}

// Lanes that take no part (the table form's -1, as ldmatrix x1 / x2's ignored lanes): on the
// generated pairs with about a third of the (thread, access) vectors marked inactive at random,
// the model and the simulator (which skips those lanes and, with no word left, adds nothing for
// the phase) agree.
TEST(BanksProperty, InactiveLanesAgreeWithTheSimulator) {
  std::mt19937_64 rng(34);
  int emptied = 0;
  int n = 0;
  for (const Pair& p : generated_pairs(150)) {
    int64_t threads = 0, values = 0;
    std::vector<int64_t> off = tv_offsets(p.tv, *p.smem, threads, values);
    std::set<std::pair<int64_t, int64_t>> off_lanes;
    // On every third pair the first phase of access 0 loses all its lanes (a phase is 32 lanes up
    // to 4 bytes an access, 16 for 8 bytes, 8 for 16: spec/SMEM.md's table).
    const int64_t phase_lanes = std::min<int64_t>(32, 128 / (p.elem_bytes * p.vector));
    const bool empty_first_phase = n++ % 3 == 0;
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t k = 0; k < values / p.vector; ++k)
        if ((empty_first_phase && k == 0 && t < phase_lanes) || std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
          off_lanes.insert({t, k});
          for (int64_t v = 0; v < p.vector; ++v) off[static_cast<size_t>(t * values + k * p.vector + v)] = -1;
        }
    const BankReport r = bank_conflicts(off, threads, values, access(p.elem_bytes, p.vector));
    const Sim s = simulate(p.tv, *p.smem, p.elem_bytes, p.vector, true, [&](int64_t t, int64_t k) { return !off_lanes.count({t, k}); });
    ASSERT_EQ(r.wavefronts, s.wavefronts) << to_string(p.tv) << " through " << to_string(*p.smem) << " E=" << p.elem_bytes << " V=" << p.vector;
    ASSERT_EQ(r.ideal, s.ideal) << to_string(p.tv) << " through " << to_string(*p.smem);
    const BankReport all = bank_conflicts(p.tv, *p.smem, access(p.elem_bytes, p.vector));
    emptied += r.phases < all.phases ? 1 : 0;  // some phase lost every lane
  }
  EXPECT_GT(emptied, 0);  // the uncounted empty phases are exercised
}

// The mutant serves 8- and 16-byte accesses a whole warp at a time. It is caught: on the half
// tile one warp (t1 = 0..3) touches words 32 t0 + 4 t1 + 0..3, so bank 4 t1 + j holds 8 words:
// 8 wavefronts per warp, 16 in all, where the hand derivation above gives 8 per quarter warp,
// 64 in all; and it disagrees with bank_conflicts on generated pairs.
TEST(BanksProperty, AMutantWithoutThePhaseSplitIsCaught) {
  const Sim mutant = simulate(kHalfTv, *parse_any_layout("(8,64):(64,1)"), 2, 8, false);
  EXPECT_EQ(mutant.wavefronts, 16);
  EXPECT_NE(mutant.wavefronts, 64);  // the hand-derived count (HalfTileUnswizzledIs8WavefrontsPerQuarterWarp)
  EXPECT_EQ(simulate(kHalfTv, *parse_any_layout("(8,64):(64,1)"), 2, 8, true).wavefronts, 64);
  int disagreements = 0;
  for (const Pair& p : generated_pairs(60)) {
    const Sim m = simulate(p.tv, *p.smem, p.elem_bytes, p.vector, false);
    const BankReport r = bank_conflicts(p.tv, *p.smem, access(p.elem_bytes, p.vector));
    disagreements += (m.wavefronts != r.wavefronts || m.ideal != r.ideal) ? 1 : 0;
  }
  EXPECT_GT(disagreements, 0);
}

}  // namespace
}  // namespace tfspec
