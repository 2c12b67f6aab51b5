// The symbolic algebra checked from the outside (issue 37, spec/ALGEBRA.md S9): an independent
// checker reads only what a user reads -- the answer's cases, guards, conditions and statuses in
// the protocol's JSON -- and replays it at instances of its own choosing (small values, primes,
// the neighbours of divisors) against the concrete reference, reached through the same registry
// with the symbols written in as numbers. At every instance exactly one case's guard holds; where
// all its conditions hold the instantiated answer is the reference's answer as a function; where
// one fails the reference refuses (or, for the walk's ops, may answer past the walk: D17); every
// `proved` condition holds. The property runs over random problems without assumptions, with
// layout tilers and strides that contain the symbols; the issue's reproducers are cases of it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#ifdef TFSPEC_HAVE_PROVE
#include <cctype>
#include <optional>
#include <set>

#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/assumptions.hpp"
#include "release_only.hpp"  // TFSPEC_ASAN

namespace tfspec::protocol {
namespace {

#if defined(TFSPEC_ASAN)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

const OpRegistry& registry() {
  static const OpRegistry reg = [] {
    OpRegistry r;
    register_reference_ops(r);
    register_prove_ops(r);
    return r;
  }();
  return reg;
}

Json ask(const std::string& op, const Json& args) {
  bool stop = false;
  return serve_line(registry(), Json{{"seq", 1}, {"op", op}, {"args", args}}.dump(), stop);
}

std::string at_text(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}

// Every identifier in `text` that names a symbol replaced by its value, in parentheses.
std::string written_in(const std::string& text, const Bindings& b) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t k = i;
      while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_')) ++k;
      const std::string name = text.substr(i, k - i);
      auto it = b.find(name);
      out += it == b.end() ? name : std::to_string(it->second);  // (4) would read as a tuple of one
      i = k;
    } else {
      out += text[i++];
    }
  }
  return out;
}

Json written_in(const Json& j, const Bindings& b) {
  if (j.is_string()) return written_in(j.get<std::string>(), b);
  if (!j.is_array() && !j.is_object()) return j;
  Json r = j;
  for (auto& x : r) x = written_in(x, b);
  return r;
}

// A predicate as printed (`M*N%8 == 0`, or `M//32 != 0 and N%(M//32) == 0`), each part read
// with the assumption language left to right at an instance, stopping at the first false one:
// nullopt where a part read is undefined (a division by 0; issue 46 item 3 says none is).
std::optional<bool> reading(const std::string& pred, const Bindings& b) {
  for (size_t from = 0;;) {
    const size_t at = pred.find(" and ", from);
    for (const auto& r : solver::parse_assumption(pred.substr(from, at == std::string::npos ? std::string::npos : at - from))) {
      try {
        if (!solver::apply_relation(r.op, evaluate(r.lhs, b), evaluate(r.rhs, b))) return false;
      } catch (const SpecError&) {
        return std::nullopt;
      }
    }
    if (at == std::string::npos) return true;
    from = at + 5;
  }
}
// false where it is undefined, as the product reads it
bool holds_at(const std::string& pred, const Bindings& b) { return reading(pred, b) == true; }

// A case's guard, its steps read in order: nullopt where one read is undefined.
std::optional<bool> guard_reading(const Json& c, const Bindings& b) {
  for (const auto& g : c["when"]) {
    const auto r = reading(g.get<std::string>(), b);
    if (r != true) return r;
  }
  return true;
}

// Issue 46 items 2 and 3 on one condition: a counterexample is an instance of the case (the
// assumptions and the guard) where the condition reads false, not undefined; a `required`
// condition has one.
std::string check_counterexample(const Json& args, const Json& c, const Json& k) {
  if (!k.contains("counterexample")) return k["status"] == "required" ? "a required condition has no counterexample: " + k.dump() : "";
  const Bindings x = k["counterexample"].get<Bindings>();
  for (const auto& t : args.value("assume", Json::array()))
    if (!holds_at(t.get<std::string>(), x)) return "the counterexample of " + k.dump() + " fails the assumption " + t.get<std::string>();
  if (guard_reading(c, x) != true) return "the counterexample of " + k.dump() + " is outside its case " + c["when"].dump();
  if (reading(k["predicate"].get<std::string>(), x) != false) return "the counterexample of " + k.dump() + " does not make it false";
  return "";
}

