// Issue 19, item 1: `prove divides` has one meaning for every strategy (spec/PROVE.md, "divides").
// A divisor is a mesh extent: a concrete divisor below 1 is the input error
// prove-divisor-nonpositive; a symbolic divisor D exists only where D >= 1 (a well-formedness
// condition, like every symbolic extent). Each goal is run with one strategy at a time: the
// verdicts they decide must agree, and each is checked with the test's own 128-bit arithmetic
// (the lambdas beside each text), never with the prover's or the reference's evaluation.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <optional>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {
namespace {

using i128 = __int128;
struct Values {
  i128 m, n;
};
struct Dim {
  std::string text;
  std::function<i128(const Values&)> value;
  bool symbolic;
};
struct Assume {
  std::string text;
  std::function<bool(const Values&)> holds;
};

i128 floor_mod(i128 a, i128 d) {  // the sign follows the divisor (spec: floor modulo)
  i128 r = a % d;
  return (r != 0 && ((r < 0) != (d < 0))) ? r + d : r;
}

const std::vector<Dim> kExtents{
    {"0", [](const Values&) { return i128{0}; }, false},
    {"6", [](const Values&) { return i128{6}; }, false},
    {"7", [](const Values&) { return i128{7}; }, false},
    {"-4", [](const Values&) { return i128{-4}; }, false},
    {"M", [](const Values& v) { return v.m; }, true},
    {"M*3", [](const Values& v) { return v.m * 3; }, true},
    {"M*N+M", [](const Values& v) { return v.m * v.n + v.m; }, true},
    {"2*M+1", [](const Values& v) { return 2 * v.m + 1; }, true},
    {"N*6", [](const Values& v) { return v.n * 6; }, true}};
const std::vector<Dim> kDivisors{
    {"-3", [](const Values&) { return i128{-3}; }, false},
    {"0", [](const Values&) { return i128{0}; }, false},
    {"1", [](const Values&) { return i128{1}; }, false},
    {"2", [](const Values&) { return i128{2}; }, false},
    {"3", [](const Values&) { return i128{3}; }, false},
    {"M", [](const Values& v) { return v.m; }, true},
    {"N", [](const Values& v) { return v.n; }, true},
    {"M-3", [](const Values& v) { return v.m - 3; }, true},
    {"3-M", [](const Values& v) { return 3 - v.m; }, true}};
const std::vector<Assume> kAssumptions{
    {"M <= 6", [](const Values& v) { return v.m <= 6; }},
    {"N <= 6", [](const Values& v) { return v.n <= 6; }},
    {"M % 3 == 0", [](const Values& v) { return v.m % 3 == 0; }},
    {"M == 3037000499", [](const Values& v) { return v.m == 3037000499; }},
    {"M*M == 36", [](const Values& v) { return v.m * v.m == 36; }}};

struct Goal {
  Dim extent, divisor;
  std::vector<Assume> assume;
  bool admissible(const Values& v) const {  // the defaults (symbols >= 1), the assumptions, D >= 1 where symbolic
    if (v.m < 1 || v.n < 1) return false;
    for (const auto& a : assume)
      if (!a.holds(v)) return false;
    if (extent.symbolic && extent.value(v) < 1) return false;
    return divisor.value(v) >= 1;
  }
  bool divides(const Values& v) const { return floor_mod(extent.value(v), divisor.value(v)) == 0; }
};

rc::Gen<Goal> gen_goal() {
  // At most two assumptions (an index past the list is none): most pairs are consistent.
  const auto index = rc::gen::inRange<size_t>(0, kAssumptions.size() + 2);
  return rc::gen::map(rc::gen::tuple(rc::gen::elementOf(kExtents), rc::gen::elementOf(kDivisors),
                                     rc::gen::container<std::vector<size_t>>(2, index)),
                      [](const std::tuple<Dim, Dim, std::vector<size_t>>& t) {
                        Goal g{std::get<0>(t), std::get<1>(t), {}};
                        for (size_t i : std::get<2>(t))
                          if (i < kAssumptions.size()) g.assume.push_back(kAssumptions[i]);
                        return g;
                      });
}

// One strategy alone (the reference on a goal without symbols and the consistency check always run).
struct Config {
  std::string name;
  std::function<void(ProveOptions&)> only;
};
const std::vector<Config> kConfigs{
    {"all", [](ProveOptions&) {}},
    {"structural", [](ProveOptions& o) { o.z3_unbounded = o.z3_bounded = o.z3_bitvector = o.exhaustive = o.search = false; }},
    {"z3-unbounded", [](ProveOptions& o) { o.structural = o.z3_bounded = o.z3_bitvector = o.exhaustive = o.search = false; }},
    {"z3-bounded", [](ProveOptions& o) { o.structural = o.z3_unbounded = o.z3_bitvector = o.exhaustive = o.search = false; }},
    {"exhaustive", [](ProveOptions& o) { o.structural = o.z3_unbounded = o.z3_bounded = o.z3_bitvector = o.search = false; }},
    {"search", [](ProveOptions& o) { o.structural = o.z3_unbounded = o.z3_bounded = o.z3_bitvector = o.exhaustive = false; }}};

struct Outcome {
  std::optional<Verdict> verdict;  // nullopt: an input error
  std::string rule;
  ProveResult result;
};

Outcome run(const Goal& g, const Config& c) {
  ProveOptions o;
  for (const auto& a : g.assume) o.assume.push_back(a.text);
  o.timeout_ms = 60000;  // the resource limit decides, not the machine's load
  o.rlimit = 2'000'000;
  o.max_search = 3000;
  c.only(o);
  try {
    ProveResult r = prove_divides(parse_dim(g.extent.text), parse_dim(g.divisor.text), o);
    return {r.verdict, "", r};
  } catch (const SpecError& e) {
    return {std::nullopt, e.rule(), {}};
  }
}

// The counterexample's symbol values, or all values a symbol it does not bind may take here (a
// goal without that symbol fails for each of them; an assumption may still restrict it).
std::vector<i128> values_of(const ProveResult& r, const char* s) {
  const Json& j = r.counterexample["symbols"];
  if (j.contains(s)) return {j[s].get<int64_t>()};
  std::vector<i128> all{3037000499};
  for (i128 v = 1; v <= 12; ++v) all.push_back(v);
  return all;
}

// Some instance the counterexample describes is admissible and fails to divide.
bool refutes(const Goal& g, const ProveResult& r) {
  for (i128 m : values_of(r, "M"))
    for (i128 n : values_of(r, "N"))
      if (g.admissible(Values{m, n}) && !g.divides(Values{m, n})) return true;
  return false;
}

// Every admissible instance in [1, 12]^2 (and M = 3037000499, which one assumption names) divides.
bool holds_on_box(const Goal& g) {
  auto ok = [&](const Values& v) { return !g.admissible(v) || g.divides(v); };
  for (i128 m = 1; m <= 12; ++m)
    for (i128 n = 1; n <= 12; ++n)
      if (!ok(Values{m, n}) || !ok(Values{3037000499, n})) return false;
  return true;
}

RC_GTEST_PROP(DividesAgree, EveryStrategyDecidesTheSameWay, ()) {
  const Goal g = *gen_goal();
  RC_LOG() << "prove divides -- '" << g.extent.text << "' '" << g.divisor.text << "'";
  for (const auto& a : g.assume) RC_LOG() << " --assume '" << a.text << "'";
  RC_LOG() << "\n";
  const bool constant_divisor = !g.divisor.symbolic;
  const bool nonpositive = constant_divisor && g.divisor.value(Values{1, 1}) < 1;
  std::optional<Verdict> decided;
  bool inconsistent = false;
  for (const auto& c : kConfigs) {
    Outcome out = run(g, c);
    RC_LOG() << c.name << ": " << (out.verdict ? to_string(*out.verdict) : "error " + out.rule) << "\n";
    if (nonpositive) {  // checked up front, before any strategy
      RC_ASSERT(!out.verdict);
      RC_ASSERT(out.rule == std::string("prove-divisor-nonpositive"));
      continue;
    }
    if (!out.verdict) {  // only assumptions that no instance satisfies are refused
      RC_ASSERT(out.rule == std::string("prove-assumptions-inconsistent"));
      RC_ASSERT(!decided);
      inconsistent = true;
      continue;
    }
    RC_ASSERT(!out.result.replay_failed);
    if (*out.verdict == Verdict::Unknown) continue;
    if (decided) RC_ASSERT(*decided == *out.verdict);
    decided = out.verdict;
    if (*out.verdict == Verdict::Refuted) {
      RC_ASSERT(refutes(g, out.result));
    } else {
      RC_ASSERT(holds_on_box(g));
    }
  }
  RC_ASSERT(!(inconsistent && decided));
  RC_TAG(nonpositive ? "non-positive constant divisor" : inconsistent ? "inconsistent assumptions" : decided ? to_string(*decided) : "undecided");
}

// The three cases of the issue, by hand: -3 | 6 and 0 | 0 are refused (a divisor is an extent,
// >= 1), whatever the extent; `M*3` by -3 is refused under any assumption.
TEST(DividesAgree, NonPositiveConstantDivisorIsAnInputError) {
  auto rule_of = [](const std::string& n, const std::string& d, std::vector<std::string> assume) {
    ProveOptions o;
    o.assume = std::move(assume);
    try {
      prove_divides(parse_dim(n), parse_dim(d), o);
    } catch (const SpecError& e) {
      return e.rule();
    }
    return std::string("no error");
  };
  EXPECT_EQ(rule_of("6", "-3", {}), "prove-divisor-nonpositive");
  EXPECT_EQ(rule_of("0", "0", {}), "prove-divisor-nonpositive");
  EXPECT_EQ(rule_of("M*3", "-3", {"M == 3037000499"}), "prove-divisor-nonpositive");
  EXPECT_EQ(rule_of("M*3", "-3", {"M*M == 1000000000000"}), "prove-divisor-nonpositive");
}

// A symbolic divisor exists where it is >= 1: `M-3 | 6` is refuted only by an instance with
// M-3 >= 1 (M = 7: 4 does not divide 6); M = 2 (M-3 = -1, which would "divide" 6) is no instance.
TEST(DividesAgree, SymbolicDivisorIsAPositiveExtent) {
  ProveOptions o;
  o.assume = {"M <= 7"};
  ProveResult r = prove_divides(parse_dim("6"), parse_dim("M-3"), o);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << to_text(r);
  const int64_t m = r.counterexample["symbols"]["M"].get<int64_t>();
  EXPECT_EQ(m, 7) << to_text(r);  // 1 <= M-3 <= 4 and 6 mod (M-3) != 0: only M-3 = 4
  o.assume = {"M <= 6"};  // M-3 in {1, 2, 3}: each divides 6
  r = prove_divides(parse_dim("6"), parse_dim("M-3"), o);
  EXPECT_EQ(r.verdict, Verdict::Proved) << to_text(r);
}

}  // namespace
}  // namespace tfspec::solver
