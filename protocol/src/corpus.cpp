// Corpus case files: validation, loading, requests and judging (spec/corpus/README.md).
#include "tfspec/protocol/corpus.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "corpus_symbolic.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::protocol {
namespace {

const std::set<std::string> kSources = {"hand", "spec", "brute-force", "property"};
const std::set<std::string> kCaseKeys = {"id",     "clause",  "op",      "args",   "expect", "expect_error", "note",
                                         "source", "compare", "options", "decisions", "tags"};
const std::set<std::string> kOptionKeys = {"domain"};

bool clause_ok(const std::string& c) {
  if (c.rfind("§", 0) != 0) return false;
  const std::string rest = c.substr(std::string("§").size());
  if (rest.empty() || rest.front() < '1' || rest.front() > '8') return false;
  return std::all_of(rest.begin(), rest.end(), [](char ch) { return (ch >= '0' && ch <= '9') || ch == '.'; });
}

std::optional<Compare> compare_from(const std::string& s) {
  if (s == "meaning") return Compare::Meaning;
  if (s == "function") return Compare::Function;
  if (s == "exact") return Compare::Exact;
  return std::nullopt;
}

void validate_case(const Json& c, const OpRegistry* reg, std::set<std::string>& ids, std::vector<std::string>& out) {
  const std::string where = c.contains("id") && c["id"].is_string() ? "case " + c["id"].get<std::string>() : "a case without an id";
  auto problem = [&](const std::string& p) { out.push_back(where + ": " + p); };
  if (!c.is_object()) return problem("is not an object");
  for (const auto& [k, v] : c.items())
    if (!kCaseKeys.count(k)) problem("unknown member \"" + k + "\"");
  for (const char* k : {"id", "clause", "op", "note", "source"})
    if (!c.contains(k) || !c[k].is_string()) problem(std::string("needs a string \"") + k + "\"");
  if (c.contains("id") && c["id"].is_string() && !ids.insert(c["id"].get<std::string>()).second) problem("duplicate id");
  if (c.contains("clause") && c["clause"].is_string() && !clause_ok(c["clause"])) problem("clause is §1..§8 (with sub-clauses)");
  if (c.contains("source") && c["source"].is_string() && !kSources.count(c["source"])) problem("source is hand, spec, brute-force or property");
  if (reg && c.contains("op") && c["op"].is_string() && !reg->find_protocol(c["op"].get<std::string>())) problem("unknown op \"" + c["op"].get<std::string>() + "\"");
  if (!c.contains("args") || !c["args"].is_object()) problem("needs an object \"args\"");
  if (c.contains("expect") == c.contains("expect_error")) problem("needs exactly one of \"expect\" and \"expect_error\"");
  if (c.contains("expect_error")) {
    const Json& e = c["expect_error"];
    std::vector<Json> ids_ = e.is_array() ? std::vector<Json>(e.begin(), e.end()) : std::vector<Json>{e};
    if (ids_.empty()) problem("expect_error names at least one rule id");
    for (const auto& r : ids_)
      if (!r.is_string() || !find_rule(r.get<std::string>())) problem("expect_error " + r.dump() + " is not a rule id of the catalogue");
  }
  if (c.contains("compare") && (!c["compare"].is_string() || !compare_from(c["compare"]))) problem("compare is meaning, function or exact");
  if (c.contains("options")) {
    if (!c["options"].is_object()) problem("options is an object");
    else
      for (const auto& [k, v] : c["options"].items()) {
        if (!kOptionKeys.count(k)) problem("unknown option \"" + k + "\"");
        if (k == "domain" && v != "strict" && v != "extend") problem("option domain is strict or extend");
      }
  }
  for (const char* k : {"decisions", "tags"})
    if (c.contains(k) && (!c[k].is_array() || !std::all_of(c[k].begin(), c[k].end(), [](const Json& x) { return x.is_string(); })))
      problem(std::string(k) + " is an array of strings");
}

// ---- values -------------------------------------------------------------------------------

// An integer as the wire writes it: a number or a decimal string (beyond 2^53). An unsigned
// number above INT64_MAX is no int64 (2^64 - 5 is not -5).
std::optional<int64_t> as_int(const Json& j) {
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  if (!j.is_string()) return std::nullopt;
  const std::string s = j.get<std::string>();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// JSON equality without nlohmann's signed/unsigned wrap-around (it compares 18446744073709551611
// equal to -5): numbers by value, everything else member by member.
bool strictly_equal(const Json& a, const Json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    if (a.is_number_unsigned() == b.is_number_unsigned()) return a == b;
    const Json& u = a.is_number_unsigned() ? a : b;
    const Json& i = a.is_number_unsigned() ? b : a;
    return i.get<int64_t>() >= 0 && u.get<uint64_t>() == static_cast<uint64_t>(i.get<int64_t>());
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!strictly_equal(a[k], b[k])) return false;
    return true;
  }
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.items())
      if (!b.contains(k) || !strictly_equal(v, b[k])) return false;
    return true;
  }
  if (a.is_number_integer() != b.is_number_integer() && a.is_number() && b.is_number()) return false;  // 5 and 5.0: not one integer
  return a == b;
}

