// `tfspec conform` end to end: the reference in process and through `tfspec serve`, reports and
// exit codes (README: 0 nothing failed, 1 failures or errors, 3 usage / no handshake).
#include <gtest/gtest.h>

#include <fstream>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

const std::string kXfail = std::string("--xfail ") + TFSPEC_SOURCE_DIR + "/spec/corpus/expected-failures.txt";

TEST(Conform, ReferenceInProcessPassesWithJsonAndJunit) {
  const std::string json = ::testing::TempDir() + "/conform_report.json";
  const std::string junit = ::testing::TempDir() + "/conform_report.xml";
  auto r = run_tfspec("conform --quiet " + kXfail + " --json " + shell_quote(json) + " --junit " + shell_quote(junit));
  EXPECT_EQ(r.rc, 0) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("§7.5"), std::string::npos) << r.out;
  std::ifstream in(json);
  const tfspec::Json j = tfspec::Json::parse(in);
  EXPECT_EQ(j["summary"]["fail"], 0);
  EXPECT_GT(j["summary"]["pass"].get<int>(), 2000);
  EXPECT_EQ(j["implementation"]["name"], "tfspec-reference");
  std::ifstream x(junit);
  std::string xml((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<testsuite name=\"§3\""), std::string::npos);
}

TEST(Conform, ReferenceThroughServeAsASubprocess) {
  auto r = run_tfspec("conform --quiet " + kXfail + " --filter §7.5 --filter composition --impl " +
                      shell_quote(std::string(TFSPEC_BINARY) + " serve"));
  EXPECT_EQ(r.rc, 0) << r.out.substr(0, 3000);
  EXPECT_EQ(r.out.find("§1 "), std::string::npos) << "the filter keeps §3 and §7.5 only:\n" << r.out;
}

TEST(Conform, FailuresAndUsageErrorsHaveTheirExitCodes) {
  // An implementation that answers the handshake and then skips everything: all unsupported, rc 0.
  const std::string skipper =
      "while read l; do case \"$l\" in *start*) echo '{\"cmd\":\"start\",\"protocol\":1,\"ops\":[\"size\"]}';; "
      "*stop*) echo '{\"cmd\":\"stop\"}'; exit 0;; *) s=$(echo \"$l\" | sed 's/.*\"seq\":\\([0-9]*\\).*/\\1/'); "
      "echo \"{\\\"seq\\\":$s,\\\"result\\\":-1}\";; esac; done";
  auto wrong = run_tfspec("conform --quiet --filter size --impl " + shell_quote(skipper));
  EXPECT_EQ(wrong.rc, 1) << wrong.out;  // every size answered -1
  EXPECT_NE(wrong.out.find("total"), std::string::npos);
  EXPECT_EQ(run_tfspec("conform --impl 'exit 0'").rc, 3);
  EXPECT_EQ(run_tfspec("conform --corpus /nonexistent-dir").rc, 3);
}

}  // namespace
