// Issue 44, items 6 and 9, end to end: JSON nested 100,000 deep from any source (a kernel
// description file, a serve request, an adapter's reply) is refused by the one nesting limit
// (nesting-too-deep §1) with no crash; a kernel description whose sizes cannot fit its tile is
// refused at once (kernel-input, exit 3), before anything is enumerated.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

namespace {

bool has(const std::string& out, const std::string& what) { return out.find(what) != std::string::npos; }

std::string deep(int levels) { return std::string(static_cast<size_t>(levels), '[') + "1" + std::string(static_cast<size_t>(levels), ']'); }

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name + std::to_string(getpid());
  std::ofstream(path) << text;
  return path;
}

TEST(DeepInputCli, AKernelDescriptionNestedAHundredThousandDeepIsRefused) {
  const std::string path = temp_file("deep_kernel.json", R"j({"name":"k","A":)j" + deep(100000) + "}");
  const auto r = run_tfspec("kernel check " + shell_quote(path));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_TRUE(has(r.out, "nesting-too-deep")) << r.out;
  std::remove(path.c_str());
}

TEST(DeepInputCli, ServeRefusesADeepKernelCheckAndAnswersTheNextLine) {
  const std::string pipeline_text = nlohmann::json(R"j({"A":)j" + deep(100000) + "}").dump();
  const auto r = run_tfspec("serve", R"j({"seq":1,"op":"kernel.check","args":{"pipeline":)j" + pipeline_text + "}}\n" +
                                         R"j({"seq":2,"op":"size","args":{"layout":"(4,8):(1,4)"}})j" "\n");
  EXPECT_EQ(r.rc, 0) << r.out.substr(0, 2000);
  EXPECT_TRUE(has(r.out, R"j("seq":1)j") && has(r.out, "nesting-too-deep")) << r.out.substr(0, 2000);
  EXPECT_TRUE(has(r.out, R"j({"result":32,"seq":2})j")) << r.out.substr(0, 2000);
}

// An adapter that replies to every case with an array nested 100,000 deep: each case is errored
// (the reply is refused by the one limit), the table and the report are still written.
TEST(DeepInputCli, ConformSurvivesAnAdapterThatRepliesDeepJson) {
  const std::string adapter = temp_file("deep_adapter.py",
                                        "import sys\n"
                                        "print('{\"cmd\":\"start\",\"protocol\":1,\"ops\":[\"size\"]}', flush=True)\n"
                                        "for line in sys.stdin:\n"
                                        "    if '\"stop\"' in line: break\n"
                                        "    print('[' * 100000 + ']' * 100000, flush=True)\n");
  const std::string json = ::testing::TempDir() + "/deep_conform" + std::to_string(getpid()) + ".json";
  const auto r = run_tfspec("conform --filter g-s3-size-0000 --filter g-s3-size-0001 --json " + shell_quote(json) + " --impl " + shell_quote("python3 " + adapter));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(has(r.out, "nest")) << r.out;
  EXPECT_TRUE(has(r.out, "clause")) << "the table is printed: " << r.out;
  EXPECT_TRUE(has(tfspec::testing::read_file(json), "\"errored\"")) << "the report is written";
  std::remove(adapter.c_str());
  std::remove(json.c_str());
}

// Item 9: sizes are compared with the tile before anything is enumerated or multiplied.
std::string sm80_with(const std::string& from, const std::string& to) {
  std::ifstream in(std::string(TFSPEC_SOURCE_DIR) + "/docs/kernels/sm80_f16_128x128x32.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find(from);
  if (at == std::string::npos) return "";
  return text.replace(at, from.size(), to);
}

TEST(DeepInputCli, OversizedMmaAndCopyDescriptionsAreRefusedAtOnce) {
  struct Case {
    std::string from, to, says;
  };
  const Case cases[] = {
      {R"j("shape": [16, 8, 16])j", R"j("shape": [4611686018427387904, 8, 16])j", "do not fit in BM"},
      {R"j("permutation": [32, 32, 16])j", R"j("permutation": ["1073741824:1", 32, 16])j", "larger than BM"},
      {R"j("src": "(32,8):(8,1)")j", R"j("src": "(32,268435456):(268435456,1)")j", "more than the atom's 256 positions"},
  };
  for (const auto& c : cases) {
    const std::string text = sm80_with(c.from, c.to);
    ASSERT_FALSE(text.empty()) << "docs/kernels/sm80_f16_128x128x32.json no longer holds " << c.from;
    const std::string path = temp_file("oversized.json", text);
    const auto r = run_tfspec("kernel check " + shell_quote(path));
    EXPECT_EQ(r.rc, 3) << c.to << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "kernel-input")) << r.out;
    EXPECT_TRUE(has(r.out, c.says)) << r.out;
    std::remove(path.c_str());
  }
}

}  // namespace
