// Strategies, cheapest first (spec/PROVE.md): the reference on a concrete goal; a structural
// argument; Z3 over unbounded integers; Z3 over integers bounded by the declared bounds; the
// reference on every instance of a small bounded box. The first that decides names itself.
#include "engine.hpp"

#include <algorithm>
#include <chrono>

#include "exact.hpp"
#include "positivity.hpp"

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

// e.what() with the whole message: what() is a C string, cut at an embedded NUL (issue 19).
std::string full_text(const SpecError& e) { return "[" + e.rule() + " " + e.clause() + "] " + e.diagnostic().message; }

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string ms(double s) { return std::to_string(static_cast<int64_t>(s * 1000 + 0.5)) + " ms"; }

enum class Truth { True, False, Unknown };

// A SpecError that says the reference could not evaluate or decide (a limit), as opposed to one
// that says the solver's witness is wrong.
bool is_limit(const SpecError& e) {
  for (const RuleId* r : {&rule::kInt64Overflow, &rule::kInjectivityUndecided, &rule::kProveUndecided, &rule::kNeedsConcrete})
    if (e.rule() == r->id) return true;
  return false;
}

// Symbol assignments lo + e (e >= 0 per symbol, within the declared upper bounds), by increasing
// sum of e: the smallest instances first, in growing boxes. Finite when every symbol is bounded.
class Enumerator {
 public:
  Enumerator(std::vector<std::string> names, std::vector<int64_t> lo, std::vector<int64_t> cap, bool finite, bool empty)
      : names_(std::move(names)), lo_(std::move(lo)), cap_(std::move(cap)), finite_(finite), empty_(empty), e_(names_.size(), 0) {
    for (auto c : cap_) max_level_ = std::min<i128>(static_cast<i128>(max_level_) + c, INT64_MAX);
    if (!finite_) max_level_ = INT64_MAX;
  }
  bool finite() const { return finite_; }
  int64_t level() const { return level_; }
  bool next(Bindings& b) {
    if (empty_) return false;
    for (;;) {
      if (!advance()) return false;
      if (!names_.empty() && e_[0] > cap_[0]) continue;
      for (size_t i = 0; i < names_.size(); ++i) b[names_[i]] = lo_[i] + e_[i];
      return true;
    }
  }

 private:
  bool advance() {
    const size_t n = names_.size();
    if (!started_) {
      started_ = true;
      return true;  // level 0: every symbol at its lower bound
    }
    int64_t prefix = 0;  // sum of e[1..i-1]
    std::vector<int64_t> prefixes(n, 0);
    for (size_t i = 1; i < n; ++i) {
      prefixes[i] = prefix;
      prefix += e_[i];
    }
    for (size_t i = n; i-- > 1;) {
      if (e_[i] < cap_[i] && prefixes[i] + e_[i] + 1 <= level_) {
        ++e_[i];
        for (size_t j = i + 1; j < n; ++j) e_[j] = 0;
        e_[0] = level_ - (prefixes[i] + e_[i]);
        return true;
      }
    }
    if (n == 0 || level_ >= max_level_) return false;
    ++level_;
    std::fill(e_.begin(), e_.end(), 0);
    e_[0] = level_;
    return true;
  }

  std::vector<std::string> names_;
  std::vector<int64_t> lo_, cap_;
  bool finite_, empty_;
  std::vector<int64_t> e_;
  int64_t level_ = 0, max_level_ = 0;
  bool started_ = false;
};

struct ScanState {
  Enumerator en;
  int64_t seen = 0, satisfying = 0, undecided = 0, unevaluable = 0;
  bool done = false;
  std::string first_undecided;
};

enum class Replay { Confirmed, Unusable, Contradiction };

struct Pipeline {
  Encoder& enc;
  GoalSpec& spec;
  const ProveOptions& o;
  Budget& budget;
  Assumptions as;
  ProveResult r;
  std::vector<z3::expr> base;            // assumptions, definedness, well-formedness
  std::vector<z3::expr> relation_terms;  // one per assumption relation
  bool consistent = false;               // some instance satisfies the assumptions
  std::string consistency_unknown;       // why consistency is undecided (empty: decided)
  int64_t searched = 0;

