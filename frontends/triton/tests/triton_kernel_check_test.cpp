// The TTGIR reader (spec/TRITON.md §1) and the checks of §3 on Triton's own compiled kernels (the
// fixtures) and on planted faults: each caught by the right check at the right location, with the
// numbers derived by hand in each test.
#include <gtest/gtest.h>

#include "file_text.hpp"

#include "mutate_text.hpp"
#include "release_only.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tfspec/frontends/triton/lower.hpp"
#include "tfspec/reference/error.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace {

const std::string kFixtures = std::string(TFSPEC_SOURCE_DIR) + "/frontends/triton/tests/fixtures/";

std::string fixture(const std::string& name) {
  const std::string text = tfspec::testing::file_text(kFixtures + name);
  return text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the fixture no longer holds: " << from;
  if (at == std::string::npos) return text;
  size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) text.replace(pos, from.size(), to), pos += to.size();
  return text;
}

kernel::KernelReport check(const std::string& ttgir) { return kernel::check_layout_program(triton::lower(triton::read_ttgir(ttgir))); }

std::vector<const Finding*> select(const kernel::KernelReport& r, const std::string& check, Outcome o) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.check == check && f.outcome == o) out.push_back(&f);
  return out;
}

const std::string kMatmul = "matmul_fp16_128x128x32_w4_s3.sm80.ttgir";

// A hostile probe's edits (testing/mutate_text.hpp), seeded: every fixture, edited one to three
// times, read and checked. Each outcome is a report or a SpecError whose rule is an input rule,
// never a crash, another exception or an internal error (a mutation run found three internal errors and a free() of a bad pointer; fixed).
TEST(TtgirReader, EditedDumpsAreReportsOrInputErrorsNeverCrashes) {
  tfspec::testing::expect_edits_are_reports_or_input_errors(kFixtures, ".ttgir", [](const std::string& text) { (void)check(text); });
}

}  // namespace

TEST(TtgirReader, ReadsModuleEncodingsTypesAndLocations) {
  const triton::Module m = triton::read_ttgir(fixture(kMatmul));
  EXPECT_EQ(m.num_warps, 4);
  EXPECT_EQ(m.threads_per_warp, 32);
  EXPECT_EQ(m.target, "cuda:80");
  EXPECT_EQ(m.kernel, "matmul");
  EXPECT_TRUE(m.unknown.empty()) << m.unknown.front();
  ASSERT_TRUE(m.aliases.count("mma"));
  EXPECT_EQ(m.aliases.at("mma")->get_ints("warpsPerCTA"), (std::vector<int64_t>{2, 2}));
  ASSERT_EQ(m.args.size(), 9u);
  EXPECT_EQ(m.args[0].divisibility, 16);
  EXPECT_TRUE(m.args[0].type.pointer);
  int loads = 0;
  for (const triton::Op& op : m.ops)
    if (op.name == "ttg.local_load") {
      ++loads;
      ASSERT_EQ(op.in_types.size(), 1u);
      EXPECT_EQ(op.in_types[0].kind, triton::TypeInfo::Kind::MemDesc);
      EXPECT_EQ(op.out_types.at(0).encoding->kind, "dot_op");
      // kernels.py line 20 is `a = tl.load(a_tile)`, line 21 `b = tl.load(b_tile)`: the pipeliner
      // moved the loads into shared memory, and their locations say where they came from.
      EXPECT_TRUE(op.loc.starts_with("kernels.py:20:") || op.loc.starts_with("kernels.py:21:")) << op.loc;
    }
  EXPECT_EQ(loads, 6);  // A and B: the prologue's, the loop's next-k slice and the next stage's
}

TEST(TtgirReader, UnknownOpsAndEncodingsAreListedAndBadTextRefused) {
  std::string text = fixture("softmax_1024_w4.sm80.ttgir");
  text = replaced(text, "tt.return", "ttg.frobnicate\n    tt.return");
  text = "#weird = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>\n" + text;
  const triton::Module m = triton::read_ttgir(text);
  ASSERT_EQ(m.unknown.size(), 2u);
  EXPECT_NE(m.unknown[0].find("amd_mfma"), std::string::npos) << m.unknown[0];
  EXPECT_NE(m.unknown[1].find("ttg.frobnicate (op not read)"), std::string::npos) << m.unknown[1];
  try {
    triton::read_ttgir("define void @f() {}\n");
    FAIL() << "read LLVM IR as a TTGIR";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "triton-input");
  }
}

// §2.7: a blocked layout over two CTAs of a cluster (`CTAsPerCGA = [2, 1]`, Triton's
// num_ctas = 2 on sm90) gives each CTA half of the tensor; one CTA's derivation would check a tile
// no CTA holds. Every move through such a layout is undecided naming the reason (never ok), and
// with the convert's scratch not counted and no Triton metadata, the footprint is undecided too;
// with Triton's own allocation (49152 B, the fixture's KERNEL.json) it is checked against that.
TEST(TtgirReader, AnEncodingOverSeveralCtasIsListedNotReadAsOneCtas) {
  const std::string text = replaced(fixture("matmul_fp16_128x128x32_w4_s3.sm90.ttgir"), "order = [1, 0]}>",
                                    "order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>");
  const kernel::KernelReport r = check(text);
  int spans = 0;
  for (const Finding& f : r.findings) {
    if (f.check == "footprint") {
      EXPECT_EQ(f.outcome, Outcome::Undecided) << f.message;
    }
    if (f.message.find("spans several CTAs") == std::string::npos) continue;
    ++spans;
    EXPECT_EQ(f.outcome, Outcome::Undecided) << f.message;
  }
  EXPECT_GE(spans, 2);  // the A and B copies at least
  const auto declared = kernel::check_layout_program(triton::lower(triton::read_ttgir(text), 49152));
  for (const Finding& f : declared.findings) {
    if (f.check == "footprint") {
      EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
    }
  }
}

