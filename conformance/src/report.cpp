// Reports: the per-clause table with every failure, JSON and JUnit XML.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/draw/draw.hpp"

namespace tfspec::conformance {
namespace {

// Clauses in spec order: §1 < §2 < ... < §7.1 < §7.1.1 < §7.2 < §8.
std::vector<int> clause_key(const std::string& c) {
  std::vector<int> k;
  std::string digits;
  for (char ch : c.substr(std::string("§").size()) + ".") {
    if (ch == '.') {
      k.push_back(digits.empty() ? 0 : std::stoi(digits));
      digits.clear();
    } else if (ch >= '0' && ch <= '9') {
      digits += ch;
    }
  }
  return k;
}

struct ByClause {
  bool operator()(const std::string& a, const std::string& b) const { return clause_key(a) < clause_key(b); }
};

std::map<std::string, Counts, ByClause> per_clause(const Report& r) {
  std::map<std::string, Counts, ByClause> out;
  for (const auto& o : r.cases) {
    Report one;
    one.cases.push_back(o);
    Counts c = one.totals();
    Counts& t = out[o.c->clause];
    t.pass += c.pass, t.fail += c.fail, t.unsupported += c.unsupported, t.errored += c.errored, t.xfail += c.xfail, t.xpass += c.xpass;
  }
  return out;
}

std::string status_name(const CaseOutcome& o) {
  if (o.expected_failure) return o.status == Status::Pass ? "xpass" : "xfail";
  return std::string(protocol::to_string(o.status));
}

Json expected_of(const CorpusCase& c) {
  if (c.expect) return *c.expect;
  return Json{{"error", c.expect_error.size() == 1 ? Json(c.expect_error[0]) : Json(c.expect_error)}};
}

std::string clip(const std::string& s, size_t n = 400) { return s.size() <= n ? s : s.substr(0, n) + "…"; }

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// A clause padded to 9 display columns (`§` is two bytes, one column).
std::string clause_cell(const std::string& c) {
  size_t columns = 0;
  for (unsigned char ch : c) columns += (ch & 0xC0) != 0x80;
  return c + std::string(columns < 9 ? 9 - columns : 1, ' ');
}

}  // namespace

std::string text_report(const Report& r, bool list_failures) {
  std::ostringstream out;
  out << "implementation: " << dump(r.implementation) << "\n\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-9s %6s %6s %8s %12s %6s\n", "clause", "pass", "fail", "errored", "unsupported", "xfail");
  out << line;
  for (const auto& [clause, n] : per_clause(r)) {
    std::snprintf(line, sizeof line, "%6d %6d %8d %12d %6d\n", n.pass, n.fail, n.errored, n.unsupported, n.xfail);
    out << clause_cell(clause) << " " << line;
  }
  const Counts t = r.totals();
  std::snprintf(line, sizeof line, "%-9s %6d %6d %8d %12d %6d\n", "total", t.pass, t.fail, t.errored, t.unsupported, t.xfail);
  out << line;
  if (t.xpass) out << t.xpass << " expected failure(s) passed: remove them from the expected-failures file\n";
  if (r.restarts) out << "the implementation was restarted " << r.restarts << " time(s)\n";
  std::snprintf(line, sizeof line, "%zu cases in %.2f s\n", r.cases.size(), r.seconds);
  out << line;
  if (!list_failures) return out.str();
  for (const auto& o : r.cases) {
    const bool bad = !o.expected_failure && (o.status == Status::Fail || o.status == Status::Errored);
    const bool xpass = o.expected_failure && o.status == Status::Pass;
    if (!bad && !xpass) continue;
    out << "\n" << (xpass ? "XPASS" : o.status == Status::Fail ? "FAIL" : "ERRORED") << " " << o.c->id << " [" << o.c->clause << " "
        << o.c->op << "] (" << o.c->file << ")\n";
    out << "  args:     " << clip(dump(protocol::case_request(*o.c, 0)["args"])) << "\n";
    out << "  expected: " << clip(dump(expected_of(*o.c))) << "\n";
    if (!o.actual.is_null()) out << "  actual:   " << clip(dump(o.actual)) << "\n";
    if (!o.detail.empty()) out << "  why:      " << clip(o.detail) << "\n";
    if (!o.c->note.empty()) out << "  note:     " << clip(o.c->note) << "\n";
  }
  return out.str();
}

Json json_report(const Report& r) {
  const Counts t = r.totals();
  auto counts = [](const Counts& n) {
    return Json{{"pass", n.pass}, {"fail", n.fail}, {"errored", n.errored}, {"unsupported", n.unsupported}, {"xfail", n.xfail}, {"xpass", n.xpass}};
  };
  Json clauses = Json::object();
  for (const auto& [clause, n] : per_clause(r)) clauses[clause] = counts(n);
  Json cases = Json::array();
  for (const auto& o : r.cases) {
    Json c{{"id", o.c->id}, {"clause", o.c->clause}, {"op", o.c->op}, {"status", status_name(o)}};
    if (o.status != Status::Pass && o.status != Status::Unsupported) {
      c["expected"] = expected_of(*o.c);
      if (!o.actual.is_null()) c["actual"] = o.actual;
      c["args"] = protocol::case_request(*o.c, 0)["args"];
    }
    if (!o.detail.empty()) c["detail"] = o.detail;
    cases.push_back(std::move(c));
  }
  return Json{{"implementation", r.implementation}, {"summary", counts(t)}, {"clauses", clauses},
              {"restarts", r.restarts}, {"seconds", r.seconds}, {"cases", cases}};
}

std::string junit_report(const Report& r) {
  std::map<std::string, std::vector<const CaseOutcome*>, ByClause> groups;
  for (const auto& o : r.cases) groups[o.c->clause].push_back(&o);
  const Counts t = r.totals();
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tfspec conform\" tests=\"" << r.cases.size() << "\" failures=\""
      << t.fail << "\" errors=\"" << t.errored << "\">\n";
  for (const auto& [clause, list] : groups) {
    Counts n = per_clause(r).at(clause);
    out << "  <testsuite name=\"" << draw::xml_escape(clause) << "\" tests=\"" << list.size() << "\" failures=\"" << n.fail << "\" errors=\""
        << n.errored << "\" skipped=\"" << n.unsupported + n.xfail << "\">\n";
    for (const CaseOutcome* o : list) {
      out << "    <testcase classname=\"" << draw::xml_escape(clause + "." + o->c->op) << "\" name=\"" << draw::xml_escape(o->c->id) << "\"";
      const std::string what = "expected " + dump(expected_of(*o->c)) + ", actual " + dump(o->actual) + ": " + o->detail;
      if (o->expected_failure && o->status != Status::Pass) {
        out << "><skipped message=\"expected failure\"/></testcase>\n";
      } else if (o->status == Status::Pass && !o->expected_failure) {
        out << "/>\n";
      } else if (o->status == Status::Unsupported) {
        out << "><skipped message=\"unsupported\"/></testcase>\n";
      } else if (o->status == Status::Errored) {
        out << "><error message=\"" << draw::xml_escape(clip(o->detail, 200)) << "\">" << draw::xml_escape(what) << "</error></testcase>\n";
      } else {
        out << "><failure message=\"" << draw::xml_escape(clip(o->detail, 200)) << "\">" << draw::xml_escape(what) << "</failure></testcase>\n";
      }
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace tfspec::conformance
