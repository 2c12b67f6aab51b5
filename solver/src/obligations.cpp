// S5 (spec/ALGEBRA.md): Z3 answers the symbolic algebra's branches under the assumptions.
#include "tfspec/solver/obligations.hpp"

#include "tfspec/solver/instances.hpp"

#include "cancel.hpp"

#include <algorithm>

namespace tfspec::solver {

Z3Decider::Z3Decider(const std::vector<std::string>& assume, const std::set<std::string>& symbols, unsigned query_ms, unsigned rlimit,
                     const std::set<int64_t>& constants)
    : assumptions_(make_assumptions(assume, symbols)), query_ms_(query_ms), rlimit_(rlimit) {
  std::set<int64_t> c = problem_constants(assumptions_);
  c.insert(constants.begin(), constants.end());
  pool_ = sample_instances(assumptions_, c);
  watchdog_ = std::make_unique<Budget>(ctx_, 24u * 3600u * 1000u);
  for (const auto& r : assumptions_.relations) base_.push_back(enc_.relation(r));
  for (const auto& s : assumptions_.symbols) enc_.symbol(s);
}

z3::expr Z3Decider::encode(const SymPred& p) {
  static constexpr Rel kRel[] = {Rel::Eq, Rel::Ne, Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge};
  return enc_.relation({p.lhs, kRel[static_cast<int>(p.rel)], p.rhs});
}

namespace {
// A product of two non-numerals, or a division or modulo by a non-numeral, anywhere in `a`.
bool nonlinear(const z3::expr& e, std::set<unsigned>& seen) {
  if (!e.is_app() || e.is_numeral() || !seen.insert(Z3_get_ast_id(e.ctx(), e)).second) return false;
  const Z3_decl_kind k = e.decl().decl_kind();
  if (k == Z3_OP_MUL) {
    unsigned symbolic = 0;
    for (unsigned i = 0; i < e.num_args(); ++i) symbolic += e.arg(i).is_numeral() ? 0 : 1;
    if (symbolic > 1) return true;
  }
  if ((k == Z3_OP_IDIV || k == Z3_OP_MOD || k == Z3_OP_REM) && !e.arg(1).is_numeral()) return true;
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (nonlinear(e.arg(i), seen)) return true;
  return false;
}

bool nonlinear(const std::vector<z3::expr>& a) {
  std::set<unsigned> seen;
  for (const auto& e : a)
    if (nonlinear(e, seen)) return true;
  return false;
}

// The divisors of d that are not constants, innermost first (each `x // q` and `x % q`).
void divisors_of(const ShapeDim& d, std::vector<ShapeDim>& out) {
  if (d->op == ExprNode::Op::Const || d->op == ExprNode::Op::Var) return;
  divisors_of(d->lhs, out);
  divisors_of(d->rhs, out);
  if ((d->op == ExprNode::Op::FloorDiv || d->op == ExprNode::Op::Mod) && !is_const(d->rhs)) out.push_back(d->rhs);
}
}  // namespace

// The path's predicates hold on it, so their divisors are non-zero there and are asserted so; a
// predicate asked about is *defined and true* (its divisors non-zero, then the comparison), as
// `holds` reads it, so where a divisor can be 0 neither side is proved. The encoder's definedness
// list is never asserted: it grows with every term any earlier query met, and it let one path's
// divisor (`M//8 != 0`, i.e. M >= 8) decide the branches of every later path (issue 37).
QueryOutcome Z3Decider::query(const std::vector<SymPred>& context, const z3::expr& extra, bool searching, bool nonlinear_search) {
  std::vector<z3::expr> a = base_;
  std::vector<ShapeDim> divisors;
  for (const auto& p : context) {
    a.push_back(encode(p));
    // its linear equivalent where both sides of a one-symbol `X % Y` share a factor (cancel.hpp):
    // true wherever p is (p's divisors are non-zero below), and a fact Z3 can use
    if (auto c = cancelled(p)) a.push_back(encode(*c));
    divisors_of(p.lhs, divisors);
    divisors_of(p.rhs, divisors);
  }
  a.push_back(extra);
  for (const auto& d : divisors) a.push_back(enc_.dim(d) != 0);
  if (searching && !nonlinear_search && nonlinear(a)) {  // not asked: no instance, as when none is found
    QueryOutcome skipped;
    skipped.reason = "a nonlinear model search is left to the instance pool";
    return skipped;
  }
  ++queries_;
  Limits limits;
  // a last guard only: the rlimit decides, the same on any machine. A model search (a witness or a
  // validation instance, never an answer's classification) gets kSearchGuardMs: on a nonlinear
  // `%` Z3's smt tactic was seen to run three times past its clock (logical_product (M-1):(4)
  // (4:M): 31 s under a 10 s guard, 3.5 s under 1 s; issue 46 item 5).
  limits.timeout_ms = searching ? std::min(query_ms_, kSearchGuardMs) : query_ms_;
  if (deadline_) {  // never past the operation's guard: what is left of it, at least 1 ms
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - std::chrono::steady_clock::now()).count();
    limits.timeout_ms = static_cast<unsigned>(std::clamp<int64_t>(left, 1, limits.timeout_ms));
  }
  limits.rlimit = rlimit_;
  limits.budget = watchdog_.get();  // Z3 can ignore both limits in one nonlinear step (TOOLING-NOTES)
  limits.default_solver = !searching && nonlinear(a);  // linear queries: the smt tactic, twice as fast
  QueryOutcome q = check(ctx_, a, limits, "ALL", "", "");
  // An unknown that the wall clock caused would make the answer depend on the machine's load and on
  // what ran before (issue 44 item 8): never a silently different answer, a named resource-limit.
  // A model search (`searching`: an instance to replay the answer at) only adds a validation
  // instance; stopped, it adds none, as when it finds none.
  if (q.clock_stop && !searching)
    fail(rule::kResourceLimit, "a solver query ran " + std::to_string(query_ms_) +
                                   " ms of wall-clock time without reaching its resource limit and was stopped by the clock (" + q.reason +
                                   "); an answer that depended on the clock would differ between machines and sessions, so none is given: "
                                   "add assumptions that decide the operation's branches");
  return q;
}

