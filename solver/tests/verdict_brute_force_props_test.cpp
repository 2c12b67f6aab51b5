// Prover verdicts against brute force (first written for issue 9), a property over generated
// problems. Every PROVED is checked by brute force on a box of
// symbol values and every REFUTED's witness is replayed; the test evaluates dims, assumptions,
// offsets and the fits quantities with its own 128-bit arithmetic (lambdas beside each text), so
// nothing here relies on the prover's or the reference's evaluation. UNKNOWN is allowed (tagged).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {
namespace {

using i128 = __int128;
struct Values {
  i128 m, n, k;
};
// A dim (or an assumption) as text and as the test's own function of the symbol values.
struct Dim {
  std::string text;
  std::function<i128(const Values&)> value;
};
struct Assume {
  std::string text;
  std::function<bool(const Values&)> holds;
};

const std::vector<Dim> kExtents{
    {"1", [](const Values&) { return i128{1}; }}, {"2", [](const Values&) { return i128{2}; }},
    {"3", [](const Values&) { return i128{3}; }}, {"M", [](const Values& v) { return v.m; }},
    {"N", [](const Values& v) { return v.n; }},   {"K", [](const Values& v) { return v.k; }},
    {"5-M", [](const Values& v) { return 5 - v.m; }}};
const std::vector<Dim> kStrides{
    {"0", [](const Values&) { return i128{0}; }},       {"1", [](const Values&) { return i128{1}; }},
    {"2", [](const Values&) { return i128{2}; }},       {"M", [](const Values& v) { return v.m; }},
    {"N", [](const Values& v) { return v.n; }},         {"K*2", [](const Values& v) { return v.k * 2; }},
    {"M*N", [](const Values& v) { return v.m * v.n; }}, {"5-M", [](const Values& v) { return 5 - v.m; }},
    {"1+(M-3)*(M-3)", [](const Values& v) { return 1 + (v.m - 3) * (v.m - 3); }},
    {"M*4611686018427387904", [](const Values& v) { return v.m * (static_cast<i128>(1) << 62); }},
    {"N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N", [](const Values& v) { i128 p = 1; for (int i = 0; i < 16; ++i) p *= v.n; return p; }}};
const std::vector<Assume> kAssumptions{
    {"M % 2 == 0", [](const Values& v) { return v.m % 2 == 0; }},
    {"K < M", [](const Values& v) { return v.k < v.m; }},
    {"N != 2", [](const Values& v) { return v.n != 2; }},
    {"M*4611686018427387904 >= 1", [](const Values& v) { return v.m >= 1; }},
    {"M*N <= 6", [](const Values& v) { return v.m * v.n <= 6; }},
    {"M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M*M > 1",  // M^40 > 1
     [](const Values& v) { return v.m >= 2; }}};

struct Problem {
  std::vector<Dim> shape, stride;
  std::vector<Assume> assume;
  std::string layout() const {
    std::string s = "(", d = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
      s += (i ? "," : "") + shape[i].text;
      d += (i ? "," : "") + stride[i].text;
    }
    return s + "):" + d + ")";
  }
  ProveOptions options() const {
    ProveOptions o;
    o.assume = {"M <= 4", "N <= 4", "K <= 4"};  // the box [1, 4]^3 (with the default lower bound 1)
    for (const auto& a : assume) o.assume.push_back(a.text);
    o.timeout_ms = 80;  // the box has 64 instances: the search decides what Z3 does not in time
    return o;
  }
  bool admissible(const Values& v) const {  // the box, the assumptions, extents >= 1
    if (v.m < 1 || v.m > 4 || v.n < 1 || v.n > 4 || v.k < 1 || v.k > 4) return false;
    for (const auto& a : assume)
      if (!a.holds(v)) return false;
    for (const auto& s : shape)
      if (s.value(v) < 1) return false;
    return true;
  }
};

rc::Gen<Problem> gen_problem() {
  auto index = [](size_t n) { return rc::gen::inRange<size_t>(0, n); };
  return rc::gen::mapcat(rc::gen::inRange(1, 4), [index](int rank) {
    return rc::gen::map(rc::gen::tuple(rc::gen::container<std::vector<size_t>>(rank, index(kExtents.size())),
                                       rc::gen::container<std::vector<size_t>>(rank, index(kStrides.size())),
                                       rc::gen::container<std::vector<size_t>>(2, index(kAssumptions.size() + 2))),
                        [](const std::tuple<std::vector<size_t>, std::vector<size_t>, std::vector<size_t>>& t) {
                          Problem p;
                          for (auto i : std::get<0>(t)) p.shape.push_back(kExtents[i]);
                          for (auto i : std::get<1>(t)) p.stride.push_back(kStrides[i]);
                          for (auto i : std::get<2>(t))
                            if (i < kAssumptions.size()) p.assume.push_back(kAssumptions[i]);
                          return p;
                        });
  });
}

