// Strategies, cheapest first (spec/PROVE.md): the reference on a concrete goal; a structural
// argument; Z3 over unbounded integers; Z3 over integers bounded by the declared bounds; the
// reference on every instance of a small bounded box. The first that decides names itself.
#include "engine.hpp"

#include <algorithm>
#include <chrono>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string ms(double s) { return std::to_string(static_cast<int64_t>(s * 1000 + 0.5)) + " ms"; }

struct Pipeline {
  Encoder& enc;
  GoalSpec& spec;
  const ProveOptions& o;
  Assumptions as;
  ProveResult r;
  std::vector<z3::expr> base;  // assumptions, definedness, well-formedness

  std::optional<Bindings> model_bindings(const z3::model& m) {
    Bindings b;
    for (const auto& s : as.symbols) {
      auto v = model_int(m, enc.symbol(s));
      if (!v) return std::nullopt;
      b[s] = *v;
    }
    return b;
  }

  void refuted(const std::string& method, Counterexample cx) {
    r.verdict = Verdict::Refuted;
    r.method = method;
    r.counterexample = std::move(cx.json);
    r.counterexample_text = std::move(cx.text);
  }

  void proved(const std::string& method, const std::string& scope) {
    r.verdict = Verdict::Proved;
    r.method = method;
    r.scope = scope;
  }

  // A counterexample at `b` becomes REFUTED only when the assumptions hold there and the reference
  // confirms it; otherwise the answer is a replay failure (a tfspec bug), never a counterexample.
  bool confirm(const std::string& method, const std::string& source, const Bindings& b,
               const std::function<std::optional<Counterexample>()>& replay) {
    std::optional<Counterexample> cx;
    std::string why;
    try {
      if (holds(as, b)) cx = replay();
      else why = "the assumptions do not hold at " + to_string(b);
    } catch (const SpecError& e) {
      why = e.what();
    }
    if (cx) {
      refuted(method, std::move(*cx));
      return true;
    }
    r.replay_failed = true;
    r.reason = "replay-failed: " + source + " counterexample (" + to_string(b) + ") is not confirmed by the reference" +
               (why.empty() ? "" : ": " + why) + " (a bug in tfspec; please report)";
    return true;
  }

  // A sat answer: decode, check the assumptions hold there, replay with the reference.
  bool take_model(const std::string& method, const z3::model& m) {
    auto b = model_bindings(m);
    if (!b) {
      r.attempts.push_back(method + ": a counterexample exists only with symbol values beyond int64");
      return false;
    }
    return confirm(method, "the solver's", *b, [&] { return spec.replay(m, *b); });
  }

  std::string smt2_path(const std::string& name) {
    if (o.smt2_prefix.empty()) return {};
    std::string p = o.smt2_prefix + "-" + name + ".smt2";
    r.smt2_files.push_back(p);
    return p;
  }

  // One Z3 strategy; true when it decided (or found a bug).
  bool z3_strategy(const std::string& method, const std::vector<z3::expr>& extra, const std::string& scope) {
    std::vector<z3::expr> all = base;
    all.insert(all.end(), extra.begin(), extra.end());
    all.insert(all.end(), spec.negated.begin(), spec.negated.end());
    QueryOutcome q = check(enc.ctx(), all, Limits{o.timeout_ms, o.rlimit}, spec.logic, smt2_path(spec.goal + "-" + method),
                           spec.goal + " (" + method + ")");
    if (q.result == z3::unsat) {
      r.attempts.push_back(method + ": unsat in " + ms(q.seconds));
      proved(method, scope);
      return true;
    }
    if (q.result == z3::sat) {
      r.attempts.push_back(method + ": sat in " + ms(q.seconds));
      if (take_model(method, *q.model)) return true;
      // Values beyond int64: look for a counterexample the reference can replay.
      std::vector<z3::expr> small = all;
      const z3::expr lim = enc.ctx().int_val(int64_t{1} << 20);
      for (const auto& s : as.symbols) small.push_back(enc.symbol(s) >= -lim && enc.symbol(s) <= lim);
      QueryOutcome q2 = check(enc.ctx(), small, Limits{o.timeout_ms, o.rlimit}, spec.logic, "", "");
      if (q2.result == z3::sat && take_model(method, *q2.model)) return true;
      return false;
    }
    r.attempts.push_back(method + ": unknown (" + q.reason + ") after " + ms(q.seconds));
    return false;
  }

  // Overflow goals over 64-bit bit-vectors within the declared bounds; true when it decided.
  bool bitvector_strategy() {
    const std::string method = "z3-bitvector";
    BitvectorOutcome q = spec.bitvector(as, Limits{o.timeout_ms, o.rlimit}, smt2_path(spec.goal + "-" + method));
    if (q.result == z3::unsat) {
      r.attempts.push_back(method + ": unsat in " + ms(q.seconds));
      proved(method, "within declared bounds");
      return true;
    }
    if (q.result == z3::unknown) {
      r.attempts.push_back(method + ": unknown (" + q.reason + ") after " + ms(q.seconds));
      return false;
    }
    if (q.expression_overflow || !q.bindings) {
      r.attempts.push_back(method + ": undecided, a dim expression leaves int64 within the bounds");
      return false;
    }
    r.attempts.push_back(method + ": sat in " + ms(q.seconds));
    return confirm(method, "the bit-vector", *q.bindings, [&] { return spec.concrete(*q.bindings); });
  }

