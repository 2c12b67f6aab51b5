// Translation validation of layout ops with dynamic values (spec/CUTE_DSL.md §2.1): an operand's
// `?{div=N}` is N*s for a fresh symbol s >= 1 (§1.1), the reference's symbolic algebra (spec/
// ALGEBRA.md S2) recomputes the op over the symbols, and the IR's result type is compared with its
// answer for every value of the symbols, or the op is undecided, saying why. The branches, the
// paths' feasibility and each leaf are decided by Z3 (the solver's Decider) under the path's guard:
// constant folding alone keeps paths no value of the symbols takes, and one of those answering
// differently from the IR read as a violation (a 64-thread tensorop GEMM's composition, §2.1).
#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic_algebra.hpp"
#include "tfspec/solver/obligations.hpp"

namespace tfspec::cute_dsl {
namespace {

// An operand as a symbolic layout: each `?{div=N}` becomes `N*sK` (a multiple of N, §1.1).
Layout scaled_layout(const Type& t, Symbols& syms, std::map<std::string, int64_t>& lower) {
  const size_t first = syms.divisors.size();
  const std::string text = to_tfspec_notation(t.text, syms);
  std::string out;
  const std::regex sym("\\bs([0-9]+)\\b");
  auto it = std::sregex_iterator(text.begin(), text.end(), sym);
  size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    const std::string name = it->str();
    out += text.substr(last, static_cast<size_t>(it->position()) - last);
    const size_t k = std::stoul((*it)[1].str());
    const int64_t n = syms.divisors.at(name);
    out += k >= first && n > 1 ? std::to_string(n) + "*" + name : name;
    lower[name] = 1;
    last = static_cast<size_t>(it->position() + it->length());
  }
  out += text.substr(last);
  const LayoutPtr l = parse_pure_layout(out);
  if (l->kind() != LayoutKind::Layout) fail(rule::kCuteDslInput, "cute-dsl (§2.1): a dynamic swizzled layout is not recomputed: " + t.text);
  return static_cast<const Layout&>(*l);
}

using Body = std::function<Layout(SymExec&)>;

// CuTe's coalesce as layout.hpp's bw_coalesce computes it: flattened, a mode of static extent 1
// dropped, and a mode merged into the one before only where that one's shape and stride and its
// own stride are static with shape * stride == stride (its own extent may be dynamic).
Layout static_coalesce(const Layout& a) {
  const std::vector<IntTuple> sh = flat_leaves(a.shape_ref()), st = flat_leaves(a.stride());
  std::vector<IntTuple> rs, rd;
  for (size_t i = 0; i < sh.size(); ++i) {
    if (sh[i].is_int() && sh[i].value() == 1) continue;
    if (!rs.empty() && rs.back().is_int() && rd.back().is_int() && st[i].is_int() && rs.back().value() * rd.back().value() == st[i].value()) {
      rs.back() = sh[i].is_int() ? IntTuple(rs.back().value() * sh[i].value()) : IntTuple::sym(sym_mul(rs.back().as_dim(), sh[i].as_dim()));
      continue;
    }
    rs.push_back(sh[i]);
    rd.push_back(st[i]);
  }
  if (rs.empty()) return Layout(IntTuple(1), IntTuple(0));
  if (rs.size() == 1) return Layout(rs[0], rd[0]);
  return Layout(IntTuple::tuple(rs), IntTuple::tuple(rd));
}

// The symbolic form of a covered op (the same ops and CuTe meaning as §2), or nullopt.
std::optional<Body> symbolic_op(const Op& op, Symbols& syms, std::map<std::string, int64_t>& lower) {
  const auto& in = op.operand_types;
  const std::string& n = op.name;
  if (in.size() == 1 && (n == "cute.right_inverse" || n == "cute.left_inverse" || n == "cute.coalesce" || n == "cute.complement")) {
    const Layout a = scaled_layout(in[0], syms, lower);
    if (n == "cute.right_inverse") return Body([a](SymExec& ex) { return sym_right_inverse(ex, a); });
    if (n == "cute.left_inverse") return Body([a](SymExec& ex) { return sym_left_inverse(ex, a); });
    if (n == "cute.coalesce") {
      // CuTe merges two adjacent modes only where the merge holds statically (layout.hpp's
      // bw_coalesce: a merge needs a static `true`), so with a dynamic stride it keeps modes that
      // some value would merge, and the full merge forks on that value. The IR's result is
      // compared with the first of these, all function-preserving (so equality still proves the
      // op), whose rank is the IR's: the static merge (flattened), the operand's top modes each
      // coalesced alone (CuTe's coalesce with a profile of that rank), else the full coalesce.
      Symbols rs;
      const LayoutPtr r = read_layout(op.result_types.at(0).text, rs);
      const int ir_rank = r->kind() == LayoutKind::Layout ? static_cast<const Layout&>(*r).rank() : -1;
      const Layout fixed = static_coalesce(a);
      if (ir_rank == fixed.rank() && is_symbolic(a)) return Body([fixed](SymExec&) { return fixed; });
      if (a.rank() > 1 && ir_rank == a.rank()) {
        const IntTuple by_mode = IntTuple::tuple(std::vector<IntTuple>(static_cast<size_t>(a.rank()), IntTuple(1)));
        return Body([a, by_mode](SymExec& ex) { return sym_coalesce(ex, a, by_mode); });
      }
      return Body([a](SymExec& ex) { return sym_coalesce(ex, a); });
    }
    return Body([a](SymExec& ex) { return sym_complement(ex, a, sym_cosize(ex, a)); });
  }
  if (in.size() != 2 || in[0].kind != "layout") return std::nullopt;
  const Layout a = scaled_layout(in[0], syms, lower);
  const Tiler b = in[1].kind == "tile" ? read_tiler(in[1].text) : Tiler(scaled_layout(in[1], syms, lower));
  if (n == "cute.composition") return Body([a, b](SymExec& ex) { return sym_composition(ex, a, b, DomainPolicy::Extend); });
  if (n == "cute.logical_divide") return Body([a, b](SymExec& ex) { return sym_logical_divide(ex, a, b, DomainPolicy::Extend); });
  if (n == "cute.zipped_divide") return Body([a, b](SymExec& ex) { return sym_zipped_divide(ex, a, b, DomainPolicy::Extend); });
  if (n == "cute.logical_product") return Body([a, b](SymExec& ex) { return sym_logical_product(ex, a, b, DomainPolicy::Extend); });
  return std::nullopt;
}

// Leaf by leaf: a static leaf of the IR equals the reference's for every value of the symbols; a
// `?{div=M}` leaf (an unnamed value) holds the reference's, a multiple of M for every value.
// true: every leaf decided so; false: one decided otherwise; nullopt: a leaf undecided, or the
// two structures differ (equal functions need not be leaf-wise equal).
std::optional<bool> leafwise(const IntTuple& ir, const IntTuple& ref, const Symbols& ir_syms, Decider& d, const std::vector<SymPred>& guard,
                             std::string& why) {
  if (ir.is_tuple() != ref.is_tuple() || (ir.is_tuple() && ir.len() != ref.len())) {
    why = "the IR's result and the reference's differ in structure";
    return std::nullopt;
  }
  if (ir.is_tuple()) {
    bool all = true;
    for (size_t i = 0; i < ir.len(); ++i) {
      const std::optional<bool> r = leafwise(ir[i], ref[i], ir_syms, d, guard, why);
      if (r == false) return false;
      all = all && r == true;
    }
    return all ? std::optional<bool>(true) : std::nullopt;
  }
  const ShapeDim got = ref.as_dim();
  SymPred p{got, SymRel::Eq, ir.as_dim()};
  if (ir.is_sym()) {  // the IR's own unnamed value: only its divisibility is stated
    const int64_t m = ir_syms.divisors.at(to_string(ir.dim()));
    p = SymPred{dim_binary(ExprNode::Op::Mod, got, dim_const(m)), SymRel::Eq, dim_const(0)};
  }
  const std::optional<bool> r = d.decide(guard, p);
  if (r != true) why = (r == false ? "fails: " : "is not decided: ") + to_string(p);
  return r;
}

// One path's answer against the IR's result type: true (equal for every value on the path, i.e.
// under its guard), false (decided otherwise there), nullopt (not decided; `why` says which leaf).
std::optional<bool> matches(const Layout& ref, const LayoutPtr& ir, const Symbols& ir_syms, Decider& d, const std::vector<SymPred>& guard,
                            std::string& why) {
  if (!is_symbolic(ref) && ir_syms.divisors.empty()) {  // both static: compared as functions (X2), exactly
    const Equivalence e = equivalent(*ir, ref);
    why = e.equal ? "" : (e.index ? "they differ first at index " + std::to_string(*e.index) : e.reason);
    return e.equal;
  }
  if (ir->kind() != LayoutKind::Layout) return std::nullopt;
  const auto& l = static_cast<const Layout&>(*ir);
  const std::optional<bool> s = leafwise(l.shape_ref(), ref.shape_ref(), ir_syms, d, guard, why);
  return s == true ? leafwise(l.stride(), ref.stride(), ir_syms, d, guard, why) : s;
}

}  // namespace

