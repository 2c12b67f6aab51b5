// Prover ops (`tfspec prove GOAL ...`, protocol `prove.GOAL`): goals over layouts with symbolic
// dims, decided by tfspec::solver (spec/PROVE.md). Every op takes, besides its objects,
// "assume" (a string or an array of strings), "timeout_ms" and "smt2" (a path prefix).
#include <z3++.h>

#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/smt2_dir.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/reference/equivalent.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"
#include "tfspec/solver/shard_goal.hpp"

namespace tfspec::protocol {
namespace {

using P = ParamType;
using solver::ProveOptions;
using solver::ProveResult;

ProveOptions options(const Json& a) {
  ProveOptions o;
  o.assume = assume_arg(a);
  if (a.contains("timeout_ms")) {
    if (!a["timeout_ms"].is_number_integer() || a["timeout_ms"].get<int64_t>() < 1 || a["timeout_ms"].get<int64_t>() > 600000)
      fail(rule::kProveUsage, "\"timeout_ms\" is an integer in [1, 600000]");
    o.timeout_ms = a["timeout_ms"].get<unsigned>();
  }
  if (a.contains("smt2")) {
    const Json& s = a["smt2"];
    if (s.is_object() && s.contains("dir") && s.contains("name")) {  // confined by serve (serve.cpp, confine_smt2)
      const std::string dir = s["dir"].get<std::string>();
      o.smt2_prefix = s["name"].get<std::string>();
      o.smt2_create = [dir](const std::string& file, const std::string& text) { return create_smt2_file(dir, file, text); };
    } else {
      if (!s.is_string() || s.get<std::string>().empty()) fail(rule::kProveUsage, "\"smt2\" is a non-empty path prefix");
      o.smt2_prefix = s.get<std::string>();
    }
  }
  return o;
}

ShapeDim dim_arg(const Json& a, const char* name) {
  const Json& j = require_arg(a, name);
  IntTuple t = j.is_string() ? parse_inttuple(j.get<std::string>()) : inttuple_from_json(j);
  if (!t.is_leaf() || t.is_none()) fail(rule::in(rule::kProveUsage, "§1"), std::string("'") + name + "' must be one integer or symbolic dim");
  return t.as_dim();
}

OpResult result(const ProveResult& r) { return OpResult{solver::to_json(r), solver::to_text(r), solver::exit_code(r)}; }

// `prove equivalent` where a side is not a plain Layout (a linear layout, X2, or a swizzled one):
// such layouts are concrete, so the reference's exact equivalence decides, no solver needed; a
// refutation names the first differing index, evaluated by the reference on both sides.
ProveResult exact_equivalent(const LayoutBase& x, const LayoutBase& y) {
  const Equivalence e = equivalent(x, y);
  ProveResult r;
  r.goal = "equivalent";
  r.clause = "§3";
  r.method = "exact-" + e.method;
  r.scope = "all values";
  r.verdict = e.equal ? solver::Verdict::Proved : solver::Verdict::Refuted;
  if (!e.equal) {
    if (e.index) {
      r.counterexample = Json{{"index", *e.index}, {"a", e.value_a}, {"b", e.value_b}};
      r.counterexample_text = "at index " + std::to_string(*e.index) + ", A gives " + std::to_string(e.value_a) + " and B gives " + std::to_string(e.value_b);
    } else {
      r.counterexample = Json{{"reason", e.reason}};
      r.counterexample_text = e.reason;
    }
  }
  return r;
}

// Runs a goal; a solver exception (out of resources inside Z3) becomes a SpecError.
template <class F>
OpResult guarded(F f) {
  try {
    return result(f());
  } catch (const z3::exception& e) {
    fail(rule::kProveSolverError, std::string("Z3: ") + e.msg());
  }
}

std::vector<Param> with_options(std::vector<Param> ps) {
  ps.push_back({"assume", P::Json, true, "assumptions (JSON string or array)"});
  ps.push_back({"timeout_ms", P::Int, true, "the whole verdict, a hard limit (ms)"});
  ps.push_back({"smt2", P::Text, true, "write each obligation to SMT2-<name>.smt2"});
  return ps;
}

Layout L(const Json& a, const char* name) { return layout_from_json(require_arg(a, name)); }

// `divides EXTENT DIVISOR`, or `divides SHARD` where SHARD is sugar `(N @ m.x, ...) on MESH` (D5),
// `shard(...)` text or shard JSON (every Split, §6 / D8).
std::vector<solver::Division> divisions(const Json& a) {
  if (a.contains("divisor")) return {{dim_arg(a, "extent"), dim_arg(a, "divisor"), ""}};
  const Json& j = require_arg(a, "extent");
  if (j.is_string() && looks_like_sugar(j.get<std::string>())) {
    ParsedSugar ps = parse_sugar(j.get<std::string>(), std::nullopt);
    return solver::sugar_divisions(ps.sugar, ps.mesh);
  }
  if (j.is_object() || (j.is_string() && j.get<std::string>().find("shard") != std::string::npos))
    return solver::split_divisions(read_shard_layout(j));
  fail(rule::in(rule::kProveUsage, "§6"), "divides takes EXTENT DIVISOR, or one shard layout (sugar, shard(...) or JSON)");
}

std::optional<Storage> storage_arg(const Json& a) {
  if (!a.contains("storage")) return std::nullopt;
  if (!a["storage"].is_string()) fail(rule::in(rule::kProveUsage, "§7.1.2"), "\"storage\" is rmem, smem or gmem");
  return parse_storage(a["storage"].get<std::string>());
}

}  // namespace

void register_prove_ops(OpRegistry& r) {
  r.add({"prove", "injective", "§2", "distinct coordinates never share an offset, for all symbol values",
         with_options({{"layout", P::Layout, false, "a layout, e.g. (M,N):(1,M)"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_injective(L(a, "layout"), options(a)); }); }});
  r.add({"prove", "in-bounds", "§3", "every offset lies in [0, size)", with_options({{"layout", P::Layout, false, "a layout"}, {"size", P::IntTuple, false, "the buffer size E"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_in_bounds(L(a, "layout"), dim_arg(a, "size"), options(a)); }); }});
  r.add({"prove", "fits-int32", "§3", "index arithmetic never overflows int32: extents, strides, offsets and the size", with_options({{"layout", P::Layout, false, "a layout, e.g. (M,N):(1,M)"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_fits(L(a, "layout"), 32, options(a)); }); }});
  r.add({"prove", "fits-int64", "§3", "index arithmetic never overflows int64: extents, strides, offsets and the size", with_options({{"layout", P::Layout, false, "a layout, e.g. (M,N):(1,M)"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_fits(L(a, "layout"), 64, options(a)); }); }});
  r.add({"prove", "equivalent", "§3", "the same function on the same domain (a linear or swizzled layout: decided exactly, X2)",
         with_options({{"a", P::AnyLayout, false, "layout A"}, {"b", P::AnyLayout, false, "layout B"}}), [](const Json& a) {
           const LayoutPtr x = any_layout_from_json(require_arg(a, "a")), y = any_layout_from_json(require_arg(a, "b"));
           if (x->kind() == LayoutKind::Layout && y->kind() == LayoutKind::Layout)
             return guarded([&] { return solver::prove_equivalent(L(a, "a"), L(a, "b"), options(a)); });
           return result(exact_equivalent(*x, *y));
         }});
  r.add({"prove", "admissible", "§3", "A o B is admissible (left divisibility) for all symbol values",
         with_options({{"a", P::Layout, false, "layout A"}, {"b", P::Layout, false, "layout B"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_admissible(L(a, "a"), L(a, "b"), options(a)); }); }});
  r.add({"prove", "divides", "§6", "divisor | extent, or every Split / `N @ m.a` of a shard layout, for all symbol values (D5, D8)",
         with_options({{"extent", P::Text, false, "an extent, or a shard layout"}, {"divisor", P::Text, true, "the divisor"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_divisions(divisions(a), options(a)); }); }});
  r.add({"prove", "shard", "§7", "every shard-model invariant (divisibility, canonical Split extents, injective per engine) for all symbol values",
         with_options({{"layout", P::Text, false, "a shard layout"}, {"storage", P::Text, true, "rmem | smem | gmem"}}),
         [](const Json& a) { return guarded([&] { return solver::prove_shard(read_shard_layout(require_arg(a, "layout")), storage_arg(a), options(a)); }); }});
  register_symbolic_layout_ops(r);  // the layout ops' symbolic forms need the solver too
}

}  // namespace tfspec::protocol