  bool all_bounded(std::string& missing) {
    for (const auto& s : as.symbols) {
      const auto& b = as.bounds[s];
      if (!b.lo || !b.hi) {
        missing = s;
        return false;
      }
    }
    return true;
  }

  std::vector<z3::expr> bound_constraints() {
    std::vector<z3::expr> out;
    for (const auto& s : as.symbols) {
      const auto& b = as.bounds[s];
      out.push_back(enc.symbol(s) >= enc.ctx().int_val(*b.lo) && enc.symbol(s) <= enc.ctx().int_val(*b.hi));
    }
    return out;
  }

  bool wellformed_at(const Bindings& b) {
    z3::expr_vector from(enc.ctx()), to(enc.ctx());
    for (const auto& [name, v] : b) {
      from.push_back(enc.symbol(name));
      to.push_back(enc.ctx().int_val(v));
    }
    std::vector<z3::expr> conds = spec.wellformed;
    conds.insert(conds.end(), enc.definedness().begin(), enc.definedness().end());
    for (auto c : conds)
      if (!c.substitute(from, to).simplify().is_true()) return false;
    return true;
  }

  // The reference on every instance of the bounded box (exact within the bounds).
  bool exhaustive() {
    std::string missing;
    if (!all_bounded(missing)) return false;
    std::vector<std::string> names(as.symbols.begin(), as.symbols.end());
    int64_t count = 1;
    for (const auto& s : names) {
      const __int128 n = static_cast<__int128>(*as.bounds[s].hi) - *as.bounds[s].lo + 1;
      if (n <= 0) {
        count = 0;
        break;
      }
      if (static_cast<__int128>(count) * n > o.max_instances) {
        count = o.max_instances + 1;
        break;
      }
      count *= static_cast<int64_t>(n);
    }
    if (count > o.max_instances) {
      r.attempts.push_back("exhaustive: skipped, the bounded box has more than " + std::to_string(o.max_instances) + " instances");
      return false;
    }
    auto start = Clock::now();
    Bindings b;
    for (const auto& s : names) b[s] = *as.bounds[s].lo;
    int64_t checked = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (i > 0)
        for (const auto& s : names) {  // odometer
          if (b[s] < *as.bounds[s].hi) {
            ++b[s];
            break;
          }
          b[s] = *as.bounds[s].lo;
        }
      if (!holds(as, b) || !wellformed_at(b)) continue;
      ++checked;
      std::optional<Counterexample> cx;
      try {
        cx = spec.concrete(b);
      } catch (const SpecError& e) {
        r.attempts.push_back("exhaustive: undecided at " + to_string(b) + ": " + e.what());
        return false;
      }
      if (cx) {
        r.attempts.push_back("exhaustive: counterexample after " + std::to_string(checked) + " instances in " + ms(since(start)));
        refuted("exhaustive", std::move(*cx));
        return true;
      }
    }
    r.attempts.push_back("exhaustive: " + std::to_string(checked) + " instances hold, " + ms(since(start)));
    proved("exhaustive", "within declared bounds");
    return true;
  }
};

}  // namespace

