// `tfspec layout OP ... [--assume PRED]` on symbolic layouts (spec/ALGEBRA.md S1-S5): the
// reference's symbolic result and conditions, each classified by the solver under the
// assumptions, with an instance replayed through the concrete reference where one fails.
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "tfspec/solver/encode.hpp"
#include "tfspec/solver/obligations.hpp"

namespace tfspec::cli {
namespace {

struct Inputs {
  std::optional<Layout> a;      // `layout` or `a`
  std::optional<Tiler> tiler;   // `tiler`
  DomainPolicy policy = DomainPolicy::Strict;
};

Inputs read_inputs(const Json& args) {
  Inputs in;
  // Only a plain Layout takes the symbolic path; any other kind (a composed or swizzled layout,
  // X1) or unreadable input goes to the concrete op, which answers it or names the rule.
  auto plain = [](const Json& j) -> std::optional<Layout> {
    try {
      return layout_from_json(j);
    } catch (const SpecError&) {
      return std::nullopt;
    }
  };
  if (args.contains("layout")) in.a = plain(args["layout"]);
  if (args.contains("a")) in.a = plain(args["a"]);
  if (args.contains("tiler")) in.tiler = protocol::tiler_from_json(args["tiler"]);
  if (args.contains("domain") && args["domain"] == "extend") in.policy = DomainPolicy::Extend;
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

// The concrete reference at an instance: its answer, or its refusal.
std::string replay(const std::string& op, const Json& args, const Bindings& b) {
  Json bound = args;
  for (const char* k : {"layout", "a"})
    if (bound.contains(k)) bound[k] = bind_json(bound[k], b, false);
  if (bound.contains("tiler")) bound["tiler"] = bind_json(bound["tiler"], b, true);
  try {
    const protocol::Op* o = protocol::OpRegistry::instance().find("layout", op);
    return "the reference answers " + o->run(bound).text;
  } catch (const SpecError& e) {
    return "the reference refuses: [" + e.rule() + " " + e.clause() + "]";
  }
}

void tiler_symbols(const Tiler& t, std::set<std::string>& out) {
  if (t.is_layout()) out.merge(layout_symbols(*t.layout));
  for (const auto& m : t.modes) tiler_symbols(m, out);
}

template <class R>
using Body = std::function<R(SymExec&)>;

std::string cond_line(const SymCondition& c, const solver::Classified& k, const std::string& note) {
  std::string s = k.status;
  s.resize(9, ' ');
  return "  " + s + "[" + c.rule + " " + c.clause + "] " + to_string(c.pred) + note + "\n";
}

template <class R>
int report(const std::string& op, const Json& args, solver::Z3Decider& dec, const SymSummary<R>& s, bool json,
           const std::function<std::string(const R&)>& text_of, const std::function<Json(const R&)>& json_of) {
  if (s.answers.empty()) {
    const Diagnostic& d = *s.refusals.front().refusal;
    std::string msg = d.message + "; refused for every instance of the assumptions";
    if (auto x = dec.instance({})) msg += ", e.g. " + solver::to_string(*x) + " (" + replay(op, args, *x) + ")";
    Diagnostic why = d;
    why.message = msg;
    throw SpecError(why);
  }
  std::ostringstream out;
  Json cases = Json::array(), top = Json::array();
  for (const auto& a : s.answers) {
    Json conds = Json::array();
    std::string lines;
    for (const auto& c : a.conditions) {
      solver::Classified k = c.decided ? solver::Classified{"proved", std::nullopt} : dec.classify(a.when, c.pred);
      std::string note;
      for (const auto& t : dec.assumptions().texts) note = t == to_string(c.pred) ? "   (assumed)" : note;
      Json jc{{"rule", c.rule}, {"clause", c.clause}, {"predicate", to_string(c.pred)}, {"status", k.status}};
      if (k.counterexample) {
        jc["counterexample"] = *k.counterexample;
        note += "   (fails at " + solver::to_string(*k.counterexample) + ": " + replay(op, args, *k.counterexample) + ")";
      }
      lines += cond_line(c, k, note);
      conds.push_back(jc);
    }
    Json when = Json::array();
    std::string guard;
    for (const auto& p : a.when) {
      when.push_back(to_string(p));
      guard += (guard.empty() ? "" : " and ") + to_string(p);
    }
    if (s.answers.size() > 1) out << "when " << (guard.empty() ? "(otherwise)" : guard) << ":\n";
    out << text_of(a.result) << "\n" << lines;
    cases.push_back(Json{{"when", when}, {"result", json_of(a.result)}, {"conditions", conds}});
    if (s.answers.size() == 1) top = conds;
  }
  Json j{{"result", s.answers.size() == 1 ? json_of(s.answers[0].result) : Json(nullptr)}, {"cases", cases}, {"conditions", top}};
  if (json) std::cout << protocol::dump_line(j) << "\n";
  else std::cout << out.str();
  return kOk;
}

template <class R>
int run_paths(const std::string& op, const Json& args, solver::Z3Decider& dec, bool json, const Body<R>& body,
              const std::function<std::string(const R&)>& text_of, const std::function<Json(const R&)>& json_of) {
  return report<R>(op, args, dec, summarize(explore<R>(dec, body)), json, text_of, json_of);
}

// crd2idx into a symbolic shape: a polynomial, no branch (the coordinate concrete or symbolic).
std::optional<int> run_crd2idx(const Json& args, const std::vector<std::string>& assume, bool json) {
  const IntTuple shape = inttuple_from_json(args.at("shape"));
  const IntTuple stride = args.contains("stride") ? inttuple_from_json(args["stride"]) : prefix_product(shape);
  const IntTuple crd = coord_from_json(args.at("coord"));
  std::set<std::string> symbols;
  for (const IntTuple* t : {&shape, &stride, &crd}) collect_symbols(*t, symbols);
  if (symbols.empty()) return std::nullopt;
  solver::Z3Decider dec(assume, symbols);
  return run_paths<ShapeDim>("crd2idx", args, dec, json, [&](SymExec&) { return sym_crd2idx(crd, shape, stride); },
                             [](const ShapeDim& d) { return to_string(d); }, [](const ShapeDim& d) { return to_json(IntTuple::sym(d)); });
}

}  // namespace

std::optional<int> run_symbolic_layout(const std::string& op, const Json& args, const std::vector<std::string>& assume, bool json) {
  static const std::set<std::string> kOps{"size", "cosize", "coalesce", "complement", "composition", "logical_divide", "zipped_divide", "crd2idx"};
  if (!kOps.count(op)) return std::nullopt;
  if (op == "crd2idx") return run_crd2idx(args, assume, json);
  const Inputs in = read_inputs(args);
  if (!in.a || (!is_symbolic(*in.a) && !(in.tiler && is_symbolic(*in.tiler)))) return std::nullopt;
  if (op == "complement" && args.contains("cotarget")) return std::nullopt;  // a concrete cotarget: the concrete op
  std::set<std::string> symbols = layout_symbols(*in.a);
  if (in.tiler) tiler_symbols(*in.tiler, symbols);
  solver::Z3Decider dec(assume, symbols);
  const Layout a = *in.a;
  auto dim_text = [](const ShapeDim& d) { return to_string(d); };
  auto dim_json = [](const ShapeDim& d) { return to_json(IntTuple::sym(d)); };
  auto lay_text = [](const Layout& l) { return to_string(l); };
  auto lay_json = [](const Layout& l) { return to_json(l); };
  if (op == "size") return run_paths<ShapeDim>(op, args, dec, json, [&](SymExec&) { return sym_size(a); }, dim_text, dim_json);
  if (op == "cosize") return run_paths<ShapeDim>(op, args, dec, json, [&](SymExec& ex) { return sym_cosize(ex, a); }, dim_text, dim_json);
  Body<Layout> body;
  if (op == "coalesce") body = [&](SymExec& ex) { return sym_coalesce(ex, a); };
  if (op == "complement") body = [&](SymExec& ex) { return sym_complement(ex, a, sym_cosize(ex, a)); };
  if (!body && !in.tiler) return std::nullopt;
  if (op == "composition") body = [&](SymExec& ex) { return sym_composition(ex, a, *in.tiler, in.policy); };
  if (op == "logical_divide") body = [&](SymExec& ex) { return sym_logical_divide(ex, a, *in.tiler, in.policy); };
  if (op == "zipped_divide") body = [&](SymExec& ex) { return sym_zipped_divide(ex, a, *in.tiler, in.policy); };
  return run_paths<Layout>(op, args, dec, json, body, lay_text, lay_json);
}

// `prove GOAL --of "OP A [TILER]"`: the derived layout, its conditions not yet proved become
// assumptions of the proof (spec/PROVE.md "Derived layouts").
Derived derive_layout(const std::string& of, const std::vector<std::string>& assume) {
  std::istringstream words(of);
  std::vector<std::string> w;
  for (std::string x; words >> x;) w.push_back(x);
  static const std::set<std::string> kOps{"coalesce", "composition", "logical_divide", "zipped_divide"};
  if (w.empty() || !kOps.count(w[0]) || w.size() != (w[0] == "coalesce" ? 2u : 3u))
    fail(rule::kUsage, "--of takes \"OP A [TILER]\" with OP one of coalesce (A), composition, logical_divide, zipped_divide (A TILER)");
  const Layout a = parse_layout(w[1]);
  const std::optional<Tiler> t = w.size() > 2 ? std::optional<Tiler>(parse_tiler(w[2])) : std::nullopt;
  std::set<std::string> symbols = layout_symbols(a);
  if (t) tiler_symbols(*t, symbols);
  solver::Z3Decider dec(assume, symbols);
  const auto s = summarize(explore<Layout>(dec, [&](SymExec& ex) {
    if (w[0] == "coalesce") return sym_coalesce(ex, a);
    if (w[0] == "composition") return sym_composition(ex, a, *t, DomainPolicy::Strict);
    if (w[0] == "logical_divide") return sym_logical_divide(ex, a, *t, DomainPolicy::Strict);
    return sym_zipped_divide(ex, a, *t, DomainPolicy::Strict);
  }));
  if (s.answers.empty()) {
    Diagnostic why = *s.refusals.front().refusal;
    why.message += "; " + of + " is refused for every instance of the assumptions";
    throw SpecError(why);
  }
  if (s.answers.size() > 1)
    fail(rule::kUsage, of + " has " + std::to_string(s.answers.size()) + " cases (e.g. when " +
                           (s.answers[0].when.empty() ? std::string("?") : to_string(s.answers[0].when[0])) +
                           "); add assumptions that decide them (`tfspec layout " + w[0] + " ...` lists them)");
  Derived d{to_string(s.answers[0].result), {}, "of " + of + " = " + to_string(s.answers[0].result) + "\n"};
  for (const auto& c : s.answers[0].conditions) {
    const std::string status = c.decided ? "proved" : dec.classify(s.answers[0].when, c.pred).status;
    if (status == "refuted") fail(RuleRef(*find_rule(c.rule), c.clause), of + ": the condition " + to_string(c.pred) + " is refuted by the assumptions");
    if (status == "required") {
      d.conditions.push_back(to_string(c.pred));
      d.header += "  assumed  [" + c.rule + " " + c.clause + "] " + to_string(c.pred) + "   (the op's condition)\n";
    }
  }
  return d;
}

}  // namespace tfspec::cli
