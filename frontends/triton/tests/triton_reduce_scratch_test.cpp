// The scratch Triton 3.9 takes for a tt.reduce across warps (spec/TRITON.md §3.5.1): the footprint
// against Triton's own allocation for seeded random reductions (reduce_cases.json, compiled by
// fixtures/reduce_cases.py; CI needs no Triton), and cases derived by hand.
#include <gtest/gtest.h>

#include "file_text.hpp"

#include <fstream>
#include <sstream>

#include "tfspec/frontends/triton/lower.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace reduce_scratch_test {

const std::string kDir = std::string(TFSPEC_SOURCE_DIR) + "/frontends/triton/tests/fixtures/";

std::string text_of(const std::string& name) {
  const std::string text = tfspec::testing::file_text(kDir + name);
  return text;
}

kernel::KernelReport check_reduce(const std::string& ttgir, std::optional<int64_t> shared = std::nullopt) {
  return kernel::check_layout_program(triton::lower(triton::read_ttgir(ttgir), shared));
}

const Finding* first(const kernel::KernelReport& r, const std::string& check) {
  for (const Finding& f : r.findings)
    if (f.check == check) return &f;
  return nullptr;
}

// A module whose only op is one tt.reduce of `operands` (element types) of `shape` in `layout`,
// printed as Triton prints it (generic form, types on the line closing the region).
std::string reduce_module(const std::string& layout, const std::string& shape, int axis, const std::vector<std::string>& operands, int64_t warps) {
  std::string args, ins, bb, types;
  for (size_t i = 0; i < operands.size(); ++i) {
    const std::string sep = i ? ", " : "";
    args += sep + "%x" + std::to_string(i) + ": tensor<" + shape + "x" + operands[i] + ", #l>";
    ins += sep + "%x" + std::to_string(i);
    types += sep + "tensor<" + shape + "x" + operands[i] + ", #l>";
    bb += sep + "%a" + std::to_string(i) + ": " + operands[i] + ", %b" + std::to_string(i) + ": " + operands[i];
  }
  return "#l = " + layout + "\nmodule attributes {\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = " + std::to_string(warps) +
         " : i32, ttg.target = \"cuda:80\", \"ttg.threads-per-warp\" = 32 : i32} {\n  tt.func public @k(" + args + ") {\n    %r = \"tt.reduce\"(" +
         ins + ") <{axis = " + std::to_string(axis) + " : i32}> ({\n    ^bb0(" + bb + "):\n      tt.reduce.return %a0 : " + operands[0] + "\n    }) : (" +
         types + ") -> tensor<1xf32> loc(\"k.py\":7:9)\n    tt.return\n  }\n}\n";
}

}  // namespace reduce_scratch_test

using reduce_scratch_test::check_reduce;
using reduce_scratch_test::first;
using reduce_scratch_test::reduce_module;

// Softmax's row max: 1024 fp32 in blocked<[4], [32], [4]>, 4 warps. The layout's bases along dim0:
// registers 1, 2 then the repeat 512; lanes 4 .. 64; warps 128, 256. Each thread folds its three
// register bits, each warp its five lane bits (shuffles), leaving one partial result a warp: the two
// warp bits, renumbered 1, 2 (a tile of 4 elements). One round moves them into the two first of the
// five lanes that now hold nothing: a convert of that 4-element tile, no register both sides hold
// (no repeated round), so the scratch is the whole tile: 4 x 4 B = 16 B.
TEST(ReduceScratch, SoftmaxRowMaxDerivedByHand) {
  const auto r = check_reduce(reduce_module("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", "1024", 0, {"f32"}, 4));
  const Finding* f = first(r, "reduce");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->outcome, Outcome::Ok) << f->message;
  EXPECT_EQ(f->detail["warps_on_axis"], 4);
  EXPECT_EQ(f->detail["scratch_bytes"], 16) << f->message;
  EXPECT_EQ(f->detail["round_bytes"], Json::array({16}));
  EXPECT_EQ(f->loc, "k.py:7:9");  // the location the closing line gives
  EXPECT_NE(f->message.find("§3.5.1"), std::string::npos) << f->message;
  EXPECT_EQ(first(r, "footprint")->detail["bytes"], 16);
}