ProveResult run_goal(Encoder& enc, GoalSpec& spec, const ProveOptions& o) {
  auto start = Clock::now();
  Pipeline p{enc, spec, o, make_assumptions(o.assume, spec.symbols), {}, {}};
  p.r.goal = spec.goal;
  p.r.clause = spec.clause;
  p.r.assumptions = p.as.texts;
  p.r.wellformed = spec.wellformed_text;
  for (const auto& rel : p.as.relations) p.base.push_back(enc.relation(rel));
  for (const auto& t : enc.definedness_text())
    if (std::find(p.r.wellformed.begin(), p.r.wellformed.end(), t) == p.r.wellformed.end()) p.r.wellformed.push_back(t);
  p.base.insert(p.base.end(), spec.wellformed.begin(), spec.wellformed.end());
  p.base.insert(p.base.end(), enc.definedness().begin(), enc.definedness().end());

  auto finish = [&]() {
    p.r.seconds = since(start);
    return p.r;
  };
  if (spec.symbols.empty()) {  // concrete: the reference decides exactly
    try {
      auto cx = spec.concrete(Bindings{});
      p.r.attempts.push_back("reference: decided on the concrete objects");
      if (cx) p.refuted("reference", std::move(*cx));
      else p.proved("reference", "all values");
      if (!o.smt2_prefix.empty()) {
        std::vector<z3::expr> all = p.base;
        all.insert(all.end(), spec.negated.begin(), spec.negated.end());
        check(enc.ctx(), all, Limits{o.timeout_ms, o.rlimit}, spec.logic, p.smt2_path(spec.goal + "-z3-unbounded"), spec.goal);
      }
      return finish();
    } catch (const SpecError& e) {
      p.r.attempts.push_back(std::string("reference: undecided: ") + e.what());
    }
  }
  {  // vacuous truth is no proof: the assumptions must admit at least one well-formed instance
    QueryOutcome q = check(enc.ctx(), p.base, Limits{o.rlimit ? o.timeout_ms : std::min(o.timeout_ms, 1000u), o.rlimit}, spec.logic, "", "");
    if (q.result == z3::unsat)
      fail("prove-assumptions-inconsistent", "§1",
           "no symbol values satisfy the assumptions together with the well-formedness conditions (extents >= 1, divisors != 0)");
  }
  if (spec.structural && o.structural) {
    auto t = Clock::now();
    if (auto m = spec.structural(p.base)) {
      p.r.attempts.push_back(*m + ": proved in " + ms(since(t)));
      p.proved(*m, "all values");
      if (!o.smt2_prefix.empty()) {  // still export the obligation so that another solver can check it
        std::vector<z3::expr> all = p.base;
        all.insert(all.end(), spec.negated.begin(), spec.negated.end());
        write_smt2(enc.ctx(), all, spec.logic, p.smt2_path(spec.goal + "-z3-unbounded"), spec.goal + " (z3-unbounded)");
      }
      return finish();
    }
    p.r.attempts.push_back("structural: does not apply");
  }
  if (o.z3_unbounded && p.z3_strategy("z3-unbounded", {}, "all values")) return finish();
  std::string missing;
  if (p.all_bounded(missing)) {
    if (spec.bitvector && o.z3_bitvector && p.bitvector_strategy()) return finish();
    if (o.z3_bounded && p.z3_strategy("z3-bounded", p.bound_constraints(), "within declared bounds")) return finish();
    if (o.exhaustive && p.exhaustive()) return finish();
  } else {
    p.r.attempts.push_back("z3-bounded: skipped, no declared upper bound for " + missing);
  }
  std::string why;
  for (const auto& a : p.r.attempts) why += (why.empty() ? "" : "; ") + a;
  p.r.reason = why;
  return finish();
}

z3::expr sum(z3::context& ctx, const std::vector<z3::expr>& xs) {
  z3::expr s = ctx.int_val(0);
  for (const auto& x : xs) s = s + x;
  return s;
}

z3::expr product(z3::context& ctx, const std::vector<z3::expr>& xs) {
  z3::expr s = ctx.int_val(1);
  for (const auto& x : xs) s = s * x;
  return s;
}

Json bindings_json(const Bindings& b) {
  Json j = Json::object();
  for (const auto& [k, v] : b) j[k] = v;
  return j;
}

std::vector<int64_t> flat_extents(const Layout& l) {
  std::vector<int64_t> out;
  for (const auto& x : flat_leaves(l.shape_ref())) out.push_back(x.value());
  return out;
}

std::vector<int64_t> flat_strides(const Layout& l) {
  std::vector<int64_t> out;
  for (const auto& x : flat_leaves(l.stride())) out.push_back(x.value());
  return out;
}

std::string at(const Bindings& b) { return b.empty() ? "" : "at " + to_string(b) + ": "; }

std::string leaf_text(const IntTuple& leaf) { return leaf.is_sym() ? tfspec::to_string(leaf.dim()) : describe_leaf(leaf); }

int64_t colex_index(const std::vector<int64_t>& c, const Layout& l) {
  auto s = flat_extents(l);
  int64_t idx = 0, scale = 1;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] < 0 || c[i] >= s[i]) fail("coord-in-domain", "§3", "coordinate component out of its mode's extent");
    idx = checked_add(idx, checked_mul(c[i], scale));
    scale = checked_mul(scale, s[i]);
  }
  return idx;
}

void extents_wellformed(GoalSpec& g, const FlatModes& f) {
  for (size_t i = 0; i < f.shape.size(); ++i)
    if (!f.shape_leaves[i].is_int()) {
      g.wellformed.push_back(f.shape[i] >= 1);
      g.wellformed_text.push_back(leaf_text(f.shape_leaves[i]) + " >= 1");
    }
}

GoalSpec two_layout_goal(const std::string& goal, const std::string& clause, const Layout& a, const Layout& b,
                         const FlatModes& fa, const FlatModes& fb) {
  GoalSpec g;
  g.goal = goal;
  g.clause = clause;
  g.symbols = layout_symbols(a);
  for (const auto& s : layout_symbols(b)) g.symbols.insert(s);
  extents_wellformed(g, fa);
  extents_wellformed(g, fb);
  return g;
}

}  // namespace tfspec::solver