// §2.7: an attribute of a derived kind that §2 does not read (here `repOrder`, as a later Triton
// might add, or a hand edit) may change the layout: the encoding is listed, its moves undecided
// naming the attribute, never derived as if it were absent.
TEST(TtgirReader, AnAttributeTfspecDoesNotReadLeavesTheEncodingUnderived) {
  const std::string text = replaced(fixture("softmax_1024_w4.sm80.ttgir"), "order = [0]}>", "order = [0], repOrder = [0]}>");
  int named = 0;
  for (const Finding& f : check(text).findings) {
    EXPECT_NE(f.outcome, Outcome::Ok) << f.check << ": " << f.message;  // nothing is read from that layout
    named += f.message.find("`repOrder` is not one §2 reads") != std::string::npos;
  }
  EXPECT_GE(named, 1);
}

// §3.5: an op the reader does not read that Triton may give shared scratch (tt.histogram here;
// tt.gather, the atomics) leaves the footprint a lower bound: undecided without Triton's metadata,
// checked against Triton's own allocation with it (softmax allocates 16 B: its two reductions').
TEST(TtgirReader, AnUnreadOpThatMayTakeScratchLeavesTheFootprintUndecided) {
  const std::string text = replaced(fixture("softmax_1024_w4.sm80.ttgir"), "    %x_6 = \"tt.reduce\"",
                                    "    %h = tt.histogram %x_5 : tensor<1024xf32, #blocked> -> tensor<16xi32, #blocked> loc(#loc30)\n    %x_6 = \"tt.reduce\"");
  int footprints = 0;
  for (const Finding& f : check(text).findings) {
    if (f.check != "footprint") continue;
    ++footprints;
    EXPECT_EQ(f.outcome, Outcome::Undecided) << f.message;
    EXPECT_NE(f.message.find("tt.histogram"), std::string::npos) << f.message;
  }
  EXPECT_EQ(footprints, 1);
  for (const Finding& f : kernel::check_layout_program(triton::lower(triton::read_ttgir(text), 16)).findings) {
    if (f.check == "footprint") {
      EXPECT_EQ(f.outcome, Outcome::Ok) << f.message;
    }
  }
}

// A number past int64 in a kernel argument's divisibility, or a line cut short: an input error
// naming the line (each was an internal error: std::stoll, string_view::substr).
TEST(TtgirReader, ALineThatDoesNotReadIsNamed) {
  const std::string text = fixture("softmax_1024_w4.sm80.ttgir");
  const std::string big = replaced(text, "%out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}", "%out_ptr: !tt.ptr<f32> {tt.divisibility = 99999999999999999999 : i32}");
  ASSERT_NE(big, text);
  try {
    triton::read_ttgir(big);
    FAIL() << "read a divisibility past int64";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "triton-input");
    EXPECT_NE(std::string(e.what()).find("line 16"), std::string::npos) << e.what();
  }
}

// Every fixture Triton compiled: its own choices are conflict-free, coalesced and fit, each dot's
// operands agree; the checks take well under a second. One exception, derived: the fp32 (tf32)
// matmul on sm90. wgmma reads tf32 operands K-major only, so Triton stores the N-contiguous B
// (32 x 128) into a transposed nvmma_shared (K contiguous, 128-byte swizzle: rows of 32 k per n,
// 16-byte groups XORed by n % 8) from a blocked layout where lane t holds n = 4t .. 4t+3 of one k.
// Access j writes n = 4t + j: n % 8 is j or j + 4, two groups, so the 32 lanes' words fall in two
// banks: 16 per bank, 16-way (the async copy of B at kernels.py line 21, prologue and loop).
// The same transposition bounds the global side: a cp.async writes one vector to consecutive
// shared addresses, and the destination keeps only one f32 of a thread's n run together (n is the
// strided dim there), so each copy is 32-bit: access j reads n = 4t + j of one k row, 32 words 16
// bytes apart over 512 bytes: 16 sectors for 128 bytes (4 ideal); a warp's 8 rows x 4 accesses:
// 512 sectors for 128.
// And one more, derived: matmul_colsum (A's columns summed inside the matmul's loop) on sm80. A's
// pipelined buffer is read twice, by the mma operand's ldmatrix and by a blocked local_load for the
// sum, and Triton 3.9 gives it no swizzle (`swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1}>`):
// 64 x 32 halves, 64-byte rows, so an ldmatrix phase's rows r = 0..7 at byte 64 r + 16 c sit in slot
// (4 r + c) % 8: rows 0, 2, 4, 6 share one: 4-way, min(8, 64 / 16), at each A operand load (kernels.py
// line 110, prologue and loop). On sm90 wgmma reads its operands by descriptor and the kernel passes.
TEST(TritonKernels, TritonsOwnChoicesPassEveryCheckButTheTransposedTf32Operand) {
  int kernels = 0;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures)) {
    if (e.path().extension() != ".ttgir") continue;
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    const kernel::KernelReport r = check(fixture(name));
    for (const Finding& f : r.findings) {
      if (name == "matmul_fp32_64x128x32_w4_s3.sm90.ttgir" && f.outcome == Outcome::Violation) {
        EXPECT_TRUE(f.loc.starts_with("kernels.py:21:")) << f.loc;
        if (f.check == "global") {
          EXPECT_EQ(f.detail["vector_bits"], 32) << f.message;
          EXPECT_EQ(f.detail["shared_destination_bits"], 32) << f.message;
          EXPECT_EQ(f.detail["sectors"], 512) << f.message;
          EXPECT_EQ(f.detail["ideal_sectors"], 128) << f.message;
        } else {
          EXPECT_EQ(f.check, "banks");
          EXPECT_EQ(f.detail["degree"], 16) << f.message;
        }
        continue;
      }
      if (name == "matmul_colsum_64x64x32_w4_s3.sm80.ttgir" && f.outcome == Outcome::Violation) {
        EXPECT_EQ(f.check, "banks");
        EXPECT_EQ(f.loc, "kernels.py:110:13");
        EXPECT_EQ(f.detail["degree"], 4) << f.message;
        continue;
      }
      EXPECT_NE(f.outcome, Outcome::Violation) << f.check << " " << f.subject << " at " << f.loc << ": " << f.message;
    }
    EXPECT_LT(r.seconds, 1.0);
    ++kernels;
  }
  EXPECT_EQ(kernels, 28);  // kernels.py's 13 and the fused-attention tutorial's forward kernel, each for sm80 and sm90
}

