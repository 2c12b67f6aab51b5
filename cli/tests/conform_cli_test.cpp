// `tfspec conform` end to end: the reference in process and through `tfspec serve`, reports and
// exit codes (docs/conformance.md: 0 nothing failed, 1 failures or errors, 3 usage / no handshake).
#include <gtest/gtest.h>

#include "release_only.hpp"

#include <fstream>
#include <sstream>

#include "run_tfspec.hpp"
#include "tfspec/reference/json.hpp"

namespace {

using tfspec::testing::run_tfspec;
using tfspec::testing::shell_quote;

const std::string kXfail = std::string("--xfail ") + TFSPEC_SOURCE_DIR + "/spec/corpus/expected-failures.txt";

TEST(Conform, ReferenceInProcessPassesWithJsonAndJunit) {
  TFSPEC_RELEASE_BUILD_ONLY("a whole-corpus replay (the ASan build makes the three reports in Conform.AReportFileThatCannotBeWrittenIsAnError)");
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

// --jobs N: N `tfspec serve` processes print the report one prints (the timing line aside).
TEST(Conform, JobsPrintTheReportOfOneJob) {
  TFSPEC_RELEASE_BUILD_ONLY("two replays of a corpus slice through serve processes, compared as text");
  const std::string cmd = "conform " + kXfail + " --filter §7.5 --filter composition --impl " + shell_quote(std::string(TFSPEC_BINARY) + " serve");
  auto one = run_tfspec(cmd + " --jobs 1"), three = run_tfspec(cmd + " --jobs 3");
  EXPECT_EQ(three.rc, 0) << three.out.substr(0, 3000);
  // The report without its time, and without the progress lines ("conform: 120/785 cases, ..."),
  // which a slow run prints and a fast one may not, at counts that depend on the timing.
  auto untimed = [](const std::string& s) {
    std::istringstream lines(s.substr(0, s.rfind(" cases in ")));
    std::string out;
    for (std::string l; std::getline(lines, l);)
      if (l.rfind("conform: ", 0) != 0) out += l + "\n";
    return out;
  };
  EXPECT_NE(one.out.find("§7.5"), std::string::npos) << one.out;
  EXPECT_EQ(untimed(three.out), untimed(one.out));
}

// Issue 19, items 7, 15, 17: bad budgets, timeouts, seeds and expected-failure paths are refused.
TEST(Conform, BadOptionValuesAreRefused) {
  const std::string impl = " --impl " + shell_quote(std::string(TFSPEC_BINARY) + " serve");
  for (const std::string& bad : std::vector<std::string>{"--timeout-ms 0", "--timeout-ms -1", "--xfail " + shell_quote(::testing::TempDir()),
                                "--xfail /no/such/xfail.txt", "--deadline 0", "--deadline nan", "--max-consecutive-timeouts -1", "--jobs 0", "--jobs 65"}) {
    auto r = run_tfspec("conform --quiet --filter §7.5 " + bad + impl);
    EXPECT_EQ(r.rc, 3) << bad << ": " << r.out;
    EXPECT_EQ(r.out.find("total"), std::string::npos) << bad << ": ran anyway:\n" << r.out;
  }
  for (const char* bad : {"--seconds nan", "--seconds 0", "--seconds -1", "--seed -1"}) {
    auto r = run_tfspec(std::string("conform --fuzz --fuzz-op size ") + bad + impl);
    EXPECT_EQ(r.rc, 3) << bad << ": " << r.out;
  }
  EXPECT_NE(run_tfspec("conform --quiet --timeout-ms 0" + impl).out.find("--timeout-ms: must be a number of milliseconds from 1 to 86400000"),
            std::string::npos);
  // Below a millisecond is no budget on any clock (issue 30): refused by the option.
  auto r = run_tfspec("conform --fuzz --fuzz-op size --seconds 1e-9" + impl);
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("from 0.001 to 1e7"), std::string::npos) << r.out;
}

// Item 14: every report file's write is checked.
TEST(Conform, AReportFileThatCannotBeWrittenIsAnError) {
  for (const char* opt : {"--json", "--junit", "--html"}) {
    auto r = run_tfspec(std::string("conform --quiet --filter §7.5 ") + opt + " /dev/full");
    EXPECT_EQ(r.rc, 3) << opt << ": " << r.out;
    EXPECT_NE(r.out.find("cannot write the report file /dev/full"), std::string::npos) << opt << ": " << r.out;
  }
}

// Issue 22: the day-one mistakes that used to give a green run that tested nothing.
TEST(Conform, ARunThatWouldTestNothingFailsLoudly) {
  auto r = run_tfspec("conform --quiet --filter compostion");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("no case matches --filter compostion"), std::string::npos) << r.out;
  EXPECT_EQ(run_tfspec("conform --quiet --filter '§9'").rc, 3);
  r = run_tfspec("conform --quiet --filter §3 --impl cat");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("supports none of the"), std::string::npos) << r.out;
  EXPECT_EQ(run_tfspec("conform --quiet --filter §3 --impl cat --allow-unsupported").rc, 0);
  r = run_tfspec("conform --quiet --impl /no/such/binary");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("command not found"), std::string::npos) << r.out;
  const std::string stale = ::testing::TempDir() + "/stale-xfail.txt";
  std::ofstream(stale) << "s3-cosize-no-such-case  # misspelt\n";
  r = run_tfspec("conform --quiet --filter §7.5 --xfail " + shell_quote(stale));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("s3-cosize-no-such-case"), std::string::npos) << r.out;
  const std::string passing = ::testing::TempDir() + "/xpass-xfail.txt";
  std::ofstream(passing) << "s3-cosize\n";
  r = run_tfspec("conform --filter s3-cosize --xfail " + shell_quote(passing));
  EXPECT_EQ(r.rc, 1) << "an XPASS fails the run: " << r.out;
  EXPECT_NE(r.out.find("XPASS s3-cosize"), std::string::npos) << r.out;
}

