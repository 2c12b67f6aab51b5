// The HTML conformance report (issue 14): one self-contained, well-formed file; the per-clause
// table; each failure in a <details> with expected and actual; both answers drawn when they are
// layouts; nothing fetched from the network.
#include <gtest/gtest.h>

#include "svg_xml.hpp"
#include "tfspec/conformance/html_report.hpp"

using namespace tfspec;
using namespace tfspec::conformance;
using tfspec::draw::testing::select;

namespace {

struct Fixture {
  std::vector<CorpusCase> cases;
  Report report;
};

// Two §3 cases (one passes, one fails with a wrong layout) and a §5 case that errored.
Fixture sample() {
  Fixture f;
  f.cases.resize(3);
  f.cases[0].id = "s3-ok";
  f.cases[0].clause = "§3";
  f.cases[0].op = "coalesce";
  f.cases[0].expect = Json("4:1");
  f.cases[1].id = "s3-composition-wrong";
  f.cases[1].clause = "§3";
  f.cases[1].op = "composition";
  f.cases[1].args = Json{{"a", "(4,8):(8,1)"}, {"tiler", "(2,2):(1,4)"}};
  f.cases[1].expect = Json("(2,2):(8,1)");
  f.cases[1].note = "README: (4,8):(8,1) o (2,2):(1,4) = (2,2):(8,1)";
  f.cases[2].id = "s5-mesh-crash";
  f.cases[2].clause = "§5";
  f.cases[2].op = "shard.mesh";
  f.cases[2].expect = Json(4);
  f.report.implementation = Json{{"name", "planted <bugs> & co"}};
  f.report.cases.push_back({&f.cases[0], Status::Pass, false, "", Json("4:1"), false, 0, ""});
  f.report.cases.push_back({&f.cases[1], Status::Fail, false, "result differs", Json{{"kind", "layout"}, {"shape", {2, 2}}, {"stride", {1, 8}}}, false, 0, ""});
  f.report.cases.push_back({&f.cases[2], Status::Errored, false, "the implementation crashed", Json(), false, 0, ""});
  return f;
}

}  // namespace

TEST(HtmlReport, WellFormedWithTheClauseTableAndEachFailure) {
  Fixture f = sample();
  const std::string html = html_report(f.report);
  auto rows = select(html, "//h:table[@class='clauses']/h:tr[h:td]");
  ASSERT_EQ(rows.size(), 3u);  // §3, §5, total
  EXPECT_EQ(rows[0]["class"], "bad clause");
  EXPECT_EQ(rows[2]["class"], "bad total");
  EXPECT_NE(rows[0]["#text"].find("§3"), std::string::npos);
  auto failures = select(html, "//h:details");
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0]["id"], "case-s3-composition-wrong");
  EXPECT_EQ(failures[0]["class"], "case fail");
  EXPECT_EQ(failures[1]["class"], "case errored");
  EXPECT_NE(failures[0]["#text"].find("(2,2):(8,1)"), std::string::npos);
  EXPECT_NE(failures[0]["#text"].find("README: (4,8):(8,1)"), std::string::npos);
  EXPECT_NE(failures[1]["#text"].find("the implementation crashed"), std::string::npos);
  // The collapsed line says why.
  auto whys = select(html, "//h:details/h:summary/h:span[@class='why']");
  ASSERT_EQ(whys.size(), 2u);
  EXPECT_EQ(whys[0]["#text"], "result differs");
  EXPECT_EQ(whys[1]["#text"], "the implementation crashed");
  EXPECT_NE(select(html, "//h:title")[0]["#text"].find("planted <bugs> & co"), std::string::npos);  // escaped, read back
}

// Cell (r, c) holds r*d0 + c*d1: expected (2,2):(8,1) holds rows 0 1 / 8 9, the actual (2,2):(1,8) rows 0 8 / 1 9.
TEST(HtmlReport, BothLayoutAnswersAreDrawnSideBySide) {
  Fixture f = sample();
  const std::string html = html_report(f.report);
  auto cell = [&](const char* side, int r, int c) {
    auto found = select(html, std::string("//h:figure[@class='") + side + "']//s:g[starts-with(@class,'cell')][@data-row='" + std::to_string(r) +
                                  "'][@data-col='" + std::to_string(c) + "']");
    return found.empty() ? std::string("none") : found[0]["data-label"];
  };
  EXPECT_EQ(cell("expected", 0, 1), "1");
  EXPECT_EQ(cell("expected", 1, 0), "8");
  EXPECT_EQ(cell("actual", 0, 1), "8");
  EXPECT_EQ(cell("actual", 1, 0), "1");
  EXPECT_EQ(select(html, "//s:svg").size(), 2u);  // the errored case has no layout to draw
}

TEST(HtmlReport, SelfContained) {
  Fixture f = sample();
  const std::string html = html_report(f.report);
  EXPECT_TRUE(select(html, "//h:script | //h:link | //h:img | //*[@src] | //*[@href][not(starts-with(@href,'#'))]").empty());
  for (auto& a : select(html, "//*[@href]"))  // every link is to a part of this file
    EXPECT_EQ(select(html, "//*[@id='" + a["href"].substr(1) + "']").size(), 1u) << a["href"];
  for (size_t at = html.find("http"); at != std::string::npos; at = html.find("http", at + 1))
    EXPECT_TRUE(html.compare(at, 26, "http://www.w3.org/1999/xht") == 0 || html.compare(at, 26, "http://www.w3.org/2000/svg") == 0)
        << html.substr(at, 40);
  EXPECT_EQ(html, html_report(f.report));  // same report, same bytes
}

