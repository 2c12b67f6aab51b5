// §3 admissibility of A ∘ B with symbolic dims. The reference decides a concrete composition by
// coalescing A and walking each mode of B through A's mixed radix (reference/src/layout/algebra.cpp,
// compose_mode: left divisibility of stride and shape, B's image inside A's domain, no carries
// between B's modes). Here the same walk runs over Z3 terms: each comparison it branches on
// forks the path (paths Z3 proves infeasible under the assumptions are pruned), and every path
// that ends in a refusal contributes its path condition. A ∘ B is admissible for all values
// exactly when no refusal path is satisfiable; a model is replayed through composition_refusal.
#include <z3++.h>

#include "engine.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

constexpr size_t kMaxPaths = 2048;

struct Infeasible {};

// Re-executes the walk once per path; a path is the list of decisions at the branches that are
// not constant under simplification.
class Explorer {
 public:
  Explorer(z3::context& ctx, const std::vector<z3::expr>& base, unsigned timeout_ms, unsigned rlimit, Budget& budget)
      : ctx_(ctx), solver_(z3::tactic(ctx, "smt").mk_solver()), budget_(budget), timeout_ms_(std::max(1u, timeout_ms)) {
    z3::params p(ctx);
    p.set("timeout", timeout_ms_);
    p.set("rlimit", rlimit ? rlimit : timeout_ms_ * 2000u + 1000u);
    solver_.set(p);
    for (const auto& b : base) solver_.add(b);
    solver_.push();
  }

  bool next_path() {
    if (started_ && work_.empty()) return false;
    if (started_) {
      prefix_ = work_.back();
      work_.pop_back();
    }
    started_ = true;
    pos_ = 0;
    path_.clear();
    return true;
  }

  bool branch(const z3::expr& cond) {
    z3::expr c = cond.simplify();
    if (c.is_true()) return true;
    if (c.is_false()) return false;
    bool take;
    if (pos_ < prefix_.size()) {
      take = prefix_[pos_];
    } else {
      const bool t = feasible(c), f = feasible(!c);
      if (!t && !f) throw Infeasible{};
      take = t;
      if (t && f) {
        auto alt = prefix_;
        alt.push_back(false);
        work_.push_back(std::move(alt));
      }
      prefix_.push_back(take);
    }
    ++pos_;
    path_.push_back(take ? c : !c);
    return take;
  }

  z3::expr path_condition() const {
    z3::expr all = ctx_.bool_val(true);
    for (const auto& c : path_) all = all && c;
    return all;
  }
  size_t explored = 0;

 private:
  bool feasible(const z3::expr& c) {  // unknown counts as feasible (never prunes wrongly)
    z3::expr_vector as(ctx_);
    for (const auto& p : path_) as.push_back(p);
    as.push_back(c);
    if (budget_.expired()) return true;
    solver_.push();
    for (const auto& a : as) solver_.add(a);
    z3::check_result r = z3::unknown;
    budget_.arm(timeout_ms_);
    try {
      r = solver_.check();
    } catch (const z3::exception&) {  // interrupted: keep the branch
    }
    budget_.disarm();
    solver_.pop();
    return r != z3::unsat;
  }

  z3::context& ctx_;
  z3::solver solver_;
  Budget& budget_;
  unsigned timeout_ms_;
  std::vector<std::vector<bool>> work_;
  std::vector<bool> prefix_;
  std::vector<z3::expr> path_;
  size_t pos_ = 0;
  bool started_ = false;
};