  Limits limits(double fraction) { return Limits{budget.share(fraction), o.rlimit, &budget}; }

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

  // Whether the instance `b` satisfies the assumptions and the objects exist there, exactly:
  // 128-bit arithmetic, and Z3's bignums for a relation beyond that (Unknown if even that fails).
  Truth admissible_at(const Bindings& b) {
    bool unknown = false;
    for (const auto& d : enc.divisors()) {
      Exact v = eval_exact(d, b);
      if (v.status == Exact::Status::DivByZero || (v.ok() && v.value == 0)) return Truth::False;
      unknown = unknown || !v.ok();
    }
    for (const auto& d : spec.positive) {
      Exact v = eval_exact(d, b);
      if (v.status == Exact::Status::DivByZero || (v.ok() && v.value < 1)) return Truth::False;
      unknown = unknown || !v.ok();
    }
    std::vector<size_t> wide;
    for (size_t i = 0; i < as.relations.size(); ++i) {
      const Relation& rel = as.relations[i];
      Exact x = eval_exact(rel.lhs, b), y = eval_exact(rel.rhs, b);
      if (x.status == Exact::Status::DivByZero || y.status == Exact::Status::DivByZero) return Truth::False;
      if (x.ok() && y.ok()) {
        if (!apply_relation(rel.op, x.value, y.value)) return Truth::False;
      } else {
        wide.push_back(i);
      }
    }
    if (!wide.empty()) {
      z3::model m(enc.ctx());
      for (const auto& [name, v] : b) {
        z3::func_decl d = enc.symbol(name).decl();
        z3::expr val = enc.ctx().int_val(v);
        m.add_const_interp(d, val);
      }
      for (size_t i : wide) {
        z3::expr t = m.eval(relation_terms[i], true);
        if (t.is_false()) return Truth::False;
        unknown = unknown || !t.is_true();
      }
    }
    return unknown ? Truth::Unknown : Truth::True;
  }

  // A counterexample at `b` becomes REFUTED only when the assumptions hold there exactly and its
  // witness replays. A witness that cannot be evaluated is unusable (the search goes on); one that
  // the reference contradicts is a tfspec bug (UNKNOWN, replay_failed, exit 4).
  Replay confirm(const std::string& method, const std::string& source, const Bindings& b,
                 const std::function<std::optional<Counterexample>()>& replay) {
    std::string why;
    Truth t = admissible_at(b);
    if (t == Truth::Unknown) {
      r.attempts.push_back(method + ": the assumptions cannot be evaluated at " + to_string(b) + "; model not used");
      return Replay::Unusable;
    }
    std::optional<Counterexample> cx;
    if (t == Truth::False) {
      why = "the assumptions do not hold at " + to_string(b);
    } else {
      try {
        cx = replay();
      } catch (const SpecError& e) {
        if (is_limit(e)) {
          r.attempts.push_back(method + ": " + source + " counterexample at " + to_string(b) + " cannot be replayed: " + full_text(e));
          return Replay::Unusable;
        }
        why = full_text(e);
      }
    }
    if (cx) {
      consistent = true;
      refuted(method, std::move(*cx));
      return Replay::Confirmed;
    }
    r.replay_failed = true;
    r.reason = "replay-failed: " + source + " counterexample (" + to_string(b) + ") is not confirmed by the reference" +
               (why.empty() ? "" : ": " + why) + " (a bug in tfspec; please report)";
    return Replay::Contradiction;
  }

  Replay take_model(const std::string& method, const z3::model& m) {
    auto b = model_bindings(m);
    if (!b) {
      r.attempts.push_back(method + ": the model has symbol values beyond int64");
      return Replay::Unusable;
    }
    return confirm(method, "the solver's", *b, [&] { return spec.replay(m, *b); });
  }

