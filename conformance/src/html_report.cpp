// The HTML conformance report: the JSON report (json_report) rendered, with layout pictures from
// draw/ for the answers that are layouts.
#include "tfspec/conformance/html_report.hpp"

#include <cstdio>
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
.pictures { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; }
figcaption { font-weight: bold; }
)CSS";

void counts_row(std::ostringstream& o, const std::string& name, const Json& n, const char* cls) {
  const bool bad = n.value("fail", 0) + n.value("errored", 0) + n.value("xpass", 0) > 0;
  o << "<tr class=\"" << (bad ? "bad " : "") << cls << "\"><td>" << draw::xml_escape(name) << "</td>";
  for (const char* k : {"pass", "fail", "errored", "unsupported", "xfail", "xpass"}) o << "<td>" << n.value(k, 0) << "</td>";
  o << "</tr>\n";
}

}  // namespace

std::string html_report(const Report& r) {
  const Json j = json_report(r);
  const std::string name = r.implementation.is_object() && r.implementation.contains("name") && r.implementation["name"].is_string()
                               ? r.implementation["name"].get<std::string>()
                               : dump(r.implementation);
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
  for (const auto& [clause, n] : j["clauses"].items()) counts_row(o, clause, n, "clause");
  counts_row(o, "total", j["summary"], "total");
  o << "</table>\n";

  std::ostringstream cases;
  int listed = 0, pictured = 0;
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const Json& c = j["cases"][i];
    const std::string status = c["status"];
    if ((status != "fail" && status != "errored" && status != "xpass") || c.value("not_run", false)) continue;
    ++listed;
    cases << "<details class=\"case " << status << "\" id=\"case-" << draw::xml_escape(c["id"]) << "\"><summary>" << draw::xml_escape(status) << " " << draw::xml_escape(c["id"])
          << " [" << draw::xml_escape(c["clause"]) << " " << draw::xml_escape(c["op"]) << "] (" << draw::xml_escape(r.cases[i].c->file) << ")";
    // The collapsed line says why (issue 22), clipped; the full text is inside.
    if (c.contains("detail")) {
      const std::string why = c["detail"].get<std::string>();
      cases << ": <span class=\"why\">" << draw::xml_escape(why.size() <= 120 ? why : utf8_prefix(why, 120) + "…") << "</span>";
    }
    cases << "</summary>\n<dl>\n";
    auto item = [&](const char* key, const std::string& text) { cases << "<dt>" << key << "</dt><dd><pre>" << draw::xml_escape(text) << "</pre></dd>\n"; };
    if (c.contains("args")) item("args", dump(c["args"]));
    if (c.contains("expected")) item("expected", dump(c["expected"]));
    if (c.contains("actual")) item("actual", dump(c["actual"]));
    if (c.contains("detail")) item("why", c["detail"].get<std::string>());
    if (c.contains("stderr")) item("stderr (last lines)", c["stderr"].get<std::string>());
    if (!r.cases[i].c->note.empty()) item("note", r.cases[i].c->note);
    cases << "</dl>\n";
    if (pictured < kMaxPicturedFailures) {
      const std::string expected = c.contains("expected") ? picture_of(c["expected"]) : "";
      const std::string actual = c.contains("actual") ? picture_of(c["actual"]) : "";
      if (!expected.empty() || !actual.empty()) {
        ++pictured;
        cases << "<div class=\"pictures\">\n";
        if (!expected.empty()) cases << "<figure class=\"expected\"><figcaption>expected</figcaption>\n" << expected << "</figure>\n";
        if (!actual.empty()) cases << "<figure class=\"actual\"><figcaption>actual</figcaption>\n" << actual << "</figure>\n";
        cases << "</div>\n";
      }
    }
    cases << "</details>\n";
  }
  o << "<h2>Failures (" << listed << ")</h2>\n";
  if (listed == 0) o << "<p>Nothing failed or errored.</p>\n";
  o << cases.str() << "</body>\n</html>\n";
  return o.str();
}

}  // namespace tfspec::conformance
