// The op `kernel.check` (spec/KERNEL.md) over the wire: a `tfspec serve` client gets what
// `tfspec kernel check --json` prints. The expected findings are the hand derivations of
// kernel/tests/kernel_cases_test.cpp, repeated here where the reply carries them.
#include <gtest/gtest.h>

#ifdef TFSPEC_HAVE_PROVE
#include <fstream>
#include <sstream>

#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"

namespace tfspec::protocol {
namespace {

const OpRegistry& registry() {
  static const OpRegistry reg = [] {
    OpRegistry r;
    register_reference_ops(r);
    register_prove_ops(r);
    register_kernel_ops(r);
    return r;
  }();
  return reg;
}

Json ask(const Json& args) {
  bool stop = false;
  return serve_line(registry(), Json{{"seq", 1}, {"op", "kernel.check"}, {"args", args}}.dump(), stop);
}

Json read_case(const std::string& name) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/" + name + ".json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

const Json* finding(const Json& result, const std::string& check, const std::string& subject) {
  for (const Json& f : result["findings"])
    if (f["check"] == check && f["subject"] == subject) return &f;
  return nullptr;
}

// The SM80 128x128x32 pipeline passes every check (exit 0); 3 stages of 16 KiB fit 164 KiB.
TEST(KernelOp, ThePassingPipelineIsOkOverTheWire) {
  const Json r = ask({{"pipeline", read_case("sm80_f16_128x128x32")}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["exit"], 0) << r;
  const Json* f = finding(r["result"], "footprint", "smem");
  ASSERT_NE(f, nullptr) << r;
  EXPECT_EQ((*f)["outcome"], "ok");
}

// Unswizzled (128,32):(32,1): an ldmatrix phase reads rows m0..m0+7 at one 16-byte chunk c, bytes
// 64 m + 16 c, i.e. chunk 4 (m % 2) + c of a 128-byte line: two chunk positions for eight rows,
// so each bank serves four distinct words: 4-way; the first worst phase is warp 0's, bank 0,
// threads 0, 2, 4, 6 (kernel_cases_test.cpp derives it).
TEST(KernelOp, TheUnswizzledPipelineReportsItsConflictsAndTheDescriptionMayBeText) {
  const Json r = ask({{"pipeline", read_case("sm80_f16_unswizzled").dump()}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["exit"], 1);
  const Json* f = finding(r["result"], "banks", "A s2r (read)");
  ASSERT_NE(f, nullptr) << r;
  EXPECT_EQ((*f)["outcome"], "violation");
  EXPECT_EQ((*f)["detail"]["degree"], 4);
  EXPECT_EQ((*f)["detail"]["worst"]["threads"], Json::array({0, 2, 4, 6}));
}

// The findings that are not ok are also listed by rule (what a conformance case compares,
// spec/corpus/k1-kernel.json): the two 4-way conflicts above, nothing undecided; none when it passes.
TEST(KernelOp, TheReplyListsItsViolationsByRule) {
  const Json bad = ask({{"pipeline", read_case("sm80_f16_unswizzled")}})["result"];
  const Json want = Json::array({{{"check", "banks"}, {"subject", "A s2r (read)"}, {"rule", "kernel-bank-conflict"}, {"clause", "§4"}},
                                 {{"check", "banks"}, {"subject", "B s2r (read)"}, {"rule", "kernel-bank-conflict"}, {"clause", "§4"}}});
  EXPECT_EQ(bad["violations"], want) << bad;
  EXPECT_EQ(bad["undecided"], Json::array());
  const Json good = ask({{"pipeline", read_case("sm80_f16_128x128x32")}})["result"];
  EXPECT_EQ(good["violations"], Json::array());
  EXPECT_EQ(good["undecided"], Json::array());
}

// The limit as bytes or KiB; 4 stages of 32 KiB (sm90_wgmma_128b) fail 100 KiB, fit 228 KiB.
TEST(KernelOp, TheSharedMemoryLimitIsBytesOrKiB) {
  const Json p = read_case("sm90_wgmma_128b");
  EXPECT_EQ(ask({{"pipeline", p}, {"smem_limit", "100KiB"}})["result"]["exit"], 1);
  EXPECT_EQ(ask({{"pipeline", p}, {"smem_limit", 233472}})["result"]["exit"], 0);
  for (const Json& bad : {Json("12x"), Json(0), Json(true)}) {
    const Json r = ask({{"pipeline", p}, {"smem_limit", bad}});
    ASSERT_TRUE(r.contains("error")) << bad << ": " << r;
    EXPECT_EQ(r["error"]["rule"], "protocol-bad-args") << r;
  }
  const Json e = ask({{"pipeline", "{not json"}});
  ASSERT_TRUE(e.contains("error")) << e;
  EXPECT_EQ(e["error"]["rule"], "json-malformed") << e;
}

}  // namespace
}  // namespace tfspec::protocol
#endif
