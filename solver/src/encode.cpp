#include "tfspec/solver/encode.hpp"

#include <algorithm>
#include <fstream>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::solver {
namespace {

// Symbols that SMT-LIB reserves or cvc5 rejects (TOOLING-NOTES: `distinct`) get a `!` suffix in Z3;
// auxiliary variables contain `!` too, which no dim identifier can, so names never collide.
std::string smt_name(const std::string& name) {
  static const std::set<std::string> reserved{"distinct", "div", "mod", "abs", "and", "or", "not", "ite", "let",
                                              "true", "false", "forall", "exists", "as", "par", "xor", "to_int",
                                              "to_real", "is_int", "select", "store", "assert", "push", "pop"};
  return reserved.count(name) ? name + "!" : name;
}

}  // namespace

z3::expr Encoder::symbol(const std::string& name) {
  auto it = symbols_.find(name);
  if (it != symbols_.end()) return it->second;
  z3::expr e = ctx_.int_const(smt_name(name).c_str());
  symbols_.emplace(name, e);
  return e;
}

z3::expr Encoder::floor_div(const z3::expr& a, const z3::expr& b) {
  // SMT-LIB `div` is floor division for a positive divisor; floor(a/b) == floor(-a/-b). A numeral
  // divisor needs no case split (Z3 then stays in linear arithmetic for `M // 8`).
  int64_t c = 0;
  if (b.is_numeral_i64(c) && c != 0) return c > 0 ? a / b : (-a) / (-b);
  return z3::ite(b > 0, a / b, (-a) / (-b));
}

z3::expr Encoder::floor_mod(const z3::expr& a, const z3::expr& b) {
  int64_t c = 0;
  if (b.is_numeral_i64(c) && c > 0) return z3::mod(a, b);  // SMT-LIB mod: in [0, c) for c > 0, as floor modulo
  return a - b * floor_div(a, b);
}

z3::expr Encoder::dim(const ShapeDim& d) {
  using Op = ExprNode::Op;
  switch (d->op) {
    case Op::Const: return ctx_.int_val(static_cast<int64_t>(d->value));
    case Op::Var: return symbol(d->name);
    default: break;
  }
  z3::expr a = dim(d->lhs), b = dim(d->rhs);
  switch (d->op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::FloorDiv:
    case Op::Mod:
      if (!is_const(d->rhs)) {
        const std::string text = tfspec::to_string(d->rhs) + " != 0";
        if (std::find(definedness_text_.begin(), definedness_text_.end(), text) == definedness_text_.end()) {
          definedness_.push_back(b != 0);
          definedness_text_.push_back(text);
          divisors_.push_back(d->rhs);
        }
      } else if (*const_value(d->rhs) == 0) {
        fail(rule::kDivisionByZero, "division by zero in " + tfspec::to_string(d));
      }
      return d->op == Op::FloorDiv ? floor_div(a, b) : floor_mod(a, b);
    default: break;
  }
  fail(rule::in(rule::kProveInternal, "§1"), "unknown expression node");
}

z3::expr Encoder::leaf(const IntTuple& leaf, const std::string& path) {
  if (leaf.is_int()) return ctx_.int_val(static_cast<int64_t>(leaf.value()));
  if (leaf.is_sym()) return dim(leaf.dim());
  fail(rule::kNeedsConcrete, "a launch-provided extent (None) at " + path + " has no value to reason about", path);
}

z3::expr Encoder::relation(const Relation& r) {
  z3::expr a = dim(r.lhs), b = dim(r.rhs);
  return apply_relation(r.op, a, b);
}

FlatModes flat_modes(Encoder& enc, const Layout& l, const std::string& name) {
  FlatModes f;
  f.shape_leaves = flat_leaves(l.shape_ref());
  f.stride_leaves = flat_leaves(l.stride());  // SpecError(stride-unmaterialized) when None
  if (f.shape_leaves.size() != f.stride_leaves.size())
    fail(rule::kStrideCongruent, name + ": stride is not congruent with shape");
  for (size_t i = 0; i < f.shape_leaves.size(); ++i) {
    f.shape.push_back(enc.leaf(f.shape_leaves[i], name + ".shape[" + std::to_string(i) + "]"));
    f.stride.push_back(enc.leaf(f.stride_leaves[i], name + ".stride[" + std::to_string(i) + "]"));
  }
  return f;
}

std::set<std::string> layout_symbols(const Layout& l) {
  std::set<std::string> out;
  for (const auto& x : flat_leaves(l.shape_ref()))
    if (x.is_sym()) collect_vars(x.dim(), out);
  if (l.materialized())
    for (const auto& x : flat_leaves(l.stride()))
      if (x.is_sym()) collect_vars(x.dim(), out);
  return out;
}