// Every path of the symbolic execution (S2: each value of the symbols follows exactly one) must
// answer the IR's result; a refusing path or an undecided leaf leaves the op undecided.
std::optional<kernel::Finding> validate_dynamic(const Op& op) {
  Symbols syms;
  std::map<std::string, int64_t> lower;
  const std::optional<Body> body = symbolic_op(op, syms, lower);
  if (!body) return std::nullopt;
  kernel::Finding f = make_finding("layout-op", op.name, kernel::Outcome::Undecided, &rule::kCuteDslLayoutOp);
  f.loc = op_where(op);
  std::string operands;
  for (const Type& t : op.operand_types) operands += (operands.empty() ? "" : ", ") + t.text;
  const std::string head = op.name + "(" + operands + ") = " + op.result_types[0].text;
  Symbols ir_syms;
  const LayoutPtr ir = read_layout(op.result_types[0].text, ir_syms);
  f.detail = {{"op", op.name}, {"line", op.line}, {"operands", operands}, {"ir", op.result_types[0].text}};
  std::string why;
  // One symbolic execution under `d`: 1 every path equal, 0 some path undecided or refusing, -1 a
  // path differs. With `z3`, a path whose guard it proves unsatisfiable is dropped.
  const auto run = [&](Decider& d, solver::Z3Decider* z3) {
    int state = 1;
    for (const SymCase<Layout>& c : explore<Layout>(d, *body)) {
      const std::vector<SymPred> guard = c.guard();
      if (z3 && !guard.empty() && z3->satisfiable(guard) == false) continue;  // no value of the symbols takes this path
      if (!c.result) {
        state = std::min(state, 0);
        why = "the reference refuses where " + (c.refusal ? c.refusal->message : std::string("a case holds"));
        continue;
      }
      f.detail["reference"] = to_string(*c.result);
      const std::optional<bool> m = matches(*c.result, ir, ir_syms, d, guard, why);
      state = std::min(state, !m.has_value() ? 0 : *m ? 1 : -1);
      if (state < 0) break;
    }
    return state;
  };
  // Folding first (fast, and every path it keeps equal proves the op); anything else is decided
  // again by Z3, which drops the paths folding could not rule out and decides leaves under the guard.
  int state = 0;
  try {
    FoldingDecider fold(lower);
    state = run(fold, nullptr);
  } catch (const SpecError&) {  // e.g. resource-limit: folding left too many paths
    state = 0;
  }
  if (state != 1) {
    why.clear();
    std::set<std::string> symbols;
    for (const auto& [name, bound] : lower) symbols.insert(name);
    solver::Z3Decider z3({}, symbols);  // every symbol >= 1 (the assumptions' default lower bound)
    state = run(z3, &z3);
  }
  f.outcome = state > 0 ? kernel::Outcome::Ok : state < 0 ? kernel::Outcome::Violation : kernel::Outcome::Undecided;
  if (state > 0) f.rule = nullptr;
  f.message = head + (state > 0 ? ", as the reference computes for every value the IR's divisibility allows"
                                : ": the reference computes " + f.detail["reference"].dump() + (why.empty() ? "" : "; " + why));
  return f;
}

}  // namespace tfspec::cute_dsl
