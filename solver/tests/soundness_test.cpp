// Soundness properties of `tfspec prove` (issue 4): a PROVED goal holds on every concrete
// instantiation the reference checks; a REFUTED counterexample replays through the reference.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::solver {
namespace {

const std::vector<std::string> kSymbols{"M", "N", "K"};

rc::Gen<std::string> gen_extent() {
  return rc::gen::element<std::string>("1", "2", "3", "4", "M", "N", "K", "M*2", "N+1");
}
rc::Gen<std::string> gen_stride() {
  return rc::gen::element<std::string>("0", "1", "2", "3", "5", "M", "N", "K", "M*N", "M+1", "K*2", "N-1");
}

// A layout text over the symbols M, N, K: shape and stride congruent, rank 1..3; half of them
// compact (stride k = product of the extents before it), the rest with free strides.
rc::Gen<std::string> gen_symbolic_layout() {
  return rc::gen::mapcat(rc::gen::inRange(1, 4), [](int rank) {
    return rc::gen::map(rc::gen::tuple(rc::gen::container<std::vector<std::string>>(rank, gen_extent()),
                                       rc::gen::container<std::vector<std::string>>(rank, gen_stride()), rc::gen::arbitrary<bool>()),
                        [rank](const std::tuple<std::vector<std::string>, std::vector<std::string>, bool>& t) {
                          auto [s, d, compact] = t;
                          if (compact) {
                            std::string p = "1";
                            for (int i = 0; i < rank; ++i) {
                              d[i] = p;
                              p = "(" + p + ")*(" + s[i] + ")";
                            }
                          }
                          std::string st = "(", dt = "(";
                          for (int i = 0; i < rank; ++i) {
                            st += (i ? "," : "") + s[i];
                            dt += (i ? "," : "") + d[i];
                          }
                          return st + "):" + dt + ")";
                        });
  });
}

ProveOptions bounded_options() {
  ProveOptions o;
  o.assume = {"M <= 4", "N <= 4", "K <= 4"};
  o.timeout_ms = 300;
  return o;
}

Bindings symbols_of(const Json& cx) {
  Bindings b;
  for (const auto& [k, v] : cx["symbols"].items()) b[k] = v.get<int64_t>();
  return b;
}

// Every instance of the box [1, hi]^3 (symbols the layout does not use are harmless).
template <class F>
void for_each_instance(int64_t hi, F f) {
  for (int64_t m = 1; m <= hi; ++m)
    for (int64_t n = 1; n <= hi; ++n)
      for (int64_t k = 1; k <= hi; ++k) f(Bindings{{"M", m}, {"N", n}, {"K", k}});
}

Layout instance(const Layout& l, const Bindings& b) {
  auto sub = [&](const IntTuple& t) {
    std::vector<IntTuple> out;
    for (const auto& x : flat_leaves(t)) out.push_back(x.is_sym() ? IntTuple(evaluate(x.dim(), b)) : x);
    return IntTuple::tuple(out);
  };
  return Layout(sub(l.shape_ref()), sub(l.stride()));
}

bool admissible_instance(const Bindings& b, const Layout& l) {  // extents >= 1 where the layout exists
  for (const auto& x : flat_leaves(l.shape_ref()))
    if (x.is_sym() && evaluate(x.dim(), b) < 1) return false;
  return true;
}

RC_GTEST_PROP(ProveSoundness, InjectiveVerdictsHoldOnEveryBoundedInstance, ()) {
  const std::string text = *gen_symbolic_layout();
  const Layout l = parse_layout(text);
  ProveResult r = prove_injective(l, bounded_options());
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  if (r.verdict == Verdict::Proved) {
    for_each_instance(4, [&](const Bindings& b) {
      if (!admissible_instance(b, l)) return;
      RC_ASSERT(is_injective(instance(l, b)).injective);
    });
  } else if (r.verdict == Verdict::Refuted) {
    Layout c = instance(l, symbols_of(r.counterexample));
    RC_ASSERT(!is_injective(c).injective);
    const auto& cs = r.counterexample["coords"];
    RC_ASSERT(c.apply(coord_from_json(cs[0])) == c.apply(coord_from_json(cs[1])));
    RC_ASSERT(!(coord_from_json(cs[0]) == coord_from_json(cs[1])));
  }
}

RC_GTEST_PROP(ProveSoundness, UnboundedInjectiveProofsHoldOnSampledInstances, ()) {
  const Layout l = parse_layout(*gen_symbolic_layout());
  ProveOptions o;
  o.timeout_ms = 300;
  ProveResult r = prove_injective(l, o);
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  if (r.verdict == Verdict::Proved) {
    RC_ASSERT(r.scope == "all values");
    for_each_instance(6, [&](const Bindings& b) {
      if (admissible_instance(b, l)) RC_ASSERT(is_injective(instance(l, b)).injective);
    });
  } else if (r.verdict == Verdict::Refuted) {
    RC_ASSERT(!is_injective(instance(l, symbols_of(r.counterexample))).injective);
  }
}

RC_GTEST_PROP(ProveSoundness, InBoundsVerdictsHold, ()) {
  const Layout l = parse_layout(*gen_symbolic_layout());
  const std::string size = *rc::gen::element<std::string>("M*N", "M*N*K", "16", "M*4+N", "64");
  ProveResult r = prove_in_bounds(l, parse_dim(size), bounded_options());
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  auto in_bounds = [&](const Bindings& b) {
    Layout c = instance(l, b);
    const int64_t e = evaluate(parse_dim(size), b);
    for (int64_t i = 0; i < c.size(); ++i)
      if (c(i) < 0 || c(i) >= e) return false;
    return true;
  };
  if (r.verdict == Verdict::Proved) {
    for_each_instance(4, [&](const Bindings& b) {
      if (admissible_instance(b, l)) RC_ASSERT(in_bounds(b));
    });
  } else if (r.verdict == Verdict::Refuted) {
    RC_ASSERT(!in_bounds(symbols_of(r.counterexample)));
  }
}

RC_GTEST_PROP(ProveSoundness, EquivalenceVerdictsHold, ()) {
  const Layout a = parse_layout(*gen_symbolic_layout()), b = parse_layout(*gen_symbolic_layout());
  ProveResult r = prove_equivalent(a, b, bounded_options());
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  auto same = [&](const Bindings& bs) {
    Layout ca = instance(a, bs), cb = instance(b, bs);
    if (ca.size() != cb.size()) return false;
    for (int64_t i = 0; i < ca.size(); ++i)
      if (ca(i) != cb(i)) return false;
    return true;
  };
  if (r.verdict == Verdict::Proved) {
    for_each_instance(4, [&](const Bindings& bs) {
      if (admissible_instance(bs, a) && admissible_instance(bs, b)) RC_ASSERT(same(bs));
    });
  } else if (r.verdict == Verdict::Refuted) {
    RC_ASSERT(!same(symbols_of(r.counterexample)));
  }
}

RC_GTEST_PROP(ProveSoundness, AdmissibilityVerdictsAgreeWithTheReference, ()) {
  const Layout a = parse_layout(*gen_symbolic_layout());
  const std::string bs = *rc::gen::element<std::string>("M:1", "2:1", "4:2", "N:M", "(2,N):(1,2)", "K:2", "(M,2):(1,M)", "3:1");
  const Layout b = parse_layout(bs);
  ProveResult r = prove_admissible(a, b, bounded_options());
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  if (r.verdict == Verdict::Proved) {
    for_each_instance(4, [&](const Bindings& x) {
      if (admissible_instance(x, a) && admissible_instance(x, b)) RC_ASSERT(!composition_refusal(instance(a, x), instance(b, x)));
    });
  } else if (r.verdict == Verdict::Refuted) {
    const Bindings x = symbols_of(r.counterexample);
    RC_ASSERT(composition_refusal(instance(a, x), instance(b, x)).has_value());
  }
}

RC_GTEST_PROP(ProveSoundness, DivisibilityVerdictsHold, ()) {
  const std::string n = *rc::gen::element<std::string>("M", "M*4", "M*N", "N*8+4", "M*M", "K*6");
  const std::string d = *rc::gen::element<std::string>("2", "4", "N", "3", "M");
  ProveResult r = prove_divides(parse_dim(n), parse_dim(d), bounded_options());
  RC_TAG(to_string(r.verdict));
  RC_ASSERT(!r.replay_failed);
  if (r.verdict == Verdict::Proved) {
    for_each_instance(4, [&](const Bindings& b) { RC_ASSERT(evaluate(parse_dim(n), b) % evaluate(parse_dim(d), b) == 0); });
  } else if (r.verdict == Verdict::Refuted) {
    const Bindings b = symbols_of(r.counterexample);
    RC_ASSERT(evaluate(parse_dim(n), b) % evaluate(parse_dim(d), b) != 0);
  }
}

}  // namespace
}  // namespace tfspec::solver