IntTuple substitute(const IntTuple& t, const Bindings& b) {
  if (t.is_sym()) return IntTuple(evaluate(t.dim(), b));
  if (!t.is_tuple()) return t;
  std::vector<IntTuple> c;
  for (const auto& x : t.children()) c.push_back(substitute(x, b));
  return IntTuple::tuple(std::move(c));
}

Layout substitute(const Layout& l, const Bindings& b) {
  return Layout(substitute(l.shape_ref(), b), substitute(l.stride(), b));
}

std::string to_string(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}

std::optional<int64_t> model_int(const z3::model& m, const z3::expr& e) {
  z3::expr v = m.eval(e, true);
  int64_t out = 0;
  if (!v.is_numeral_i64(out)) return std::nullopt;
  return out;
}

std::string write_smt2(z3::context& ctx, const std::vector<z3::expr>& assertions, const std::string& logic, const std::string& path,
                       const std::string& comment, const std::function<std::string(const std::string&, const std::string&)>& create) {
  z3::solver s(ctx);
  for (const auto& a : assertions) s.add(a);
  const std::string text = "; tfspec prove: " + comment + "\n; sat = a counterexample exists, unsat = the goal holds\n" +
                           "(set-logic " + logic + ")\n" + s.to_smt2() + "(exit)\n";
  if (create) return create(path, text);
  std::ofstream out(path);
  if (!out) fail(rule::in(rule::kProveSmt2Write, "§2"), "cannot write " + path);
  out << text;
  out.close();
  if (!out) fail(rule::in(rule::kProveSmt2Write, "§2"), "cannot write " + path + " (the write failed)");
  return path;
}

Budget::Budget(z3::context& ctx, unsigned total_ms, std::function<Clock::time_point()> clock)
    : ctx_(ctx),
      clock_(std::move(clock)),
      start_(now()),
      deadline_(start_ + std::chrono::milliseconds(total_ms)),
      real_deadline_(Clock::now() + std::chrono::milliseconds(total_ms)),
      armed_until_(real_deadline_) {
  thread_ = std::thread([this] { watch(); });
}

Budget::~Budget() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

double Budget::elapsed_s() const { return std::chrono::duration<double>(now() - start_).count(); }

unsigned Budget::remaining_ms() const {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now()).count();
  return left > 0 ? static_cast<unsigned>(left) : 0u;
}

unsigned Budget::share(double fraction, unsigned min_ms) const {
  const unsigned left = remaining_ms();
  const unsigned part = static_cast<unsigned>(left * fraction);
  return std::min(left, std::max(part, min_ms));
}

void Budget::arm(unsigned ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = true;
    armed_until_ = std::min(real_deadline_, Clock::now() + std::chrono::milliseconds(ms));
  }
  cv_.notify_all();
}

void Budget::disarm() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
  }
  cv_.notify_all();
}

// Interrupts while a call is armed past its limit, and at the deadline; repeats every 10 ms so
// that a check() started just after an interrupt is stopped as well.
void Budget::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const auto until = armed_ ? std::min(armed_until_, real_deadline_) : real_deadline_;
    if (Clock::now() >= until) {
      ++interrupts_;
      ctx_.interrupt();
      cv_.wait_for(lock, std::chrono::milliseconds(10));
      continue;
    }
    cv_.wait_until(lock, until);
  }
}

namespace {
unsigned degree(const z3::expr& e, std::map<unsigned, unsigned>& memo) {
  const unsigned id = Z3_get_ast_id(e.ctx(), e);
  if (auto it = memo.find(id); it != memo.end()) return it->second;
  unsigned d = 0;
  if (e.is_app() && !e.is_numeral()) {
    if (e.num_args() == 0) {
      d = e.is_int() ? 1 : 0;
    } else {
      const bool product = e.decl().decl_kind() == Z3_OP_MUL;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        const unsigned a = degree(e.arg(i), memo);
        d = product ? d + a : std::max(d, a);
      }
    }
  }
  memo[id] = d;
  return d;
}
}  // namespace

unsigned degree(const z3::expr& e) {
  std::map<unsigned, unsigned> memo;
  return degree(e, memo);
}