// A JSON layout or integer with every symbolic leaf evaluated.
Json instantiate(const Json& j, const Bindings& b) {
  if (j.is_string()) return evaluate(parse_dim(j.get<std::string>()), b);
  if (!j.is_array() && !j.is_object()) return j;
  Json r = j;
  for (auto& [k, v] : r.items())
    if (k != "kind") v = instantiate(v, b);
  return r;
}

// "" when equal as functions (layouts) or as values (integers, tuples).
std::string differs(const Json& mine, const Json& ref) {
  if (mine.is_object() && mine.value("kind", "") == "layout") {
    const Layout a = layout_from_json(mine), r = layout_from_json(ref);
    if (a.size() != r.size()) return "sizes " + std::to_string(a.size()) + " and " + std::to_string(r.size());
    for (int64_t i = 0; i < r.size() && i < 4096; ++i)
      if (a(i) != r(i)) return "L(" + std::to_string(i) + ") is " + std::to_string(a(i)) + ", not " + std::to_string(r(i));
    return "";
  }
  if (mine.is_object() && mine.contains("offset"))  // slice
    return mine["offset"] != ref["offset"] ? "offsets differ" : differs(mine["layout"], ref["layout"]);
  return to_string(inttuple_from_json(mine)) == to_string(inttuple_from_json(ref)) ? "" : to_string(inttuple_from_json(mine));
}

bool walk_op(const std::string& op) {
  return op.find("divide") != std::string::npos || op.find("product") != std::string::npos || op == "composition" || op == "max_common_vector";
}

