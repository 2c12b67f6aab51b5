// The CuTe DSL IR reader (spec/CUTE_DSL.md §1), the translation validation of the DSL compiler's
// layout ops (§2) and the coalescing check (§3), on the DSL's own dumps (the fixtures) and on
// planted faults. Expected numbers are derived by hand in each test.
#include <gtest/gtest.h>

#include "file_text.hpp"

#include "mutate_text.hpp"
#include "release_only.hpp"

#include <fstream>
#include <sstream>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;
using kernel::Finding;
using kernel::Outcome;

namespace {

const std::string kFixtures = std::string(TFSPEC_SOURCE_DIR) + "/frontends/cute_dsl/tests/fixtures/";

std::string fixture(const std::string& name) {
  const std::string text = tfspec::testing::file_text(kFixtures + name);
  EXPECT_FALSE(text.empty()) << name;
  return text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the fixture no longer holds: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The findings of one check; "global" here means the coalescing of the copies (§3), whose subject
// is the copy's type alias, not kernel/'s alignment finding on the mapped pipeline ("A g2s (global)").
std::vector<Finding> of(const kernel::KernelReport& r, const std::string& check, Outcome o) {
  std::vector<Finding> out;
  for (const Finding& f : r.findings)
    if (f.check == check && f.outcome == o && (check != "global" || f.subject.rfind("!", 0) == 0)) out.push_back(f);
  return out;
}

const char* kGemms[] = {"gemm_f16_64x64x32_atoms2x2.mlir", "gemm_f16_128x128x32_atoms4x2.mlir"};

// A hostile probe's edits (testing/mutate_text.hpp), seeded: every fixture, edited one to three
// times, read and checked. Each outcome is a report or a SpecError whose rule is an input rule,
// never a crash, another exception or an internal error (a mutation run found a segfault; fixed).
// Few edits an input error refuses (most still read as a kernel): 4 edits a file under ASan drew
// none once the M-major sgemm fixture joined, so the sample is 8 a file there (28 in release).
TEST(CuteDslReader, EditedDumpsAreReportsOrInputErrorsNeverCrashes) {
  tfspec::testing::expect_edits_are_reports_or_input_errors(
      kFixtures, ".mlir", [](const std::string& text) { (void)cute_dsl::check_module(cute_dsl::read_cute_ir(text)); }, tfspec::testing::kEditsPerFile + 4);
}

}  // namespace

// §1: `?{div=N}` is a symbol with its divisor; `S<B,M,S> o off o L` a composed layout whose inner
// swizzle is CuTe's; `[a:b;c:d]` a by-mode tiler.
TEST(CuteDslNotation, DynamicValuesSwizzlesAndTilers) {
  cute_dsl::Symbols syms;
  EXPECT_EQ(cute_dsl::to_tfspec_notation("(64,32,?):(?{i64 div=32},1,32)", syms), "(64,32,s0):(s1,1,32)");
  EXPECT_EQ(syms.divisors.at("s0"), 1);
  EXPECT_EQ(syms.divisors.at("s1"), 32);
  // S<3,3,3> o 0 o (8,32):(32,1): element (row 1, col 0) is offset 32 = 0b100000; the swizzle
  // XORs bits [6,9) into bits [3,6): bits 6..8 of 32 are 0, so 32 stays; (row 2, col 0) is 64 =
  // 0b1000000: bit 6 set -> bit 3 flipped -> 72.
  const LayoutPtr c = cute_dsl::read_layout("S<3,3,3> o 0 o (8,32):(32,1)", syms);
  ASSERT_EQ(c->kind(), LayoutKind::Composed);
  EXPECT_EQ(c->apply(IntTuple::tuple({1, 0})), 32);
  EXPECT_EQ(c->apply(IntTuple::tuple({2, 0})), 72);
  const Tiler t = cute_dsl::read_tiler("[64:1;32:1]");
  ASSERT_FALSE(t.is_layout());
  ASSERT_EQ(t.modes.size(), 2u);
  EXPECT_EQ(t.modes[0].layout->size(), 64);
  EXPECT_EQ(t.modes[1].layout->size(), 32);
}

// §1 on the 64x64x32 GEMM: its g2s copy, two ldmatrix copies and the tiled MMA, as the DSL
// printed them (the kernel asked for threads (32,4):(4,1), 8 f16 per 128-bit cp.async).
TEST(CuteDslReader, ReadsTiledCopiesAndMma) {
  const cute_dsl::Module m = cute_dsl::read_cute_ir(fixture("gemm_f16_64x64x32_atoms2x2.mlir"));
  ASSERT_EQ(m.copies.size(), 3u);
  EXPECT_EQ(m.copies[0].layout_tv, "((4,32),8):((256,1),32)");
  EXPECT_EQ(m.copies[0].tiler, "[32:1;32:1]");
  EXPECT_NE(m.copies[0].atom.find("simt_async_copy<f16, cache = global, 128 b>"), std::string::npos);
  EXPECT_NE(m.copies[1].atom.find("num_matrices = 4"), std::string::npos);
  ASSERT_EQ(m.mmas.size(), 1u);
  EXPECT_EQ(m.mmas[0].shape_mnk, "16x8x16");
  EXPECT_EQ(m.mmas[0].elem_types, "f16, f16, f32");
  EXPECT_EQ(m.mmas[0].atom_layout, "(2,2,1):(1,2,0)");
  EXPECT_EQ(m.mmas[0].permutation, "[32:1;32:1;16:1]");
  EXPECT_TRUE(m.unknown_ops.empty()) << m.unknown_ops.front();
  // The A tile: a gmem memref (64,32,?) with a dynamic row stride divisible by 32.
  const cute_dsl::Type g = cute_dsl::parse_type("!memref_gmem_f16_2", m.aliases);
  EXPECT_EQ(g.kind, "memref");
  EXPECT_EQ(g.space, "gmem");
  EXPECT_EQ(g.elem, "f16");
  EXPECT_EQ(g.align, 16);
  EXPECT_EQ(g.text, "(64,32,?):(?{i64 div=32},1,32)");
}

// §1: a tiled copy over an atom the reader does not know (here an edited `ldsm`) is listed by
// name and alias, and the reader's finding is undecided: that copy's semantics are not read, so
// the kernel is not all checked, and the result must not read `ok` (it did: the copy was
// dropped from the pipeline and the rest passed).
TEST(CuteDslReader, AnAtomTheReaderDoesNotKnowIsListedAndLeavesTheKernelUndecided) {
  std::string text = fixture("gemm_f16_64x64x32_atoms2x2.mlir");
  for (size_t at = 0; (at = text.find("!cute_nvgpu.atom.ldsm<", at)) != std::string::npos; at += 5) text.replace(at, 22, "!cute_nvgpu.atom.ldsx<");
  const cute_dsl::Module m = cute_dsl::read_cute_ir(text);
  ASSERT_FALSE(m.unknown_atoms.empty());
  EXPECT_NE(m.unknown_atoms[0].find("!cute_nvgpu.atom.ldsx"), std::string::npos) << m.unknown_atoms[0];
  const auto r = cute_dsl::check_module(m);
  ASSERT_EQ(of(r, "reader", Outcome::Undecided).size(), 1u);
  EXPECT_TRUE(cute_dsl::check_module(cute_dsl::read_cute_ir(fixture("gemm_f16_64x64x32_atoms2x2.mlir"))).findings.size() > 0);
  EXPECT_TRUE(cute_dsl::read_cute_ir(fixture("gemm_f16_64x64x32_atoms2x2.mlir")).unknown_atoms.empty());
}

TEST(CuteDslReader, NotADumpIsAnInputError) {
  try {
    cute_dsl::read_cute_ir("module {\n}\n");
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.diagnostic().rule, "cute-dsl-input");
  }
}

