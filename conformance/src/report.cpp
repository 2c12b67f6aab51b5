// Reports: the per-clause table with every failure, JSON and JUnit XML.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
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
  for (const auto& o : r.cases) out[o.c->clause].add(outcome_name(o));
  return out;
}

Json expected_of(const CorpusCase& c) {
  if (c.expect) return *c.expect;
  return Json{{"error", c.expect_error.size() == 1 ? Json(c.expect_error[0]) : Json(c.expect_error)}};
}

std::string clip(const std::string& s, size_t n = 400) { return s.size() <= n ? s : s.substr(0, n) + "…"; }

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

int not_run_count(const Report& r) {
  int n = 0;
  for (const auto& o : r.cases) n += o.not_run;
  return n;
}

// A clause padded to 9 display columns (`§` is two bytes, one column).
std::string clause_cell(const std::string& c) {
  size_t columns = 0;
  for (unsigned char ch : c) columns += (ch & 0xC0) != 0x80;
  return c + std::string(columns < 9 ? 9 - columns : 1, ' ');
}

}  // namespace

namespace {

void table(std::ostringstream& out, const Report& r) {
  char line[160];
  std::snprintf(line, sizeof line, "%-9s %6s %6s %8s %12s %6s %6s\n", "clause", "pass", "fail", "errored", "unsupported", "xfail", "xpass");
  out << line;
  for (const auto& [clause, n] : per_clause(r)) {
    std::snprintf(line, sizeof line, "%6d %6d %8d %12d %6d %6d\n", n.pass, n.fail, n.errored, n.unsupported, n.xfail, n.xpass);
    out << clause_cell(clause) << " " << line;
  }
  const Counts t = r.totals();
  std::snprintf(line, sizeof line, "%-9s %6d %6d %8d %12d %6d %6d\n", "total", t.pass, t.fail, t.errored, t.unsupported, t.xfail, t.xpass);
  out << line;
}

void case_text(std::ostringstream& out, const CaseOutcome& o) {
  const std::string outcome = outcome_name(o);
  out << "\n" << (outcome == "xpass" ? "XPASS" : outcome == "fail" ? "FAIL" : "ERRORED") << " " << o.c->id << " [" << o.c->clause << " "
      << o.c->op << "] (" << o.c->file << ")\n";
  out << "  args:     " << clip(dump(protocol::case_request(*o.c, 0)["args"])) << "\n";
  out << "  expected: " << clip(dump(expected_of(*o.c))) << "\n";
  if (!o.actual.is_null()) out << "  actual:   " << clip(dump(o.actual)) << "\n";
  if (outcome == "xpass") out << "  why:      an expected failure passed: remove " << o.c->id << " from the expected-failures file\n";
  else if (!o.detail.empty()) out << "  why:      " << clip(o.detail) << "\n";
  if (!o.stderr_tail.empty()) {
    std::istringstream lines(o.stderr_tail);
    std::string l;
    while (std::getline(lines, l)) out << "  stderr:   " << l << "\n";
  }
  if (!o.c->note.empty()) out << "  note:     " << clip(o.c->note) << "\n";
}

}  // namespace

std::string text_report(const Report& r, bool list_failures) {
  std::ostringstream out;
  out << "implementation: " << dump(r.implementation) << "\n\n";
  table(out, r);
  const Counts t = r.totals();
  if (t.xpass) out << t.xpass << " expected failure(s) passed (XPASS, a failure): remove them from the expected-failures file\n";
  if (!r.stopped.empty()) out << "STOPPED: " << r.stopped << "; " << not_run_count(r) << " case(s) not run (counted as errored)\n";
  if (r.restarts) out << "the implementation was restarted " << r.restarts << " time(s)\n";
  char line[96];
  std::snprintf(line, sizeof line, "%zu cases in %.2f s\n", r.cases.size(), r.seconds);
  out << line;
  if (!list_failures) return out.str();
  for (const auto& o : r.cases) {
    const std::string outcome = outcome_name(o);
    if (o.not_run || (outcome != "fail" && outcome != "errored" && outcome != "xpass")) continue;
    case_text(out, o);
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
    Json c{{"id", o.c->id}, {"clause", o.c->clause}, {"op", o.c->op}, {"status", outcome_name(o)}};
    if (o.status != Status::Pass && o.status != Status::Unsupported) {
      c["expected"] = expected_of(*o.c);
      if (!o.actual.is_null()) c["actual"] = o.actual;
      c["args"] = protocol::case_request(*o.c, 0)["args"];
    }
    if (!o.detail.empty()) c["detail"] = o.detail;
    if (c["status"] == "xpass") c["detail"] = "an expected failure passed: remove it from the expected-failures file";
    if (!o.stderr_tail.empty()) c["stderr"] = o.stderr_tail;
    if (o.not_run) c["not_run"] = true;
    c["seconds"] = o.seconds;
    cases.push_back(std::move(c));
  }
  Json j{{"implementation", r.implementation}, {"summary", counts(t)}, {"clauses", clauses},
         {"restarts", r.restarts}, {"seconds", r.seconds}, {"cases", cases}};
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
  return j;
}