// The checker: "" when the answer to (op, args) is sound at every instance, else what is wrong.
std::string check_answer(const std::string& op, const Json& args, const std::vector<Bindings>& instances) {
  const Json reply = ask(op, args);
  if (reply.contains("error")) {
    const Json& e = reply["error"];
    if (e["kind"] == "internal") return "internal error: " + e.dump();
    if (e["kind"] == "limit") return "";  // undecided: allowed, never wrong
    for (const auto& b : instances) {  // refused for every instance
      Json bound = written_in(args, b);
      bound.erase("assume");
      if (ask(op, bound).contains("result")) return "refused (" + e.dump() + ") but the reference answers at " + at_text(b);
    }
    return "";
  }
  const Json& cases = reply["result"]["cases"];
  // Issue 46 item 1: every case is reachable: its witness (when not null: `reachable: undecided`)
  // satisfies its guard and the assumptions, read here from the reply's own text.
  for (const auto& c : cases) {
    if (!c.contains("witness")) return "a case has no witness: " + c.dump();
    if (c["witness"].is_null()) continue;
    const Bindings w = c["witness"].get<Bindings>();
    for (const auto& g : c["when"])
      if (!holds_at(g.get<std::string>(), w)) return "the witness " + at_text(w) + " of a case fails its guard " + g.get<std::string>();
    for (const auto& t : args.value("assume", Json::array()))
      if (!holds_at(t.get<std::string>(), w)) return "the witness " + at_text(w) + " of a case fails the assumption " + t.get<std::string>();
  }
  for (const auto& c : cases)
    for (const auto& k : c["conditions"])
      if (auto why = check_counterexample(args, c, k); !why.empty()) return why;
  // issue 46: a refusal case that says the reference answers past CuTe's walk names an instance
  // of the case where the reference does answer, and what it answers
  for (const auto& c : cases)
    if (c.contains("refused") && c["refused"].contains("reference_answers")) {
      const Json& past = c["refused"]["reference_answers"];
      const Bindings x = past["at"].get<Bindings>();
      if (guard_reading(c, x) != true) return "the instance where the reference answers past the walk is outside its case: " + c.dump();
      Json bound = written_in(args, x);
      bound.erase("assume");
      const Json ref = ask(op, bound);
      if (!ref.contains("result")) return "the reference refuses at " + at_text(x) + ", where the refusal case says it answers: " + c.dump();
      if (!walk_op(op) && op != "left_inverse") return "a refusal case of " + op + " (not a walk) says the reference answers past it";
    }
  // the error "refused for every instance" is checked at the instances below
  for (const auto& b : instances) {
    Json bound = written_in(args, b);
    bound.erase("assume");
    const Json ref = ask(op, bound);
    if (ref.contains("error") && ref["error"]["kind"] == "limit") continue;
    const bool refused = ref.contains("error");
    int matching = 0;
    for (const auto& c : cases) {
      const auto guard = guard_reading(c, b);
      if (!guard) return "the guard " + c["when"].dump() + " is undefined at " + at_text(b);
      if (!*guard) continue;
      ++matching;
      if (c.contains("refused")) {  // issue 46 item 4: a refusal case (the walk's ops may answer past it, D17)
        if (!refused && !walk_op(op)) return "the refusal case " + c.dump() + " holds at " + at_text(b) + " where the reference answers " + ref.dump();
        continue;
      }
      bool all = true;
      for (const auto& k : c["conditions"]) {
        const auto read = reading(k["predicate"].get<std::string>(), b);
        if (!read) return "the condition " + k.dump() + " is undefined at " + at_text(b) + ", an instance of its case";
        const bool ok = *read;
        if (!ok && k["status"] == "proved") return "a proved condition fails: " + k.dump() + " at " + at_text(b);
        if (ok && k["status"] == "refuted") return "a refuted condition holds: " + k.dump() + " at " + at_text(b);
        all = all && ok;
      }
      if (!all) {
        if (!refused && !walk_op(op)) return "a condition fails at " + at_text(b) + " where the reference answers " + ref.dump();
        continue;
      }
      if (refused) return "the case " + c.dump() + " answers at " + at_text(b) + " where the reference refuses " + ref.dump();
      try {
        const std::string d = differs(instantiate(c["result"], b), ref["result"]);
        if (!d.empty()) return "wrong at " + at_text(b) + ": " + d + " (case " + c.dump() + ", reference " + ref.dump() + ")";
      } catch (const SpecError& e) {
        if (e.kind() != RuleKind::Limit) return "the case's result is undefined at " + at_text(b) + ": " + e.what();
      }
    }
    // Exactly one guard holds, each read without dividing by 0.
    if (matching > 1) return std::to_string(matching) + " case guards hold at " + at_text(b) + " (" + reply.dump() + ")";
    // issue 46 item 4: the cases cover every instance, a refusal case where the op refuses
    if (matching == 0 && !reply["result"].contains("undecided")) return "no case's guard holds at " + at_text(b) + " (a refusal hole)";
  }
  return "";
}

// The checker's instances: every pair of a spread of small values, primes and neighbours of
// powers of two (1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 32, 64), symbols in name order.
std::vector<Bindings> grid(const std::vector<std::string>& symbols) {
  static const std::vector<int64_t> values{1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 32, 64};
  std::vector<Bindings> out{{}};
  for (const auto& s : symbols) {
    std::vector<Bindings> next;
    for (const auto& b : out)
      for (int64_t v : values) {
        Bindings x = b;
        x[s] = v;
        next.push_back(x);
      }
    out = std::move(next);
  }
  return out;
}

// ---------------------------------------------------------------- the issue's reproducers

struct Repro {
  std::string op;
  Json args;
  std::vector<std::string> symbols;
};