// Planted: both buffers without their swizzle (maxPhase = 1). The local_loads into the mma
// operands are ldmatrix reads (§3.1): one phase per 8x8 matrix of halves, eight 16-byte rows, each
// 16-byte slot (four banks) serving one row a wavefront. Each load reads a 16-wide k slice; a warp
// holds half the operand (the mma's other two warps hold the same): 1024 halves, 16 matrices of 64,
// 4 warps: 64 matrices, ideal 64 wavefronts.
// A (128 x 32, k contiguous, 64-byte rows): a matrix is rows m..m+7 at one 16-byte k chunk c, row
// r at byte 64 r + 16 c, slot (4 r + c) % 8: rows 0, 2, 4, 6 share one slot, 1, 3, 5, 7 another:
// 4 wavefronts a matrix, 256 for 64, 4-way (kernels.py line 20). B (32 x 128, n contiguous,
// 256-byte rows, read transposed): a matrix is k rows k..k+7 at one n chunk c, slot (16 k + c) % 8
// = c for all eight: 8 wavefronts a matrix, 512 for 64, 8-way (line 21).
TEST(TritonKernels, PlantedUnswizzledLdmatrixOperandConflicts) {
  const std::string text = replaced(fixture(kMatmul), "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
                                    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>");
  const std::string text_b = replaced(text, "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
                                      "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>");
  const auto report = check(text_b);
  int loads_a = 0, loads_b = 0;
  for (const Finding* f : select(report, "banks", Outcome::Violation)) {
    EXPECT_EQ(f->rule->id, "kernel-bank-conflict");
    if (!f->subject.starts_with("ttg.local_load")) continue;
    EXPECT_EQ(f->detail["model"], "ldmatrix") << f->message;
    EXPECT_EQ(f->detail["ideal"], 64) << f->message;
    if (f->loc.starts_with("kernels.py:20:")) {
      ++loads_a;
      EXPECT_EQ(f->detail["degree"], 4) << f->message;
      EXPECT_EQ(f->detail["wavefronts"], 256) << f->message;
    } else if (f->loc.starts_with("kernels.py:21:")) {
      ++loads_b;
      EXPECT_EQ(f->detail["degree"], 8) << f->message;
      EXPECT_EQ(f->detail["wavefronts"], 512) << f->message;
    }
  }
  EXPECT_EQ(loads_a, 3);  // the prologue's, the loop's next-k slice and the next stage's
  EXPECT_EQ(loads_b, 3);
  // Triton's own swizzles: A's phase (r / 2) % 4 XORs the chunk, so rows 0..7 take slots
  // 4 (r % 2) + (c ^ (r / 2) % 4), eight distinct; B's phase k % 8 gives slots c ^ k: no conflict.
  const auto original = check(fixture(kMatmul));
  for (const Finding* f : select(original, "banks", Outcome::Ok))
    if (f->subject.starts_with("ttg.local_load")) {
      EXPECT_EQ(f->detail["wavefronts"], f->detail["ideal"]);
    }
}

// Subslice origins (§3.1): the loop reads A's second k half at [0, 16] and B's at [16, 0] (the IR
// lines 100 and 102); the accesses are placed there in the allocation. Planted: A's slice at
// [0, 4] (8 bytes in): each matrix row's eight halves span bytes 8..23 of a 16-byte aligned pair,
// two 16-byte rows, so ldmatrix cannot read it (the model says so and falls back to the generic one).
TEST(TritonKernels, SubsliceOriginsPlaceTheAccesses) {
  const triton::Module m = triton::read_ttgir(fixture(kMatmul));
  std::vector<std::vector<int64_t>> offsets;
  for (const triton::Op& op : m.ops)
    if (op.name == "ttg.memdesc_subslice") offsets.push_back(op.offsets);
  ASSERT_EQ(offsets.size(), 6u);
  EXPECT_EQ(offsets[2], (std::vector<int64_t>{0, 16}));
  EXPECT_EQ(offsets[3], (std::vector<int64_t>{16, 0}));
  const kernel::LayoutProgram p = triton::lower(m);
  std::vector<std::vector<int64_t>> origins;
  for (const kernel::Move& mv : p.moves)
    if (mv.kind == kernel::MoveKind::SharedLoad) origins.push_back(mv.smem_origin);
  ASSERT_EQ(origins.size(), 6u);
  EXPECT_EQ(origins[2], (std::vector<int64_t>{0, 16}));
  EXPECT_EQ(origins[3], (std::vector<int64_t>{16, 0}));
  const auto shifted = check(replaced(fixture(kMatmul), "%a_72[0, 16]", "%a_72[0, 4]"));
  int refused = 0;
  for (const Finding& f : shifted.findings)
    if (f.check == "width" && f.subject.starts_with("ttg.local_load %a_85")) {
      ++refused;
      EXPECT_NE(f.message.find("not ldmatrix"), std::string::npos) << f.message;
    }
  EXPECT_EQ(refused, 1);
}

// wgmma's shared-memory operands (§3.3) on Triton's own sm90 kernels. fp16 matmul: A is 128 x 32
// halves, k contiguous: 64-byte rows, Triton declares swizzlingByteWidth = 64, a K-major 64-byte
// atom; B is 32 x 128, n contiguous (transposed = false), 256-byte rows: MN-major 128-byte atoms.
// fp32 (tf32): A 64 x 32 floats, 128-byte k rows; B transposed (k contiguous): both K-major 128.
TEST(TritonKernels, WgmmaSharedOperandsTileTheDescriptorsAtoms) {
  const auto expect = [](const std::string& name, const char* a_major, int a_bytes, const char* b_major, int b_bytes) {
    SCOPED_TRACE(name);
    const auto report = check(fixture(name));
    const auto ok = select(report, "dot", Outcome::Ok);
    ASSERT_EQ(ok.size(), 2u);
    EXPECT_EQ(ok[0]->detail["operand"], "A");
    EXPECT_EQ(ok[0]->detail["major"], a_major);
    EXPECT_EQ(ok[0]->detail["atom_bytes"], a_bytes);
    EXPECT_EQ(ok[1]->detail["major"], b_major);
    EXPECT_EQ(ok[1]->detail["atom_bytes"], b_bytes);
  };
  expect("matmul_fp16_128x128x32_w4_s3.sm90.ttgir", "K", 64, "MN", 128);
  expect("matmul_fp32_64x128x32_w4_s3.sm90.ttgir", "K", 128, "K", 128);
}

// Planted on sm90: tf32 B with transposed = false is n-contiguous, an MN-major layout, which wgmma
// does not read for 32-bit types; A's nvmma_shared (64-byte swizzle) replaced by a swizzled_shared
// with vec 8, perPhase 2, maxPhase 4 is the same function (row r's 16-byte chunks XORed by
// (r / 2) % 4, as the 64-byte swizzle XORs byte bits 7, 8 into 4, 5): it still tiles the atom; with
// maxPhase 1 the 64-byte rows are not a canonical layout (no descriptor expresses it): undecided.
TEST(TritonKernels, PlantedWgmmaOperandFaults) {
  const auto mn = check(replaced(fixture("matmul_fp32_64x128x32_w4_s3.sm90.ttgir"), "transposed = true, elementBitWidth = 32", "transposed = false, elementBitWidth = 32"));
  const auto bad = select(mn, "dot", Outcome::Violation);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->rule->id, "kernel-dot-operands");
  EXPECT_EQ(bad[0]->detail["operand"], "B");
  EXPECT_EQ(bad[0]->detail["major"], "MN");
  EXPECT_TRUE(bad[0]->loc.starts_with("kernels.py:22:")) << bad[0]->loc;
  const std::string a64 = "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>";
  const std::string fp16 = fixture("matmul_fp16_128x128x32_w4_s3.sm90.ttgir");
  const auto same = check(replaced(fp16, a64, "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>"));
  const auto ok = select(same, "dot", Outcome::Ok);
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[0]->detail["atom_bytes"], 64);
  const auto plain = check(replaced(fp16, a64, "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>"));
  const auto undecided = select(plain, "dot", Outcome::Undecided);
  ASSERT_EQ(undecided.size(), 1u);
  EXPECT_EQ(undecided[0]->rule->id, "kernel-gmma-layout");
  EXPECT_EQ(undecided[0]->detail["operand"], "A");
}