// A hostile edit found by mutating the fixtures (a stray quote inside a type of the A copy's
// partition_S): the op then types fewer operands than the pipeline mapping reads. It was a
// segfault; now the pipeline is not mapped, saying so with the rule, and the op-by-op checks run.
TEST(CuteDslReader, AnOpWithFewerTypesThanOperandsIsNamedNotACrash) {
  const std::string from = "(!copy_ldgsts, !memref_gmem_f16_2, !cute.coord<\"?\">) -> !memref_gmem_f16_4";
  const std::string text = replaced(fixture("gemm_f16_64x64x32_atoms2x2.mlir"), from, "(!copy_ldgsts, !memref_g\"mem_f16_2, !cute.coord<\"?\">) -> !memref_gmem_f16_4");
  ASSERT_NE(text, fixture("gemm_f16_64x64x32_atoms2x2.mlir"));
  const kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(text));
  bool named = false;
  for (const auto& f : r.findings)
    if (f.check == "pipeline") {
      EXPECT_EQ(f.outcome, kernel::Outcome::Skipped) << f.message;
      named = f.message.find("cute-dsl-input") != std::string::npos;
    }
  EXPECT_TRUE(named);
}

// §2 on every fixture: every static layout op the DSL compiled agrees with the reference. The
// GEMM's TV layout step is right_inverse((32,(8,4)):(4,(128,1))) = (4,256):(256,1) (offset
// 4a + 128b + c of (row a, (val b, col c)) inverted), then composition with (128,8):(1,128).
TEST(CuteDslValidate, TheDslsLayoutOpsAgreeWithTheReference) {
  for (const char* name : {"elementwise_add_f16.mlir", kGemms[0], kGemms[1],
                           "gemm_f16_128x128x32_atoms4x2_threads_walk_m.mlir"}) {
    const kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(fixture(name)));
    EXPECT_TRUE(of(r, "layout-op", Outcome::Violation).empty()) << name << ": " << of(r, "layout-op", Outcome::Violation)[0].message;
    EXPECT_TRUE(of(r, "layout-op", Outcome::Undecided).empty()) << name << ": " << of(r, "layout-op", Outcome::Undecided)[0].message;
    EXPECT_GE(of(r, "layout-op", Outcome::Ok).size(), 5u) << name;
  }
  const kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(fixture(kGemms[0])));
  bool saw_rinv = false, saw_tile_to_shape = false;
  for (const Finding& f : of(r, "layout-op", Outcome::Ok)) {
    saw_rinv |= f.message.find("cute.right_inverse((32,(8,4)):(4,(128,1))) = (4,256):(256,1)") != std::string::npos;
    saw_tile_to_shape |= f.subject.rfind("cute.tile_to_shape", 0) == 0;
  }
  EXPECT_TRUE(saw_rinv);
  EXPECT_TRUE(saw_tile_to_shape);
}