  // `--smt2`: PREFIX-NAME.smt2, created through o.smt2_create when set (serve --smt2-dir).
  Smt2Export exporter(const std::string& name) {
    if (o.smt2_prefix.empty()) return {};
    return [this, name](const std::vector<z3::expr>& all, const std::string& logic, const std::string& comment) {
      r.smt2_files.push_back(write_smt2(enc.ctx(), all, logic, o.smt2_prefix + "-" + name + ".smt2", comment, o.smt2_create));
    };
  }
  void export_obligation(const std::string& name, const std::vector<z3::expr>& all, const std::string& comment) {
    if (auto out = exporter(name)) out(all, spec.logic, comment);
  }

  std::vector<z3::expr> obligation(const std::vector<z3::expr>& extra) {
    std::vector<z3::expr> all = base;
    all.insert(all.end(), extra.begin(), extra.end());
    all.insert(all.end(), spec.negated.begin(), spec.negated.end());
    return all;
  }

  z3::expr within(int k) {  // every symbol in [-2^k, 2^k]
    const z3::expr lim = enc.ctx().int_val(int64_t{1} << k);
    z3::expr all = enc.ctx().bool_val(true);
    for (const auto& s : as.symbols) all = all && enc.symbol(s) >= -lim && enc.symbol(s) <= lim;
    return all;
  }

  // Small models first: the obligation again with every symbol within 2^k for growing k, so that
  // a counterexample is readable and replayable. True when decided.
  bool smallest_model(const std::string& method, const std::vector<z3::expr>& all) {
    auto t = Clock::now();
    for (int k : {2, 4, 8, 16, 32, 62}) {
      if (budget.expired()) break;
      std::vector<z3::expr> q = all;
      q.push_back(within(k));
      QueryOutcome out = check(enc.ctx(), q, limits(0.15), spec.logic, "", "");
      if (out.result != z3::sat) continue;
      Replay rp = take_model(method, *out.model);
      if (rp != Replay::Unusable) {
        r.attempts.push_back(method + ": counterexample within 2^" + std::to_string(k) + " after " + ms(since(t)));
        return true;
      }
    }
    return false;
  }

  // One Z3 strategy; true when it decided (or found a bug).
  bool z3_strategy(const std::string& method, const std::vector<z3::expr>& extra, const std::string& scope, double fraction) {
    std::vector<z3::expr> all = obligation(extra);
    export_obligation(spec.goal + "-" + method, all, spec.goal + " (" + method + ")");
    QueryOutcome q = check(enc.ctx(), all, limits(fraction), spec.logic, "", "");
    if (q.result == z3::unsat) {
      r.attempts.push_back(method + ": unsat in " + ms(q.seconds));
      proved(method, scope);
      return true;
    }
    if (q.result == z3::sat) {
      r.attempts.push_back(method + ": sat in " + ms(q.seconds));
      if (smallest_model(method, all)) return true;
      return take_model(method, *q.model) != Replay::Unusable;
    }
    r.attempts.push_back(method + ": unknown (" + q.reason + ") after " + ms(q.seconds));
    return false;
  }

  // Z3 unknown over unbounded integers: a counterexample among small values is often easy.
  bool z3_small() {
    const std::string method = "z3-small";
    std::vector<z3::expr> all = obligation({within(8)});
    QueryOutcome s = check(enc.ctx(), all, limits(0.3), spec.logic, "", "");
    if (s.result == z3::sat) {
      r.attempts.push_back(method + ": sat within 2^8 in " + ms(s.seconds));
      return take_model(method, *s.model) != Replay::Unusable;
    }
    r.attempts.push_back(method + (s.result == z3::unsat ? ": no counterexample within 2^8 (" : ": unknown (" + s.reason + ") after ") +
                         ms(s.seconds) + (s.result == z3::unsat ? ")" : ""));
    return false;
  }