// Planted: A's loads (128 x 32 halves, row-major: dim 1 contiguous) with sizePerThread [8, 1],
// order [0, 1]: registers walk rows 1, 2, 4, lanes rows 8, 16, 32 then columns 1, 2, warps rows 64
// (and 128: broadcast); the 32 columns repeat in registers (4, 8, 16): 64 values a thread, none
// next to another along dim 1, so each access is one 2-byte element. One access of warp 0: 8 rows
// x columns 0-3 (one 32-byte block) = 8 sectors for 64 bytes (ideal 2); 64 accesses: 512 sectors
// for 128. Reversing `order` alone ([1, 8], order [0, 1]) keeps 8 contiguous halves a thread
// (128-bit) and the sectors at the ideal: no finding.
TEST(TritonKernels, PlantedStridedBlockedLoadIsCaughtAndOrderAloneIsNot) {
  const std::string orig = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
  const auto strided = check(replaced(fixture(kMatmul), orig, "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]}>"));
  const auto bad = select(strided, "global", Outcome::Violation);
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(bad[0]->rule->id, "kernel-global-access");
  EXPECT_TRUE(bad[0]->loc.starts_with("kernels.py:20:")) << bad[0]->loc;
  EXPECT_EQ(bad[0]->detail["vector_bits"], 16);
  EXPECT_EQ(bad[0]->detail["ideal_vector_bits"], 128);
  EXPECT_EQ(bad[0]->detail["sectors"].get<int64_t>(), 64 * 8);
  EXPECT_EQ(bad[0]->detail["ideal_sectors"].get<int64_t>(), 64 * 2);
  EXPECT_EQ(bad[0]->detail["warps"], 4);  // every warp is checked: warps 1-3 read rows 64 and 0, 64 (the same sectors' shapes)
  const auto reordered = check(replaced(fixture(kMatmul), orig, "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]}>"));
  EXPECT_TRUE(select(reordered, "global", Outcome::Violation).empty());
  for (const Finding* f : select(reordered, "global", Outcome::Ok))
    if (f->loc.starts_with("kernels.py:20:")) {
      EXPECT_EQ(f->detail["sectors"], f->detail["ideal_sectors"]);
    }
}

