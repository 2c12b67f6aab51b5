// The layout group's ops on symbolic layouts (spec/ALGEBRA.md S1-S8, spec/PROTOCOL.md "Symbolic
// layouts"): the reference's symbolic result and conditions, each classified by the solver under
// the assumptions, with an instance replayed through the concrete reference where one fails.
// `tfspec layout OP ... --assume PRED`, `serve` and `conform` reach it through the registry.
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "symbolic_budget.hpp"
#include "symbolic_defined.hpp"
#include "symbolic_print.hpp"
#include "symbolic_refusals.hpp"
#include "symbolic_validate.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "tfspec/solver/encode.hpp"
#include "tfspec/solver/obligations.hpp"

namespace tfspec::protocol {
namespace {

// The concrete op, run at an instance to replay a condition's counterexample.
struct Concrete {
  std::function<OpResult(const Json&)> run;
  std::string op;
};

struct Inputs {
  std::optional<Layout> a;      // `layout` or `a`
  std::optional<Tiler> tiler;   // `tiler`
  std::optional<Layout> b;      // `b` (blocked/raked products, max_common_vector)
  DomainPolicy policy = DomainPolicy::Strict;
  std::optional<IntTuple> shape, stride, coord, index;  // crd2idx, idx2crd, eval, slice
  std::optional<IntTuple> profile;                      // coalesce, filter by mode
  std::optional<IntTuple> cotarget;                     // complement
  std::optional<IntTuple> ta, tb, dst, src;             // shape_div's IntTuples; crd2crd's shapes
  bool non_plain = false;       // `layout`/`a` given but not a plain Layout
  const Layout& layout() const {
    if (!a) fail(rule::kProtocolMissingArg, "missing argument 'layout' (or 'a')");
    return *a;
  }
  const Tiler& tiler_arg() const {
    if (!tiler) fail(rule::kProtocolMissingArg, "missing argument 'tiler'");
    return *tiler;
  }
};

Inputs read_inputs(const std::string& op, const Json& args) {
  Inputs in;
  if (op == "shape_div") {  // IntTuples, not layouts
    if (args.contains("a")) in.ta = inttuple_from_json(args["a"]);
    if (args.contains("b")) in.tb = inttuple_from_json(args["b"]);
    return in;
  }
  if (args.contains("dst")) in.dst = inttuple_from_json(args["dst"]);
  if (args.contains("src")) in.src = inttuple_from_json(args["src"]);
  // Only a plain Layout takes the symbolic path; any other kind (a composed or swizzled layout,
  // X1) or unreadable input goes to the concrete op, which answers it or names the rule.
  auto plain = [&in](const Json& j) -> std::optional<Layout> {
    try {
      return layout_from_json(j);
    } catch (const SpecError&) {
      in.non_plain = true;
      return std::nullopt;
    }
  };
  if (args.contains("layout")) in.a = plain(args["layout"]);
  if (args.contains("a")) in.a = plain(args["a"]);
  if (args.contains("b")) in.b = plain(args["b"]);
  if (args.contains("tiler")) in.tiler = protocol::tiler_from_json(args["tiler"]);
  if (args.contains("domain") && args["domain"] == "extend") in.policy = DomainPolicy::Extend;
  if (args.contains("shape")) in.shape = inttuple_from_json(args["shape"]);
  if (args.contains("stride")) in.stride = inttuple_from_json(args["stride"]);
  if (args.contains("coord")) in.coord = coord_from_json(args["coord"]);
  if (args.contains("index")) in.index = inttuple_from_json(args["index"]);
  if (args.contains("profile")) in.profile = inttuple_from_json(args["profile"]);
  if (args.contains("cotarget")) in.cotarget = inttuple_from_json(args["cotarget"]);
  return in;
}

Json bind_json(const Json& j, const Bindings& b, bool tiler) {
  if (tiler) {
    const Tiler t = protocol::tiler_from_json(j);
    std::function<Tiler(const Tiler&)> go = [&](const Tiler& x) -> Tiler {
      if (x.is_layout()) return Tiler(Layout(bind_symbols(x.layout->shape_ref(), b), bind_symbols(x.layout->stride(), b)));
      std::vector<Tiler> m;
      for (const auto& y : x.modes) m.push_back(go(y));
      return Tiler(std::move(m));
    };
    return protocol::tiler_to_json(go(t));
  }
  const Layout l = layout_from_json(j);
  return to_json(Layout(bind_symbols(l.shape_ref(), b), bind_symbols(l.stride(), b)));
}

// The request with every symbol bound to its value at an instance.
Json bound_args(const Concrete& concrete, const Json& args, const Bindings& b) {
  Json bound = args;
  bound.erase("assume");
  bound.erase("budget");
  const bool tuples = concrete.op == "shape_div";  // its `a` and `b` are IntTuples, not layouts
  for (const char* k : {"layout", "a", "b"})
    if (bound.contains(k)) bound[k] = tuples ? to_json(bind_symbols(inttuple_from_json(bound[k]), b)) : bind_json(bound[k], b, false);
  if (bound.contains("tiler")) bound["tiler"] = bind_json(bound["tiler"], b, true);
  for (const char* k : {"shape", "stride", "coord", "index", "cotarget", "dst", "src"})
    if (bound.contains(k)) bound[k] = to_json(bind_symbols(k == std::string("coord") ? coord_from_json(bound[k]) : inttuple_from_json(bound[k]), b));
  return bound;
}

// The concrete reference at an instance: its answer, its refusal, or one of its limits.
ConcreteAnswer concrete_at(const Concrete& concrete, const Json& args, const Bindings& b) {
  ConcreteAnswer a;
  try {
    const OpResult r = concrete.run(bound_args(concrete, args, b));
    a.result = r.json;
    a.text = r.text;
    while (!a.text.empty() && a.text.back() == '\n') a.text.pop_back();
    if (auto nl = a.text.rfind('\n'); nl != std::string::npos) a.text = a.text.substr(nl + 1);
  } catch (const SpecError& e) {
    a.refused = e.kind() != RuleKind::Limit;
    a.limit = !a.refused;
    a.rule = e.rule() + " " + e.clause();
  }
  return a;
}

std::string replay(const Concrete& concrete, const Json& args, const Bindings& b) {
  const ConcreteAnswer a = concrete_at(concrete, args, b);
  if (a.refused || a.limit) return "the reference refuses: [" + a.rule + "]";
  return "the reference answers " + a.text;
}

void tiler_symbols(const Tiler& t, std::set<std::string>& out) {
  if (t.is_layout()) out.merge(layout_symbols(*t.layout));
  for (const auto& m : t.modes) tiler_symbols(m, out);
}

template <class R>
using Body = std::function<R(SymExec&)>;

template <class R>
using Differs = std::function<std::string(const R&, const Bindings&, const Json&)>;

// The instances an answer is replayed at (S9): the decider's pool (an even sample of at most
// 160), and from the solver, for each case, an instance of its guard with all its conditions,
// and one where each required condition fails (the counterexamples the classification found).
constexpr size_t kPoolSample = 160;

std::vector<Bindings> validation_instances(BudgetedDecider& dec, const std::vector<CheckedCase>& cases, const std::vector<Bindings>& found) {
  std::vector<Bindings> out = found;
  const auto& pool = dec.pool();
  const size_t step = pool.size() <= kPoolSample ? 1 : (pool.size() + kPoolSample - 1) / kPoolSample;
  for (size_t i = 0; i < pool.size(); i += step) out.push_back(pool[i]);
  for (const auto& c : cases) {
    std::vector<SymPred> all = c.when;
    for (const auto& k : c.conditions) all.push_back(k.pred);
    // extra instances: Z3 searches for them only where the query is linear (issue 46 item 5)
    if (auto x = dec.instance(all, false)) out.push_back(*x);
    if (auto x = dec.instance(c.when, false)) out.push_back(*x);
  }
  // each instance once: the count printed is of distinct instances (issue 46: "refuses at each of the
  // 3 instances checked" was one instance three times)
  std::vector<Bindings> distinct;
  std::set<Bindings> seen;
  for (auto& b : out)
    if (seen.insert(b).second) distinct.push_back(std::move(b));
  return distinct;
}

// The ops whose conditions are CuTe's walk's: sufficient for the reference, which also answers
// past a refused walk where the function is still a layout (S3, D17); and left_inverse, whose
// symbolic form keeps CuTe's construction while the concrete one also answers past its gaps (A8).
bool walk_sufficient(const std::string& op) {
  static const std::set<std::string> walk{"composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
                                          "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product",
                                          "raked_product", "max_common_vector", "left_inverse"};
  return walk.count(op) > 0;
}

// Issue 46 item 1: every printed case is reachable. Each case's guard gets a witness instance
// (the pool's, else the solver's); a case whose guard the solver proves empty under the
// assumptions is dropped (no instance reaches it); one that is neither stays, its witness null
// (`reachable: undecided`). Returns the witnesses, one per kept case.
template <class R>
std::vector<std::optional<Bindings>> keep_reachable(BudgetedDecider& dec, SymSummary<R>& s) {
  std::vector<SymAnswer<R>> kept;
  std::vector<std::optional<Bindings>> witnesses;
  for (auto& a : s.answers) {
    a.when = defined_guard(dec, a.when);  // issue 46 item 3: each guard step defined where it is read
    std::optional<Bindings> w = dec.instance(a.when);
    if (!w && dec.satisfiable(a.when) == false) continue;
    kept.push_back(std::move(a));
    witnesses.push_back(std::move(w));
  }
  if (kept.empty() && s.refusals.empty()) return std::vector<std::optional<Bindings>>(s.answers.size());  // cannot be: kept as found
  s.answers = std::move(kept);
  return witnesses;
}

template <class R>
std::vector<RefusingPath> refusing_paths(const SymSummary<R>& s) {
  std::vector<RefusingPath> out;
  for (const auto& c : s.refusals) out.push_back({c.guard(), *c.refusal});
  return out;
}

// The walk's refusal, at an instance where the reference answers past it (D17).
std::string past_walk_note(const PastWalk& p) {
  return "CuTe's walk refuses here, but the concrete reference answers past it (D17), e.g. at " + solver::to_string(p.at) + ": " +
         p.answer;
}

// Every path refuses (issue 46): "refused for every instance" is said only once the concrete
// reference has refused at every instance the answer was replayed at. For the walk's ops the
// symbolic refusal is CuTe's walk's, and the reference may answer past it (D17): that is said.
[[noreturn]] void refused_everywhere(const Concrete& concrete, const Json& args, BudgetedDecider& dec, const Diagnostic& d, const ValidationStats& v) {
  std::string msg = d.message + "; ";
  const std::string checked = std::to_string(v.instances) + " instance" + (v.instances == 1 ? "" : "s");
  if (walk_sufficient(concrete.op))
    msg += "CuTe's walk refuses at every instance of the assumptions, and the concrete reference refuses at each of the " + checked +
           " checked (it may answer past the walk elsewhere, D17)";
  else
    msg += "refused for every instance of the assumptions (the concrete reference refuses at each of the " + checked + " checked)";
  if (auto x = dec.instance({})) msg += ", e.g. " + solver::to_string(*x) + " (" + replay(concrete, args, *x) + ")";
  Diagnostic why = d;
  why.message = msg;
  throw SpecError(why);
}

// The text's last lines and the JSON's top level: the validation, and `undecided` where the
// answer was compared at no instance (S9, issue 46 item 7: M*M == 2*N*N has none, yet Z3
// cannot refute it) or the refusal cases could not all be listed (item 4), or where every case
// is a refusal of CuTe's walk and the reference answers past it (`why`): exit 2.
OpResult finish(std::ostringstream& out, Json j, const ValidationStats& v, bool total, std::string why = "") {
  out << "validated against the concrete reference at " << v.instances << " instances (" << v.compared << " answers compared, " << v.refusals
      << " refusals" << (v.past ? ", " + std::to_string(v.past) + " answered by the reference past CuTe's walk" : "") << ")\n";
  j["validated"] = Json{{"instances", v.instances}, {"compared", v.compared}, {"refusals", v.refusals}};
  if (v.past) j["validated"]["past_walk"] = v.past;
  if (!why.empty()) {
  } else if (v.instances == 0)
    why = "the answer could not be validated: neither the instance pool nor the solver found an instance of the assumptions, and "
          "the solver could not show that they have none";
  else if (!total)
    why = "the regions where the op refuses split into more than " + std::to_string(kMaxRefusalCases) +
          " cases, so they are not listed: an instance no case's guard holds at is refused";
  if (why.empty()) return OpResult{j, out.str()};
  out << "undecided: " << why << "\n";
  j["undecided"] = why;
  return OpResult{j, out.str(), 2};
}

// A case one of whose conditions fails at every instance of its guard (`refuted` under the
// guard) is the answer at none of its instances: it is a refusal case of that condition's rule,
// printed as every other refusal is (issue 46 items 2 and 4), so that no formula is printed
// over instances it does not describe. For the walk's ops the reference may answer past the
// walk there (D17): validation finds such an instance and the case says so.
std::optional<RefusalCase> dead_case(const CheckedCase& c, const std::vector<SymCondition>& conditions, const std::optional<Bindings>& witness) {
  for (size_t j = 0; j < c.conditions.size() && j < conditions.size(); ++j) {
    if (c.conditions[j].status != "refuted") continue;
    Diagnostic d;
    d.rule = conditions[j].rule;
    d.clause = conditions[j].clause;
    d.message = "the condition " + to_string(conditions[j].pred) + " fails at every instance of this case";
    return RefusalCase{c.when, d, witness};
  }
  return std::nullopt;
}

template <class R>
OpResult report(const Concrete& concrete, const Json& args, BudgetedDecider& dec, SymSummary<R> s,
                const std::function<std::string(const R&)>& text_of, const std::function<Json(const R&)>& json_of, const Differs<R>& differs) {
  const std::vector<std::optional<Bindings>> witnesses = keep_reachable(dec, s);
  std::vector<std::vector<SymPred>> guards;
  for (const auto& a : s.answers) guards.push_back(a.when);
  const auto refusals = refusal_cases(dec, guards, refusing_paths(s));  // issue 46 item 4
  if (s.answers.empty() && (!refusals || refusals->empty())) refused_everywhere(concrete, args, dec, *s.refusals.front().refusal, ValidationStats{});
  const size_t printed = s.answers.size() + (refusals ? refusals->size() : 0);
  Everywhere ev(dec.assumptions().symbols, dec);
  std::vector<CheckedCase> checked(s.answers.size());
  std::vector<Bindings> found;
  std::vector<PrintedCase> shown;  // every case, printed once validated: a refusal the reference contradicts says so
  std::optional<Diagnostic> first_refusal;
  size_t alive = 0;
  const Replay at = [&](const Bindings& b) { return replay(concrete, args, b); };
  for (size_t i = 0; i < s.answers.size(); ++i) {
    const auto& a = s.answers[i];
    shown.push_back(print_answer(dec, ev, a.when, a.conditions, text_of(a.result), json_of(a.result), witnesses[i], printed > 1, at, checked[i], found));
    if (auto dead = dead_case(checked[i], a.conditions, witnesses[i])) {
      shown.back() = print_refusal(*dead);
      checked[i] = CheckedCase{dead->when, {}, "refused", true};
      if (!first_refusal) first_refusal = dead->refusal;
    } else {
      ++alive;
    }
  }
  for (const auto& r : refusals ? *refusals : std::vector<RefusalCase>{}) {
    shown.push_back(print_refusal(r));
    checked.push_back(CheckedCase{r.when, {}, "refused", true});
  }
  if (!s.refusals.empty()) first_refusal = *s.refusals.front().refusal;
  const bool none = alive == 0;  // every case refuses: checked below before it is said
  const ValidationStats v = validate_cases(
      checked, walk_sufficient(concrete.op), refusals.has_value(), validation_instances(dec, checked, found),
      [&](const Bindings& b) { return concrete_at(concrete, args, b); },
      [&](size_t k, const Bindings& b, const Json& ref) { return differs(s.answers[k].result, b, ref); });
  if (none && v.past_walk.empty()) refused_everywhere(concrete, args, dec, *first_refusal, v);
  std::ostringstream out;
  Json cases = Json::array();
  for (size_t i = 0; i < shown.size(); ++i) {
    PrintedCase& p = shown[i];
    if (auto pw = v.past_walk.find(i); checked[i].refused && pw != v.past_walk.end()) {
      p.text += "  " + past_walk_note(pw->second) + "\n";
      p.json["refused"]["reference_answers"] = Json{{"at", pw->second.at}, {"answer", pw->second.answer}};
    }
    out << p.text;
    cases.push_back(p.json);
  }
  std::string why;
  if (none)
    why = "every case is a refusal of CuTe's walk, and the concrete reference answers past it (D17), e.g. at " +
          solver::to_string(v.past_walk.begin()->second.at) + ": " + v.past_walk.begin()->second.answer +
          "; the symbolic form has no answer there";
  const bool one = printed == 1 && !none;
  return finish(out, Json{{"result", one ? json_of(s.answers[0].result) : Json(nullptr)}, {"cases", cases},
                          {"conditions", one ? cases[0]["conditions"] : Json::array()}}, v, refusals.has_value(), why);
}

template <class R>
using Text = std::function<std::string(const R&)>;
template <class R>
using ToJson = std::function<Json(const R&)>;

// Every symbolic extent is >= 1 (§3 extent-positive): the concrete reference refuses a layout
// with an extent below 1, so on a symbolic path it is an obligation like any other, first on the
// arguments (`M-1` is 0 at M = 1), then on the extents of a layout the op answers.
void require_extents(SymExec& ex, const IntTuple& shape, const std::string& what) {
  for (const auto& x : flat_leaves(shape))
    if (x.is_sym()) {
      const ShapeDim d = normalize(x.as_dim());
      ex.require({d, SymRel::Ge, dim_const(1)}, rule::in(rule::kExtentPositive, "§3"), what + " extent " + to_string(d) + " must be >= 1");
    }
}

void require_tiler_extents(SymExec& ex, const Tiler& t) {
  if (t.is_layout()) require_extents(ex, t.layout->shape_ref(), "the tiler's");
  for (const auto& m : t.modes) require_tiler_extents(ex, m);
}

void require_input_extents(SymExec& ex, const Inputs& in) {
  if (in.a) require_extents(ex, in.a->shape_ref(), "the layout's");
  if (in.b) require_extents(ex, in.b->shape_ref(), "B's");
  if (in.tiler) require_tiler_extents(ex, *in.tiler);
  for (const auto* t : {&in.shape, &in.ta, &in.tb, &in.dst, &in.src})
    if (*t) require_extents(ex, **t, "the argument's");
}

// Issue 46 item 5: the paths are merged (summarize, simplify) before the cases are counted.
constexpr const char* kPathsUnit = "paths (before their cases are merged)";

// Cases the solver proves empty under the assumptions are dropped before they are counted (issue 46:
// the limit is on the cases a reader would see, and keep_reachable drops the same ones later; a
// guard made smaller by its definedness conditions is empty whenever the bare guard is).
template <class R>
void require_few_cases(SymSummary<R>& s, BudgetedDecider& dec) {
  if (s.answers.size() > static_cast<size_t>(kSymbolicCaseLimit))
    std::erase_if(s.answers, [&](const SymAnswer<R>& a) { return dec.satisfiable(a.when) == false; });
  if (s.answers.size() > static_cast<size_t>(kSymbolicCaseLimit))
    fail(rule::kResourceLimit, "the symbolic answer has " + std::to_string(s.answers.size()) + " cases once its paths are merged, more than " +
                                   std::to_string(kSymbolicCaseLimit) + "; add assumptions that decide its branches (e.g. lower bounds on the extents)");
}

template <class R>
OpResult run_paths(const Concrete& concrete, const Json& args, const Inputs& in, BudgetedDecider& dec, const Body<R>& body,
                   const Text<R>& text_of, const ToJson<R>& json_of, const Differs<R>& differs) {
  const Body<R> checked = [&](SymExec& ex) {
    require_input_extents(ex, in);
    return body(ex);
  };
  SymSummary<R> summary = summarize(explore<R>(dec, checked, kSymbolicPathLimit, kPathsUnit));
  simplify(summary, dec);
  require_few_cases(summary, dec);
  return report<R>(concrete, args, dec, std::move(summary), text_of, json_of, differs);
}

// The ops whose answer is a layout: (the symbolic op, its second argument: 't' a tiler, 'b' a
// layout, 0 none). Also the `--of` forms of `prove` (derive_layout).
using LayoutOp = std::pair<std::function<Layout(SymExec&, const Inputs&)>, char>;
const std::map<std::string, LayoutOp>& layout_ops() {
  using P = DomainPolicy;
  using TiledOp = Layout (*)(SymExec&, const Layout&, const Tiler&, P);
  auto tiled = [](TiledOp f) { return LayoutOp{[f](SymExec& ex, const Inputs& in) { return f(ex, in.layout(), in.tiler_arg(), in.policy); }, 't'}; };
  auto paired = [](Layout (*f)(SymExec&, const Layout&, const Layout&, P)) {
    return LayoutOp{[f](SymExec& ex, const Inputs& in) { return f(ex, in.layout(), *in.b, in.policy); }, 'b'};
  };
  auto unary = [](Layout (*f)(SymExec&, const Layout&)) { return LayoutOp{[f](SymExec& ex, const Inputs& in) { return f(ex, in.layout()); }, 0}; };
  using ByMode = Layout (*)(SymExec&, const Layout&, const IntTuple&);
  auto profiled = [](Layout (*f)(SymExec&, const Layout&), ByMode g) {
    return LayoutOp{[f, g](SymExec& ex, const Inputs& in) { return in.profile ? g(ex, in.layout(), *in.profile) : f(ex, in.layout()); }, 0};
  };
  static const std::map<std::string, LayoutOp> kTable{
      {"coalesce", profiled(sym_coalesce, sym_coalesce)}, {"filter", profiled(sym_filter, sym_filter)}, {"right_inverse", unary(sym_right_inverse)},
      {"left_inverse", unary(sym_left_inverse)},
      {"complement", {[](SymExec& ex, const Inputs& in) {
                        if (!in.cotarget) return sym_complement(ex, in.layout(), sym_cosize(ex, in.layout()));
                        if (in.cotarget->is_tuple() || in.cotarget->is_none())
                          fail(rule::kNeedsConcrete, "complement's cotarget must be one extent, got " + to_string(*in.cotarget));
                        return sym_complement(ex, in.layout(), normalize(in.cotarget->as_dim()));
                      }, 0}},
      {"composition", tiled(sym_composition)}, {"logical_divide", tiled(sym_logical_divide)}, {"zipped_divide", tiled(sym_zipped_divide)},
      {"tiled_divide", tiled(sym_tiled_divide)}, {"flat_divide", tiled(sym_flat_divide)}, {"logical_product", tiled(sym_logical_product)},
      {"zipped_product", tiled(sym_zipped_product)}, {"tiled_product", tiled(sym_tiled_product)}, {"flat_product", tiled(sym_flat_product)},
      {"blocked_product", paired(sym_blocked_product)}, {"raked_product", paired(sym_raked_product)}};
  return kTable;
}

// The ops whose answer is a symbolic integer, one line each (S2: the concrete algorithm over ShapeDims).
using DimForm = ShapeDim (*)(SymExec&, const Inputs&);
const std::map<std::string, DimForm>& dim_forms() {
  static const std::map<std::string, DimForm> forms{
      {"size", [](SymExec&, const Inputs& in) { return sym_size(in.layout()); }},
      {"cosize", [](SymExec& ex, const Inputs& in) { return sym_cosize(ex, in.layout()); }},
      {"crd2idx", [](SymExec&, const Inputs& in) { return sym_crd2idx(*in.coord, *in.shape, in.stride ? *in.stride : prefix_product(*in.shape)); }},
      {"eval", [](SymExec& ex, const Inputs& in) { return sym_eval(ex, *in.coord, in.layout()); }},
      {"max_common_vector", [](SymExec& ex, const Inputs& in) { return sym_max_common_vector(ex, in.layout(), *in.b); }},
  };
  return forms;
}

// The arguments each op reads besides `layout`/`a`; where one is missing the concrete op answers
// (it names the argument).
bool has_arguments(const std::string& op, const Inputs& in) {
  if (op == "crd2idx") return in.shape && in.coord;
  if (op == "idx2crd") return in.shape && in.index;
  if (op == "shape_div") return in.ta && in.tb;
  if (op == "crd2crd") return in.coord && in.dst && in.src;
  if (!in.a) return false;
  if (op == "eval" || op == "slice") return in.coord.has_value();
  if (op == "max_common_vector") return in.b.has_value();
  if (auto l = layout_ops().find(op); l != layout_ops().end()) return l->second.second == 't' ? in.tiler.has_value() : l->second.second == 'b' ? in.b.has_value() : true;
  return true;
}

// The symbols of every argument; nullopt when the request is for the concrete op (no symbol and
// no "assume", or an argument only the concrete op reads).
std::optional<std::set<std::string>> symbolic_request(const std::string& op, const Json& args, const Inputs& in) {
  if (in.non_plain) return std::nullopt;  // a composed or swizzled layout (X1): the concrete op
  if (!has_arguments(op, in)) return std::nullopt;
  std::set<std::string> symbols;
  if (in.a) symbols = layout_symbols(*in.a);
  if (in.b) symbols.merge(layout_symbols(*in.b));
  if (in.tiler) tiler_symbols(*in.tiler, symbols);
  for (const auto* t : {&in.shape, &in.stride, &in.coord, &in.index, &in.cotarget, &in.ta, &in.tb, &in.dst, &in.src})
    if (*t) collect_symbols(**t, symbols);
  if (symbols.empty() && !args.contains("assume")) return std::nullopt;
  return symbols;
}

// A layout op's path: its answer's extents are obligations too (require_extents).
Layout layout_body(SymExec& ex, const LayoutOp& form, const Inputs& in) {
  Layout l = form.first(ex, in);
  require_extents(ex, l.shape_ref(), "the result's");
  return l;
}

OpResult run_form(const std::string& op, const Json& args, const Concrete& concrete, const Inputs& in, BudgetedDecider& dec) {
  if (auto f = dim_forms().find(op); f != dim_forms().end())
    return run_paths<ShapeDim>(
        concrete, args, in, dec, [&](SymExec& ex) { return f->second(ex, in); }, [](const ShapeDim& d) { return to_string(d); },
        [](const ShapeDim& d) { return to_json(IntTuple::sym(d)); }, dim_differs);
  if (op == "idx2crd")  // `//` and `%` atoms, no branch (S7)
    return run_paths<IntTuple>(
        concrete, args, in, dec, [&](SymExec&) { return sym_idx2crd(normalize(in.index->as_dim()), *in.shape); },
        [](const IntTuple& t) { return to_string(t); }, [](const IntTuple& t) { return to_json(t); }, inttuple_differs);
  if (op == "crd2crd" || op == "shape_div")  // S7: IntTuples; shape_div branches on which extent divides the other
    return run_paths<IntTuple>(
        concrete, args, in, dec,
        [&](SymExec& ex) { return op == "crd2crd" ? sym_crd2crd(*in.coord, *in.dst, *in.src) : sym_shape_div(ex, *in.ta, *in.tb); },
        [](const IntTuple& t) { return to_string(t); }, [](const IntTuple& t) { return to_json(t); }, inttuple_differs);
  if (op == "slice")  // the kept modes and the offset; the coordinate's bounds are the conditions (S7)
    return run_paths<SymSlice>(
        concrete, args, in, dec, [&](SymExec& ex) { return sym_slice(ex, *in.coord, in.layout()); },
        [](const SymSlice& s) { return "offset " + to_string(s.offset) + "\n" + to_string(s.layout); },
        [](const SymSlice& s) { return Json{{"layout", to_json(s.layout)}, {"offset", to_json(IntTuple::sym(s.offset))}}; },
        [](const SymSlice& s, const Bindings& b, const Json& ref) {
          const std::string d = dim_differs(s.offset, b, ref.at("offset"));
          return d.empty() ? layout_differs(s.layout, b, ref.at("layout")) : "has an offset that " + d;
        });
  const LayoutOp& form = layout_ops().at(op);
  return run_paths<Layout>(
      concrete, args, in, dec,
      [&](SymExec& ex) { return layout_body(ex, form, in); }, [](const Layout& l) { return to_string(l); },
      [](const Layout& l) { return to_json(l); }, layout_differs);
}

// Assumptions with no instance would make every answer vacuously right: an input error.
void require_instances(solver::Z3Decider& z3) {
  if (z3.satisfiable() != false) return;
  std::string texts;
  for (const auto& t : z3.assumptions().texts) texts += (texts.empty() ? "" : ", ") + t;
  fail(rule::kProveAssumptionsInconsistent, "the assumptions have no instance (" + texts + "): every answer would hold vacuously");
}

// The integers the request names (extents, strides, coordinates, constants in expressions): the
// instance pool tries each, its neighbours and multiples (solver/instances.hpp).
void json_constants(const Json& j, std::set<int64_t>& out) {
  if (j.is_number_integer() && j.get<int64_t>() >= 1) out.insert(j.get<int64_t>());
  if (j.is_string()) {
    const std::string t = j.get<std::string>();
    for (size_t i = 0; i < t.size();) {
      size_t k = i;
      while (k < t.size() && std::isdigit(static_cast<unsigned char>(t[k]))) ++k;
      if (k > i && k - i <= 12 && (i == 0 || !std::isalnum(static_cast<unsigned char>(t[i - 1])))) out.insert(std::stoll(t.substr(i, k - i)));
      i = k > i ? k : i + 1;
    }
  }
  if (j.is_array() || j.is_object())
    for (const auto& x : j) json_constants(x, out);
}

std::set<int64_t> problem_constants(const Json& args) {
  std::set<int64_t> out;
  for (const auto& [k, v] : args.items())
    if (k != "assume" && k != "timeout_ms" && k != "budget") json_constants(v, out);
  out.erase(0);
  return out;
}

// The symbolic answer of `op`, or nullopt where the concrete op answers the request.
std::optional<OpResult> run_symbolic(const std::string& op, const Json& args, const Concrete& concrete) {
  const Inputs in = read_inputs(op, args);
  const auto symbols = symbolic_request(op, args, in);
  if (!symbols) return std::nullopt;
  solver::Z3Decider z3(assume_arg(args), *symbols, solver::Z3Decider::kQueryGuardMs, solver::Z3Decider::kDefaultQueryRlimit,
                      problem_constants(args));
  require_instances(z3);
  BudgetedDecider dec(z3, timeout_arg(args), "timeout_ms", budget_arg(args));
  return run_form(op, args, concrete, in, dec);
}

// Before the proof starts, the derived layouts are replayed against the concrete op (S9).
ValidationStats validate_derived(const std::string& op, const LayoutOp& lop, const Inputs& in, BudgetedDecider& dec, const SymSummary<Layout>& s,
                                 const std::vector<CheckedCase>& checked, const std::vector<Bindings>& cex) {
  Json args{{lop.second ? "a" : "layout", to_json(*in.a)}};  // the concrete ops' parameter names
  if (in.tiler) args["tiler"] = tiler_to_json(*in.tiler);
  if (in.b) args["b"] = to_json(*in.b);
  const Op* concrete_op = OpRegistry::instance().find("layout", op);
  if (!concrete_op) fail(rule::kInternal, "the layout op " + op + " is not registered");
  const Concrete concrete{concrete_op->run, op};
  return validate_cases(
      checked, walk_sufficient(op), false, validation_instances(dec, checked, cex), [&](const Bindings& b) { return concrete_at(concrete, args, b); },
      [&](size_t k, const Bindings& b, const Json& ref) { return layout_differs(s.answers[k].result, b, ref); });
}

// The least wall-clock guard of a derivation under `prove --of` (the --timeout default).
constexpr int64_t kDerivationFloorMs = 2000;

std::string seconds_text(int64_t ms) {
  std::ostringstream o;
  o << static_cast<double>(ms) / 1000.0 << " s";
  return o.str();
}

// The derivation's wall clock is its last guard (issue 46 item 5; the work budget decides): the
// user's --timeout, never below kDerivationFloorMs (so a short --timeout leaves a GEMM derivation
// its ~0.1 s); one solver query runs no longer. The refusal names whichever it was.
int64_t derivation_guard_ms(int64_t timeout_ms) { return std::max<int64_t>(timeout_ms, kDerivationFloorMs); }

std::string derivation_knob(int64_t timeout_ms) {
  if (timeout_ms >= kDerivationFloorMs) return "prove's --timeout of " + seconds_text(timeout_ms);
  return "the derivation's floor of " + seconds_text(kDerivationFloorMs) + ", as prove's --timeout of " + seconds_text(timeout_ms) + " is below it";
}

// Every path of a derivation refuses: said once the concrete reference refuses at every instance
// it is replayed at; for the walk's ops where it answers past the walk (D17), that is said.
[[noreturn]] void refused_derivation(const std::string& op, const LayoutOp& lop, const Inputs& in, BudgetedDecider& dec,
                                     const SymSummary<Layout>& s, const std::string& of) {
  std::vector<CheckedCase> checked;
  if (auto r = refusal_cases(dec, {}, refusing_paths(s)))
    for (const auto& c : *r) checked.push_back(CheckedCase{c.when, {}, "refused", true});
  const ValidationStats v = validate_derived(op, lop, in, dec, s, checked, {});
  Diagnostic why = *s.refusals.front().refusal;
  const std::string n = std::to_string(v.instances) + " instance" + (v.instances == 1 ? "" : "s");
  if (!v.past_walk.empty())
    why.message += "; " + of + ": CuTe's walk refuses at every instance of the assumptions, but the concrete reference answers past it (D17), e.g. at " +
                   solver::to_string(v.past_walk.begin()->second.at) + ": " + v.past_walk.begin()->second.answer +
                   "; the symbolic form has no layout to prove the goal of";
  else if (walk_sufficient(op))
    why.message += "; " + of + ": CuTe's walk refuses at every instance of the assumptions, and the concrete reference refuses at each of the " + n +
                   " checked";
  else
    why.message += "; " + of + " is refused for every instance of the assumptions (the concrete reference refuses at each of the " + n + " checked)";
  throw SpecError(why);
}

}  // namespace

std::vector<std::string> symbolic_op_names() {
  std::vector<std::string> names;
  for (const auto& [name, f] : dim_forms()) names.push_back(name);
  for (const char* n : {"idx2crd", "slice", "crd2crd", "shape_div"}) names.push_back(n);
  for (const auto& [name, f] : layout_ops()) names.push_back(name);
  return names;
}

void register_symbolic_layout_ops(OpRegistry& r) {
  for (const std::string& name : symbolic_op_names()) {
    Op* op = r.find_mutable("layout", name);
    if (!op) continue;  // the layout group is not registered in this program
    op->run = [name, concrete = op->run](const Json& args) {
      if (auto symbolic = run_symbolic(name, args, Concrete{concrete, name})) return *symbolic;
      return concrete(args);
    };
  }
}

// `prove GOAL --of "OP A [TILER]"`: the derived layout, its conditions not yet proved become
// assumptions of the proof (spec/PROVE.md "Derived layouts").
std::vector<DerivedLayout> derive_layout(const std::string& of, const std::vector<std::string>& assume, int64_t timeout_ms) {
  std::istringstream words(of);
  std::vector<std::string> w;
  for (std::string x; words >> x;) w.push_back(x);
  const auto found = w.empty() ? layout_ops().end() : layout_ops().find(w[0]);
  const LayoutOp* lop = found == layout_ops().end() ? nullptr : &found->second;
  if (!lop || w.size() != (lop->second ? 3u : 2u))
    fail(rule::kUsage, "--of takes \"OP A [B]\" with OP an op of `tfspec layout` whose answer is a layout: coalesce, filter, complement, "
                       "right_inverse, left_inverse (A); composition, the divides and products (A TILER); blocked_product, raked_product (A B)");
  Inputs in;
  in.a = parse_layout(w[1]);
  if (lop->second == 't') in.tiler = parse_tiler(w[2]);
  if (lop->second == 'b') in.b = parse_layout(w[2]);
  std::set<std::string> symbols = layout_symbols(*in.a);
  if (in.tiler) tiler_symbols(*in.tiler, symbols);
  if (in.b) symbols.merge(layout_symbols(*in.b));
  std::set<int64_t> constants;
  json_constants(Json(of), constants);
  const int64_t guard = derivation_guard_ms(timeout_ms);
  solver::Z3Decider z3(assume, symbols, static_cast<unsigned>(std::min<int64_t>(solver::Z3Decider::kQueryGuardMs, guard)),
                       solver::Z3Decider::kDefaultQueryRlimit, constants);
  require_instances(z3);
  BudgetedDecider dec(z3, guard, derivation_knob(timeout_ms), BudgetedDecider::kDefaultBudget,
                      "add assumptions that decide the operation's branches, or raise prove's --timeout");
  auto s = summarize(explore<Layout>(
      dec,
      [&](SymExec& ex) {
        require_input_extents(ex, in);
        return layout_body(ex, *lop, in);
      },
      kSymbolicPathLimit, kPathsUnit));
  simplify(s, dec);
  require_few_cases(s, dec);
  if (s.answers.empty()) refused_derivation(w[0], *lop, in, dec, s, of);
  std::vector<CheckedCase> checked;
  std::vector<Bindings> cex;
  std::vector<DerivedLayout> out;
  for (const auto& a : s.answers) {
    DerivedLayout d{to_string(a.result), {}, {}, "of " + of + " = " + to_string(a.result) + "\n", false, ""};
    std::string guard;
    for (const auto& g : a.when) {
      d.when.push_back(to_string(g));
      guard += (guard.empty() ? "" : " and ") + to_string(g);
    }
    if (s.answers.size() > 1) d.header = "case when " + guard + ":\n" + d.header;
    CheckedCase cc{a.when, {}, d.layout};
    for (const auto& c : a.conditions) {
      const solver::Classified k = c.decided ? solver::Classified{"proved", std::nullopt} : dec.classify(a.when, c.pred);
      cc.conditions.push_back({c.pred, k.status});
      if (k.counterexample) cex.push_back(*k.counterexample);
      // refuted in its case (issue 46 item 2): the formula is the answer at none of its instances
      if (k.status == "refuted" && d.dead.empty()) {
        d.dead = "[" + c.rule + " " + c.clause + "] " + to_string(c.pred);
        d.header += "  refuted  " + d.dead + "   (fails at every instance of this case: the formula above is the answer at none of them)\n";
      }
      if (k.status == "required" || k.status == "undecided") {
        d.conditions.push_back(to_string(c.pred));
        d.header += "  assumed  [" + c.rule + " " + c.clause + "] " + to_string(c.pred) + "   (the op's condition)\n";
      }
    }
    std::vector<SymPred> all = a.when;
    for (const auto& c : a.conditions) all.push_back(c.pred);
    d.vacuous = dec.satisfiable(all) == false;
    checked.push_back(std::move(cc));
    out.push_back(std::move(d));
  }
  const ValidationStats v = validate_derived(w[0], *lop, in, dec, s, checked, cex);
  for (auto& d : out)
    d.header += "  validated against the concrete reference at " + std::to_string(v.instances) + " instances\n";
  return out;
}

}  // namespace tfspec::protocol