// One run of the walk along the explorer's current path: true when it ends in a refusal.
bool walk(Explorer& x, z3::context& ctx, const FlatModes& a, const FlatModes& b) {
  // coalesce(A) (pycute): skip extent-1 modes, merge a mode into the previous one when it continues it.
  std::vector<z3::expr> as{ctx.int_val(1)}, ad{ctx.int_val(0)};
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (x.branch(a.shape[i] == 1)) continue;
    if (x.branch(as.back() == 1)) {
      as.back() = a.shape[i];
      ad.back() = a.stride[i];
    } else if (x.branch(as.back() * ad.back() == a.stride[i])) {
      as.back() = as.back() * a.shape[i];
    } else {
      as.push_back(a.shape[i]);
      ad.push_back(a.stride[i]);
    }
  }
  const size_t last = as.size() - 1;
  std::vector<z3::expr> usage(as.size(), ctx.int_val(0));
  for (size_t j = 0; j < b.shape.size(); ++j) {
    const z3::expr s = b.shape[j], d = b.stride[j];
    if (x.branch(s == 1 || d == 0)) continue;
    if (x.branch(d < 0)) return true;  // composition-image-in-domain
    z3::expr rest_s = s, rest_d = d;
    bool placed = false;
    for (size_t p = 0; p < last && !placed; ++p) {
      if (!x.branch(rest_s > 1)) break;
      const z3::expr m = as[p];
      if (x.branch(rest_d >= m)) {
        if (x.branch(z3::mod(rest_d, m) != 0)) return true;  // composition-stride-divisibility
        rest_d = rest_d / m;
        continue;
      }
      if (x.branch(z3::mod(m, rest_d) != 0)) return true;  // composition-stride-divisibility
      const z3::expr n = m / rest_d;
      if (x.branch(rest_s <= n)) {
        usage[p] = usage[p] + rest_d * (rest_s - 1);
        placed = true;
        break;
      }
      if (x.branch(z3::mod(rest_s, n) != 0)) return true;  // composition-shape-divisibility
      usage[p] = usage[p] + rest_d * (n - 1);  // zero when n == 1
      rest_s = rest_s / n;
      rest_d = ctx.int_val(1);
    }
    if (!placed) usage[last] = usage[last] + rest_d * (rest_s - 1);  // zero when rest_s == 1
  }
  for (size_t p = 0; p < usage.size(); ++p)
    if (x.branch(usage[p] >= as[p])) return true;  // composition-mode-overlap / -image-in-domain
  return false;
}

}  // namespace

ProveResult prove_admissible(const Layout& a, const Layout& b, const ProveOptions& o) {
  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  FlatModes fa = flat_modes(enc, a, "a"), fb = flat_modes(enc, b, "b");
  GoalSpec g = two_layout_goal("admissible", "§3", a, b, fa, fb);
  auto instance = [a, b](const Bindings& bs) -> std::optional<Counterexample> {
    Layout ca = substitute(a, bs), cb = substitute(b, bs);
    auto refusal = composition_refusal(ca, cb);
    if (!refusal) return std::nullopt;
    Counterexample cx;
    cx.json = Json{{"symbols", bindings_json(bs)}, {"a", to_string(ca)}, {"b", to_string(cb)},
                   {"violation", Json{{"rule", refusal->rule}, {"clause", refusal->clause}, {"message", refusal->message}}}};
    cx.text = at(bs) + to_string(ca) + " o " + to_string(cb) + " is refused: [" + refusal->rule + " " +
              refusal->clause + "] " + refusal->message;
    return cx;
  };
  g.replay = [instance](const z3::model&, const Bindings& bs) { return instance(bs); };
  g.concrete = instance;

  // The refusal paths, pruned under the assumptions; the pipeline then decides their disjunction.
  std::vector<z3::expr> base;
  Assumptions as = make_assumptions(o.assume, g.symbols, [&budget] { return budget.expired(); });
  if (as.unread) return unknown_result(g, "time limit reached while reading the assumptions");
  for (const auto& r : as.relations) base.push_back(enc.relation(r));
  base.insert(base.end(), g.wellformed.begin(), g.wellformed.end());
  z3::expr refused = ctx.bool_val(false);
  size_t refusal_paths = 0, paths = 0;
  bool complete = true;
  // With a fixed rlimit the resource budget decides and the wall clock only backs it up.
  Explorer x(ctx, base, o.rlimit ? o.timeout_ms : std::min(o.timeout_ms / 4 + 1, 500u), o.rlimit, budget);
  while (x.next_path()) {
    if (++paths > kMaxPaths || budget.remaining_ms() < o.timeout_ms / 4) {
      complete = false;
      break;
    }
    try {
      if (walk(x, ctx, fa, fb)) {
        refused = refused || x.path_condition();
        ++refusal_paths;
      }
    } catch (const Infeasible&) {
    }
  }
  if (!complete) {
    ProveResult r = unknown_result(g, paths > kMaxPaths ? "the composition walk has more than " + std::to_string(kMaxPaths) + " paths"
                                                        : "the composition walk used three quarters of the time limit");
    r.assumptions = as.texts;
    r.seconds = budget.elapsed_s();
    return r;
  }
  g.negated.push_back(refused);
  g.structural = [refusal_paths, paths](const std::vector<z3::expr>&, Budget&, const LowerBounds&) -> std::optional<std::string> {
    if (refusal_paths == 0 && paths > 0) return "path-exploration";
    return std::nullopt;
  };
  return run_goal(enc, g, o, budget);
}

}  // namespace tfspec::solver