// Planted: A's operand with kWidth 4 against B's 2. A's registers step k by 1, 2 and its lanes by
// 4, 8; B's registers by 1, 8 and lanes by 2, 4: lane 1 holds A's k = 4 but B's k = 2.
TEST(TritonKernels, PlantedKWidthDisagreementIsCaughtAtTheDot) {
  const std::string text = replaced(fixture(kMatmul), "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>");
  const auto report = check(text);
  const auto bad = select(report, "dot", Outcome::Violation);
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(bad[0]->rule->id, "kernel-dot-operands");
  EXPECT_TRUE(bad[0]->loc.starts_with("kernels.py:22:")) << bad[0]->loc;
  EXPECT_EQ(bad[0]->detail["a_lane_k"], Json::array({4, 8}));
  EXPECT_EQ(bad[0]->detail["b_lane_k"], Json::array({2, 4}));
  const auto original = check(fixture(kMatmul));
  EXPECT_EQ(select(original, "dot", Outcome::Violation).size(), 0u);
  EXPECT_EQ(select(original, "dot", Outcome::Ok).size(), 2u);
}

// A convert_layout through shared memory (the transpose kernel: rows loaded, columns stored): the
// 64 x 64 halves cross warps, so the scratch is the tile, 8192 B, which is what Triton allocated.
TEST(TritonKernels, TransposeConvertGoesThroughSharedMemory) {
  const auto r = kernel::check_layout_program(triton::lower(triton::read_ttgir(fixture("transpose_64_w4.sm80.ttgir")), 8192));
  const auto ok = select(r, "convert", Outcome::Ok);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0]->detail["class"], "shared");
  EXPECT_EQ(ok[0]->detail["scratch_bytes"], 64 * 64 * 2);
  const auto fp = select(r, "footprint", Outcome::Ok);
  ASSERT_EQ(fp.size(), 1u);
  EXPECT_EQ(fp[0]->detail["bytes"], 8192);
  EXPECT_EQ(fp[0]->detail["declared_bytes"], 8192);
}

// The fused-attention tutorial's own forward kernel (_attn_fwd_tma) on sm90, read from its TTGIR:
// the allocations are Q 128 x 64 halves (16384 B), K and V 3 x 64 x 64 halves (24576 B each), the
// epilogue's 128 x 64 output staging (16384 B) and i64 barriers (1 + 3 + 3: 56 B): 81976 B. Triton
// allocated 65592 B = 81976 - 16384, the staging reusing the dead K/V ring's space (its allocator
// works by liveness, tfspec sums). wgmma's operands: Q and K^T have the head dim contiguous, 64
// halves = 128 bytes: K-major 128-byte atoms; V (keys x head dim, head dim contiguous) is MN-major.
TEST(TritonKernels, FusedAttentionTutorialOnSm90) {
  const auto r = kernel::check_layout_program(triton::lower(triton::read_ttgir(fixture("tutorial_attn_fwd_128x64_d64_w4_s3.sm90.ttgir")), 65592));
  const auto fp = select(r, "footprint", Outcome::Ok);
  ASSERT_EQ(fp.size(), 1u);
  EXPECT_EQ(fp[0]->detail["allocations_bytes"], 16384 + 2 * 24576 + 16384 + 56);
  EXPECT_EQ(fp[0]->detail["declared_bytes"], 81976 - 16384);
  // §3.5 by liveness: the staging (line 190) comes after the loop, when the K/V ring is dead, and
  // Q's barrier (line 70) is dead after its wait and invalidation (line 75) before K's and V's
  // barriers are made: at most Q + K + V + 6 barriers = 16384 + 49152 + 48 live at once, 8 B under
  // Triton's 65592 (its allocator left Q's barrier's 8 B unused: a peak is a lower bound of a
  // placement at fixed offsets).
  EXPECT_EQ(fp[0]->detail["bytes"], 16384 + 2 * 24576 + 48);
  const auto all = select(r, "dot", Outcome::Ok);
  ASSERT_EQ(all.size(), 4u);  // the second dot's A is in registers (§3.3.2): P, kWidth 2
  std::vector<const Finding*> dots;
  for (const Finding* f : all)
    if (f->detail.contains("major")) dots.push_back(f);
    else EXPECT_EQ(f->detail["a_lane_k"], Json::array({2, 4}));
  ASSERT_EQ(dots.size(), 3u);
  EXPECT_EQ(dots[0]->detail["major"], "K");
  EXPECT_EQ(dots[1]->detail["major"], "K");
  EXPECT_EQ(dots[2]->detail["operand"], "B");
  EXPECT_EQ(dots[2]->detail["major"], "MN");
  for (const Finding* f : dots) EXPECT_EQ(f->detail["atom_bytes"], 128);
  EXPECT_TRUE(dots[2]->loc.starts_with("06-fused-attention.py:135:")) << dots[2]->loc;  // acc = tl.dot(p, v, acc)
}

TEST(TritonKernels, FootprintOverTheLimitIsAViolation) {
  kernel::KernelOptions o;
  o.smem_limit = 16 * 1024;  // the matmul's two 2-stage buffers: 2 (128 x 32 + 32 x 128) x 2 B = 32768 B
  const auto r = kernel::check_layout_program(triton::lower(triton::read_ttgir(fixture(kMatmul)), 32768), o);
  const auto bad = select(r, "footprint", Outcome::Violation);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->rule->id, "kernel-smem-footprint");
  EXPECT_EQ(bad[0]->detail["allocations_bytes"], 32768);
}