// Two operands (an argmax's value and index): each operand's scratch side by side, 4 x (2 + 4) B.
TEST(ReduceScratch, OperandsScratchesAddUp) {
  const auto r = check_reduce(reduce_module("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", "1024", 0, {"f16", "i32"}, 4));
  const Finding* f = first(r, "reduce");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->detail["scratch_bytes"], 24) << f->message;
  EXPECT_EQ(first(r, "footprint")->detail["bytes"], 24);
}

// 64 x 64 fp32 in blocked<[1, 4], [2, 16], [4, 1], order [1, 0]>, 4 warps, summed along dim0 (the
// first case of reduce_cases.json; Triton allocates 1024 B). Bases as (dim0, dim1): registers
// (0,1), (0,2) then the repeats (8,0), (16,0), (32,0); lanes (0,4), (0,8), (0,16), (0,32), (1,0);
// warps (2,0), (4,0). Folding the registers along dim0 drops the three repeats; folding the lanes
// zeroes lane 4; the warps become (1,0), (2,0): a 4 x 64 tile. Only one lane is empty for the two
// warp bits, so they trade places with lanes 0 and 1: destination lanes (1,0), (2,0), (0,16),
// (0,32), 0 and warps (0,4), (0,8). The convert of the 4 x 64 tile keeps registers (0,1), (0,2) on
// both sides (a 128-bit vector) and repeats none, so the scratch is the tile: 256 x 4 B = 1024 B.
// The old rule (the whole tile with the axis cut to its warps, 4 x 64 x 4 B) agrees here.
TEST(ReduceScratch, RowsAcrossWarpsDerivedByHand) {
  const auto r = check_reduce(reduce_module("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>", "64x64", 0, {"f32"}, 4));
  const Finding* f = first(r, "reduce");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->detail["warps_on_axis"], 4);
  EXPECT_EQ(f->detail["scratch_bytes"], 1024) << f->message;
}

// Warps only across the other dim: each warp reduces its rows alone, no shared memory.
TEST(ReduceScratch, WithinWarpsTakesNone) {
  const auto r = check_reduce(reduce_module("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>", "64x64", 1, {"f32"}, 4));
  const Finding* f = first(r, "reduce");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->outcome, Outcome::Ok);
  EXPECT_EQ(f->detail["warps_on_axis"], 1);
  EXPECT_EQ(f->detail["scratch_bytes"], 0);
  EXPECT_EQ(first(r, "footprint")->detail["bytes"], 0);
}

// Liveness (§3.5): two reductions' scratches are live at their own ops only, so the footprint is
// the larger (16 B for the fp32 one, 8 B for the fp16 one), not their sum.
TEST(ReduceScratch, ScratchesLiveAtTheirOpsOnly) {
  const std::string a = reduce_module("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", "1024", 0, {"f32"}, 4);
  std::string text = a;
  const size_t at = text.find("    tt.return");
  text.insert(at, "    %s = \"tt.reduce\"(%x0) <{axis = 0 : i32}> ({\n    ^bb0(%c: f16, %d: f16):\n      tt.reduce.return %c : f16\n    }) : (tensor<1024xf16, #l>) -> f16\n");
  const auto r = check_reduce(text);
  int reduces = 0;
  for (const Finding& f : r.findings) reduces += f.check == "reduce";
  EXPECT_EQ(reduces, 2);
  EXPECT_EQ(first(r, "footprint")->detail["bytes"], 16);
  EXPECT_EQ(first(r, "footprint")->detail["reduce_scratch_bytes"], 16);
}

