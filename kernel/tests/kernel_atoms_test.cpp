// The atoms' layouts (spec/kernel-atoms.json) as the cases use them, wgmma's canonical atoms
// (gmma.hpp), and the MN-major wgmma case. CuTe checks the catalogue itself
// (kernel/tests/cute/, optional); these run in every build and tie the cases and the kernel's
// own GMMA atoms to that catalogue, with hand-derived values where a number is asserted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel_test_support.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/gmma.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

Json read_json(const std::string& path) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

const Json& atoms() {
  static const Json j = read_json("spec/kernel-atoms.json");
  return j;
}

// The same function (not only the same text): both layouts evaluated at every index.
void expect_same_layout(const std::string& ours, const std::string& catalogue, const std::string& what) {
  const Layout a = parse_layout(ours), b = parse_layout(catalogue);
  ASSERT_EQ(a.size(), b.size()) << what;
  for (int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(a(i), b(i)) << what << " at index " << i;
}

// Every atom a committed case names is the catalogue's, so the CuTe cross-check covers it.
TEST(KernelAtoms, EveryCaseUsesTheCataloguesLayouts) {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels")) {
    const std::string file = "docs/kernels/" + entry.path().filename().string();
    const Json c = read_json(file);
    const Json& mma = c["mma"];
    ASSERT_TRUE(atoms()["mma"].contains(mma["name"])) << file << ": " << mma["name"];
    const Json& m = atoms()["mma"][mma["name"].get<std::string>()];
    for (const char* op : {"A", "B", "C"})
      if (mma[op] != "smem") expect_same_layout(mma[op], m[op], file + " mma " + op);
    for (const char* op : {"A", "B"})
      if (c[op].contains("s2r")) {
        const Json& s = c[op]["s2r"];
        ASSERT_TRUE(atoms()["copy"].contains(s["name"])) << file << ": " << s["name"];
        const Json& a = atoms()["copy"][s["name"].get<std::string>()];
        EXPECT_EQ(s["bits"], a["bits"]) << file;
        expect_same_layout(s["src"], a["src"], file + " " + op + " s2r src");
        expect_same_layout(s["dst"], a["dst"], file + " " + op + " s2r dst");
      }
    ++seen;
  }
  EXPECT_GE(seen, 8);
}

// gmma.hpp's atoms are the catalogue's, element by element (the catalogue is CuTe-checked).
TEST(KernelAtoms, GmmaAtomsAreTheCataloguesAtoms) {
  const std::pair<const char*, GmmaAtom> cases[] = {
      {"K_INTER", {GmmaMajor::K, 16, 2}},   {"K_SW32", {GmmaMajor::K, 32, 2}},   {"K_SW64", {GmmaMajor::K, 64, 2}},   {"K_SW128", {GmmaMajor::K, 128, 2}},
      {"MN_INTER", {GmmaMajor::MN, 16, 2}}, {"MN_SW32", {GmmaMajor::MN, 32, 2}}, {"MN_SW64", {GmmaMajor::MN, 64, 2}}, {"MN_SW128", {GmmaMajor::MN, 128, 2}}};
  for (const auto& [key, atom] : cases) {
    const LayoutPtr l = parse_any_layout(atoms()["gmma_smem"][key].get<std::string>());
    ASSERT_EQ(atom.size(), 64 * atom.atom_bytes / 16) << key;
    for (int64_t i = 0; i < atom.size(); ++i) ASSERT_EQ(atom(i % atom.mn_extent(), i / atom.mn_extent()), l->apply(IntTuple(i))) << key << " at " << i;
  }
}

// By hand, MN-major 128-byte atom of halves: 64 x 8, element (mn, k) at Sw<3,3,3>(64 k + mn).
// (8, 1): 72 = 0b1001000, bits 6..8 = 1 xor into bits 3..5: 72 ^ 8 = 64. (0, 7): 448 -> bits
// 6..8 = 7, 448 ^ 56 = 504. K-major (1, 8): 64 + 8 = 72 -> 64, the same bits by symmetry.
TEST(KernelAtoms, GmmaAtomValuesByHand) {
  const GmmaAtom mn(GmmaMajor::MN, 128, 2), k(GmmaMajor::K, 128, 2);
  EXPECT_EQ(mn.mn_extent(), 64);
  EXPECT_EQ(mn.k_extent(), 8);
  EXPECT_EQ(mn(8, 1), 64);
  EXPECT_EQ(mn(0, 7), 504);
  EXPECT_EQ(k(1, 8), 64);
  EXPECT_EQ(mn.name(), "MN-major 128-byte swizzled");
}

