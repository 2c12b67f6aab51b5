// The four reports (text table, --json, --junit, --html) agree on every count for a run that has
// every status: the wrong implementation (conformance/tests/wrong_impl.cpp) passes size, fails
// cosize, crashes on depth and skips complement; one failing case is an expected failure (xfail)
// and one passing case is listed too (xpass). The expected counts are derived from the cases and
// the planted departures, not from any report.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "tfspec/conformance/html_report.hpp"
#include "tfspec/conformance/runner.hpp"

namespace tfspec::conformance {
namespace {

using Tally = std::map<std::string, int>;  // outcome -> count

// What wrong_impl answers (see its header comment).
std::string planted(const CorpusCase& c) {
  if (c.op == "complement") return "unsupported";
  if (c.op == "depth") return "errored";
  if (c.op == "cosize" && c.expect) return "fail";
  return "pass";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

int attribute(const std::string& element, const std::string& name) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(element, m, std::regex(" " + name + "=\"([0-9]+)\""))) << name << " in " << element;
  return m.empty() ? -1 : std::stoi(m[1]);
}

TEST(ReportsAgree, OnEveryCountForARunWithEveryStatus) {
  const auto cases = load_corpus(std::string(TFSPEC_SOURCE_DIR) + "/spec/corpus");
  RunOptions o;
  o.filters = {"size", "cosize", "depth", "complement"};
  o.max_consecutive_crashes = 0;  // depth crashes on every case, and here they are consecutive: every status, not a stopped run
  Tally want;
  std::string xfail_id, xpass_id;
  for (const auto& c : cases) {
    if (!selected(c, o.filters)) continue;
    const std::string p = planted(c);
    if (p == "fail" && xfail_id.empty()) xfail_id = c.id, want["xfail"]++;
    else if (p == "pass" && c.op == "size" && xpass_id.empty()) xpass_id = c.id, want["xpass"]++;
    else want[p]++;
  }
  o.expected_failures = {xfail_id, xpass_id};
  for (const char* k : {"pass", "fail", "errored", "unsupported", "xfail", "xpass"}) ASSERT_GT(want[k], 0) << k;
  auto impl = subprocess(TFSPEC_WRONG_IMPL, 5000);
  const Report r = run(cases, *impl, o);
  EXPECT_EQ(exit_code(r), 1);

  // The text table's total row: pass fail errored unsupported xfail xpass.
  const std::string text = text_report(r);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("\ntotal +([0-9]+) +([0-9]+) +([0-9]+) +([0-9]+) +([0-9]+) +([0-9]+)\n"))) << text;
  const Tally from_text{{"pass", std::stoi(m[1])}, {"fail", std::stoi(m[2])}, {"errored", std::stoi(m[3])},
                        {"unsupported", std::stoi(m[4])}, {"xfail", std::stoi(m[5])}, {"xpass", std::stoi(m[6])}};
  EXPECT_EQ(from_text, want);
  EXPECT_EQ(count(text, "\nXPASS " + xpass_id + " "), 1);

  const Json j = json_report(r);
  Tally from_json, from_cases;
  for (const auto& [k, v] : j["summary"].items()) from_json[k] = v.get<int>();
  for (const auto& c : j["cases"]) from_cases[c["status"].get<std::string>()]++;
  EXPECT_EQ(from_json, want);
  EXPECT_EQ(from_cases, want);

  // JUnit: failures = fail + xpass, errors = errored, skipped = unsupported + xfail, on the root
  // and equal to the elements; every testcase has a time.
  const std::string xml = junit_report(r);
  const std::string root = xml.substr(xml.find("<testsuites"), xml.find('>', xml.find("<testsuites")) - xml.find("<testsuites"));
  EXPECT_EQ(attribute(root, "tests"), count(xml, "<testcase "));
  EXPECT_EQ(attribute(root, "failures"), count(xml, "<failure "));
  EXPECT_EQ(attribute(root, "errors"), count(xml, "<error "));
  EXPECT_EQ(attribute(root, "skipped"), count(xml, "<skipped "));
  EXPECT_EQ(count(xml, "<failure type=\"fail\""), want["fail"]);
  EXPECT_EQ(count(xml, "<failure type=\"xpass\" message=\"XPASS"), want["xpass"]);
  EXPECT_EQ(count(xml, "<error "), want["errored"]);
  EXPECT_EQ(count(xml, "<skipped message=\"unsupported\""), want["unsupported"]);
  EXPECT_EQ(count(xml, "<skipped message=\"expected failure"), want["xfail"]);
  EXPECT_EQ(count(xml, "<testcase "), count(xml, " time=\"") - 1 - count(xml, "<testsuite "));
  int suite_failures = 0;
  const std::regex suite("<testsuite [^>]*>");
  for (std::sregex_iterator it(xml.begin(), xml.end(), suite), end; it != end; ++it)
    suite_failures += attribute(it->str(), "failures");
  EXPECT_EQ(suite_failures, want["fail"] + want["xpass"]);

  // HTML: the total row, columns pass fail errored unsupported xfail xpass.
  const std::string html = html_report(r);
  ASSERT_TRUE(std::regex_search(html, m, std::regex("<tr class=\"[a-z ]*total\"><td>total</td><td>([0-9]+)</td><td>([0-9]+)</td><td>([0-9]+)</td>"
                                                    "<td>([0-9]+)</td><td>([0-9]+)</td><td>([0-9]+)</td></tr>")))
      << html.substr(0, 3000);
  const Tally from_html{{"pass", std::stoi(m[1])}, {"fail", std::stoi(m[2])}, {"errored", std::stoi(m[3])},
                        {"unsupported", std::stoi(m[4])}, {"xfail", std::stoi(m[5])}, {"xpass", std::stoi(m[6])}};
  EXPECT_EQ(from_html, want);
  EXPECT_EQ(count(html, "<details class=\"case xpass\""), want["xpass"]);
}

}  // namespace
}  // namespace tfspec::conformance