template <class F>
void for_each_in_box(F f) {
  for (i128 m = 1; m <= 4; ++m)
    for (i128 n = 1; n <= 4; ++n)
      for (i128 k = 1; k <= 4; ++k) f(Values{m, n, k});
}

Values values_of(const ProveResult& r) {
  auto get = [&](const char* s) -> i128 {
    const auto& j = r.counterexample["symbols"];
    return j.contains(s) ? j[s].get<int64_t>() : 1;  // a symbol the problem does not mention
  };
  return Values{get("M"), get("N"), get("K")};
}

bool injective_at(const Problem& p, const Values& v) {
  std::vector<i128> offs{0};
  for (size_t i = 0; i < p.shape.size(); ++i) {
    std::vector<i128> next;
    for (i128 c = 0; c < p.shape[i].value(v); ++c)
      for (i128 o : offs) next.push_back(o + c * p.stride[i].value(v));
    offs = next;
  }
  std::sort(offs.begin(), offs.end());
  return std::adjacent_find(offs.begin(), offs.end()) == offs.end();
}

void flat(const Json& j, std::vector<i128>& out) {
  if (j.is_array()) {
    for (const auto& x : j) flat(x, out);
  } else {
    out.push_back(j.get<int64_t>());
  }
}

void log(const Problem& p) {
  RC_LOG() << p.layout();
  for (const auto& a : p.assume) RC_LOG() << " --assume '" << a.text << "'";
  RC_LOG() << "\n";
}

RC_GTEST_PROP(VerdictBruteForceProps, InjectiveVerdictsAgainstBruteForce, ()) {
  const Problem p = *gen_problem();
  log(p);
  ProveResult r;
  try {
    r = prove_injective(parse_layout(p.layout()), p.options());
  } catch (const SpecError& e) {  // only inconsistent assumptions may be refused
    RC_TAG("input error");
    RC_ASSERT(e.rule() == "prove-assumptions-inconsistent");
    for_each_in_box([&](const Values& v) { RC_ASSERT(!p.admissible(v)); });
    return;
  }
  RC_TAG(to_string(r.verdict));
  RC_LOG() << to_text(r);
  RC_ASSERT(!r.replay_failed);
  if (r.verdict == Verdict::Proved) {
    for_each_in_box([&](const Values& v) {
      if (p.admissible(v)) RC_ASSERT(injective_at(p, v));
    });
  } else if (r.verdict == Verdict::Refuted) {
    Values v = values_of(r);
    if (r.counterexample["symbols"].empty()) {  // a layout without symbols: any admissible instance
      bool found = false;
      for_each_in_box([&](const Values& w) {
        if (!found && p.admissible(w)) v = w, found = true;
      });
      RC_ASSERT(found);
    }
    RC_ASSERT(p.admissible(v));
    std::vector<i128> x, y;
    flat(r.counterexample["coords"][0], x);
    flat(r.counterexample["coords"][1], y);
    RC_ASSERT(x.size() == p.shape.size() && y.size() == p.shape.size());
    i128 ox = 0, oy = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const i128 s = p.shape[i].value(v), d = p.stride[i].value(v);
      RC_ASSERT(x[i] >= 0 && x[i] < s && y[i] >= 0 && y[i] < s);
      ox += x[i] * d;
      oy += y[i] * d;
    }
    RC_ASSERT(x != y);
    RC_ASSERT(ox == oy);
  }
}

// The fits quantities (spec/PROVE.md) at their largest magnitude.
i128 largest_quantity(const Problem& p, const Values& v) {
  auto abs = [](i128 x) { return x < 0 ? -x : x; };
  i128 best = 0, size = 1, hi = 0, lo = 0;
  for (size_t i = 0; i < p.shape.size(); ++i) {
    const i128 s = p.shape[i].value(v), d = p.stride[i].value(v), span = (s - 1) * d;
    size *= s;
    hi += d > 0 ? span : 0;
    lo += d < 0 ? span : 0;
    for (i128 q : {s, d, span, size, hi, lo}) best = std::max(best, abs(q));
  }
  return best;
}