std::vector<Repro> reproducers() {
  auto t = [](const std::string& s) { return Json(s); };
  return {
      {"zipped_divide", {{"a", "(M,N):(N,1)"}, {"tiler", t("(4,2):(2,1)")}}, {"M", "N"}},
      {"zipped_divide", {{"a", "(M,N):(N,1)"}, {"tiler", t("(8,4):(4,1)")}}, {"M", "N"}},
      {"composition", {{"a", "(M,N):(N,1)"}, {"tiler", t("(4,2):(2,1)")}}, {"M", "N"}},
      {"composition", {{"a", "(64,64):(64,1)"}, {"tiler", t("(4,M):(M,1)")}, {"assume", {"M <= 256", "M % 4 == 0"}}}, {"M"}},
      {"composition", {{"a", "(8,8):(M*M,1)"}, {"tiler", t("(M,8):(1,M)")}}, {"M"}},
      {"shape_div", {{"a", Json::array({"M", "N"})}, {"b", "3"}, {"assume", {"M % 3 == 0", "N % 4 == 0", "N >= 128"}}}, {"M", "N"}},
      {"shape_div", {{"a", Json::array({"M", "N"})}, {"b", "N"}, {"assume", {"M >= 512"}}}, {"M", "N"}},
      {"tiled_divide", {{"a", "((M,2)):((4*M,M))"}, {"tiler", t("3:1")}}, {"M"}},
      {"zipped_product", {{"a", "((M,2)):((M,2))"}, {"tiler", t("(2:M//2)")}, {"assume", {"M >= 2"}}}, {"M"}},
      {"tiled_divide", {{"a", "(M,N):(N,1)"}, {"tiler", t("3:1")}, {"assume", {"N % 2 == 0", "N >= 8"}}}, {"M", "N"}},
      {"coalesce", {{"layout", "(M-1,4):(1,M-1)"}}, {"M"}},
      {"logical_divide", {{"a", "(M,K):(1,M)"}, {"tiler", Json{{"tiler", {"128:1", "64:1"}}}}, {"assume", {"M % 128 == 0", "K % 64 == 0"}}}, {"K", "M"}},
      // issue 46 items 1 to 4 (a case that cannot occur, a condition classified loosely, one
      // undefined in its case, a refusal hole), each case's witness checked by check_answer
      {"complement", {{"layout", "(4,8):(1,M)"}, {"cotarget", 4096}, {"assume", {"M % 4 == 0", "M <= 64"}}}, {"M"}},
      {"logical_divide", {{"a", "(M,N):(1,M)"}, {"tiler", t("(4,8):(2,8)")}, {"assume", {"M % 16 == 0"}}}, {"M", "N"}},
      {"shape_div", {{"a", Json::array({"M", "N"})}, {"b", "8"}, {"assume", {"N <= 64", "N % 16 == 0"}}}, {"M", "N"}},
      // issue 46 item 3's commands: conditions that divided by 0 inside their case
      {"shape_div", {{"a", Json::array({"M", "N"})}, {"b", "N"}, {"assume", {"N % 2 == 0", "M % 32 == 0", "M >= 256"}}}, {"M", "N"}},
      {"logical_divide", {{"a", "(M,N):(N,1)"}, {"tiler", t("(4,8):(1,4)")}, {"assume", {"M > 3", "N >= 8", "N % 4 == 0"}}}, {"M", "N"}},
      {"complement", {{"layout", "(128,M//128):(1,128*N)"}, {"cotarget", "4*M*N"}}, {"M", "N"}},
      // item 2's: a condition required in a case where it fails at every instance
      {"tiled_product", {{"a", "(8,M-1):(8,4)"}, {"tiler", t("(8:1,4:M)")}}, {"M"}},
      // CuTe's walk refuses at every instance (M is 65 or 97, odd, against B's stride 2), yet the
      // reference answers 32:2 there (B's offsets 0..62 stay inside A's mode M of stride 1): it
      // said "refused for every instance of the assumptions"
      {"composition",
       {{"a", "((M,2),N,K):((1,M*N*K),M,M*N)"},
        {"tiler", t("32:2")},
        {"assume", {"M <= 128", "M % 32 == 1", "K <= 1024", "M >= 32", "K % 64 == 0", "K <= M", "K >= 8", "N % 32 == 0"}}},
       {"K", "M", "N"}},
      // issue 46 item 5: rank-3 tilers without assumptions, their paths merged into one answer
      {"logical_divide", {{"a", "(M,N,K):(1,M,M*N)"}, {"tiler", t("(4:1,4:1,3:1)")}}, {"K", "M", "N"}},
      {"flat_divide", {{"a", "(M,N,K):(1,M,0)"}, {"tiler", t("((2,4):(1,2),3:1,3:1)")}}, {"K", "M", "N"}},
  };
}