// Item 10: an adapter that stops answering stops the run after N consecutive timeouts.
TEST(Conform, AnAdapterThatNeverAnswersStopsTheRun) {
  const std::string silent = "read l; echo '{\"cmd\":\"start\",\"protocol\":1,\"ops\":[\"size\"]}'; sleep 60";
  auto r = run_tfspec("conform --quiet --filter size --timeout-ms 100 --max-consecutive-timeouts 2 --impl " + shell_quote(silent));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("STOPPED: stopped after 2 consecutive timeouts"), std::string::npos) << r.out;
}

// SIGINT stops the run before the next case: the table of what ran, the reports written, exit 130.
TEST(Conform, SigintStopsTheRunWithItsReports) {
  using namespace tfspec::testing;
  const std::string tag = std::to_string(getpid());  // ctest may run another build's copy at once
  const std::string out_path = ::testing::TempDir() + "/conform_sigint_out" + tag + ".txt", json = ::testing::TempDir() + "/conform_sigint" + tag + ".json";
  std::remove(json.c_str());
  std::remove((out_path + ".stderr").c_str());  // appended to, and read for the start
  // Answers the handshake, then nothing: each case waits out its 1 s timeout.
  const std::string silent = "echo \"started\" >&2; read l; echo '{\"cmd\":\"start\",\"protocol\":1,\"ops\":[\"size\"]}'; sleep 60";
  const pid_t pid = spawn_tfspec({"conform", "--quiet", "--filter", "size", "--timeout-ms", "1000", "--max-consecutive-timeouts", "0",
                                  "--impl-stderr", out_path + ".stderr", "--json", json, "--impl", silent},
                                 out_path);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(wait_for_output(out_path + ".stderr", "started", 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  const int status = wait_or_kill(pid, 20);
  const std::string out = read_file(out_path);
  ASSERT_NE(status, -1) << "no exit within 20 s of SIGINT:\n" << out;
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  EXPECT_NE(out.find("STOPPED: interrupted by signal 2"), std::string::npos) << out;
  const tfspec::Json j = tfspec::Json::parse(read_file(json));
  EXPECT_EQ(j["stopped"], "interrupted by signal 2");
  EXPECT_GT(j["summary"]["errored"].get<int>(), 0);
}

// A report path that cannot be opened is refused before the run (exit 3, no report table), not
// after it: the check opens each path for appending, so an existing report is left whole and a
// file the check itself created is removed again.
TEST(ConformCli, AReportPathThatCannotBeOpenedIsRefusedBeforeTheRun) {
  const std::string kept = ::testing::TempDir() + "/conform_kept.json", fresh = ::testing::TempDir() + "/conform_fresh.json";
  std::ofstream(kept) << "keep\n";
  std::remove(fresh.c_str());
  for (const std::string& reports : std::vector<std::string>{"--junit /nonexistent-dir/r.xml", "--json " + kept + " --html /nonexistent-dir/r.html",
                                     "--json " + fresh + " --junit " + shell_quote(::testing::TempDir())}) {
    const auto r = run_tfspec("conform --quiet " + reports);
    EXPECT_EQ(r.rc, 3) << reports << ": " << r.out;
    EXPECT_NE(r.out.find("cannot open the report file"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(checked before the run starts)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("total"), std::string::npos) << "it ran:\n" << r.out;
  }
  std::ifstream in(kept);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "keep\n");
  EXPECT_FALSE(std::ifstream(fresh).good()) << "the check left " << fresh << " behind";
}

}  // namespace