// Planted fault: the TV composition's result with one stride changed (32 -> 33). The op is
// (4,256):(256,1) o (128,8):(1,128); at index i = 128 (thread 0, value 1) the true result is
// (4,256):(256,1)(128) = 128 % 4 * 256 + 128 / 4 = 32, and the planted layout
// ((4,32),8):((256,1),33) gives 33: the first index where they differ.
TEST(CuteDslValidate, PlantedCompositionStrideIsCaughtAtItsOp) {
  const std::string good = "-> !cute.layout<\"((4,32),8):((256,1),32)\">";
  std::string text = replaced(fixture(kGemms[0]), good, "-> !cute.layout<\"((4,32),8):((256,1),33)\">");
  int line = 1;
  for (size_t i = 0; i < text.find("((256,1),33)"); ++i) line += text[i] == '\n';
  const kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(text));
  const auto bad = of(r, "layout-op", Outcome::Violation);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].subject, "cute.composition");
  EXPECT_EQ(bad[0].loc, "line " + std::to_string(line));
  EXPECT_EQ(bad[0].rule->id, std::string("cute-dsl-layout-op"));
  EXPECT_EQ(bad[0].detail["index"], 128);
  EXPECT_NE(bad[0].message.find("IR 33, reference 32"), std::string::npos) << bad[0].message;
  EXPECT_EQ(r.exit_code(), 1);
}

