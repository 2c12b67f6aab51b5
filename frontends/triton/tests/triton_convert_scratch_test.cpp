// The scratch Triton 3.9 builds for a convert_layout through shared memory (spec/TRITON.md §3.2.1):
// its bytes against Triton's own allocation (the fixtures' metadata.shared and convert_cases.json,
// compiled by fixtures/convert_cases.py), and one case derived by hand, bases and wavefronts.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tfspec/frontends/triton/lower.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace convert_scratch_test {

const std::string kDir = std::string(TFSPEC_SOURCE_DIR) + "/frontends/triton/tests/fixtures/";

std::string text_of(const std::string& name) {
  std::ifstream in(kDir + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A module whose only op is the convert of an M x N tile between the two encodings.
std::string convert_module(const std::string& src, const std::string& dst, int64_t m, int64_t n, const std::string& elem, int64_t warps,
                           const std::string& target = "cuda:80") {
  const std::string t = "tensor<" + std::to_string(m) + "x" + std::to_string(n) + "x" + elem;
  return "#src = " + src + "\n#dst = " + dst + "\nmodule attributes {\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = " + std::to_string(warps) +
         " : i32, ttg.target = \"" + target + "\", \"ttg.threads-per-warp\" = 32 : i32} {\n  tt.func public @convert(%x: " + t +
         ", #src>) {\n    %y = ttg.convert_layout %x : " + t + ", #src> -> " + t + ", #dst>\n    tt.return\n  }\n}\n";
}

// The widest access of PTX width suffixes (".v4.b32": 128 bits, ".b16": 16).
int64_t widest(const Json& widths) {
  int64_t best = 0;
  for (const Json& w : widths) {
    const std::string s = w;
    const size_t b = s.rfind(".b");
    const int64_t lanes = s.starts_with(".v") ? std::stoll(s.substr(2, b - 2)) : 1;
    best = std::max<int64_t>(best, lanes * std::stoll(s.substr(b + 2)));
  }
  return best;
}

kernel::KernelReport check(const std::string& ttgir) { return kernel::check_layout_program(triton::lower(triton::read_ttgir(ttgir))); }

const Finding* convert_finding(const kernel::KernelReport& r) {
  for (const Finding& f : r.findings)
    if (f.check == "convert") return &f;
  return nullptr;
}

}  // namespace convert_scratch_test

using namespace convert_scratch_test;

const std::string kRowsSrc = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const std::string kColsDst = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";

// 32 x 32 fp16, 4 warps, on sm70 (no ldmatrix or stmatrix: the ld/st path); element (r, c) is flat
// r + 32 c (dim0 fastest), so dim0 bit k is 2^k and dim1 bit k is 2^(5+k).
//   src blocked<[1, 8], [8, 4], [4, 1], order [1, 0]>: registers walk dim1 (32, 64, 128), lanes dim1
//     then dim0 (256, 512, 1, 2, 4), warps dim0 (8, 16).
//   dst blocked<[8, 1], [4, 8], [1, 4], order [0, 1]>: registers (1, 2, 4), lanes (8, 16, 32, 64, 128),
//     warps (256, 512).
// Vector: no register is both sides'; 16-bit elements need one more bit for a 32-bit word; no
// register of one side is a warp of the other and no warp is both sides', so the first source warp
// (8) fills it: vector [8]. Banks: 5 bits (1024 bits / 32-bit words). Segment: 4 bits, and every bit
// is some side's vector or lane, so each pairs a load-only lane bit with a store-only one, sorted,
// the four store-only ones (16, 32, 64, 128; the smaller set) with the first four load-only ones
// (1, 2, 4, 256): 17, 34, 68, 384. Bank: the bits not pivots of {8, 17, 34, 68, 384} (pivots 0, 1, 2,
// 3, 7): 16, 32, 64, 256, 512; no register is in both layouts, so no reps: 2^10 x 2 B = 2048 B.
// Words (offset / 2) are bank bits 16, 32, 64, 256, 512 then segment 17, 34, 68, 384.
// Store: a thread's registers 32, 64, 128 sit at offsets 4, 8, 16 apart: 16-bit stores, 8 a thread.
//   Its lanes 256, 512 are bank bits 3, 4; lanes 1 = 17 ^ 16, 2 = 34 ^ 32, 4 = 68 ^ 64 are bank bits
//   0, 1, 2 (each with a segment bit): 32 words in 32 banks, 1 wavefront = ideal; 8 x 4 warps = 32.
// Load: registers 1, 2, 4 are not adjacent either: 16-bit loads, 8 a thread. Lane 8 is the other
//   half of the same word; lanes 16, 32, 64 are bank bits 0, 1, 2 and 128 = 384 ^ 256 bank bit 3: 16
//   words in 16 banks, 1 wavefront, ideal ceil(16 / 32) = 1; 32 in all = ideal.
TEST(ConvertScratch, TransposeLike32x32Fp16DerivedByHand) {
  const auto r = check(convert_module(kRowsSrc, kColsDst, 32, 32, "f16", 4, "cuda:70"));
  const Finding* f = convert_finding(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->outcome, Outcome::Ok) << f->message;
  EXPECT_EQ(f->detail["class"], "shared");
  EXPECT_EQ(f->detail["scratch_bases"]["vector"], Json::array({8}));
  EXPECT_EQ(f->detail["scratch_bases"]["bank"], Json::array({16, 32, 64, 256, 512}));
  EXPECT_EQ(f->detail["scratch_bases"]["segment"], Json::array({17, 34, 68, 384}));
  EXPECT_EQ(f->detail["scratch_bases"]["reps"], Json::array());
  EXPECT_EQ(f->detail["scratch_bytes"], 2048);
  EXPECT_EQ(f->detail["rounds"], 1);
  for (const char* side : {"store", "load"}) {
    EXPECT_EQ(f->detail[side]["bits"], 16) << side;
    EXPECT_EQ(f->detail[side]["wavefronts"], 32) << side;
    EXPECT_EQ(f->detail[side]["ideal"], 32) << side;
  }
  for (const Finding& g : r.findings) EXPECT_NE(g.outcome, Outcome::Violation) << g.message;
  EXPECT_NE(f->message.find("Triton's scratch: 2048 B, 1 round; store 16-bit vectors, 32 wavefronts = ideal"), std::string::npos) << f->message;
}

// The same convert on sm80, where ldmatrix may read the scratch. Pairs tried (a row is 16 bytes, 8
// halves; `total` = 3 bits): st.shared / ld.shared needs 3 registers both hold (none);
// st.shared / ldmatrix 1 (none); st.shared / ldmatrix.trans none from registers, its row bits are the
// destination's lanes 2, 3, 4 (32, 64, 128), which must be source registers: they are (32, 64, 128),
// so the vector is [32, 64, 128]. Rows of a phase: the source's lanes 0-2 (256, 512, 1); the
// destination's first register outside the vector and its lanes 0, 1 (1, 8, 16). Segment (4 bits):
// free 2, 4, then the store-only 256, 512 XOR the load-only 8, 16: [2, 4, 264, 528]; bank: the
// non-pivots 1, 256, 512. No register of both: 2048 B again. Each source thread stores its 8
// halves as one 128-bit vector. Triton's PTX: st.shared.v4.b32 and ldmatrix.x4.trans (case 0 of
// convert_cases.json, 2048 B).
TEST(ConvertScratch, OnSm80TheLoadIsLdmatrixTrans) {
  const auto r = check(convert_module(kRowsSrc, kColsDst, 32, 32, "f16", 4));
  const Finding* f = convert_finding(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->detail["scratch_bases"]["vector"], Json::array({32, 64, 128}));
  EXPECT_EQ(f->detail["scratch_bases"]["segment"], Json::array({2, 4, 264, 528}));
  EXPECT_EQ(f->detail["scratch_bases"]["bank"], Json::array({1, 256, 512}));
  EXPECT_EQ(f->detail["scratch_bytes"], 2048);
  EXPECT_EQ(f->detail["store"]["instruction"], "st.shared");
  EXPECT_EQ(f->detail["store"]["bits"], 128);
  EXPECT_EQ(f->detail["load"]["instruction"], "ldmatrix.trans");
  for (const Finding& g : r.findings) EXPECT_NE(g.outcome, Outcome::Violation) << g.message;
}

// Check (a): the convert is the only shared-memory use of these fixtures, so Triton's
// metadata.shared is its scratch.
TEST(ConvertScratch, FixturesScratchIsTritonsAllocation) {
  for (const std::string name : {"transpose_64_w4.sm80", "transpose_64_w4.sm90", "row_sum_broadcast_64_w4.sm80", "row_sum_broadcast_64_w4.sm90"}) {
    const int64_t shared = Json::parse(text_of(name + ".json"))["shared"].get<int64_t>();
    const auto r = check(text_of(name + ".ttgir"));
    const Finding* f = convert_finding(r);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->detail["class"], "shared") << name;
    EXPECT_EQ(f->detail["scratch_bytes"], shared) << name << ": " << f->message;
  }
}