  // Overflow goals over 64-bit bit-vectors within the declared bounds; true when it decided.
  bool bitvector_strategy() {
    const std::string method = "z3-bitvector";
    BitvectorOutcome q = spec.bitvector(as, limits(0.5), exporter(spec.goal + "-" + method));
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
    return confirm(method, "the bit-vector", *q.bindings, [&] { return spec.concrete(*q.bindings); }) != Replay::Unusable;
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

  Enumerator enumerator() {
    std::vector<std::string> names(as.symbols.begin(), as.symbols.end());
    std::vector<int64_t> lo, cap;
    bool finite = true, empty = false;
    for (const auto& s : names) {
      const auto& b = as.bounds[s];
      lo.push_back(*b.lo);  // make_assumptions gives every symbol a lower bound
      const i128 room = static_cast<i128>(INT64_MAX) - *b.lo;
      i128 c = room;
      if (b.hi) c = std::min<i128>(room, static_cast<i128>(*b.hi) - *b.lo);
      else finite = false;
      empty = empty || c < 0;  // lo > hi: no instance at all
      // room exceeds INT64_MAX when lo < 0 (M >= -2): clamp, or the cap wraps negative and next()
      // skips every assignment forever, past the time limit (issue 20).
      cap.push_back(static_cast<int64_t>(std::clamp<i128>(c, 0, INT64_MAX)));
    }
    return Enumerator(names, lo, cap, finite || empty, empty);
  }

  // The reference on instances, smallest first. decide = false: only look for an instance that
  // satisfies the assumptions (consistency). True when a counterexample was found.
  bool scan(ScanState& st, const std::string& method, int64_t max_new, unsigned time_ms, bool decide) {
    const auto start = Clock::now(), until = start + std::chrono::milliseconds(time_ms);
    Bindings b;
    for (int64_t n = 0;; ++n) {
      if (n >= max_new || searched >= o.max_search || Clock::now() >= until || budget.expired()) return false;
      if (!st.en.next(b)) {
        st.done = true;
        return false;
      }
      ++st.seen;
      ++searched;
      Truth t = admissible_at(b);
      if (t == Truth::False) continue;
      if (t == Truth::Unknown) {
        ++st.unevaluable;
        continue;
      }
      consistent = true;
      ++st.satisfying;
      if (!decide) return false;
      std::optional<Counterexample> cx;
      try {
        cx = spec.concrete(b);
      } catch (const SpecError& e) {
        if (st.undecided++ == 0) st.first_undecided = "at " + to_string(b) + ": " + full_text(e);
        continue;
      }
      if (cx) {
        r.attempts.push_back(method + ": counterexample after " + std::to_string(st.seen) + " instances in " + ms(since(start)));
        refuted(method, std::move(*cx));
        return true;
      }
    }
  }

  // The probe near 2^k: every symbol at v = 2^k + j (clamped to its bounds), or every symbol
  // v above its lower bound (LowerBounds::point: satisfies bounds that are expressions, `L >= K*K`,
  // where L = 2^k is below K*K; issue 20), for the first j in 0..15 where the assumptions hold
  // (a congruence such as `M % 4 == 0` with a shifted lower bound).
  std::optional<Bindings> probe_point(int k, const LowerBounds& lower) {
    for (int64_t j = 0; j < 16; ++j) {
      const int64_t at = (int64_t{1} << k) + (k < 62 ? j : 0);
      Bindings b;
      for (const auto& s : as.symbols) {
        const auto& bd = as.bounds[s];
        int64_t v = std::max(*bd.lo, at);
        if (bd.hi) v = std::min(v, *bd.hi);
        b[s] = v;
      }
      if (admissible_at(b) == Truth::True) return b;
      auto shifted = lower.point(at);
      if (shifted && admissible_at(*shifted) == Truth::True) return shifted;
    }
    return std::nullopt;
  }

  // Large instances too, near 2^k for k = 1..62 (probe_point), where the overflow goals fail (a
  // product passes 2^63) while small values and Z3 may not find it.
  bool probes() {
    auto t = Clock::now();
    int64_t tried = 0;
    const LowerBounds lower(enc, as, spec);
    for (int k = 1; k <= 62 && !budget.expired(); ++k) {
      auto point = probe_point(k, lower);
      if (!point) continue;
      const Bindings& b = *point;
      consistent = true;
      ++tried;
      std::optional<Counterexample> cx;
      try {
        cx = spec.concrete(b);
      } catch (const SpecError&) {
        continue;
      }
      if (cx) {
        r.attempts.push_back("probes: counterexample with every symbol near 2^" + std::to_string(k) + " (or its bound) in " + ms(since(t)));
        refuted("probes", std::move(*cx));
        return true;
      }
    }
    r.attempts.push_back("probes: " + std::to_string(tried) + " instances with every symbol near 2^k hold, " + ms(since(t)));
    return false;
  }

  std::string scan_summary(const ScanState& st, const std::string& method, double seconds) {
    std::string s = method + ": " + std::to_string(st.seen) + " instances (" + std::to_string(st.satisfying) +
                    " satisfy the assumptions) hold";
    if (st.undecided) s += ", " + std::to_string(st.undecided) + " undecided (first " + st.first_undecided + ")";
    if (st.unevaluable) s += ", " + std::to_string(st.unevaluable) + " where the assumptions cannot be evaluated";
    s += st.done ? ", the box is exhausted" : ", up to level " + std::to_string(st.en.level());
    return s + ", " + ms(seconds);
  }

  bool box_proves(const ScanState& st) { return st.done && st.en.finite() && st.undecided == 0 && st.unevaluable == 0; }

  // Vacuous truth is no proof: some instance must satisfy the assumptions and the objects exist.
  void consistency(ScanState& st) {
    if (consistent) return;
    if (st.done && st.en.finite() && st.unevaluable == 0)  // every instance of a finite box fails them
      fail(rule::kProveAssumptionsInconsistent, "no symbol values satisfy the assumptions together with the well-formedness conditions (extents >= 1, divisors != 0)");
    QueryOutcome q = check(enc.ctx(), base, limits(0.25), spec.logic, "", "");
    if (q.result == z3::unsat)
      fail(rule::kProveAssumptionsInconsistent, "no symbol values satisfy the assumptions together with the well-formedness conditions (extents >= 1, divisors != 0)");
    if (q.result == z3::sat) {
      consistent = true;
      r.attempts.push_back("consistency: the assumptions hold somewhere (z3: sat in " + ms(q.seconds) + ")");
      return;
    }
    consistency_unknown = "whether the assumptions can hold is undecided (z3: " + q.reason + " after " + ms(q.seconds) + ")";
    r.attempts.push_back("consistency: unknown (" + q.reason + ") after " + ms(q.seconds));
  }

  // TOOLING-NOTES / issue 9: on products of high degree Z3 can run for minutes without looking at
  // an interrupt; such obligations are left to the instance search (a clear refusal, not a hang).
  static constexpr unsigned kMaxDegree = 16;
  static constexpr unsigned kEarlySearchMs = 200;  // the search before Z3: cheap refutations only
  void limit_degree() {
    unsigned d = 0;
    for (const auto& e : obligation({})) d = std::max(d, degree(e));
    if (d <= kMaxDegree) return;
    budget.z3_allowed = false;
    budget.z3_refusal = "not asked, degree " + std::to_string(d);
    r.attempts.push_back("z3: not asked: a term of degree " + std::to_string(d) + " (above " + std::to_string(kMaxDegree) +
                         ", where Z3 may not stop on time)");
  }

  void run() {
    limit_degree();
    ScanState main{enumerator(), 0, 0, 0, 0, false, {}};
    auto t = Clock::now();
    if (o.search && !spec.symbols.empty()) {  // small instances first: cheap refutations, and consistency
      if (scan(main, "small-instances", o.search_instances, std::min(budget.share(0.15), kEarlySearchMs), true)) return;
      r.attempts.push_back(scan_summary(main, "small-instances", since(t)));
      if (spec.bitvector && probes()) return;  // overflow goals only: other instances this large are costly
      consistency(main);
    } else {
      ScanState sample{enumerator(), 0, 0, 0, 0, false, {}};
      scan(sample, "consistency", o.search_instances, budget.share(0.1), false);
      consistency(sample);
    }
    if (spec.symbols.empty()) {  // concrete goal: the reference decides exactly
      try {
        auto cx = spec.concrete(Bindings{});
        r.attempts.push_back("reference: decided on the concrete objects");
        if (cx) refuted("reference", std::move(*cx));
        else proved("reference", "all values");
        export_obligation(spec.goal + "-z3-unbounded", obligation({}), spec.goal);
        return;
      } catch (const SpecError& e) {
        r.attempts.push_back(std::string("reference: undecided: ") + full_text(e));
      }
    }
    if (spec.structural && o.structural) {
      t = Clock::now();
      if (auto m = spec.structural(base, budget, LowerBounds(enc, as, spec))) {
        r.attempts.push_back(*m + ": proved in " + ms(since(t)));
        proved(*m, "all values");
        // still export the obligation so that another solver can check it
        export_obligation(spec.goal + "-z3-unbounded", obligation({}), spec.goal + " (z3-unbounded)");
        return;
      }
      r.attempts.push_back("structural: does not apply (" + ms(since(t)) + ")");
    }
    if (o.z3_unbounded) {
      if (z3_strategy("z3-unbounded", {}, "all values", 0.5)) return;
      if (r.verdict == Verdict::Unknown && !budget.expired() && z3_small()) return;
    }
    std::string missing;
    const bool bounded = all_bounded(missing);
    if (bounded) {
      if (spec.bitvector && o.z3_bitvector && !budget.expired() && bitvector_strategy()) return;
      if (o.z3_bounded && !budget.expired() &&
          z3_strategy("z3-bounded", bound_constraints(), "within declared bounds", 0.5))
        return;
    } else {
      r.attempts.push_back("z3-bounded: skipped, no declared upper bound for " + missing);
      // Shown only with UNKNOWN: what would let the bounded strategies run (issue 25).
      r.hint = "add bounds for " + missing + ", e.g. --assume '1 <= " + missing + " <= 65536' (z3-bounded and the exhaustive search need them)";
    }
    // The reference on more instances until the budget: refutes, or covers a declared box.
    const bool small_box = bounded && main.en.finite();
    if (o.search || (o.exhaustive && small_box)) {
      const std::string method = small_box ? "exhaustive" : "small-instances";
      t = Clock::now();
      const int64_t more = o.search ? INT64_MAX : o.max_instances + 1;
      if (scan(main, method, more, budget.remaining_ms(), true)) return;
      r.attempts.push_back(scan_summary(main, method, since(t)));
      if (o.exhaustive && box_proves(main)) {
        proved("exhaustive", "within declared bounds");
        return;
      }
    }
    if (budget.expired()) r.attempts.push_back("time limit reached after " + ms(budget.elapsed_s()));
  }
};

}  // namespace