// p defined (every divisor in it non-zero) and true; `negate(p)` reads the same way.
z3::expr Z3Decider::defined_and(const SymPred& p) {
  std::vector<ShapeDim> divisors;
  divisors_of(p.lhs, divisors);
  divisors_of(p.rhs, divisors);
  z3::expr e = encode(p);
  for (const auto& d : divisors) e = e && enc_.dim(d) != 0;
  return e;
}

// Per-symbol lower bounds: the assumptions' (each symbol >= 1 by default) and the path's steps of
// the form `c < M`, `c <= M`, `M > c`, `M >= c`, `M == c`.
std::map<std::string, int64_t> Z3Decider::lower_bounds(const std::vector<SymPred>& path) const {
  std::map<std::string, int64_t> lo;
  for (const auto& [name, b] : assumptions_.bounds)
    if (b.lo) lo[name] = *b.lo;
  auto raise = [&](const std::string& n, int64_t v) {
    auto it = lo.find(n);
    if (it != lo.end()) it->second = std::max(it->second, v);
  };
  for (const auto& q : path) {
    const auto lc = const_value(q.lhs), rc = const_value(q.rhs);
    if (q.rhs->op == ExprNode::Op::Var && lc && *lc < INT64_MAX) {
      if (q.rel == SymRel::Lt) raise(q.rhs->name, *lc + 1);
      if (q.rel == SymRel::Le || q.rel == SymRel::Eq) raise(q.rhs->name, *lc);
    }
    if (q.lhs->op == ExprNode::Op::Var && rc && *rc < INT64_MAX) {
      if (q.rel == SymRel::Gt) raise(q.lhs->name, *rc + 1);
      if (q.rel == SymRel::Ge || q.rel == SymRel::Eq) raise(q.lhs->name, *rc);
    }
  }
  return lo;
}