// An async copy's global read is no wider than what its shared destination keeps together (§3.4):
// A's buffer planted as `vec = 4, perPhase = 2, maxPhase = 4`. Row r's 4-element groups g land at
// (g ^ (r / 2) % 4) * 4: each group stays contiguous and 4-aligned, but on row 2 elements 0..7 sit
// at 4..7, 0..3, so no 8-element run does. A thread's 8 halves along k take two 64-bit cp.async
// (not the 128-bit the global side alone allows). With its blocked layout unchanged (8 halves a
// thread, 4 threads a 64-byte row) each such copy reads halves 0-3 of every 8: bytes 0-7, 16-23,
// 32-39, 48-55 of a row, both 32-byte sectors for 32 bytes (one ideal): twice the sectors, a
// `kernel-global-access` violation at 64 bits, the destination's width. (Triton itself pairs an
// 8-byte swizzle vector with 8 bytes a thread, e.g. 8-bit B on sm80: 64-bit copies, ideal sectors.)
TEST(TritonKernels, AnAsyncCopyIsNoWiderThanItsSharedDestinationKeepsTogether) {
  const std::string text = replaced(fixture(kMatmul), "#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
                                    "#shared = #ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>");
  const auto r = check(text);
  int seen = 0;
  for (const Finding* f : select(r, "global", Outcome::Violation)) {
    EXPECT_TRUE(f->loc.starts_with("kernels.py:20:")) << f->loc;
    EXPECT_EQ(f->rule->id, "kernel-global-access");
    EXPECT_EQ(f->detail["vector_bits"], 64) << f->message;
    EXPECT_EQ(f->detail["ideal_vector_bits"], 64) << f->message;
    EXPECT_EQ(f->detail["shared_destination_bits"], 64) << f->message;
    EXPECT_EQ(f->detail["sectors"].get<int64_t>(), 2 * f->detail["ideal_sectors"].get<int64_t>()) << f->message;
    ++seen;
  }
  EXPECT_EQ(seen, 3);  // A's three async copies: two in the prologue, one in the loop
  // B's buffer (vec = 8) still allows its 128-bit reads
  for (const Finding* f : select(r, "global", Outcome::Ok))
    if (f->loc.starts_with("kernels.py:21:") && f->subject.find("async_copy") != std::string::npos) {
      EXPECT_EQ(f->detail["vector_bits"], 128) << f->message;
    }
}

// §3.4.1 a mask caps the vector at its constancy along the contiguous dim. The ragged kernel of
// sweep_kernels.py (8 x 64 fp16, blocked<[1, 4], [2, 16], [4, 1], [1, 0]>, 4 warps) loads and
// stores with `(cols < n_cols) & (rows >= 0)`. The address allows 4 halves a thread (contiguity 64,
// the 16-byte divisible pointer and stride: 8 halves; the thread's 4): 64-bit. Along dim 1 the
// mask `cols < n_cols` changes value only at a multiple of gcd(64 (the range's run), 2^30 (its
// start 0), div(n_cols)); `rows >= 0` is a broadcast 8 x 1, constant along dim 1.
// - n_cols divisible by 16: constancy 16, the vector stays 64-bit: a warp's two rows of 64 halves
//   (128 bytes each) take 8 sectors, 8 ideal: ok.
// - n_cols unspecialised (divisibility 1): constancy 1, so each half is its own predicate: 16-bit
//   accesses (Triton's PTX has ld.global.b16 / st.global.b16), and that is the ideal vector too (no
//   layout can widen it). But each of a thread's 4 requests puts the 16 lanes of a row 8 bytes
//   apart: 128 bytes, 4 sectors, for 32 bytes; 2 rows: 8 sectors for 2 ideal; 4 requests: 32 for 8.
//   A layout with one half a thread along dim 1 (lanes consecutive) would touch 2 a request: the
//   layout's cost, a violation (the finding names the mask as the cause).
TEST(TritonKernels, AMaskCapsTheVectorAtItsConstancy) {
  const auto n16 = check(fixture("sweep/ragged_fp16_8x64_w4_n16.sm90.ttgir"));
  EXPECT_TRUE(select(n16, "global", Outcome::Violation).empty());
  const auto ok = select(n16, "global", Outcome::Ok);
  ASSERT_EQ(ok.size(), 2u);
  for (const Finding* f : ok) {
    EXPECT_EQ(f->detail["vector_bits"], 64);
    EXPECT_EQ(f->detail["ideal_vector_bits"], 64);
    EXPECT_EQ(f->detail["vector_cap"], "address");
    EXPECT_EQ(f->detail["mask_constancy"], 16);
    EXPECT_EQ(f->detail["sectors"], 8);
    EXPECT_EQ(f->detail["ideal_sectors"], 8);
  }
  EXPECT_TRUE(ok[0]->loc.starts_with("sweep_kernels.py:124:")) << ok[0]->loc;
  EXPECT_TRUE(ok[1]->loc.starts_with("sweep_kernels.py:125:")) << ok[1]->loc;
  const auto ragged = check(fixture("sweep/ragged_fp16_8x64_w4.sm90.ttgir"));
  const auto bad = select(ragged, "global", Outcome::Violation);
  ASSERT_EQ(bad.size(), 2u);
  for (const Finding* f : bad) {
    EXPECT_EQ(f->rule->id, "kernel-global-access");
    EXPECT_EQ(f->detail["vector_bits"], 16);
    EXPECT_EQ(f->detail["ideal_vector_bits"], 16);
    EXPECT_EQ(f->detail["vector_cap"], "mask");
    EXPECT_EQ(f->detail["mask_constancy"], 1);
    EXPECT_EQ(f->detail["sectors"], 32);
    EXPECT_EQ(f->detail["ideal_sectors"], 8);
    EXPECT_NE(f->message.find("the mask caps it"), std::string::npos) << f->message;
  }
  EXPECT_TRUE(bad[0]->loc.starts_with("sweep_kernels.py:124:")) << bad[0]->loc;
}