// Check (c), recorded: Triton's allocation for seeded random converts between blocked layouts
// (fixtures/convert_cases.py compiles them; the convert is each kernel's only shared-memory use):
// the bytes, and the instructions the PTX moves the scratch with: the widest st.shared / ld.shared
// against the modelled store and load vectors, an ldmatrix (.trans) against the modelled load. A
// convert within a warp that Triton still moved through shared memory: the bytes it would take.
// Each random case is compiled for sm80 and sm90 (where stmatrix joins).
TEST(ConvertScratch, MatchesTritonsAllocation) {
  const Json data = Json::parse(text_of("convert_cases.json"));
  ASSERT_EQ(data["cases"].size(), 79u);
  int across = 0, within_through_smem = 0, matrix_sides = 0;
  for (const Json& c : data["cases"]) {
    const std::string what = c["src"].get<std::string>() + " -> " + c["dst"].get<std::string>() + " " + c["shape"].dump() + " " + c["elem"].get<std::string>() + " " +
                             c["target"].get<std::string>();
    const auto r = check(convert_module(c["src"], c["dst"], c["shape"][0], c["shape"][1], c["elem"], c["warps"], c["target"]));
    const Finding* f = convert_finding(r);
    ASSERT_NE(f, nullptr) << what;
    const int64_t shared = c["shared"].get<int64_t>();
    if (f->detail["class"] != "shared") {  // within a warp: Triton's pick of shuffles or its scratch is not modelled
      if (shared == 0) continue;
      ++within_through_smem;
      EXPECT_EQ(f->detail["scratch_bytes_if_shared"], shared) << what << ": " << f->message;
      continue;
    }
    ++across;
    EXPECT_EQ(f->detail["scratch_bytes"], shared) << what << ": " << f->message;
    for (const char* side : {"store", "load"}) {
      const std::string kind = std::string(side) == "store" ? "stmatrix" : "ldmatrix";
      std::string matrix;
      for (const Json& x : c["ptx_matrix"])
        if (x.get<std::string>().starts_with(kind)) matrix = x;
      if (matrix.empty()) {
        EXPECT_EQ(f->detail[side]["bits"], widest(c[std::string("ptx_") + side])) << side << " " << what << ": " << f->message;
        continue;
      }
      ++matrix_sides;
      EXPECT_EQ(f->detail[side]["instruction"], kind + (matrix.find(".trans") != std::string::npos ? ".trans" : "")) << side << " " << what;
    }
  }
  EXPECT_EQ(across, 33);               // the hand case, then 16 pairs on both targets
  EXPECT_EQ(within_through_smem, 34);  // of the 46 within a warp: Triton moved the other 12 by shuffles
  EXPECT_EQ(matrix_sides, 8);          // ldmatrix (.trans) loads and stmatrix (.trans) stores in the PTX
}