std::optional<bool> Z3Decider::decide(const std::vector<SymPred>& path, const SymPred& p) {
  if (auto f = fold(p)) return f;
  // The same question on the same path, or decided on a prefix of it: one answer (a fact proved
  // under a prefix holds on every extension; paths share prefixes).
  const std::string asked = to_string(p);
  std::string key = asked;
  for (size_t k = 0;; ++k) {
    if (auto it = decided_.find(key); it != decided_.end() && (it->second || k == path.size())) return it->second;
    if (k == path.size()) break;
    key += " & " + to_string(path[k]);
  }
  // Interval bounds first: the symbols' lower bounds from the assumptions and from the path's
  // `M >= c`-style steps decide `M//32 != 0` under `32 < M` without a solver call.
  if (auto b = FoldingDecider(lower_bounds(path)).decide(path, p)) {
    decided_.emplace(std::move(key), b);
    return b;
  }
  // An instance of the pool on each side: both are possible, no solver call (most forks end here).
  bool can_hold = false, can_fail = false;
  const SymPred not_p = negate(p);
  for (size_t i : survivors(path)) {
    if (holds(p, pool_[i])) can_hold = true;
    else if (holds(not_p, pool_[i])) can_fail = true;
    if (can_hold && can_fail) break;
  }
  std::optional<bool> d;  // nullopt: both sides possible, or unknown: the executor forks (sound either way)
  if (!(can_hold && can_fail)) {
    if (!can_fail && query(path, !defined_and(p)).result == z3::unsat) d = true;
    else if (!can_hold && query(path, !defined_and(not_p)).result == z3::unsat) d = false;
  }
  decided_.emplace(std::move(key), d);
  return d;
}