// The instances the issue names, on top of the grid.
std::vector<Bindings> with_named_instances(std::vector<Bindings> g, const std::vector<std::string>& symbols) {
  const std::vector<Bindings> named{{{"M", 4}, {"N", 2}}, {{"M", 4}, {"N", 64}}, {{"M", 256}}, {{"M", 24}, {"N", 128}}, {{"M", 1}},
                                    {{"M", 2}},           {{"M", 3}, {"N", 16}},  {{"M", 128}, {"K", 64}}, {{"M", 256}, {"K", 128}},
                                    {{"M", 4096}, {"N", 6}}, {{"M", 256}, {"N", 6}}, {{"M", 288}, {"N", 8}}, {{"M", 11}, {"N", 8}},
                                    {{"M", 193}, {"N", 16}}, {{"M", 127}, {"N", 8}}, {{"M", 256}, {"N", 2}},
                                    {{"K", 64}, {"M", 65}, {"N", 32}}, {{"K", 64}, {"M", 97}, {"N", 64}}};
  for (const auto& b : named) {
    bool fits = b.size() == symbols.size();
    for (const auto& s : symbols) fits = fits && b.count(s);
    if (fits) g.push_back(b);
  }
  return g;
}

TEST(SymbolicSoundness, EveryReproducerOfIssue37AnswersRightUndecidedOrRefuses) {
  for (const auto& r : reproducers()) {
    std::vector<Bindings> inst;
    for (const auto& b : with_named_instances(grid(r.symbols), r.symbols)) {
      Json a{{"assume", r.args.value("assume", Json::array())}};
      bool ok = true;  // the instance satisfies the request's assumptions
      for (const auto& t : a["assume"]) ok = ok && holds_at(t.get<std::string>(), b);
      if (ok) inst.push_back(b);
    }
    EXPECT_EQ(check_answer(r.op, r.args, inst), "") << r.op << " " << r.args.dump();
  }
}

// Item 1 by hand: zipped_divide((M,N):(N,1), (4,2):(2,1)) at M=4, N=2 is the concrete
// (((2,2),2),1):(((4,1),2),0): A is (4,2):(2,1), B's modes 4:2 and 2:1 walk A's digits 4 and 2,
// so the tile is ((2,2),2):((4,1),2) and the rest 1. The case whose guard holds there says so.
TEST(SymbolicSoundness, TheZippedDivideOfItem1IsTheConcreteOneAtM4N2) {
  const Json reply = ask("zipped_divide", {{"a", "(M,N):(N,1)"}, {"tiler", "(4,2):(2,1)"}});
  ASSERT_TRUE(reply.contains("result")) << reply;
  const Bindings at{{"M", 4}, {"N", 2}};
  int found = 0;
  for (const auto& c : reply["result"]["cases"]) {
    bool guard = true;
    for (const auto& g : c["when"]) guard = guard && holds_at(g.get<std::string>(), at);
    if (!guard) continue;
    ++found;
    const Layout l = layout_from_json(instantiate(c["result"], at));
    const Layout hand = parse_layout("(((2,2),2),1):(((4,1),2),0)");
    ASSERT_EQ(l.size(), hand.size());
    for (int64_t i = 0; i < hand.size(); ++i) EXPECT_EQ(l(i), hand(i)) << i;
  }
  EXPECT_EQ(found, 1);
}