// §1 regions: an op that opens regions (scf.for) ends at the line closing them; a comparison keeps
// its predicate.
TEST(TtgirReader, RegionEndsAndPredicates) {
  const auto m = triton::read_ttgir(fixture(kMatmul));
  bool loop = false;
  for (const triton::Op& op : m.ops) {
    if (op.name == "scf.for") {
      loop = true;
      EXPECT_GT(op.end_line, op.line + 10);
    } else {
      EXPECT_EQ(op.end_line, op.line) << op.name;
    }
    if (op.name == "arith.cmpi") {
      EXPECT_FALSE(op.predicate.empty());
    }
  }
  EXPECT_TRUE(loop);
}

// §3.5 the footprint is the most bytes live at once. The sweep's attention kernel on sm80 with one
// stage: Q (128 x 32 halves, 8192 B) is stored before the loop and read in it, so it is live through
// the loop; K (32 x 64 halves, 4096 B) is stored in the loop and last read by the first dot (line
// 72); V (64 x 32 halves, 4096 B) is stored after that (line 100). So at most 8192 + 4096 = 12288 B
// are live (from K's store on), which is Triton's metadata.shared; the sum was 16384. The epilogue's
// convert (line 118, across warps: a 4096 B scratch) comes after the loop, with Q dead.
TEST(TritonKernels, FootprintIsThePeakOfLiveBuffers) {
  const auto r = kernel::check_layout_program(triton::lower(triton::read_ttgir(fixture("sweep/attention_128x64x32_w4_s1.sm80.ttgir")), 12288));
  const auto fp = select(r, "footprint", Outcome::Ok);
  ASSERT_EQ(fp.size(), 1u);
  EXPECT_EQ(fp[0]->detail["allocations_bytes"], 8192 + 4096 + 4096);
  EXPECT_EQ(fp[0]->detail["scratch_bytes"], 4096);
  EXPECT_EQ(fp[0]->detail["bytes"], 12288);
  EXPECT_EQ(fp[0]->detail["peak_line"], 70);
  // every buffer's range: Q to the loop's end, K to its last read, V to the second dot's read
  const auto p = triton::lower(triton::read_ttgir(fixture("sweep/attention_128x64x32_w4_s1.sm80.ttgir")));
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const kernel::Move& m : p.moves)
    if (m.kind == kernel::MoveKind::Alloc) ranges.emplace_back(m.live_from, m.live_to);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0].first, 47);
  EXPECT_GT(ranges[0].second, 107);  // the loop's closing line
  EXPECT_EQ(ranges[1], (std::pair<int64_t, int64_t>{70, 72}));
  EXPECT_EQ(ranges[2], (std::pair<int64_t, int64_t>{100, 106}));
}

// §3.3.2 wgmma's A in registers (the attention fixture's second dot on sm90: P as
// dot_op<{opIdx = 0, parent = #mma (v3), kWidth = 2}>). The PTX ISA's fragment of a 16-bit A: a
// lane's 32-bit register holds 2 consecutive k (w = 32 / 16), lane % 4 steps k by 2 and 4, lane / 4
// steps m by 1, 2, 4, the next register pair m + 8, then k + 8 (K = 16 an instruction): register k
// steps [1, 8], lane k steps [2, 4]. kWidth 2 is that fragment. Planted kWidth 4: registers walk k
// for 4 (1, 2) and the lanes step k by 4, 8, so lane 1 holds k = 4.. where wgmma reads k = 2..:
// a kernel-dot-operands violation at the dot (kernels.py line 95).
TEST(TritonKernels, WgmmaRegisterAOperandAgainstTheInstructionsFragment) {
  const std::string name = "attention_128x64x64_w4_s2.sm90.ttgir";
  const auto good = check(fixture(name));
  bool seen = false;
  for (const Finding* f : select(good, "dot", Outcome::Ok))
    if (f->message.starts_with("wgmma's A in registers")) {
      seen = true;
      EXPECT_EQ(f->detail["a_register_k"], Json::array({1, 8, 16, 32}));
      EXPECT_EQ(f->detail["a_lane_k"], Json::array({2, 4}));
      EXPECT_EQ(f->detail["a_lane_m"], Json::array({1, 2, 4}));
      EXPECT_EQ(f->detail["a_register_m"], 8);
      EXPECT_TRUE(f->loc.starts_with("kernels.py:95:")) << f->loc;
    }
  EXPECT_TRUE(seen);
  const auto planted = check(replaced(fixture(name), "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>"));
  const auto bad = select(planted, "dot", Outcome::Violation);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0]->rule->id, "kernel-dot-operands");
  EXPECT_TRUE(bad[0]->loc.starts_with("kernels.py:95:")) << bad[0]->loc;
  EXPECT_EQ(bad[0]->detail["a_lane_k"], Json::array({4, 8}));
  EXPECT_EQ(bad[0]->detail["wgmma_lane_k"], Json::array({2, 4}));
}

// §3.4 rows shorter than a sector. The sweep's transpose of a 32 x 8 bf16 tile (8 warps) loads
// with blocked<[1, 1], [4, 8], [8, 1], [1, 0]>: a warp reads 4 rows of 8 halves, 16 bytes each,
// 16-bit accesses (one value a thread). The rows' distance is a runtime stride, so each row is its
// own sector: 4 sectors. The bytes are 64, but no layout can pack two 16-byte rows into one sector:
// the ideal is 64 / 16 = 4, not 64 / 32 = 2 (the old count, which called Triton's choice a fault).
// The store (columns of 32 halves, 64 bytes, contiguous) keeps the 32-byte ideal: 2.
TEST(TritonKernels, ShortRowsTakeOneSectorEach) {
  const auto r = check(fixture("sweep/transpose_bf16_32x8_w8.sm80.ttgir"));
  EXPECT_TRUE(select(r, "global", Outcome::Violation).empty());
  const auto ok = select(r, "global", Outcome::Ok);
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[0]->detail["row_bytes"], 16);
  EXPECT_EQ(ok[0]->detail["sectors"], 4);
  EXPECT_EQ(ok[0]->detail["ideal_sectors"], 4);
  EXPECT_FALSE(ok[1]->detail.contains("row_bytes"));
  EXPECT_EQ(ok[1]->detail["sectors"], 2);
  EXPECT_EQ(ok[1]->detail["ideal_sectors"], 2);
}