namespace {
z3::tactic with_params(z3::context& ctx, const char* name, std::initializer_list<std::pair<const char*, unsigned>> ps) {
  z3::params p(ctx);
  for (const auto& [k, v] : ps) p.set(k, v);
  return z3::with(z3::tactic(ctx, name), p);
}

z3::tactic with_flags(z3::context& ctx, const char* name, std::initializer_list<std::pair<const char*, bool>> ps) {
  z3::params p(ctx);
  for (const auto& [k, v] : ps) p.set(k, v);
  return z3::with(z3::tactic(ctx, name), p);
}

// Z3's default tactic for these queries is its QF_NIA strategy, whose steps are bounded by the
// wall clock (`try_for` 2000 ms around the smt step, 3000 ms around nlsat): on a loaded machine the
// smt step is cut before it spends the rlimit and nlsat decides what a fast machine leaves
// unknown, so the same request answered differently by machine load and by what ran before
// (issue 44 item 8). Its steps without the clocks: only the rlimit ends them, so every run spends
// the same work and gets the same answer. nlsat comes before smt: smt on these queries can run
// past its rlimit for many seconds (measured on `logical_product (M-1):(4) (4:M)`), where the
// clocks used to cut it and hand over to nlsat. The preamble's cofactor-term-ite step is left
// out: after it the smt step ran past 60 s ignoring the rlimit (measured on a query of
// `tiled_product (M*N):(4) (N,1,M*M):(4,M,N)`; without it the rlimit stops that query at 0.2 s).
z3::tactic nonlinear_tactic(z3::context& ctx) {
  z3::tactic sk(ctx, "skip");
  z3::tactic pre = z3::tactic(ctx, "simplify") & z3::tactic(ctx, "propagate-values") &
                   with_params(ctx, "ctx-simplify", {{"max_depth", 30}, {"max_steps", 5000000}}) &
                   with_flags(ctx, "simplify", {{"pull_cheap_ite", true}, {"local_ctx", true}}) & z3::tactic(ctx, "elim-uncnstr");
  z3::tactic bv = with_flags(ctx, "simplify", {{"hoist_mul", true}}) & with_params(ctx, "nla2bv", {{"nla2bv_max_bv_size", 64}}) &
                  ((with_params(ctx, "bit-blast", {{"max_memory", 100}}) & with_params(ctx, "sat", {{"max_conflicts", 500}})) | sk) &
                  z3::tactic(ctx, "fail-if-undecided");
  z3::tactic smt = with_flags(ctx, "simplify", {{"som", true}}) & z3::tactic(ctx, "smt");
  z3::tactic nlsat = with_flags(ctx, "simplify", {{"som", true}}) & z3::tactic(ctx, "qfnra-nlsat") &
                   z3::tactic(ctx, "fail-if-undecided");
  return pre & (bv | nlsat | smt);
}
}  // namespace

QueryOutcome check(z3::context& ctx, const std::vector<z3::expr>& assertions, const Limits& limits,
                   const std::string& logic, const std::string& smt2_path, const std::string& comment) {
  z3::solver s = limits.default_solver ? nonlinear_tactic(ctx).mk_solver() : z3::tactic(ctx, "smt").mk_solver();
  z3::params p(ctx);
  p.set("timeout", std::max(1u, limits.timeout_ms));
  // The watchdog (Budget) is the hard limit; a derived rlimit only backs it up where Z3 does not
  // look at interrupts. Bit-blasting spends units far faster than search (measured: 2000 units per
  // ms stopped a 0.4 s bit-vector proof), hence 20000 per ms.
  p.set("rlimit", limits.rlimit ? limits.rlimit : std::min<unsigned>(limits.timeout_ms, 200000u) * 20000u + 1000u);
  s.set(p);
  QueryOutcome q;
  for (size_t i = 0; i < assertions.size(); ++i) {  // many assumptions: the limit holds here too
    if (limits.budget && i % 256 == 0 && limits.budget->expired()) {
      q.reason = "time limit";
      return q;
    }
    s.add(assertions[i]);
  }
  if (!smt2_path.empty()) write_smt2(ctx, assertions, logic, smt2_path, comment);
  if (!limits.default_solver) s.push();  // the default solver stays non-incremental: its tactics honour the rlimit
  auto start = std::chrono::steady_clock::now();
  if (limits.budget) {
    if (limits.budget->expired()) {
      q.reason = "time limit";
      return q;
    }
    if (!limits.budget->z3_allowed) {
      q.reason = limits.budget->z3_refusal;
      return q;
    }
    limits.budget->arm(limits.timeout_ms);
  }
  const unsigned interrupts_before = limits.budget ? limits.budget->interrupts() : 0;
  auto clock_stopped = [&] { return q.reason == "timeout" || (limits.budget && limits.budget->interrupts() != interrupts_before); };
  try {
    q.result = s.check();
  } catch (const z3::exception& e) {  // canceled while setting up: the same as an interrupted check
    if (limits.budget) limits.budget->disarm();
    q.result = z3::unknown;
    q.reason = e.msg();
    q.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    q.clock_stop = clock_stopped();
    return q;
  }
  if (limits.budget) limits.budget->disarm();
  q.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (q.result == z3::sat) q.model = s.get_model();
  if (q.result == z3::unknown) q.reason = s.reason_unknown();
  q.clock_stop = q.result == z3::unknown && clock_stopped();
  return q;
}

}  // namespace tfspec::solver