// Issue 46 items 2 to 4 by hand on logical_product((M-1):(4), 4:M). At M = 1 the extent M-1 is
// 0: the reference refuses (extent-positive §3), and a refusal case says so (no gap). The case
// whose guard is (3M^2-2M-1) % (4M-4) == 0 holds at M = 5 (64 % 16 == 0); since
// 3M^2-2M-1 = (M-1)(3M+1), the guard means 4 | 3M+1, i.e. M % 4 == 1, so its condition M%4 == 0
// fails at every instance of the case: refuted, or undecided where the solver cannot show it,
// never required (nor proved). Its guard's divisor 4M-4 is 0 at M = 1: said non-zero first.
TEST(SymbolicSoundness, ADeadConditionIsNotRequiredAndTheRefusalAtM1IsACase) {
  if (kSanitized) GTEST_SKIP() << "runs in the release build only: 3 s of Z3 there, about 30 s under ASan";
  const Json r = ask("logical_product", {{"a", "(M-1):(4)"}, {"tiler", "4:M"}});
  ASSERT_TRUE(r.contains("result")) << r;
  int refusals_at_1 = 0, dead = 0;
  for (const auto& c : r["result"]["cases"]) {
    if (guard_reading(c, {{"M", 1}}) == true) {
      ASSERT_TRUE(c.contains("refused")) << c;
      EXPECT_EQ(c["refused"]["rule"], "extent-positive");
      ++refusals_at_1;
    }
    if (guard_reading(c, {{"M", 5}}) != true) continue;
    const std::string g = c["when"].dump();
    EXPECT_LT(g.find("\"4*M-4 != 0\""), g.find("%(4*M-4)")) << g;
    for (const auto& k : c["conditions"])
      if (k["predicate"] == "M%4 == 0") {
        EXPECT_TRUE(k["status"] == "refuted" || k["status"] == "undecided") << k;
        ++dead;
      }
  }
  EXPECT_EQ(refusals_at_1, 1) << r;
  EXPECT_EQ(dead, 1) << r;
}

// Item 3 by hand: shape_div((M,N), N) with M % 32 == 0, M >= 256 and N even: where N % M != 0
// the second mode is N // (N//M), and N//M is 0 at M = 4096, N = 6 (6 < 4096): the condition
// N % (N//M) == 0 is printed after `N//M != 0`, and reads false (not undefined) there.
TEST(SymbolicSoundness, AConditionThatCouldDivideByZeroSaysItsDivisorIsNonZeroFirst) {
  const Json r = ask("shape_div", {{"a", Json::array({"M", "N"})}, {"b", "N"}, {"assume", {"N % 2 == 0", "M % 32 == 0", "M >= 256"}}});
  ASSERT_TRUE(r.contains("result")) << r;
  int seen = 0;
  for (const auto& c : r["result"]["cases"])
    for (const auto& k : c["conditions"])
      if (k["predicate"].get<std::string>().find("N%(N//M)") != std::string::npos) {
        EXPECT_EQ(k["predicate"], "N//M != 0 and N%(N//M) == 0") << k;
        EXPECT_EQ(reading(k["predicate"].get<std::string>(), {{"M", 4096}, {"N", 6}}), false);
        ++seen;
      }
  EXPECT_EQ(seen, 1) << r;
}

// Item 5: contradictory assumptions are an input error naming them; item 6: the same request
// gets the same answer however often it is asked (the budget is counted in solver queries).
TEST(SymbolicSoundness, AssumptionsWithNoInstanceAreAnInputError) {
  for (const auto& as : {Json{"M >= 5", "M <= 3"}, Json{"M < 0"}}) {
    const Json r = ask("coalesce", {{"layout", "(M,4):(1,M)"}, {"assume", as}});
    ASSERT_TRUE(r.contains("error")) << r;
    EXPECT_EQ(r["error"]["rule"], "prove-assumptions-inconsistent");
    EXPECT_EQ(r["error"]["kind"], "input");
  }
}