bool flat_ints(const Json& j, std::vector<int64_t>& out) {
  if (j.is_array()) {
    for (const auto& x : j)
      if (!flat_ints(x, out)) return false;
    return true;
  }
  auto v = as_int(j);
  if (!v) return false;
  out.push_back(*v);
  return true;
}

// Same IntTuple: same tree, same integers (numbers and decimal strings alike).
bool same_tuple(const Json& a, const Json& b) {
  if (a.is_array() != b.is_array()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_tuple(a[i], b[i])) return false;
    return true;
  }
  auto x = as_int(a), y = as_int(b);
  if (x && y) return *x == *y;
  if (strictly_equal(a, b)) return true;  // the same text: no normal form needed (a 257-term stride took 1.5 s under ASan)
  if (a.is_string() && b.is_string()) {  // symbolic extents and strides: by normal form (S1)
    const auto n = normal_dim(a.get<std::string>());
    if (n && n == normal_dim(b.get<std::string>())) return true;
  }
  return strictly_equal(a, b);
}

// A concrete layout, flattened: extents and strides.
struct Flat {
  std::vector<int64_t> shape, stride;
};

std::optional<Flat> flat_layout(const Json& j) {
  if (!j.is_object() || j.value("kind", "") != "layout" || !j.contains("shape")) return std::nullopt;
  Flat f;
  if (!flat_ints(j["shape"], f.shape)) return std::nullopt;
  const Json* st = j.contains("stride") ? &j["stride"] : j.contains("strides") ? &j["strides"] : nullptr;
  if (!st) {  // §3: the default stride is the prefix product
    int64_t p = 1;
    for (int64_t s : f.shape) {
      f.stride.push_back(p);
      if (__builtin_mul_overflow(p, s, &p)) return std::nullopt;
    }
  } else if (st->is_null() || !flat_ints(*st, f.stride) || f.stride.size() != f.shape.size()) {
    return std::nullopt;
  }
  for (int64_t s : f.shape)
    if (s < 1) return std::nullopt;
  return f;
}

// What coalesce (filter) promises beyond the function: the fewest modes (spec/ALGEBRA.md,
// "Coalesce and filter are judged by their form"): no size-1 mode (filter: no stride-0 mode
// either) and no mode s1:d1 after s0:d0 with d1 == s0*d0; a function of size 1 is `1:0`.
std::vector<std::pair<int64_t, int64_t>> canonical_modes(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, bool filter) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 || (filter && stride[i] == 0)) continue;
    int64_t next = 0;
    if (!out.empty() && !__builtin_mul_overflow(out.back().first, out.back().second, &next) && next == stride[i] &&
        !__builtin_mul_overflow(out.back().first, shape[i], &next)) {
      out.back().first = next;
      continue;
    }
    out.emplace_back(shape[i], stride[i]);
  }
  if (out.empty()) out.emplace_back(1, 0);
  return out;
}

int64_t size_of(const Flat& f) {
  int64_t n = 1;
  for (int64_t s : f.shape)
    if (__builtin_mul_overflow(n, s, &n)) return -1;
  return n;
}

constexpr int64_t kMaxPoints = int64_t{1} << 20;