RC_GTEST_PROP(VerdictBruteForceProps, FitsInt64VerdictsAgainstBruteForce, ()) {
  const Problem p = *gen_problem();
  log(p);
  ProveResult r;
  try {
    r = prove_fits(parse_layout(p.layout()), 64, p.options());
  } catch (const SpecError& e) {
    RC_TAG("input error");
    RC_ASSERT(e.rule() == "prove-assumptions-inconsistent");
    for_each_in_box([&](const Values& v) { RC_ASSERT(!p.admissible(v)); });
    return;
  }
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  const i128 max = INT64_MAX;
  if (r.verdict == Verdict::Proved) {
    for_each_in_box([&](const Values& v) {
      if (p.admissible(v)) RC_ASSERT(largest_quantity(p, v) <= max);
    });
  } else if (r.verdict == Verdict::Refuted) {
    Values v = values_of(r);
    if (r.counterexample["symbols"].empty()) {  // a layout without symbols: any admissible instance
      bool found = false;
      for_each_in_box([&](const Values& w) {
        if (!found && p.admissible(w)) v = w, found = true;
      });
      RC_ASSERT(found);
    }
    RC_ASSERT(p.admissible(v));
    RC_ASSERT(largest_quantity(p, v) > max);
  }
}

// c | N for a constant c, no declared box (the residue strategy and the unbounded search).
RC_GTEST_PROP(VerdictBruteForceProps, DivisibilityByAConstantAgainstBruteForce, ()) {
  const std::vector<Dim> extents{{"M*(M+1)", [](const Values& v) { return v.m * (v.m + 1); }},
                                 {"M*M", [](const Values& v) { return v.m * v.m; }},
                                 {"M*N+M", [](const Values& v) { return v.m * v.n + v.m; }},
                                 {"M*(M+1)*(M+2)", [](const Values& v) { return v.m * (v.m + 1) * (v.m + 2); }},
                                 {"2*M+4", [](const Values& v) { return 2 * v.m + 4; }},
                                 {"M*M*M-M", [](const Values& v) { return v.m * v.m * v.m - v.m; }},
                                 {"N*N+N+2", [](const Values& v) { return v.n * v.n + v.n + 2; }}};
  const std::vector<Assume> assume{{"M % 2 == 0", [](const Values& v) { return v.m % 2 == 0; }},
                                   {"N % 3 == 1", [](const Values& v) { return v.n % 3 == 1; }},
                                   {"M == 2*N + 1", [](const Values& v) { return v.m == 2 * v.n + 1; }}};
  const Dim e = *rc::gen::elementOf(extents);
  const int64_t c = *rc::gen::element<int64_t>(2, 3, 4, 6, 8);
  const auto picked = *rc::gen::container<std::vector<bool>>(assume.size(), rc::gen::arbitrary<bool>());
  ProveOptions o;
  o.timeout_ms = 150;
  std::vector<Assume> used;
  for (size_t i = 0; i < assume.size(); ++i)
    if (picked[i]) {
      o.assume.push_back(assume[i].text);
      used.push_back(assume[i]);
    }
  auto ok = [&](const Values& v) {
    for (const auto& a : used)
      if (!a.holds(v)) return false;
    return v.m >= 1 && v.n >= 1;
  };
  ProveResult r;
  try {
    r = prove_divides(parse_dim(e.text), dim_const(c), o);
  } catch (const SpecError& err) {  // e.g. M even and M == 2N + 1
    RC_TAG("input error");
    RC_ASSERT(err.rule() == "prove-assumptions-inconsistent");
    for (i128 m = 1; m <= 48; ++m)
      for (i128 n = 1; n <= 48; ++n) RC_ASSERT(!ok(Values{m, n, 1}));
    return;
  }
  RC_TAG(to_string(r.verdict));
  RC_LOG() << e.text << " by " << c << ": " << to_text(r);
  RC_ASSERT(!r.replay_failed);
  if (r.verdict == Verdict::Proved) {
    for (i128 m = 1; m <= 48; ++m)
      for (i128 n = 1; n <= 48; ++n)
        if (ok(Values{m, n, 1})) RC_ASSERT(e.value(Values{m, n, 1}) % c == 0);
  } else if (r.verdict == Verdict::Refuted) {
    const Values v = values_of(r);
    RC_ASSERT(ok(v));
    RC_ASSERT(e.value(v) % c != 0);
  }
}

}  // namespace
}  // namespace tfspec::solver