TEST(SymbolicSoundness, TheAnswerDoesNotDependOnTheMachine) {
  // three full derivations with Z3: 27 s under ASan; the reproducers above cover these paths there
  if (kSanitized) GTEST_SKIP() << "runs in the release build only: 27 s under ASan, and the reproducer test covers its paths";
  const Json args{{"a", "(M,N):(N,1)"}, {"tiler", "(4,2):(2,1)"}};
  const Json first = ask("zipped_divide", args);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(ask("zipped_divide", args), first);
  Json tight = args;
  tight["budget"] = 3;
  const Json r = ask("zipped_divide", tight);
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["rule"], "resource-limit");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("budget of 3 solver queries"), std::string::npos) << r;
}

// Item 7: one formula where one is right; `M*N//(64*M)` is `N//64`.
TEST(SymbolicSoundness, CasesEqualAsFunctionsMergeIntoOneFormula) {
  const Json r = ask("logical_divide", {{"a", "(M,K):(1,M)"}, {"tiler", Json{{"tiler", {"128:1", "64:1"}}}}, {"assume", {"M % 128 == 0", "K % 64 == 0"}}});
  ASSERT_TRUE(r.contains("result")) << r;
  ASSERT_EQ(r["result"]["cases"].size(), 1u) << r;
  EXPECT_EQ(to_string(layout_from_json(r["result"]["result"])), "((128,M//128),(64,K//64)):((1,128),(M,64*M))");
  const Json s = ask("size", {{"layout", "(M*N//(64*M)):(1)"}});
  EXPECT_EQ(s["result"]["result"], "N//64") << s;
}

// A normal form that would pass its size bound stops at once (item 6's 40-byte extent).
TEST(SymbolicSoundness, AnExplodingNormalFormIsAResourceLimitAtOnce) {
  const Json r = ask("coalesce", {{"layout", "(A+B+C+D+E+F+G+H+I+J)^16:1"}, {"timeout_ms", 100}});
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["rule"], "resource-limit");
}

// ---------------------------------------------------------------- the property

rc::Gen<std::string> extent_text() {
  return rc::gen::element<std::string>("1", "2", "3", "4", "8", "M", "N", "2*M", "M+1", "M*N", "M-1");
}
rc::Gen<std::string> stride_text() {
  return rc::gen::element<std::string>("0", "1", "2", "4", "8", "M", "N", "2*M", "M*N", "4*M");
}

std::string layout_text(const std::vector<std::string>& s, const std::vector<std::string>& d) {
  if (s.size() == 1) return s[0] + ":" + d[0];
  std::string a = "(", b = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    a += (i ? "," : "") + s[i];
    b += (i ? "," : "") + d[i];
  }
  return a + "):" + b + ")";
}