// The layout's offsets at every colexicographic index (§3, D1), written from the definition.
bool same_function(const Flat& e, const Flat& a, std::string& why) {
  const int64_t n = size_of(e);
  if (n < 0 || n != size_of(a)) {
    why = "size " + std::to_string(size_of(a)) + ", expected " + std::to_string(n);
    return false;
  }
  if (n > kMaxPoints) {  // too many points: compare the coalesced modes
    if (canonical_modes(e.shape, e.stride, false) == canonical_modes(a.shape, a.stride, false)) return true;
    why = "the coalesced modes differ (" + std::to_string(n) + " points, not enumerated)";
    return false;
  }
  // In 128 bits: a partial sum of an int64 layout may leave int64 where the offset does not
  // (INT64_MIN strides), and a wrong answer's offsets may leave it anywhere.
  auto eval = [](const Flat& f, int64_t i) {
    __int128 off = 0;
    for (size_t k = 0; k < f.shape.size(); ++k) {
      off += static_cast<__int128>(i % f.shape[k]) * f.stride[k];
      i /= f.shape[k];
    }
    return off;
  };
  auto text = [](__int128 v) {
    if (v >= INT64_MIN && v <= INT64_MAX) return std::to_string(static_cast<int64_t>(v));
    return std::string(v < 0 ? "below INT64_MIN" : "above INT64_MAX");
  };
  for (int64_t i = 0; i < n; ++i)
    if (eval(e, i) != eval(a, i)) {
      why = "at index " + std::to_string(i) + ": offset " + text(eval(a, i)) + ", expected " + text(eval(e, i));
      return false;
    }
  return true;
}

bool same_layout(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (!a.is_object() || a.value("kind", "") != "layout") {
    why = "expected a layout, got " + a.dump();
    return false;
  }
  if (e.contains("outside") && (!a.contains("outside") || !same_tuple(e["outside"], a["outside"]))) {
    why = "outside " + (a.contains("outside") ? a["outside"].dump() : std::string("absent")) + ", expected " + e["outside"].dump();
    return false;
  }
  auto fe = flat_layout(e), fa = flat_layout(a);
  if (!fe || !fa) {  // symbolic, un-materialized or malformed: compare the tree
    const Json& es = e.contains("stride") ? e["stride"] : e.contains("strides") ? e["strides"] : Json();
    const Json& as = a.contains("stride") ? a["stride"] : a.contains("strides") ? a["strides"] : Json();
    if (same_tuple(e["shape"], a.value("shape", Json())) && same_tuple(es, as)) return true;
    why = "layout " + a.dump() + ", expected " + e.dump();
    return false;
  }
  if (mode == Compare::Function && !same_tuple(e["shape"], a["shape"])) {
    why = "shape " + a["shape"].dump() + ", expected " + e["shape"].dump();
    return false;
  }
  if (!same_function(*fe, *fa, why)) {
    why = "layout " + a.dump() + " differs from " + e.dump() + ": " + why;
    return false;
  }
  return true;
}

// Violation lists: every expected entry matched by a distinct actual entry, no actual extras.
bool same_violations(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (!a.is_array() || a.size() != e.size()) {
    why = "violations " + a.dump() + ", expected " + e.dump();
    return false;
  }
  std::vector<bool> used(a.size(), false);
  for (const auto& x : e) {
    bool found = false;
    for (size_t i = 0; i < a.size() && !found; ++i) {
      std::string ignored;
      if (!used[i] && same_value(x, a[i], mode, ignored)) used[i] = found = true;
    }
    if (!found) {
      why = "no violation like " + x.dump() + " in " + a.dump();
      return false;
    }
  }
  return true;
}

// ---- coalesce and filter: the canonical form ------------------------------------------------

std::string modes_text(const std::vector<std::pair<int64_t, int64_t>>& m) {
  std::string sh, st;
  for (size_t i = 0; i < m.size(); ++i) sh += (i ? "," : "") + std::to_string(m[i].first), st += (i ? "," : "") + std::to_string(m[i].second);
  return m.size() == 1 ? sh + ":" + st : "(" + sh + "):(" + st + ")";
}