// Recorded: Triton's metadata.shared for the seeded random reductions of reduce_cases.json (blocked
// layouts of rank 1 to 3, nvidia_mma v2 and v3 accumulators, slices, linear layouts; one to three
// operands of fp16, bf16, fp32, i8, i32, i64; keep_dims or not). Each reduce is its kernel's only
// shared-memory use: the footprint must be Triton's allocation.
TEST(ReduceScratch, MatchesTritonsAllocation) {
  const Json data = Json::parse(reduce_scratch_test::text_of("reduce_cases.json"));
  ASSERT_GE(data["cases"].size(), 100u);
  int across = 0;
  for (const Json& c : data["cases"]) {
    const std::string what = c["kind"].get<std::string>() + " " + c["layout"].dump() + " shape " + c["shape"].dump() + " axis " + c["axis"].dump() +
                             " operands " + c["operands"].dump() + " " + c["target"].get<std::string>();
    const auto r = check_reduce(c["ttgir"].get<std::string>(), c["shared"].get<int64_t>());
    const Finding* f = first(r, "reduce");
    ASSERT_NE(f, nullptr) << what;
    EXPECT_EQ(f->outcome, Outcome::Ok) << what << ": " << f->message;
    const Finding* fp = first(r, "footprint");
    ASSERT_NE(fp, nullptr) << what;
    EXPECT_EQ(fp->detail["bytes"], c["shared"]) << what << ": " << f->message;
    across += c["shared"].get<int64_t>() > 0;
  }
  EXPECT_GE(across, 30);  // enough of them cross warps
}

// §1.3 a reduce Triton inlines from its library (tl.max, tl.sum) carries `callsite(CALLEE at
// CALLER)`: the callee is standard.py, not the kernel's file, so the finding names the kernel's line
// that calls it (softmax's `tl.max(x, axis=0)` at kernels.py line 35, its `tl.sum` at line 37).
// Triton allocates 16 B: one fp32 partial result for each of the 4 warps.
TEST(ReduceScratch, SoftmaxFixtureReducesAtTheKernelsLines) {
  const auto r = check_reduce(reduce_scratch_test::text_of("softmax_1024_w4.sm80.ttgir"), 16);
  std::vector<std::string> locs;
  for (const Finding& f : r.findings) {
    if (f.check != "reduce") continue;
    locs.push_back(f.loc);
    EXPECT_EQ(f.detail["scratch_bytes"], 16) << f.message;
  }
  EXPECT_EQ(locs, (std::vector<std::string>{"kernels.py:35:13", "kernels.py:37:15"}));
  EXPECT_EQ(first(r, "footprint")->detail["bytes"], 16);
}

// §3.5.2 a tt.scan, derived by hand: 64 x 64 fp32 in blocked<[1, 4], [2, 16], [4, 1], [1, 0]>, 4
// warps, a cumulative sum along dim0. Its registers run 4 along dim1 (bases (0,1), (0,2); the
// repeats (8,0), ... along dim0 are no run), lanes 2 along dim0 and 16 along dim1, warps 4 along
// dim0 (so the scan crosses warps). Triton keeps one element per (warp, lane off the axis, run
// position off the axis, repeat along the axis, repeat off the axis): 4 warps x 16 lanes x 4
// x 64 / (1 x 2 x 4) = 8 repeats along dim0 x 64 / (4 x 16 x 1) = 1 off it = 2048 elements x 4 B =
// 8192 B, Triton's metadata.shared for this kernel.
TEST(ReduceScratch, ScanAcrossWarpsDerivedByHand) {
  std::string text = reduce_module("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>", "64x64", 0, {"f32"}, 4);
  text.replace(text.find("\"tt.reduce\""), 11, "\"tt.scan\"");
  text.replace(text.find("tt.reduce.return"), 16, "tt.scan.return");
  const auto r = check_reduce(text);
  const Finding* f = first(r, "scan");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->outcome, Outcome::Ok) << f->message;
  EXPECT_EQ(f->detail["scratch_bytes"], 8192) << f->message;
  EXPECT_NE(f->message.find("§3.5.2"), std::string::npos) << f->message;
  EXPECT_EQ(first(r, "footprint")->detail["bytes"], 8192);
}