TEST(HtmlReport, NothingFailedSaysSo) {
  Fixture f = sample();
  f.report.cases.resize(1);
  const std::string html = html_report(f.report);
  EXPECT_TRUE(select(html, "//h:details").empty());
  EXPECT_NE(html.find("Nothing failed or errored."), std::string::npos);
}

// Issue 22: the failures grouped by clause, then op (whatever the report's order), each group with
// the id the per-clause table links to.
TEST(HtmlReport, FailuresAreGroupedByClauseThenOpAndTheTableLinksToThem) {
  Fixture f = sample();
  CorpusCase late;  // a second §3 op, after the §5 case in the report
  late.id = "s3-coalesce-wrong";
  late.clause = "§3";
  late.op = "coalesce";
  late.expect = Json("4:1");
  f.report.cases.push_back({&late, Status::Fail, false, "shape differs", Json("(2,2):(1,2)"), false, 0, ""});
  const std::string html = html_report(f.report);
  auto sections = select(html, "//h:section[@class='clause']");
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0]["id"], "failures-3");
  EXPECT_EQ(sections[1]["id"], "failures-5");
  auto ops = select(html, "//h:section[@id='failures-3']/h:section[@class='op']");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0]["id"], "failures-3-coalesce");  // ops in name order within the clause
  EXPECT_EQ(ops[1]["id"], "failures-3-composition");
  auto in_coalesce = select(html, "//h:section[@id='failures-3-coalesce']/h:details");
  ASSERT_EQ(in_coalesce.size(), 1u);
  EXPECT_EQ(in_coalesce[0]["id"], "case-s3-coalesce-wrong");
  EXPECT_EQ(select(html, "//h:section[@id='failures-5-shard.mesh']/h:details").size(), 1u);
  auto links = select(html, "//h:table[@class='clauses']//h:a");
  ASSERT_EQ(links.size(), 2u);  // §3 and §5 have failures; the total row links nowhere
  EXPECT_EQ(links[0]["href"], "#failures-3");
  EXPECT_EQ(links[1]["href"], "#failures-5");
}

// Issue 22: expected and actual in the notation, not JSON.
TEST(HtmlReport, AnswersAreInLayoutNotation) {
  Fixture f = sample();
  f.cases[2].expect.reset();
  f.cases[2].expect_error = {"mesh-extent-positive"};
  const std::string html = html_report(f.report);
  auto actual = select(html, "//h:details[@id='case-s3-composition-wrong']//h:pre[@class='actual']");
  ASSERT_EQ(actual.size(), 1u);
  EXPECT_EQ(actual[0]["#text"], "(2,2):(1,8)");  // was {"kind":"layout","shape":[2,2],"stride":[1,8]}
  EXPECT_EQ(select(html, "//h:details[@id='case-s3-composition-wrong']//h:pre[@class='expected']")[0]["#text"], "(2,2):(8,1)");
  EXPECT_EQ(select(html, "//h:details[@id='case-s5-mesh-crash']//h:pre[@class='expected']")[0]["#text"], "error mesh-extent-positive");
}

// Issue 22: the cells where the two pictures differ are marked in both. Expected (2,2):(8,1) holds
// 0 1 / 8 9, actual (2,2):(1,8) holds 0 8 / 1 9: (0,1) and (1,0) differ, (0,0) and (1,1) agree.
TEST(HtmlReport, DifferingCellsAreMarkedInBothPictures) {
  Fixture f = sample();
  const std::string html = html_report(f.report);
  for (const char* side : {"expected", "actual"}) {
    auto diff = select(html, std::string("//h:figure[@class='") + side + "']//s:g[@class='cell diff']");
    ASSERT_EQ(diff.size(), 2u) << side;
    EXPECT_EQ(diff[0]["data-row"] + "," + diff[0]["data-col"], "0,1") << side;
    EXPECT_EQ(diff[1]["data-row"] + "," + diff[1]["data-col"], "1,0") << side;
    EXPECT_EQ(select(html, std::string("//h:figure[@class='") + side + "']//s:g[@class='cell']").size(), 2u) << side;
  }
  EXPECT_NE(html.find("g.diff rect { stroke:"), std::string::npos);  // and drawn so
}

// Issue 22: a picture wider than the page scrolls inside its box instead of widening the page.
TEST(HtmlReport, WidePicturesScrollInsideTheirBox) {
  Fixture f = sample();
  const std::string css = select(html_report(f.report), "//h:style")[0]["#text"];
  const size_t rule = css.find("\nfigure {");
  ASSERT_NE(rule, std::string::npos) << css;
  const std::string body = css.substr(rule, css.find('}', rule) - rule);
  EXPECT_NE(body.find("max-width: 100%"), std::string::npos) << body;
  EXPECT_NE(body.find("overflow-x: auto"), std::string::npos) << body;
}