// §3: the good GEMMs' cp.async: a warp is 8 rows x 4 threads x 16 bytes along K (the row is
// 32 f16 = 64 bytes): 8 x 64 = 512 bytes = 16 sectors, the ideal. With threads walking M
// ((64,4),8):((1,512),64), a warp is 32 rows x 16 bytes at a row stride of >= 64 bytes: 32
// sectors against 16.
TEST(CuteDslCoalescing, ThreadsWalkingTheStridedDimensionAreAFinding) {
  for (const char* name : kGemms) {
    const kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(fixture(name)));
    const auto ok = of(r, "global", Outcome::Ok);
    ASSERT_EQ(ok.size(), 2u) << name;  // A and B
    EXPECT_EQ(ok[0].detail["sectors"], 16);
    EXPECT_TRUE(of(r, "global", Outcome::Violation).empty()) << name;
    EXPECT_EQ(r.exit_code(), 0) << kernel::to_text(r);
  }
  const kernel::KernelReport r =
      cute_dsl::check_module(cute_dsl::read_cute_ir(fixture("gemm_f16_128x128x32_atoms4x2_threads_walk_m.mlir")));
  const auto bad = of(r, "global", Outcome::Violation);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].detail["sectors"], 32);
  EXPECT_EQ(bad[0].detail["ideal"], 16);
  EXPECT_EQ(bad[0].rule->id, std::string("kernel-coalescing"));
  EXPECT_EQ(r.exit_code(), 1);
}

// §1: a layout string in a notation this reader does not know (here a made-up `E<1>` stride) is
// listed as skipped at its op, never guessed and never an error for the whole dump.
TEST(CuteDslValidate, AnUnreadLayoutIsSkippedAtItsOp) {
  const std::string text = replaced(fixture(kGemms[0]), "-> !cute.layout<\"((4,32),8):((256,1),32)\">",
                                    "-> !cute.layout<\"((4,32),8):((256,1),E<1>)\">");
  const kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(text));
  const auto skipped = of(r, "layout-op", Outcome::Skipped);
  bool named = false;
  for (const Finding& f : skipped) named |= f.subject == "cute.composition" && f.message.find("not read") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_EQ(r.exit_code(), 0);
}

// §2 and D15: A = (8,1):(2,2) (A(x) = 2x on [0, 8)), B = (4,4):(2,8), whose largest value
// B(3,3) = 3*2 + 3*8 = 30 lies past A's 8 points, so the strict composition refuses
// (composition-image-in-domain). Inside the domain, B(i) < 8 only for i = 0..3 (B = 0, 2, 4, 6),
// where A o B is 0, 4, 8, 12: the stride 4 of mode 0. Past the domain the value is a convention:
// the DSL extends A by its last mode and answers (4,4):(4,2); the reference's D15 extension
// answers (4,4):(4,16). They first differ at index 4 (coordinate (0,1)): 2 against 16, past the
// domain, so the finding is undecided, not a violation. A result wrong inside the domain,
// (4,4):(6,16), differs at index 1 (6 against 4, B(1) = 2 < 8): a violation.
TEST(CuteDslValidate, ADifferencePastAsDomainIsUndecidedInsideItAViolation) {
  const std::string op = "(!cute.layout<\"2:1\">, !cute.layout<\"2:1\">) -> !cute.layout<\"2:1\">";
  auto with_result = [&](const std::string& result) {
    return replaced(fixture(kGemms[0]), op,
                    "(!cute.layout<\"(8,1):(2,2)\">, !cute.layout<\"(4,4):(2,8)\">) -> !cute.layout<\"" + result + "\">");
  };
  const kernel::KernelReport dsl = cute_dsl::check_module(cute_dsl::read_cute_ir(with_result("(4,4):(4,2)")));
  const auto undecided = of(dsl, "layout-op", Outcome::Undecided);
  ASSERT_EQ(undecided.size(), 1u);
  EXPECT_EQ(undecided[0].subject, "cute.composition");
  EXPECT_EQ(undecided[0].detail["index"], 4);
  EXPECT_EQ(undecided[0].detail["past_domain"], true);
  EXPECT_TRUE(of(dsl, "layout-op", Outcome::Violation).empty());
  const kernel::KernelReport ours = cute_dsl::check_module(cute_dsl::read_cute_ir(with_result("(4,4):(4,16)")));
  EXPECT_TRUE(of(ours, "layout-op", Outcome::Undecided).empty());
  EXPECT_TRUE(of(ours, "layout-op", Outcome::Violation).empty());
  const kernel::KernelReport wrong = cute_dsl::check_module(cute_dsl::read_cute_ir(with_result("(4,4):(6,16)")));
  const auto bad = of(wrong, "layout-op", Outcome::Violation);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].detail["index"], 1);
}