// Recorded: Triton's metadata.shared for the seeded random scans of scan_cases.json (blocked layouts
// of rank 1 to 3, 1 to 16 warps, one or two operands); each scan is its kernel's only shared memory.
TEST(ReduceScratch, ScanMatchesTritonsAllocation) {
  const Json data = Json::parse(reduce_scratch_test::text_of("scan_cases.json"));
  ASSERT_GE(data["cases"].size(), 100u);
  int across = 0;
  for (const Json& c : data["cases"]) {
    const std::string what = c["layout"].dump() + " shape " + c["shape"].dump() + " axis " + c["axis"].dump() + " operands " + c["operands"].dump();
    const auto r = check_reduce(c["ttgir"].get<std::string>(), c["shared"].get<int64_t>());
    const Finding* f = first(r, "scan");
    ASSERT_NE(f, nullptr) << what;
    EXPECT_EQ(f->outcome, Outcome::Ok) << what << ": " << f->message;
    EXPECT_EQ(first(r, "footprint")->detail["bytes"], c["shared"]) << what << ": " << f->message;
    across += c["shared"].get<int64_t>() > 0;
  }
  EXPECT_GE(across, 20);
}

// A bool (i1) moves as a byte: an `or` over 1024 bools in blocked<[1], [32], [4]> across 4 warps
// takes 4 x 1 B (Triton 3.9 allocates 4 B for this kernel, compiled by hand through Gluon), and
// the same scan keeps 4 warps x 1024 / (1 x 32 x 4) = 8 repeats = 32 elements, 32 B (Triton: 32).
TEST(ReduceScratch, BoolsMoveAsBytes) {
  const std::string layout = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
  const Finding* f = nullptr;
  const auto r = check_reduce(reduce_module(layout, "1024", 0, {"i1"}, 4));
  ASSERT_NE(f = first(r, "reduce"), nullptr);
  EXPECT_EQ(f->detail["scratch_bytes"], 4) << f->message;
  std::string text = reduce_module(layout, "1024", 0, {"i1"}, 4);
  text.replace(text.find("\"tt.reduce\""), 11, "\"tt.scan\"");
  const auto s = check_reduce(text);
  ASSERT_NE(f = first(s, "scan"), nullptr);
  EXPECT_EQ(f->detail["scratch_bytes"], 32) << f->message;
}

// A reduce's scratch live beside buffers (fixture matmul_colsum: A's columns summed inside the
// pipelined matmul loop). The sum reads 64 x 32 fp32 in blocked<[1, 8], [8, 4], [4, 1], [1, 0]>;
// bases as (dim0, dim1): registers (0,1), (0,2), (0,4) and the repeat (32,0); lanes (0,8), (0,16),
// (1,0), (2,0), (4,0); warps (8,0), (16,0). Folding drops the repeat and zeroes lanes 2-4; the warps
// become (1,0), (2,0): a 4 x 32 tile (flat element d0 + 4 d1). Three lanes are empty, so the warps
// take lanes 2 and 3. The round's ld/st scratch: vector (0,1), (0,2) (registers both hold, 4 fp32 =
// 128 bits); 7 tile bits, 3 bank bits, 2 segment bits: those outside both sides' vector and first
// three lanes, d0 = 2 and (0,4); (0,4) is a register of both, a repeated round. 2^(7 - 1) x 4 B =
// 256 B. On sm80 A's two buffers (2 x 64 x 32 fp16) and B's (2 x 32 x 64 fp16), 16384 B, are live
// through the loop: 16384 + 256 = 16640 B, Triton's metadata.shared; on sm90 20480 + 256 = 20736 B,
// Triton's too. The loop's async copies, their address built from the induction variable (a multiple
// of gcd(0, 32) = 32 elements, §3.4), are 128-bit, as in Triton's PTX.
TEST(ReduceScratch, LiveBesideThePipelinedBuffers) {
  for (const auto& [name, shared] : std::vector<std::pair<std::string, int64_t>>{{"matmul_colsum_64x64x32_w4_s3.sm80", 16640}, {"matmul_colsum_64x64x32_w4_s3.sm90", 20736}}) {
    const auto r = check_reduce(reduce_scratch_test::text_of(name + ".ttgir"), shared);
    const Finding* f = first(r, "reduce");
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->detail["scratch_bytes"], 256) << f->message;
    EXPECT_EQ(first(r, "footprint")->detail["bytes"], shared) << first(r, "footprint")->message;
    for (const Finding& g : r.findings) {
      if (g.check != "global" || !g.subject.starts_with("ttg.async_copy")) continue;
      EXPECT_EQ(g.detail["vector_bits"], 128) << name << ": " << g.message;
    }
  }
}