// One mode (or the whole layout) of the answer against the canonical form of the expected one.
// nullopt: the expected side is not concrete (symbolic answers are judged by S2's forms).
std::optional<bool> canonical_mode(const Json& es, const Json& ed, const Json& as, const Json& ad, const Json& profile, bool filter, std::string& why) {
  if (profile.is_array()) {  // by-mode: each mode of the profile on its own
    if (!es.is_array() || !ed.is_array() || es.size() != profile.size() || ed.size() != profile.size()) return std::nullopt;
    if (!as.is_array() || !ad.is_array() || as.size() != es.size() || ad.size() != es.size())
      return why = "shape " + as.dump() + ":" + ad.dump() + " does not keep the profile's " + std::to_string(profile.size()) + " modes", false;
    for (size_t i = 0; i < profile.size(); ++i) {
      const auto m = canonical_mode(es[i], ed[i], as[i], ad[i], profile[i], filter, why);
      if (!m) return std::nullopt;
      if (!*m) return why = "mode " + std::to_string(i) + ": " + why, false;
    }
    return true;
  }
  std::vector<int64_t> eshape, estride, ashape, astride;
  if (!flat_ints(es, eshape) || !flat_ints(ed, estride) || eshape.size() != estride.size()) return std::nullopt;
  const auto want = canonical_modes(eshape, estride, filter);
  auto flat = [](const Json& j) { return !j.is_array() || std::none_of(j.begin(), j.end(), [](const Json& x) { return x.is_array(); }); };
  const bool read = flat_ints(as, ashape) && flat_ints(ad, astride) && ashape.size() == astride.size();
  std::vector<std::pair<int64_t, int64_t>> got;
  for (size_t i = 0; read && i < ashape.size(); ++i) got.emplace_back(ashape[i], astride[i]);
  if (read && flat(as) && flat(ad) && got == want) return true;
  why = as.dump() + ":" + ad.dump() + " is not in the canonical form " + modes_text(want) + " that " + (filter ? "filter" : "coalesce") +
        " promises (the same function with the fewest modes" + (filter ? ", no stride-0 mode" : "") + ")";
  return false;
}

bool canonical(const CorpusCase& c, const Json& res, std::string& why) {
  if ((c.op != "coalesce" && c.op != "filter") || !c.expect || !c.expect->is_object() || !res.is_object()) return true;
  const Json& e = *c.expect;
  if (!e.contains("shape") || !e.contains("stride") || !res.contains("shape") || !res.contains("stride")) return true;
  const Json profile = c.args.is_object() && c.args.contains("profile") ? c.args["profile"] : Json();
  if (profile.is_string()) return true;  // a profile in the notation: the function is judged, not the form
  const auto ok = canonical_mode(e["shape"], e["stride"], res["shape"], res["stride"], profile, c.op == "filter", why);
  return !ok || *ok;
}

}  // namespace

std::vector<std::string> validate_corpus_json(const Json& doc, const OpRegistry* reg) {
  std::vector<std::string> out;
  if (!doc.is_object()) return {"a case file is a JSON object"};
  if (!doc.contains("format") || doc["format"] != kCorpusFormat) out.push_back("format is " + std::to_string(kCorpusFormat));
  if (!doc.contains("made_by") || !doc["made_by"].is_string()) out.push_back("needs a string made_by (how the cases were made)");
  for (const auto& [k, v] : doc.items())
    if (k != "format" && k != "made_by" && k != "cases" && k != "description") out.push_back("unknown member \"" + k + "\"");
  if (!doc.contains("cases") || !doc["cases"].is_array()) {
    out.push_back("needs an array cases");
    return out;
  }
  std::set<std::string> ids;
  for (const auto& c : doc["cases"]) validate_case(c, reg, ids, out);
  return out;
}

CorpusFile load_corpus_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(rule::kJsonMalformed, "cannot read corpus file " + path);
  Json doc;
  try {
    doc = parse_json_stream(in, path);
  } catch (const Json::exception& e) {
    fail(rule::kJsonMalformed, path + ": " + e.what());
  }
  auto problems = validate_corpus_json(doc, nullptr);
  if (!problems.empty()) fail(rule::kJsonType, path + ": " + problems.front() + (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : ""));
  CorpusFile f{path, doc["made_by"].get<std::string>(), {}};
  for (const auto& j : doc["cases"]) {
    CorpusCase c;
    c.id = j["id"];
    c.clause = j["clause"];
    c.op = j["op"];
    c.args = j["args"];
    if (j.contains("expect")) c.expect = j["expect"];
    if (j.contains("expect_error")) {
      if (j["expect_error"].is_array())
        for (const auto& r : j["expect_error"]) c.expect_error.push_back(r);
      else
        c.expect_error.push_back(j["expect_error"]);
    }
    c.note = j["note"];
    c.source = j["source"];
    if (j.contains("compare")) c.compare = *compare_from(j["compare"]);
    if (j.contains("options")) c.options = j["options"];
    if (j.contains("decisions"))
      for (const auto& d : j["decisions"]) c.decisions.push_back(d);
    if (j.contains("tags"))
      for (const auto& t : j["tags"]) c.tags.push_back(t);
    c.file = path;
    f.cases.push_back(std::move(c));
  }
  return f;
}