// A planted scratch: the hand case above with Triton's XOR-ed segment bits replaced by plain ones
// (vector [8], bank [16, 32, 64, 256, 512], segment [1, 2, 4, 128]: no swizzle).
// Store: the source's lanes 256, 512 are bank bits 3, 4, but lanes 1, 2, 4 are segment bits: their
//   eight words share one bank. 32 words over 4 banks, 8 each: 8 wavefronts for an ideal of 1;
//   8 accesses x 4 warps: 256 for 32, an 8-way conflict.
// Load: lane 8 is the same word, 16, 32, 64 bank bits 0-2, 128 a segment bit: 16 words over 8 banks,
//   2 each: 2 wavefronts for 1; 64 for 32, 2-way.
TEST(ConvertScratch, APlantedUnswizzledScratchConflicts) {
  kernel::LayoutProgram p = triton::lower(triton::read_ttgir(convert_module(kRowsSrc, kColsDst, 32, 32, "f16", 4, "cuda:70")));
  ASSERT_EQ(p.moves.size(), 1u);
  kernel::ConvertScratch planted;
  planted.vector = {8}, planted.bank = {16, 32, 64, 256, 512}, planted.segment = {1, 2, 4, 128}, planted.bits = 16, planted.bytes = 2048;
  p.moves[0].scratch = planted;
  const auto r = kernel::check_layout_program(p);
  const Finding* f = convert_finding(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->detail["store"]["wavefronts"], 256);
  EXPECT_EQ(f->detail["load"]["wavefronts"], 64);
  std::vector<const Finding*> bad;
  for (const Finding& g : r.findings)
    if (g.outcome == Outcome::Violation) bad.push_back(&g);
  ASSERT_EQ(bad.size(), 2u);
  for (const Finding* g : bad) EXPECT_EQ(g->rule->id, "kernel-bank-conflict");
  EXPECT_EQ(bad[0]->detail["side"], "store");
  EXPECT_EQ(bad[0]->detail["degree"], 8);
  EXPECT_EQ(bad[0]->detail["ideal"], 32);
  EXPECT_EQ(bad[1]->detail["side"], "load");
  EXPECT_EQ(bad[1]->detail["degree"], 2);
  EXPECT_NE(bad[0]->message.find("convert scratch store: 8-way conflict: 256 wavefronts for an ideal of 32 (16-bit accesses)"), std::string::npos) << bad[0]->message;
  // Bases that do not span the tile: undecided, never a guess.
  planted.segment = {1, 2, 4, 8};
  p.moves[0].scratch = planted;
  const auto u = kernel::check_layout_program(p);
  ASSERT_NE(convert_finding(u), nullptr);
  EXPECT_EQ(convert_finding(u)->outcome, Outcome::Undecided);
}