// The pool's instances where every predicate of `path` holds; paths are explored depth first,
// so the filter of the longest prefix already met is kept and extended.
const std::vector<size_t>& Z3Decider::survivors(const std::vector<SymPred>& path) {
  if (filters_.empty()) {
    std::vector<size_t> all(pool_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    filters_.push_back({"", std::move(all)});
  }
  size_t k = 0;  // path[0..k) matches filters_[1..k]
  while (k < path.size() && k + 1 < filters_.size() && filters_[k + 1].first == to_string(path[k])) ++k;
  filters_.resize(k + 1);
  for (; k < path.size(); ++k) {
    std::vector<size_t> next;
    for (size_t i : filters_.back().second)
      if (holds(path[k], pool_[i])) next.push_back(i);
    filters_.push_back({to_string(path[k]), std::move(next)});
  }
  return filters_.back().second;
}

std::optional<Bindings> Z3Decider::model_bindings(const z3::model& m) {
  Bindings b;
  for (const auto& [name, e] : enc_.symbols()) {
    if (name.rfind(kAbstractPrefix, 0) == 0) continue;  // a relaxation's term, not a symbol
    auto v = model_int(m, e);
    if (!v) return std::nullopt;
    b[name] = *v;
  }
  return b;
}

// A model of assumptions ∧ context ∧ (p or not p), read back and checked by `holds`: an instance
// of the case where p holds (`want`) or fails; nullopt where there is none or it does not check.
std::optional<Bindings> Z3Decider::side(const QueryOutcome& q, const std::vector<SymPred>& context, const SymPred& p, bool want) {
  if (q.result != z3::sat || !q.model) return std::nullopt;
  auto b = model_bindings(*q.model);
  // read defined on the side wanted: a failing instance is one where not-p holds, never one where
  // p is undefined (a division by 0, or a value past int64)
  if (!b || !holds(want ? p : negate(p), *b)) return std::nullopt;
  for (const auto& c : context)
    if (!holds(c, *b)) return std::nullopt;
  return b;
}

namespace {
void moduli_of(const ShapeDim& e, std::set<int64_t>& out) {
  if (e->op == ExprNode::Op::Const || e->op == ExprNode::Op::Var) return;
  if (e->op == ExprNode::Op::Mod && is_const(e->rhs) && *const_value(e->rhs) > 1) out.insert(*const_value(e->rhs));
  moduli_of(e->lhs, out);
  moduli_of(e->rhs, out);
}
ShapeDim with_values(const ShapeDim& e, const Bindings& fixed) {
  switch (e->op) {
    case ExprNode::Op::Const: return e;
    case ExprNode::Op::Var: {
      const auto it = fixed.find(e->name);
      return it == fixed.end() ? e : dim_const(it->second);
    }
    default: return dim_binary(e->op, with_values(e->lhs, fixed), with_values(e->rhs, fixed));
  }
}
SymPred with_values(const SymPred& p, const Bindings& fixed) {
  return {normalize(with_values(p.lhs, fixed)), p.rel, normalize(with_values(p.rhs, fixed))};
}
}  // namespace

// Each symbol's bounds from the assumptions and from guards `S rel c` / `c rel S` (INT64_MIN /
// INT64_MAX where there is none); a symbol is fixed where they meet.
std::map<std::string, std::pair<int64_t, int64_t>> Z3Decider::symbol_ranges(const std::vector<SymPred>& context) const {
  std::map<std::string, std::pair<int64_t, int64_t>> range;
  for (const auto& [name, b] : assumptions_.bounds) range[name] = {b.lo.value_or(INT64_MIN), b.hi.value_or(INT64_MAX)};
  auto bound = [&](const std::string& n, SymRel rel, int64_t c) {  // S rel c
    auto [it, fresh] = range.try_emplace(n, INT64_MIN, INT64_MAX);
    auto& [lo, hi] = it->second;
    if (c == INT64_MIN || c == INT64_MAX) return;
    if (rel == SymRel::Eq) lo = std::max(lo, c), hi = std::min(hi, c);
    if (rel == SymRel::Ge) lo = std::max(lo, c);
    if (rel == SymRel::Gt) lo = std::max(lo, c + 1);
    if (rel == SymRel::Le) hi = std::min(hi, c);
    if (rel == SymRel::Lt) hi = std::min(hi, c - 1);
  };
  static constexpr SymRel kMirror[] = {SymRel::Eq, SymRel::Ne, SymRel::Gt, SymRel::Ge, SymRel::Lt, SymRel::Le};
  for (const auto& q : context) {
    if (q.lhs->op == ExprNode::Op::Var && is_const(q.rhs)) bound(q.lhs->name, q.rel, *const_value(q.rhs));
    if (q.rhs->op == ExprNode::Op::Var && is_const(q.lhs)) bound(q.rhs->name, kMirror[static_cast<int>(q.rel)], *const_value(q.lhs));
  }
  return range;
}

// An instance of the context where p holds, from a search of candidate values inside the bounds
// the context sets on each symbol: small values, powers of two and their neighbours, the
// context's constants c and c-1, c+1, 2c, and each bound and its neighbour. The pool's draw over
// three symbols rarely lands in a case such as `K == 1 and 64 > M and 64//M <= 2 and
// K*M*N%32 == 0` (M = 32, N = 2); this search does, deterministically, within kFocusedTries
// combinations, each checked by `holds` (no solver call).
std::optional<Bindings> Z3Decider::focused_instance(const std::vector<SymPred>& context, const SymPred& p) {
  const auto range = symbol_ranges(context);
  std::set<int64_t> constants;
  for (const auto& q : context) constants_of(q.lhs, constants), constants_of(q.rhs, constants);
  constants_of(p.lhs, constants), constants_of(p.rhs, constants);
  std::vector<std::string> names(assumptions_.symbols.begin(), assumptions_.symbols.end());
  std::vector<std::vector<int64_t>> values;
  for (const auto& n : names) {
    const auto it = range.find(n);
    const int64_t lo = std::max<int64_t>(it == range.end() ? 1 : it->second.first, 1);
    const int64_t hi = std::min<int64_t>(it == range.end() ? INT64_MAX : it->second.second, int64_t{1} << 40);
    std::set<int64_t> v{lo, lo + 1, hi - 1, hi};
    for (int64_t x = 1; x <= 17; ++x) v.insert(x);
    for (int64_t x = 16; x <= 4096; x *= 2) v.insert({x - 1, x, x + 1, x + x / 2});
    for (int64_t c : constants) v.insert({c - 1, c, c + 1, 2 * c});
    std::vector<SymPred> own;  // the predicates of this symbol alone (`64//M <= 2`) filter its values
    for (const auto& q : context) {
      std::set<std::string> vars;
      collect_vars(q.lhs, vars), collect_vars(q.rhs, vars);
      if (vars.size() == 1 && *vars.begin() == n) own.push_back(q);
    }
    std::vector<int64_t> in;
    for (int64_t x : v) {
      bool ok = x >= lo && x <= hi;
      for (size_t k = 0; ok && k < own.size(); ++k) ok = holds(own[k], Bindings{{n, x}});
      if (ok) in.push_back(x);
    }
    if (in.empty()) return std::nullopt;
    values.push_back(std::move(in));
  }
  std::vector<size_t> idx(names.size(), 0);
  for (size_t tries = 0; tries < kFocusedTries; ++tries) {
    Bindings b;
    for (size_t i = 0; i < names.size(); ++i) b[names[i]] = values[i][idx[i]];
    bool ok = holds(assumptions_, b) && holds(p, b);
    for (size_t k = 0; ok && k < context.size(); ++k) ok = holds(context[k], b);
    if (ok) return b;
    size_t i = 0;  // the next combination, the last symbol fastest
    for (; i < idx.size(); ++i) {
      const size_t d = idx.size() - 1 - i;
      if (++idx[d] < values[d].size()) break;
      idx[d] = 0;
    }
    if (i == idx.size()) break;
  }
  return std::nullopt;
}

// A linear relaxation of the context, for what the whole (nonlinear) context could not decide:
// the symbols a guard fixes (`N == 1`) take their value everywhere, then the linear predicates
// are kept, a nonlinear one whose common factor cancels (cancel.hpp) is replaced by its cancelled
// form, and the other nonlinear ones are dropped. Every instance of the context satisfies the
// relaxation, and there `p` reads as `p` with the fixed values (`linear->p`), so a side the
// relaxation rules out is ruled out for the case. nullopt where nothing was fixed or cancelled.
std::optional<Z3Decider::Relaxed> Z3Decider::linear_part(const std::vector<SymPred>& context, const SymPred& p) {
  const auto range = symbol_ranges(context);
  Bindings fixed;
  for (const auto& [name, r] : range)
    if (r.first == r.second) fixed[name] = r.first;
  try {
    Relaxed out{{}, fixed.empty() ? p : with_values(p, fixed), {}, {}};
    bool any = !fixed.empty();
    std::vector<ShapeDim> divisors;
    divisors_of(p.lhs, divisors);
    divisors_of(p.rhs, divisors);
    for (const auto& d : divisors) out.divisors.push_back(normalize(with_values(d, fixed)));
    for (const auto& q : context) {
      const SymPred v = fixed.empty() ? q : with_values(q, fixed);
      if (fold(v) == std::optional<bool>{true}) continue;
      const std::vector<z3::expr> one{encode(v)};
      if (!nonlinear(one)) {
        out.context.push_back(v);
        continue;
      }
      any = true;
      const SymPred c = cancelled(v).value_or(v);
      out.context.push_back({abstracted(c.lhs), c.rel, abstracted(c.rhs)});
    }
    if (!any) return std::nullopt;
    out.p = {abstracted(out.p.lhs), out.p.rel, abstracted(out.p.rhs)};
    for (auto& d : out.divisors) d = abstracted(d);
    add_lemmas(out);
    return out;
  } catch (const SpecError&) {  // a fixed value makes a divisor 0: the case is left to the whole context
    return std::nullopt;
  }
}

// What the fresh unknowns of a relaxation forget and a linear solver can still use (spec/ALGEBRA.md S5).
void Z3Decider::add_lemmas(Relaxed& out) {
  // what the fresh unknowns forget and a linear solver can still use: a product is a multiple of
  // c wherever one of its factors is, for each constant modulus c of the relaxation
  std::set<int64_t> moduli;
  for (const auto& q : out.context) moduli_of(q.lhs, moduli), moduli_of(q.rhs, moduli);
  moduli_of(out.p.lhs, moduli), moduli_of(out.p.rhs, moduli);
  std::set<std::string> used;
  for (const auto& q : out.context) collect_vars(q.lhs, used), collect_vars(q.rhs, used);
  collect_vars(out.p.lhs, used), collect_vars(out.p.rhs, used);
  for (const auto& [term, factors] : products_)
    for (int64_t c : used.count(term) ? moduli : std::set<int64_t>{})
      for (const auto& f : factors) out.lemmas.push_back(z3::mod(enc_.dim(f), ctx_.int_val(c)) != 0 || z3::mod(enc_.symbol(term), ctx_.int_val(c)) == 0);
  // `c % f == 0` with c a constant: f is one of c's divisors (or their negations); and a product
  // of f and one other factor g is d*g where f is d, for each such divisor d
  std::map<std::string, std::vector<int64_t>> candidates;  // a factor's text -> its possible values
  for (const auto& [term, cm] : const_mods_) {
    if (!used.count(term)) continue;
    const auto& [c, f] = cm;
    std::vector<int64_t> ds;
    for (int64_t d = 1; d * d <= c; ++d)
      if (c % d == 0) ds.push_back(d), ds.push_back(c / d);
    z3::expr any = ctx_.bool_val(false);
    for (int64_t d : ds) any = any || enc_.dim(f) == ctx_.int_val(d) || enc_.dim(f) == ctx_.int_val(-d);
    out.lemmas.push_back(enc_.symbol(term) != 0 || any);
    auto& cand = candidates[to_string(f)];
    cand.insert(cand.end(), ds.begin(), ds.end());
  }
  add_quotient_lemmas(out, used);
  // a product of factors >= 1 is at least each factor, and equal to one only where the others are 1
  for (const auto& [term, factors] : products_) {
    if (!used.count(term) || factors.size() > 4) continue;
    z3::expr positive = ctx_.bool_val(true);
    for (const auto& f : factors) positive = positive && enc_.dim(f) >= 1;
    for (size_t i = 0; i < factors.size(); ++i) {
      z3::expr others_one = ctx_.bool_val(true);
      for (size_t j = 0; j < factors.size(); ++j)
        if (j != i) others_one = others_one && enc_.dim(factors[j]) == 1;
      out.lemmas.push_back(!positive || enc_.symbol(term) >= enc_.dim(factors[i]));
      out.lemmas.push_back(!positive || enc_.symbol(term) != enc_.dim(factors[i]) || others_one);
    }
  }
  for (const auto& [term, factors] : products_) {
    if (!used.count(term) || factors.size() != 2) continue;
    for (size_t i = 0; i < 2; ++i) {
      const auto it = candidates.find(to_string(factors[i]));
      if (it == candidates.end()) continue;
      for (int64_t d : it->second)
        for (int64_t v : {d, -d})
          out.lemmas.push_back(enc_.dim(factors[i]) != ctx_.int_val(v) || enc_.symbol(term) == ctx_.int_val(v) * enc_.dim(factors[1 - i]));
    }
  }
}

// `c // f` and `c % f` with a small constant c >= 1 are piecewise linear in f >= 1: over each
// block [lo, hi] of the f where c // f is one value q (the blocks partition [1, c], about 2*sqrt(c)
// of them), `c // f` is q and `c % f` is c - q*f; past c they are 0 and c. So `64//M <= 2` tells
// the linear solver M >= 22, which a fresh unknown for `64//M` forgets (spec/ALGEBRA.md S5).
void Z3Decider::add_quotient_lemmas(Relaxed& out, const std::set<std::string>& used) {
  auto blocks = [&](const std::string& term, int64_t c, const ShapeDim& divisor, bool quotient) {
    if (!used.count(term) || c > kQuotientLemmaMax) return;
    const z3::expr f = enc_.dim(divisor), t = enc_.symbol(term);
    for (int64_t lo = 1, hi = 0; lo <= c; lo = hi + 1) {
      const int64_t q = c / lo;
      hi = c / q;
      const z3::expr value = quotient ? ctx_.int_val(q) : ctx_.int_val(c) - ctx_.int_val(q) * f;
      out.lemmas.push_back(f < ctx_.int_val(lo) || f > ctx_.int_val(hi) || t == value);
    }
    out.lemmas.push_back(f <= ctx_.int_val(c) || t == (quotient ? ctx_.int_val(0) : ctx_.int_val(c)));
  };
  for (const auto& [term, cf] : const_divs_) blocks(term, cf.first, cf.second, true);
  for (const auto& [term, cf] : const_mods_) blocks(term, cf.first, cf.second, false);
}

// e with each nonlinear term (a product of two non-constants, a `//` or `%` by a non-constant)
// replaced by a fresh symbol, the same one for the same term: linear, and true at an instance
// wherever e is, with each fresh symbol taking its term's value there.
ShapeDim Z3Decider::abstracted(const ShapeDim& e) {
  if (e->op == ExprNode::Op::Const || e->op == ExprNode::Op::Var) return e;
  if (e->op == ExprNode::Op::Mul) return abstracted_product(e);
  const bool nonlin = (e->op == ExprNode::Op::FloorDiv || e->op == ExprNode::Op::Mod) && !is_const(e->rhs);
  if (!nonlin) return dim_binary(e->op, abstracted(e->lhs), abstracted(e->rhs));
  auto [it, fresh] = abstractions_.try_emplace(to_string(e), "");
  if (fresh) {
    it->second = std::string(kAbstractPrefix) + std::to_string(abstractions_.size());
    // `c % f` / `c // f` with a constant c: remembered for the divisor and quotient lemmas
    if (e->op == ExprNode::Op::Mod && is_const(e->lhs) && *const_value(e->lhs) >= 1 && *const_value(e->lhs) <= (int64_t{1} << 20))
      const_mods_[it->second] = {*const_value(e->lhs), abstracted(e->rhs)};
    if (e->op == ExprNode::Op::FloorDiv && is_const(e->lhs) && *const_value(e->lhs) >= 1 && *const_value(e->lhs) <= kQuotientLemmaMax)
      const_divs_[it->second] = {*const_value(e->lhs), abstracted(e->rhs)};
  }
  return dim_var(it->second);
}

// A product: its constant coefficient times one fresh symbol for the product of its non-constant
// factors, each abstracted in turn and taken in one order, so that `2*K*M*N`, `K*M*N` and
// `N*(K*M)` share the symbol of K*M*N and the relaxation keeps `2*K*M*N == 2*(K*M*N)`.
ShapeDim Z3Decider::abstracted_product(const ShapeDim& e) {
  int64_t coefficient = 1;
  std::vector<ShapeDim> factors;
  std::vector<ShapeDim> pending{e};  // the product's nodes still to split
  while (!pending.empty()) {
    ShapeDim x = pending.back();
    pending.pop_back();
    if (x->op == ExprNode::Op::Mul) pending.push_back(x->lhs), pending.push_back(x->rhs);
    else if (int64_t c = 0; is_const(x) && !__builtin_mul_overflow(coefficient, *const_value(x), &c)) coefficient = c;
    else factors.push_back(abstracted(x));
  }
  std::sort(factors.begin(), factors.end(), [](const ShapeDim& a, const ShapeDim& b) { return to_string(a) < to_string(b); });
  if (factors.size() < 2) return dim_binary(ExprNode::Op::Mul, dim_const(coefficient), factors.empty() ? dim_const(1) : factors[0]);
  std::string key;
  for (const auto& f : factors) key += (key.empty() ? "" : " * ") + to_string(f);
  auto [it, fresh] = abstractions_.try_emplace("product " + key, "");
  if (fresh) {
    it->second = std::string(kAbstractPrefix) + std::to_string(abstractions_.size());
    products_[it->second] = factors;
  }
  return coefficient == 1 ? dim_var(it->second) : dim_binary(ExprNode::Op::Mul, dim_const(coefficient), dim_var(it->second));
}

// Whether the relaxation rules out p holding (`side` true) or failing (false) at every instance:
// p there is its divisors (with the fixed values) non-zero and p itself; the relaxation's lemmas
// hold at every instance.
bool Z3Decider::relaxed_unsat(const Relaxed& r, bool side) {
  z3::expr e = encode(r.p);
  for (const auto& d : r.divisors) e = e && enc_.dim(d) != 0;
  z3::expr extra = side ? e : !e;
  for (const auto& l : r.lemmas) extra = extra && l;
  return query(r.context, extra).result == z3::unsat;
}

// Exact under the case (issue 46 item 2): proved where p holds at every instance of the context,
// refuted where it fails at every one, required only with an instance on each side (the failing
// one is the counterexample), undecided otherwise.
Classified Z3Decider::classify(const std::vector<SymPred>& context, const SymPred& p) {
  // The pool first: an instance of the guard where p fails and one where it holds make p
  // required, with the smallest failing instance as the counterexample, and no solver call.
  // A pool instance where p is undefined (a value past int64: 2*K^4*N^4 at K = 1024, N = 48) is
  // on neither side: a counterexample makes p false, not undefined (issue 46 item 3).
  std::optional<Bindings> fails, holds_at;
  const SymPred not_p = negate(p);
  for (size_t i : survivors(context)) {
    if (!fails && holds(not_p, pool_[i])) fails = pool_[i];
    if (!holds_at && holds(p, pool_[i])) holds_at = pool_[i];
    if (fails && holds_at) return {"required", fails};
  }
  const z3::expr e = defined_and(p);
  // Where the case's guard is nonlinear but a guard's common factor cancels (cancel.hpp), the
  // linear part of the context decides what the whole could not: the context implies it, so a
  // side it rules out is ruled out (`(3*M*M-2*M-1)%(4*M-4) == 0` is `(3*M+1)%4 == 0`, which
  // refutes `M%4 == 0`). Asked only after the whole context did not decide.
  const std::optional<Relaxed> linear = linear_part(context, p);
  if (!fails) {
    const QueryOutcome q = query(context, !e);
    if (q.result == z3::unsat) return {"proved", std::nullopt};
    fails = side(q, context, p, false);
    if (!fails && linear && relaxed_unsat(*linear, false)) return {"proved", std::nullopt};
  }
  if (!holds_at) {
    const QueryOutcome q = query(context, e);
    if (q.result == z3::unsat) return {"refuted", fails};
    holds_at = side(q, context, p, true);
    if (!holds_at && linear && relaxed_unsat(*linear, true)) return {"refuted", fails};
  }
  if (!fails) fails = focused_instance(context, not_p);
  if (!holds_at) holds_at = focused_instance(context, p);
  if (fails && holds_at) return {"required", fails};
  return {"undecided", fails};
}

// Whether the linear relaxation of a nonlinear context (linear_part) has no instance: then the
// context has none. A few milliseconds, where a nonlinear query or model search can take a second.
bool Z3Decider::relaxation_empty(const std::vector<SymPred>& context) {
  const auto r = linear_part(context, SymPred{sym(0), SymRel::Eq, sym(0)});
  return r && relaxed_unsat(*r, true);
}

std::optional<bool> Z3Decider::satisfiable(const std::vector<SymPred>& context) {
  if (!survivors(context).empty()) return true;
  if (relaxation_empty(context)) return false;
  const QueryOutcome q = query(context, ctx_.bool_val(true));
  if (q.result == z3::unsat) return false;
  if (q.result == z3::sat) return true;
  // a nonlinear context: its linear relaxation may still have no instance (then it has none)
  return std::nullopt;
}

// The pool's first instance of the context; Z3's only where the pool has none, asked of the smt
// tactic: a model search on a nonlinear query in the default solver's tactics was seen to ignore
// the rlimit and the interrupt for minutes, where the smt tactic stops at the interrupt.
std::optional<Bindings> Z3Decider::instance(const std::vector<SymPred>& context, bool nonlinear) {
  if (const auto& s = survivors(context); !s.empty()) return pool_[s.front()];
  if (relaxation_empty(context)) return std::nullopt;  // none exists: no search
  const QueryOutcome q = query(context, ctx_.bool_val(true), /*searching=*/true, nonlinear);
  return q.model ? model_bindings(*q.model) : std::nullopt;
}

}  // namespace tfspec::solver