std::vector<std::string> corpus_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) fail(rule::kUsage, "no corpus directory " + dir);
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Json case_request(const CorpusCase& c, int64_t seq) {
  Json args = c.args;
  for (const auto& [k, v] : c.options.items()) args[k] = v;
  return Json{{"seq", seq}, {"op", c.op}, {"args", args}};
}

std::string_view to_string(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Fail: return "fail";
    case Status::Unsupported: return "unsupported";
    case Status::Errored: return "errored";
  }
  return "?";
}

bool same_value(const Json& e, const Json& a, Compare mode, std::string& why) {
  if (mode == Compare::Exact) {
    if (strictly_equal(e, a)) return true;
    why = a.dump() + ", expected exactly " + e.dump();
    return false;
  }
  if (e.is_object() && e.value("kind", "") == "layout") return same_layout(e, a, mode, why);
  if (is_symbolic_answer(e)) return same_symbolic_answer(e, a, mode, why);
  if (e.is_object()) {
    if (!a.is_object()) {
      why = a.dump() + ", expected an object like " + e.dump();
      return false;
    }
    for (const auto& [k, v] : e.items()) {
      if (!a.contains(k)) {
        why = "no \"" + k + "\" in " + a.dump();
        return false;
      }
      if (k == "violations" || k == "undecided") {
        if (!same_violations(v, a[k], mode, why)) return false;
      } else if (!same_value(v, a[k], mode, why)) {
        why = "\"" + k + "\": " + why;
        return false;
      }
    }
    return true;
  }
  if (e.is_array()) {
    if (!a.is_array() || a.size() != e.size()) {
      why = a.dump() + ", expected " + e.dump();
      return false;
    }
    for (size_t i = 0; i < e.size(); ++i)
      if (!same_value(e[i], a[i], mode, why)) {
        why = "[" + std::to_string(i) + "]: " + why;
        return false;
      }
    return true;
  }
  auto x = as_int(e), y = as_int(a);
  if ((x && y && *x == *y) || strictly_equal(e, a)) return true;
  why = a.dump() + ", expected " + e.dump();
  return false;
}

namespace {

Judgement judge_reply(const CorpusCase& c, const Json& reply) {
  if (reply.contains("skipped")) return {Status::Unsupported, "skipped: " + reply["skipped"].dump(), Json()};
  if (reply.contains("error")) {
    const Json& err = reply["error"];
    const std::string rule = err.is_object() && err.contains("rule") && err["rule"].is_string() ? err["rule"].get<std::string>() : "";
    if (!c.expect_error.empty()) {
      if (std::find(c.expect_error.begin(), c.expect_error.end(), rule) != c.expect_error.end()) return {Status::Pass, "", err};
      return {Status::Fail, "error " + (rule.empty() ? err.dump() : rule) + ", expected error " + Json(c.expect_error).dump(), err};
    }
    const std::string message = err.is_object() && err.contains("message") && err["message"].is_string() ? err["message"].get<std::string>() : "";
    return {Status::Fail, "error " + (rule.empty() ? err.dump() : rule + ": " + message) + ", expected a result", err};
  }
  if (reply.contains("result")) {
    const Json& res = reply["result"];
    if (!c.expect) return {Status::Fail, "result " + res.dump() + ", expected error " + Json(c.expect_error).dump(), res};
    std::string why;
    if (same_value(*c.expect, res, c.compare, why) && canonical(c, res, why) && proved_conditions_hold(c, res, why)) return {Status::Pass, "", res};
    return {Status::Fail, why, res};
  }
  return {Status::Errored, "a reply has one of result, error, skipped: " + reply.dump(), Json()};
}

}  // namespace

// A reply of any JSON shape is judged: one the judge cannot read (a member of the wrong type where
// it looks inside) is an errored case with the reason, never an exception out of the run.
Judgement judge(const CorpusCase& c, const Json& reply) {
  try {
    return judge_reply(c, reply);
  } catch (const std::exception& e) {
    std::string shown = reply.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (shown.size() > 300) shown = shown.substr(0, 300) + "...";
    return {Status::Errored, std::string("a reply the judge cannot read (") + e.what() + "): " + shown, Json()};
  }
}

}  // namespace tfspec::protocol
