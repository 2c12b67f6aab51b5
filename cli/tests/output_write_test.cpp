// Issue 19, item 14: a subcommand whose answer cannot be written has not answered. Each case runs
// a command that succeeds (exit 0) when stdout is a pipe, then the same command with stdout on
// /dev/full (every write fails with ENOSPC): the exit code must say so (3, `output-write`).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

// stderr to the pipe we read, stdout to /dev/full.
tfspec::testing::CommandResult run_to_dev_full(const std::string& args) {
  std::string cmd = std::string(TFSPEC_BINARY) + " " + args + " 2>&1 >/dev/full";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

void expect_write_error(const std::string& args) {
  SCOPED_TRACE(args);
  auto ok = run_tfspec(args);
  ASSERT_EQ(ok.rc, 0) << ok.out;  // the command itself is fine...
  auto full = run_to_dev_full(args);
  EXPECT_EQ(full.rc, 3) << full.out;  // ...but its answer was lost
  const std::string rule = "output-write";  // the catalogue's id (rules.def)
  EXPECT_NE(full.out.find("[" + rule + " -]"), std::string::npos) << full.out;
}

const std::string kSource = TFSPEC_SOURCE_DIR;

TEST(OutputWrite, LayoutOpAnswerLost) { expect_write_error("layout size '(2,3)'"); }

TEST(OutputWrite, ShardOpAnswerLost) {
  expect_write_error("shard canon '(2 @ m.x, 12 @ m.y, 128 @ m.t)' 'warp(8)*thread(32)|x=2,y=4,t=32'");
}

TEST(OutputWrite, DrawToStdoutLost) { expect_write_error("draw '(2,3):(3,1)'"); }

TEST(OutputWrite, ProveVerdictLost) { expect_write_error("prove injective '(M,N):(1,M)'"); }

TEST(OutputWrite, ServeRepliesLost) {
  // The replies are the answer: serve's stdin is a request file.
  const std::string req = ::testing::TempDir() + "/output_write_serve.jsonl";
  FILE* f = std::fopen(req.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("{\"cmd\":\"start\",\"protocol\":1}\n{\"seq\":1,\"op\":\"size\",\"args\":{\"layout\":\"(2,3)\"}}\n", f);
  std::fclose(f);
  expect_write_error("serve < " + shell_quote(req));
  std::remove(req.c_str());
}

TEST(OutputWrite, ReshardPlanLost) {
  expect_write_error("reshard-plan '(8 @ m.x, 4) on x=4,y=2' '(8, 4) on x=4,y=2' '(8,4)'");
}

TEST(OutputWrite, PropagateLost) {
  expect_write_error("propagate " + shell_quote(kSource + "/propagation/examples/mlp.json"));
}

TEST(OutputWrite, FuzzSummaryLost) { expect_write_error("fuzz --backend host --seconds 0.5 --seed 1 --op offsets"); }

TEST(OutputWrite, ConformSummaryLost) { expect_write_error("conform " + std::string("--xfail ") + kSource + "/spec/corpus/expected-failures.txt --filter §7.5"); }

TEST(OutputWrite, HelpLost) { expect_write_error("--help"); }

}  // namespace