// docs/kernels/sm90_wgmma_mn_major.json, by hand. A is M-major in global memory, (M,K):(1,M); the
// copy's thread (r, c) of the (16,16):(1,16) grid moves rows 8r..8r+7 of column c (one 16-byte
// access), a (128,16) copy tile repeated 4 times along K: 256 threads x 32 values = 128 x 64
// once. Shared memory: CuTe's tile_to_shape(Layout_MN_SW128_Atom<half_t>, (128,64)), atoms of
// 64 x 8 at 512 g + 1024 h for atom (g, h): Sw<3,3,3> o 0 o ((64,2),(8,8)):((1,512),(64,1024)).
// Banks: a phase is threads 8i..8i+7, rows 0..63 (or 64..127) of one column k: within one atom
// the 128 bytes of row k, chunk j at j ^ (k % 8): one wavefront; 8192 elements / 8 per access /
// 8 per phase = 128 wavefronts a stage, the ideal. Agreement: the descriptor's MN-major 128-byte
// atoms with LBO 512, SBO 1024 elements. Footprint as the K-major case: 2 x 16 KiB a stage, 4
// stages 128 KiB <= 228 KiB. Global: 128-bit accesses along M need M % 8 == 0 (from M % 128).
TEST(KernelAtoms, WgmmaMnMajorCaseChecksCoverageBanksAndFootprint) {
  const KernelReport r = check_pipeline(read_pipeline(read_json("docs/kernels/sm90_wgmma_mn_major.json")));
  EXPECT_EQ(r.exit_code(), 0) << to_text(r);
  EXPECT_EQ(finding(r, "coverage", "A g2s").message, "128x64 tile covered exactly once (256 threads x 32 values), in each of the 4 stages");
  for (const char* op : {"A", "B"}) {
    const Finding& banks = finding(r, "banks", std::string(op) + " g2s (write)");
    EXPECT_EQ(banks.outcome, Outcome::Ok) << banks.message;
    EXPECT_EQ(banks.detail["wavefronts"], 128);
    EXPECT_EQ(banks.detail["ideal"], 128);
    const Finding& gmma = finding(r, "agreement", std::string(op) + " mma (smem)");
    EXPECT_EQ(gmma.detail["major"], "MN");
    EXPECT_EQ(gmma.detail["atom_bytes"], 128);
  }
  EXPECT_EQ(finding(r, "footprint", "smem").detail["total_bytes"], 4 * 32768);
  EXPECT_EQ(finding(r, "bounds", "M % 8 == 0").outcome, Outcome::Ok);
}

// The same tile without the swizzle is no canonical layout: an unswizzled MN-major atom is 8 x 8
// (element (mn, k) at mn + 8 k), and row k of the plain layout starts 64 elements on: undecided,
// never ok. With 64-byte atoms (32 x 8, Sw<2,3,3>, at 256 g + 1024 h) it is canonical again.
TEST(KernelAtoms, MnMajorLayoutsOutsideTheAtomsAreUndecided) {
  Json j = read_json("docs/kernels/sm90_wgmma_mn_major.json");
  j["A"]["smem"] = "((64,2),(8,8)):((1,512),(64,1024))";
  const KernelReport plain = check_pipeline(read_pipeline(j));
  const Finding& f = finding(plain, "agreement", "A mma (smem)");
  EXPECT_EQ(f.outcome, Outcome::Undecided);
  EXPECT_EQ(f.rule, &rule::kKernelGmmaLayout);
  EXPECT_EQ(plain.exit_code(), 2);
  j["A"]["smem"] = "Sw<2,3,3> o 0 o ((32,4),(8,8)):((1,256),(32,1024))";
  const KernelReport sw64 = check_pipeline(read_pipeline(j));
  EXPECT_EQ(finding(sw64, "agreement", "A mma (smem)").detail["atom_bytes"], 64);
  EXPECT_EQ(finding(sw64, "agreement", "A mma (smem)").detail["major"], "MN");
}

}  // namespace
}  // namespace tfspec::kernel