ProveResult unknown_result(const GoalSpec& spec, const std::string& reason) {
  ProveResult r;
  r.goal = spec.goal;
  r.clause = spec.clause;
  r.reason = reason;
  return r;
}

static ProveResult out_of_time(const GoalSpec& spec, const Budget& budget, const std::string& phase, size_t done, size_t total) {
  ProveResult r = unknown_result(spec, "time limit reached while " + phase + " (" + std::to_string(done) + " of " +
                                           std::to_string(total) + ") after " + ms(budget.elapsed_s()));
  r.seconds = budget.elapsed_s();
  return r;
}

ProveResult run_goal(Encoder& enc, GoalSpec& spec, const ProveOptions& o, Budget& budget) {
  // Issue 19: the time limit covers reading and encoding the assumptions, however many there are.
  const auto expired = [&budget] { return budget.expired(); };
  Assumptions as = make_assumptions(o.assume, spec.symbols, expired);
  if (as.unread) return out_of_time(spec, budget, "reading the assumptions", o.assume.size() - as.unread, o.assume.size());
  Pipeline p{enc, spec, o, budget, std::move(as), {}, {}, {}, false, {}, 0};
  p.r.goal = spec.goal;
  p.r.clause = spec.clause;
  p.r.assumptions = p.as.texts;
  for (const auto& rel : p.as.relations) {
    if (expired()) return out_of_time(spec, budget, "encoding the assumptions", p.relation_terms.size(), p.as.relations.size());
    p.relation_terms.push_back(enc.relation(rel));
  }
  p.base = p.relation_terms;
  // Well-formedness, each condition once (issue 9: no duplicates in the output).
  std::vector<std::string> seen;
  for (size_t i = 0; i < spec.wellformed.size(); ++i) {
    const std::string& t = spec.wellformed_text[i];
    if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    p.base.push_back(spec.wellformed[i]);
  }
  for (size_t i = 0; i < enc.definedness().size(); ++i) {
    const std::string& t = enc.definedness_text()[i];
    p.base.push_back(enc.definedness()[i]);
    if (std::find(seen.begin(), seen.end(), t) == seen.end()) seen.push_back(t);
  }
  p.r.wellformed = seen;
  try {
    p.run();
    if (p.r.smt2_files.empty())  // decided without Z3: export the obligation anyway
      p.export_obligation(spec.goal + "-z3-unbounded", p.obligation({}), spec.goal + " (z3-unbounded)");
  } catch (const z3::exception& e) {  // interrupted outside check(): the time limit
    p.r.verdict = Verdict::Unknown;
    p.r.attempts.push_back(std::string("z3: ") + e.msg() + (budget.expired() ? " (time limit)" : ""));
  }
  if (p.r.verdict == Verdict::Proved && !p.consistent) {
    p.r.attempts.push_back(p.r.method + ": proved, but only if the assumptions can hold: " + p.consistency_unknown);
    p.r.verdict = Verdict::Unknown;
  }
  if (p.r.verdict == Verdict::Refuted && !p.consistent) {  // a reference refutation on a concrete goal
    p.r.attempts.push_back(p.r.method + ": the goal fails, but " + p.consistency_unknown);
    p.r.verdict = Verdict::Unknown;
  }
  if (p.r.verdict == Verdict::Unknown && !p.r.replay_failed) {
    std::string why;
    for (const auto& a : p.r.attempts) why += (why.empty() ? "" : "; ") + a;
    p.r.reason = why;
  }
  p.r.seconds = budget.elapsed_s();
  return p.r;
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
    if (c[i] < 0 || c[i] >= s[i]) fail(rule::kCoordInDomain, "coordinate component out of its mode's extent");
    idx = checked_add(idx, checked_mul(c[i], scale));
    scale = checked_mul(scale, s[i]);
  }
  return idx;
}

