// Each Triton encoding as a linear layout (spec/TRITON.md §2), against Triton's own: the bases
// Triton 3.9's to_linear_layout gave for 400 seeded random encodings and shapes
// (tests/fixtures/encodings.json, written by tests/fixtures/encoding_cases.py; an independent
// implementation, so CI compares without Triton installed), plus hand derivations.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tfspec/frontends/triton/encoding.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"

using namespace tfspec;
using tfspec::triton::parse_encoding;
using tfspec::triton::to_linear;

namespace {

Json fixture(const std::string& name) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/frontends/triton/tests/fixtures/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

std::vector<std::vector<int64_t>> bases_of(const LinearLayout& l, const std::string& in) {
  for (const LinearInDim& d : l.ins())
    if (d.name == in) return d.bases;
  return {};
}

}  // namespace

TEST(EncodingDifferential, EveryCaseMatchesTritonsOwnLinearLayout) {
  const Json data = fixture("encodings.json");
  ASSERT_GE(data["cases"].size(), 300u);
  int compared = 0;
  for (const Json& c : data["cases"]) {
    const std::string text = c["encoding"].get<std::string>();
    const std::vector<int64_t> shape = c["shape"].get<std::vector<int64_t>>();
    SCOPED_TRACE(text + " on " + c["shape"].dump());
    const LinearLayout l = to_linear(*parse_encoding(text, {}), shape);
    for (const auto& [in, bases] : c["triton"].items()) EXPECT_EQ(bases_of(l, in), bases.get<std::vector<std::vector<int64_t>>>()) << in;
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(data["cases"].size()));
}

// Hand derivation (§2.1): sizePerThread [1, 8], threadsPerWarp [8, 4], warpsPerCTA [4, 1],
// order [1, 0] on 128 x 32. A thread's 8 values run along dim 1 (1, 2, 4); lanes 1, 2 continue
// dim 1 (8, 16), lanes 4, 8, 16 walk dim 0 (1, 2, 4); warps dim 0 (8, 16). The tile is 32 x 32, so
// the shape's 128 rows repeat it in registers (32, 64).
TEST(EncodingDerivation, BlockedByHand) {
  const LinearLayout l = to_linear(*parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>", {}), {128, 32});
  using B = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(bases_of(l, "register"), (B{{0, 1}, {0, 2}, {0, 4}, {32, 0}, {64, 0}}));
  EXPECT_EQ(bases_of(l, "lane"), (B{{0, 8}, {0, 16}, {1, 0}, {2, 0}, {4, 0}}));
  EXPECT_EQ(bases_of(l, "warp"), (B{{8, 0}, {16, 0}}));
}

// §2.3 the warps of a wgmma (v3) layout walk m first (a warp group is four consecutive warps down
// m), mma.sync's (v2) n first. Found by the kernel sweep (an sm90 attention with warpsPerCTA =
// [4, 2]: its convert from a [8, 1] accumulator into the register A, which Triton lowered to no
// data movement, was modelled across warps); the seeded differential drew v3 only with [4k, 1].
// The bases below are Triton 3.9's `to_linear_layout` of the same encodings and shapes.
TEST(EncodingDerivation, WgmmaWarpsWalkMFirst) {
  using B = std::vector<std::vector<int64_t>>;
  auto warps = [](const std::string& text, std::vector<int64_t> shape) { return bases_of(to_linear(*parse_encoding(text, {}), shape), "warp"); };
  const std::string v3 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 32, 16]}>";
  EXPECT_EQ(warps(v3, {64, 64}), (B{{16, 0}, {32, 0}, {0, 32}}));
  EXPECT_EQ(warps("#ttg.dot_op<{opIdx = 0, parent = " + v3 + ", kWidth = 2}>", {64, 16}), (B{{16, 0}, {32, 0}, {0, 0}}));
  EXPECT_EQ(warps("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 8, 16]}>", {64, 16}), (B{{16, 0}, {32, 0}, {0, 0}}));
  const std::string v2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
  EXPECT_EQ(warps(v2, {64, 64}), (B{{0, 8}, {16, 0}}));
  EXPECT_EQ(warps("#ttg.dot_op<{opIdx = 0, parent = " + v2 + ", kWidth = 2}>", {64, 64}), (B{{0, 0}, {16, 0}}));
}

// Hand derivation (§2.5): vec 8, perPhase 2, maxPhase 4, order [1, 0] on 128 x 32: the 32 columns
// are the low five offset bits; row 2^j XORs the column by 8 * ((2^j / 2) % 4): 0, 8, 16, 0, ...
TEST(EncodingDerivation, SwizzledSharedByHand) {
  const LinearLayout l = to_linear(*parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>", {}), {128, 32});
  using B = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(bases_of(l, "offset"), (B{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {1, 0}, {2, 8}, {4, 16}, {8, 0}, {16, 0}, {32, 0}, {64, 0}}));
}

TEST(EncodingDerivation, UnknownEncodingsAreRefusedNotGuessed) {
  const auto amd = parse_encoding("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>", {});
  EXPECT_FALSE(triton::derivable(*amd));
  try {
    to_linear(*amd, {64, 64});
    FAIL() << "derived an encoding tfspec does not know";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "triton-encoding");
  }
  try {
    parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], order = }>", {});
    FAIL() << "read a malformed encoding";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "triton-input");
    EXPECT_NE(std::string(e.what()).find("column"), std::string::npos) << e.what();
  }
}

namespace {
// Parameters Triton never writes (found by mutating the fixtures; each was a crash or an internal
// error): §2's blocked `order` is a permutation of the dims, a swizzled_shared's vec / perPhase /
// maxPhase are powers of two, nvmma_shared's widths are those of §2.6, wgmma's instrShape is
// [M, N, K], a dot operand's parent has two warpsPerCTA. Each is an input error naming the rule.
TEST(EncodingDerivation, ParametersTritonNeverWritesAreInputErrors) {
  const std::pair<const char*, std::vector<int64_t>> bad[] = {
      {"#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [-1, 0]}>", {64, 64}},
      {"#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 0]}>", {64, 64}},
      {"#ttg.swizzled_shared<{vec = 8, perPhase = 0, maxPhase = 4, order = [1, 0]}>", {64, 64}},
      {"#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 0}>", {64, 64}},
      {"#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16]}>", {64, 64}},
      {"#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4], instrShape = [16, 8]}>, kWidth = 2}>", {64, 64}},
  };
  for (const auto& [text, shape] : bad) {
    try {
      tfspec::triton::to_linear(*tfspec::triton::parse_encoding(text, {}), shape);
      ADD_FAILURE() << "derived " << text;
    } catch (const tfspec::SpecError& e) {
      EXPECT_EQ(e.rule(), "triton-input") << text << ": " << e.what();
    }
  }
}
}  // namespace

