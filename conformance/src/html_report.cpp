// The HTML conformance report: the JSON report (json_report) rendered, with layout pictures from
// draw/ for the answers that are layouts.
#include "tfspec/conformance/html_report.hpp"

#include <cctype>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>
#include <sstream>

#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::conformance {
namespace {

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// At most n bytes of s, not cutting a UTF-8 sequence.
std::string utf8_prefix(const std::string& s, size_t n) {
  while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// The picture of an answer that is a layout (a layout object, or layout text with a stride or a
// composition), or "" when it is not one or cannot be drawn.
std::string picture_of(const Json& answer) {
  try {
    LayoutPtr l;
    if (answer.is_object() && answer.contains("kind")) {
      l = any_layout_from_json(answer);
    } else if (answer.is_string()) {
      const std::string t = answer.get<std::string>();
      if (t.find(':') == std::string::npos && t.find(" o ") == std::string::npos) return "";
      l = parse_any_layout(t);
    } else {
      return "";
    }
    return draw::inline_svg(draw::layout_svg(*l));
  } catch (const std::exception&) {  // not a layout, or too large to draw: words only
    return "";
  }
}

// An answer in the spec's notation (issue 22: layouts as `(2,2):(8,1)`, IntTuples as `(2,(3,4))`,
// refusals as `error RULE`), the JSON when it is neither.
std::string notation(const Json& answer) {
  try {
    if (answer.is_object() && answer.contains("kind")) return to_string(*any_layout_from_json(answer));
    if (answer.is_object() && answer.contains("error") && answer.size() == 1) {  // an expected refusal: one rule or a list
      std::string rules;
      for (const auto& r : answer["error"].is_array() ? answer["error"] : Json::array({answer["error"]}))
        rules += (rules.empty() ? "" : " or ") + (r.is_string() ? r.get<std::string>() : dump(r));
      return "error " + rules;
    }
    if (answer.is_object() && answer.contains("rule") && answer["rule"].is_string())  // a refusal received
      return "error " + answer["rule"].get<std::string>() + (answer.contains("message") ? ": " + answer.value("message", dump(answer["message"])) : "");
    if (answer.is_array() || answer.is_number_integer()) return to_string(inttuple_from_json(answer));
    if (answer.is_string()) return answer.get<std::string>();  // already text (a layout in the notation, an expression)
  } catch (const std::exception&) {  // not in the notation: the JSON
  }
  return dump(answer);
}

// The cells of a picture, (row, col) -> label, read back from draw's `<g class="cell" ...>` groups.
std::map<std::pair<std::string, std::string>, std::string> cells_of(const std::string& svg) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  auto attr = [&](size_t at, size_t end, const std::string& name) {
    const size_t b = svg.find(name + "=\"", at);
    if (b == std::string::npos || b > end) return std::string();
    const size_t v = b + name.size() + 2;
    return svg.substr(v, svg.find('"', v) - v);
  };
  for (size_t at = svg.find("<g class=\"cell\""); at != std::string::npos; at = svg.find("<g class=\"cell\"", at + 1)) {
    const size_t end = svg.find('>', at);
    out[{attr(at, end, "data-row"), attr(at, end, "data-col")}] = attr(at, end, "data-label");
  }
  return out;
}

// The picture with every cell whose label the other picture does not have at the same place
// marked `cell diff` (issue 22: the differing cells of expected and actual).
std::string mark_differences(std::string svg, const std::map<std::pair<std::string, std::string>, std::string>& other) {
  const std::map<std::pair<std::string, std::string>, std::string> mine = cells_of(svg);
  std::string out;
  size_t from = 0;
  for (size_t at = svg.find("<g class=\"cell\""); at != std::string::npos; at = svg.find("<g class=\"cell\"", at + 1)) {
    const auto key_end = svg.find('>', at);
    const std::string head = svg.substr(at, key_end - at);
    auto pick = [&](const std::string& name) {
      const size_t b = head.find(name + "=\"") + name.size() + 2;
      return head.substr(b, head.find('"', b) - b);
    };
    const auto key = std::make_pair(pick("data-row"), pick("data-col"));
    const auto it = other.find(key);
    if (it != other.end() && it->second == mine.at(key)) continue;
    out += svg.substr(from, at - from) + "<g class=\"cell diff\"";
    from = at + std::string("<g class=\"cell\"").size();
  }
  return out + svg.substr(from);
}

const char* kStyle = R"CSS(
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.bad td { background: #fbe3e3; }
tr.total td { font-weight: bold; }
details { border: 1px solid #ccc; border-radius: 4px; margin: 0.4em 0; padding: 0.3em 0.6em; }
details.fail summary { color: #a00000; }
details.errored summary { color: #7a00d0; }
details.xpass summary { color: #a06000; }
summary { cursor: pointer; font-family: monospace; }
dt { font-weight: bold; margin-top: 0.3em; }
pre { margin: 0.1em 0; white-space: pre-wrap; word-break: break-all; background: #f6f6f6; padding: 0.3em; }
.pictures { display: flex; flex-wrap: wrap; gap: 1em; max-width: 100%; }
figure { margin: 0; max-width: 100%; overflow-x: auto; overflow-y: hidden; border: 1px solid #eee; }
g.diff rect { stroke: #d00000; stroke-width: 3px; }
h3, h4 { margin: 1em 0 0.3em 0; }
p.ops a { margin-right: 0.8em; }
figcaption { font-weight: bold; }
)CSS";

// A fragment id from a clause and op: ASCII letters, digits, `.`, `-`, `_` (§ dropped).
std::string anchor(const std::string& clause, const std::string& op = "") {
  std::string id = "failures-";
  for (char ch : clause + (op.empty() ? "" : "-" + op))
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_') id += ch;
  return id;
}

// The cases listed under Failures (fail, errored, xpass; not the not-run), by clause then op.
using Groups = std::map<std::string, std::map<std::string, std::vector<size_t>>>;

void counts_row(std::ostringstream& o, const std::string& name, const Json& n, const char* cls, bool linked) {
  const bool bad = n.value("fail", 0) + n.value("errored", 0) + n.value("xpass", 0) > 0;
  o << "<tr class=\"" << (bad ? "bad " : "") << cls << "\"><td>";
  if (linked) o << "<a href=\"#" << anchor(name) << "\">" << draw::xml_escape(name) << "</a></td>";
  else o << draw::xml_escape(name) << "</td>";
  for (const char* k : {"pass", "fail", "errored", "unsupported", "xfail", "xpass"}) o << "<td>" << n.value(k, 0) << "</td>";
  o << "</tr>\n";
}

// One listed case: the collapsed line (status, id, clause, op, file, why), the answers in the
// notation, and both answers drawn with their differing cells marked.
void case_html(std::ostringstream& o, const Report& r, const Json& c, size_t i, int& pictured) {
  const std::string status = c["status"];
  o << "<details class=\"case " << status << "\" id=\"case-" << draw::xml_escape(c["id"]) << "\"><summary>" << draw::xml_escape(status) << " "
    << draw::xml_escape(c["id"]) << " [" << draw::xml_escape(c["clause"]) << " " << draw::xml_escape(c["op"]) << "] (" << draw::xml_escape(r.cases[i].c->file) << ")";
  if (c.contains("detail")) {  // the collapsed line says why (issue 22), clipped; the full text is inside
    const std::string why = c["detail"].get<std::string>();
    o << ": <span class=\"why\">" << draw::xml_escape(why.size() <= 120 ? why : utf8_prefix(why, 120) + "…") << "</span>";
  }
  o << "</summary>\n<dl>\n";
  auto item = [&](const char* key, const std::string& text) { o << "<dt>" << key << "</dt><dd><pre class=\"" << key << "\">" << draw::xml_escape(text) << "</pre></dd>\n"; };
  if (c.contains("args")) item("args", dump(c["args"]));
  if (c.contains("expected")) item("expected", notation(c["expected"]));
  if (c.contains("actual")) item("actual", notation(c["actual"]));
  if (c.contains("detail")) item("why", c["detail"].get<std::string>());
  if (c.contains("stderr")) item("stderr", c["stderr"].get<std::string>());
  if (!r.cases[i].c->note.empty()) item("note", r.cases[i].c->note);
  o << "</dl>\n";
  if (pictured < kMaxPicturedFailures) {
    std::string expected = c.contains("expected") ? picture_of(c["expected"]) : "";
    std::string actual = c.contains("actual") ? picture_of(c["actual"]) : "";
    if (!expected.empty() && !actual.empty()) {
      const auto e = cells_of(expected), a = cells_of(actual);
      expected = mark_differences(expected, a);
      actual = mark_differences(actual, e);
    }
    if (!expected.empty() || !actual.empty()) {
      ++pictured;
      o << "<div class=\"pictures\">\n";
      if (!expected.empty()) o << "<figure class=\"expected\"><figcaption>expected</figcaption>\n" << expected << "</figure>\n";
      if (!actual.empty()) o << "<figure class=\"actual\"><figcaption>actual</figcaption>\n" << actual << "</figure>\n";
      o << "</div>\n";
    }
  }
  o << "</details>\n";
}

// The failures grouped by clause, then op; each group has the id the summary table links to.
void failures_html(std::ostringstream& o, const Report& r, const Json& j, const Groups& groups, size_t listed) {
  o << "<h2>Failures (" << listed << ")</h2>\n";
  if (listed == 0) o << "<p>Nothing failed or errored.</p>\n";
  int pictured = 0;
  for (const auto& [clause, ops] : groups) {
    size_t n = 0;
    for (const auto& [op, idx] : ops) n += idx.size();
    o << "<section class=\"clause\" id=\"" << anchor(clause) << "\">\n<h3>" << draw::xml_escape(clause) << " (" << n << ")</h3>\n<p class=\"ops\">";
    for (const auto& [op, idx] : ops) o << "<a href=\"#" << anchor(clause, op) << "\">" << draw::xml_escape(op) << " (" << idx.size() << ")</a> ";
    o << "</p>\n";
    for (const auto& [op, idx] : ops) {
      o << "<section class=\"op\" id=\"" << anchor(clause, op) << "\">\n<h4>" << draw::xml_escape(clause) << " " << draw::xml_escape(op) << " (" << idx.size() << ")</h4>\n";
      for (size_t i : idx) case_html(o, r, j["cases"][i], i, pictured);
      o << "</section>\n";
    }
    o << "</section>\n";
  }
}

}  // namespace

std::string html_report(const Report& r) {
  const Json j = json_report(r);
  const std::string name = r.implementation.is_object() && r.implementation.contains("name") && r.implementation["name"].is_string()
                               ? r.implementation["name"].get<std::string>()
                               : dump(r.implementation);
  Groups groups;
  size_t listed = 0;
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const Json& c = j["cases"][i];
    const std::string status = c["status"];
    if ((status != "fail" && status != "errored" && status != "xpass") || c.value("not_run", false)) continue;
    groups[c["clause"]][c["op"]].push_back(i);
    ++listed;
  }
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>tfspec conform: "
    << draw::xml_escape(name) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  o << "<h1>tfspec conform: " << draw::xml_escape(name) << "</h1>\n";
  char line[128];
  std::snprintf(line, sizeof line, "%zu cases in %.2f s", r.cases.size(), r.seconds);
  o << "<p>implementation <code>" << draw::xml_escape(dump(r.implementation)) << "</code>; " << line;
  if (r.restarts) o << "; restarted " << r.restarts << " time(s)";
  o << "</p>\n";
  if (!r.stopped.empty()) o << "<p class=\"stopped\"><strong>Stopped:</strong> " << draw::xml_escape(r.stopped) << "; the cases after it were not run (errored).</p>\n";
  o << "<h2>Per clause</h2>\n<table class=\"clauses\">\n<tr><th>clause</th><th>pass</th><th>fail</th><th>errored</th><th>unsupported</th><th>xfail</th><th>xpass</th></tr>\n";
  for (const auto& [clause, n] : j["clauses"].items()) counts_row(o, clause, n, "clause", groups.count(clause) > 0);
  counts_row(o, "total", j["summary"], "total", false);
  o << "</table>\n";
  failures_html(o, r, j, groups, listed);
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace tfspec::conformance