namespace {

// Each case's share of the run's wall time: every instant is divided evenly among the cases in
// flight then, so with --jobs N the shares add up to the time some case was running (at most the
// wall time), where the exchange times would add up to about N times it. One job: the exchange times.
std::vector<double> shared_seconds(const Report& r) {
  std::vector<double> out(r.cases.size(), 0);
  std::vector<std::pair<double, long>> events;  // (time, +(i+1) start / -(i+1) end)
  for (size_t i = 0; i < r.cases.size(); ++i)
    if (r.cases[i].started >= 0) {
      events.emplace_back(r.cases[i].started, static_cast<long>(i) + 1);
      events.emplace_back(r.cases[i].started + r.cases[i].seconds, -static_cast<long>(i) - 1);
    }
  std::sort(events.begin(), events.end());
  std::set<size_t> active;
  double last = 0;
  for (const auto& [t, e] : events) {
    if (!active.empty()) {
      const double share = (t - last) / static_cast<double>(active.size());
      for (size_t i : active) out[i] += share;
    }
    last = t;
    if (e > 0) active.insert(static_cast<size_t>(e - 1));
    else active.erase(static_cast<size_t>(-e - 1));
  }
  return out;
}

// One testcase element; its kind decides the child: failure (fail, xpass), error (errored),
// skipped (unsupported, xfail), none (pass). The attribute counts are made from the same kinds.
void junit_case(std::ostringstream& out, const CaseOutcome& o, double seconds) {
  const std::string outcome = outcome_name(o);
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", seconds);
  out << "    <testcase classname=\"" << draw::xml_escape(o.c->clause + "." + o.c->op) << "\" name=\"" << draw::xml_escape(o.c->id)
      << "\" time=\"" << time << "\"";
  std::string what = "expected " + dump(expected_of(*o.c)) + ", actual " + dump(o.actual) + ": " + o.detail;
  if (!o.stderr_tail.empty()) what += "\nimplementation stderr (last lines):\n" + o.stderr_tail;
  if (outcome == "pass") {
    out << "/>\n";
  } else if (outcome == "xfail") {
    out << "><skipped message=\"expected failure (" << draw::xml_escape(std::string(protocol::to_string(o.status))) << ")\"/></testcase>\n";
  } else if (outcome == "unsupported") {
    out << "><skipped message=\"unsupported\"/></testcase>\n";
  } else if (outcome == "xpass") {
    out << "><failure type=\"xpass\" message=\"XPASS: an expected failure passed; remove " << draw::xml_escape(o.c->id)
        << " from the expected-failures file\"/></testcase>\n";
  } else if (outcome == "errored") {
    out << "><error type=\"errored\" message=\"" << draw::xml_escape(clip(o.detail, 200)) << "\">" << draw::xml_escape(what) << "</error></testcase>\n";
  } else {
    out << "><failure type=\"fail\" message=\"" << draw::xml_escape(clip(o.detail, 200)) << "\">" << draw::xml_escape(what) << "</failure></testcase>\n";
  }
}

std::string junit_counts(size_t tests, const Counts& n, double seconds) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", seconds);
  return "tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(n.fail + n.xpass) + "\" errors=\"" + std::to_string(n.errored) +
         "\" skipped=\"" + std::to_string(n.unsupported + n.xfail) + "\" time=\"" + time + "\"";
}

}  // namespace

std::string junit_report(const Report& r) {
  std::map<std::string, std::vector<const CaseOutcome*>, ByClause> groups;
  for (const auto& o : r.cases) groups[o.c->clause].push_back(&o);
  const std::vector<double> share = shared_seconds(r);
  auto share_of = [&](const CaseOutcome* o) { return share[static_cast<size_t>(o - r.cases.data())]; };
  const auto clauses = per_clause(r);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tfspec conform\" " << junit_counts(r.cases.size(), r.totals(), r.seconds)
      << ">\n";
  for (const auto& [clause, list] : groups) {
    double seconds = 0;
    for (const CaseOutcome* o : list) seconds += share_of(o);
    out << "  <testsuite name=\"" << draw::xml_escape(clause) << "\" " << junit_counts(list.size(), clauses.at(clause), seconds) << ">\n";
    if (!r.stopped.empty()) out << "    <properties><property name=\"stopped\" value=\"" << draw::xml_escape(r.stopped) << "\"/></properties>\n";
    for (const CaseOutcome* o : list) junit_case(out, *o, share_of(o));
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace tfspec::conformance