void positive_wellformed(GoalSpec& g, const z3::expr& term, const ShapeDim& dim) {
  g.wellformed.push_back(term >= 1);
  g.wellformed_text.push_back(tfspec::to_string(dim) + " >= 1");
  g.positive.push_back(dim);
}

void extents_wellformed(GoalSpec& g, const FlatModes& f) {
  for (size_t i = 0; i < f.shape.size(); ++i)
    if (f.shape_leaves[i].is_sym()) positive_wellformed(g, f.shape[i], f.shape_leaves[i].dim());
}

namespace {
IntTuple unflatten(const IntTuple& shape, const std::vector<int64_t>& flat, size_t& next) {
  if (shape.is_leaf()) return IntTuple(flat.at(next++));
  std::vector<IntTuple> c;
  for (const auto& x : shape.children()) c.push_back(unflatten(x, flat, next));
  return IntTuple::tuple(std::move(c));
}
}  // namespace

IntTuple unflatten_coord(const IntTuple& shape, const std::vector<int64_t>& flat) {
  size_t next = 0;
  return unflatten(shape, flat, next);
}

ExactModes exact_modes(const Layout& l, const Bindings& b) {
  ExactModes m;
  auto value = [&](const IntTuple& leaf) -> i128 {
    if (leaf.is_int()) return leaf.value();
    if (!leaf.is_sym()) fail(rule::kNeedsConcrete, "a launch-provided extent (None) has no value");
    Exact v = eval_exact(leaf.dim(), b);
    if (v.status == Exact::Status::DivByZero) fail(rule::kDivisionByZero, "division by zero in " + tfspec::to_string(leaf.dim()));
    if (!v.ok()) fail(rule::in(rule::kProveUndecided, "§1"), tfspec::to_string(leaf.dim()) + " is beyond 128 bits at " + to_string(b));
    return v.value;
  };
  for (const auto& x : flat_leaves(l.shape_ref())) m.shape.push_back(value(x));
  for (const auto& x : flat_leaves(l.stride())) m.stride.push_back(value(x));
  for (auto v : m.shape) m.fit_int64 = m.fit_int64 && fits_int64(v);
  for (auto v : m.stride) m.fit_int64 = m.fit_int64 && fits_int64(v);
  return m;
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