// §3.1.1 ldmatrix for 8-, 16- and 32-bit elements (the PTX ISA: a lane receives the 32-bit word
// lane % 4 of row lane / 4 of each 8x8 matrix of 16-bit cells; .trans hands it the cell lane / 4 of
// rows 2 (lane % 4) and 2 (lane % 4) + 1, for 16-bit cells only). The tf32 matmul on sm80: A's
// operand (kWidth 1) gives lane l the element (m = l / 4, k = l % 4) and the buffer keeps k
// contiguous, so l's 4 bytes are the word l % 4 of the 16-byte row of m = l / 4: ldmatrix, as
// Triton's PTX has (the sweep compares the instruction line by line). B's gives lane l
// (k = l % 4, n = l / 4) with n contiguous: its word in the row is n % 4, not l % 4, and a 32-bit
// element cannot be transposed: not an ldmatrix (Triton's PTX loads it with ld.shared). The fp16
// matmul's B (n contiguous, kWidth 2: lane l holds k = 2 (l % 4), +1 at n = l / 4) is .trans.
TEST(TritonKernels, LdmatrixFor32BitAndTransFor16Bit) {
  auto instructions = [](const kernel::KernelReport& r) {
    std::map<std::string, std::set<std::string>> by_loc;  // loc -> the ldmatrix variants there ("" where none)
    for (const Finding& f : r.findings)
      if (f.check == "width" && f.subject.starts_with("ttg.local_load")) by_loc[f.loc].insert(f.detail.value("instruction", std::string()));
    return by_loc;
  };
  const auto tf32 = instructions(check(fixture("matmul_fp32_64x128x32_w4_s3.sm80.ttgir")));
  ASSERT_EQ(tf32.size(), 2u);
  EXPECT_EQ(tf32.at("kernels.py:20:13"), std::set<std::string>{"ldmatrix"});  // a = tl.load(a_tile)
  EXPECT_EQ(tf32.at("kernels.py:21:13"), std::set<std::string>{""});          // b = tl.load(b_tile)
  const auto fp16 = instructions(check(fixture(kMatmul)));
  EXPECT_EQ(fp16.at("kernels.py:20:13"), std::set<std::string>{"ldmatrix"});
  EXPECT_EQ(fp16.at("kernels.py:21:13"), std::set<std::string>{"ldmatrix.trans"});
}

// §3.4 the address facts pass through `arith.extsi` (the same values, wider) and `tt.reshape`
// (row-major: a run along a dim stays a run along the result's dim of the same stride when it fits
// that dim whole; a dim of size 1 is constant). By hand: a 64-range, widened, reshaped to 1 x 64 is
// contiguous for 64 along dim 1; to 64 x 1, along dim 0; reshaped to 8 x 8 its runs of 64 do not
// fit a row of 8: no contiguity known (8 would be the run along dim 1, but the rule keeps only a
// run that fits whole).
TEST(TritonFacts, ExtsiAndReshapeKeepTheRuns) {
  const std::string s = "#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>\n"
                        "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:80\", \"ttg.threads-per-warp\" = 32 : i32} {\n"
                        "  tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}) attributes {noinline = false} {\n"
                        "    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>\n"
                        "    %w = arith.extsi %r : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> to tensor<64xi64, #ttg.slice<{dim = 0, parent = #blocked}>>\n"
                        "    %row = tt.reshape %w : tensor<64xi64, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi64, #blocked>\n"
                        "    %col = tt.reshape %w : tensor<64xi64, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<64x1xi64, #blocked>\n"
                        "    %sq = tt.reshape %w : tensor<64xi64, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<8x8xi64, #blocked>\n"
                        "    tt.return\n  }\n}\n";
  const auto f = triton::global_facts(triton::read_ttgir(s));
  EXPECT_EQ(f.at("w").contiguous_dim, 0);
  EXPECT_EQ(f.at("w").contiguity, 64);
  EXPECT_EQ(f.at("row").contiguous_dim, 1);
  EXPECT_EQ(f.at("row").contiguity, 64);
  EXPECT_TRUE(f.at("row").constant[0]);
  EXPECT_EQ(f.at("col").contiguous_dim, 0);
  EXPECT_EQ(f.at("col").contiguity, 64);
  EXPECT_EQ(f.at("sq").contiguous_dim, -1);
}

// §3.5 a program whose moves carry no program points (another producer of a LayoutProgram): every
// buffer is live throughout, so the footprint is their sum (100 + 50 B) and no line is named.
TEST(TritonKernels, FootprintWithoutProgramPointsIsTheSum) {
  kernel::LayoutProgram p;
  p.arch = "sm80";
  for (int64_t bytes : {100, 50}) {
    kernel::Move a;
    a.kind = kernel::MoveKind::Alloc;
    a.alloc_bytes = bytes;
    p.moves.push_back(a);
  }
  const auto r = kernel::check_layout_program(p);
  const auto fp = select(r, "footprint", Outcome::Ok);
  ASSERT_EQ(fp.size(), 1u);
  EXPECT_EQ(fp[0]->detail["bytes"], 150);
  EXPECT_FALSE(fp[0]->detail.contains("peak_line"));
}