RC_GTEST_PROP(SymbolicSoundness, EveryAnswerAgreesWithTheConcreteReferenceAtEveryInstance, ()) {
  // each case runs Z3 and a few hundred concrete ops: about ten times slower under ASan
  if (kSanitized) RC_SUCCEED("runs in the release build only: the reproducer tests run under ASan");
  const int rank = *rc::gen::inRange(1, 3);
  std::vector<std::string> s, d;
  for (int i = 0; i < rank; ++i) {
    s.push_back(*extent_text());
    d.push_back(*stride_text());
  }
  const std::string a = layout_text(s, d);
  const std::string op = *rc::gen::element<std::string>("coalesce", "filter", "complement", "cosize", "composition", "logical_divide", "zipped_divide",
                                                        "tiled_divide", "logical_product", "right_inverse");
  Json args;
  const bool binary = op.find("divide") != std::string::npos || op.find("product") != std::string::npos || op == "composition";
  if (binary) {
    // a layout tiler (not by mode), concrete or with a symbol, or now and then a by-mode one
    const int tr = *rc::gen::inRange(1, 3);
    std::vector<std::string> ts, td;
    for (int i = 0; i < tr; ++i) {
      ts.push_back(*rc::gen::element<std::string>("2", "3", "4", "M"));
      td.push_back(*rc::gen::element<std::string>("1", "2", "4", "N"));
    }
    args = {{"a", a}, {"tiler", layout_text(ts, td)}};
  } else {
    args = {{"layout", a}};
  }
  std::set<std::string> names;
  for (const auto& t : {args.dump()})
    for (const char* n : {"M", "N"})
      if (t.find(n) != std::string::npos) names.insert(n);
  RC_PRE(!names.empty());
  RC_TAG(op);
  const std::vector<std::string> symbols(names.begin(), names.end());
  // a small budget: a problem past it is undecided, which is allowed (never wrong), and keeps
  // the property's time in CI bounded (a rank-2 product with symbolic strides can ask Z3 for long)
  args["budget"] = 600;
  args["timeout_ms"] = 5000;
  const std::string why = check_answer(op, args, grid(symbols));
  RC_ASSERT(why == "");
}

// Issue 46's properties (every case witnessed, exactly one guard at each instance with refusal
// cases, no undefined guard or condition, every counterexample real, `required` with one) on
// problems of rank 2 to 4, with symbolic strides, with and without assumptions: a fixed spread
// of problems picked by a seeded generator, so that the CI time stays bounded (a few seconds).
TEST(SymbolicSoundness, Issue46PropertiesHoldOnRank2To4ProblemsWithAndWithoutAssumptions) {
  if (kSanitized) GTEST_SKIP() << "runs in the release build only: Z3 on each problem, ten times slower under ASan";
  const std::vector<std::pair<std::string, Json>> problems{
      {"logical_divide", {{"a", "(M,N,4):(1,M,M*N)"}, {"tiler", "(2:1,4:1)"}, {"assume", {"M % 2 == 0"}}}},
      {"zipped_divide", {{"a", "(M,2,N):(2,1,2*M)"}, {"tiler", "(4:1)"}}},
      {"coalesce", {{"layout", "(M,2,N,4):(1,M,2*M,2*M*N)"}}},
      {"complement", {{"layout", "(2,M,4):(1,2,2*M)"}, {"cotarget", "16*M"}, {"assume", {"M <= 64"}}}},
      {"logical_product", {{"a", "(M,2):(2,1)"}, {"tiler", "(2:M)"}, {"assume", {"M >= 2"}}}},
      {"composition", {{"a", "(M,N,2):(N,1,M*N)"}, {"tiler", "(4:1)"}, {"assume", {"M >= 4", "N % 2 == 0"}}}},
      {"right_inverse", {{"layout", "(M,4,2):(4,1,4*M)"}}},
      {"shape_div", {{"a", Json::array({"M", "N", "4"})}, {"b", "8"}, {"assume", {"M % 2 == 0"}}}},
      {"filter", {{"layout", "(M,2,N,3):(0,M,2*M,0)"}}},
      {"tiled_divide", {{"a", "(M,N):(1,M)"}, {"tiler", "(4:1,2:1)"}, {"assume", {"M % 4 == 0", "N >= 2"}}}},
  };
  for (auto [op, args] : problems) {
    args["budget"] = 600;
    std::vector<std::string> symbols;
    for (const char* n : {"M", "N"})
      if (args.dump().find(n) != std::string::npos) symbols.push_back(n);
    std::vector<Bindings> inst;
    for (const auto& b : grid(symbols)) {
      bool ok = true;
      for (const auto& t : args.value("assume", Json::array())) ok = ok && holds_at(t.get<std::string>(), b);
      if (ok) inst.push_back(b);
    }
    EXPECT_EQ(check_answer(op, args, inst), "") << op << " " << args.dump();
  }
}

}  // namespace
}  // namespace tfspec::protocol
#endif
