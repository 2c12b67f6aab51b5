// Prover ops (`tfspec prove GOAL ...`, protocol `prove.GOAL`): goals over layouts with symbolic
// dims, decided by tfspec::solver (spec/PROVE.md). Every op takes, besides its objects,
// "assume" (a string or an array of strings), "timeout_ms" and "smt2" (a path prefix).
#include <z3++.h>

#include "tfspec/cli/ops.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::cli {
namespace {

using P = ParamType;
using solver::ProveOptions;
using solver::ProveResult;

ProveOptions options(const Json& a) {
  ProveOptions o;
  if (a.contains("assume")) {
    const Json& as = a["assume"];
    if (as.is_string()) {
      o.assume.push_back(as.get<std::string>());
    } else if (as.is_array()) {
      for (const auto& x : as) {
        if (!x.is_string()) fail("prove-usage", "§1", "\"assume\" holds strings such as \"M % 128 == 0\"");
        o.assume.push_back(x.get<std::string>());
      }
    } else {
      fail("prove-usage", "§1", "\"assume\" is a string or an array of strings");
    }
  }
  if (a.contains("timeout_ms")) {
    if (!a["timeout_ms"].is_number_integer() || a["timeout_ms"].get<int64_t>() < 1 || a["timeout_ms"].get<int64_t>() > 600000)
      fail("prove-usage", "-", "\"timeout_ms\" is an integer in [1, 600000]");
    o.timeout_ms = a["timeout_ms"].get<unsigned>();
  }
  if (a.contains("smt2")) {
    if (!a["smt2"].is_string() || a["smt2"].get<std::string>().empty()) fail("prove-usage", "-", "\"smt2\" is a non-empty path prefix");
    o.smt2_prefix = a["smt2"].get<std::string>();
  }
  return o;
}

ShapeDim dim_arg(const Json& a, const char* name) {
  IntTuple t = inttuple_from_json(require_arg(a, name));
  if (!t.is_leaf() || t.is_none()) fail("prove-usage", "§1", std::string("'") + name + "' must be one integer or symbolic dim");
  return t.as_dim();
}

OpResult result(const ProveResult& r) { return OpResult{solver::to_json(r), solver::to_text(r), solver::exit_code(r)}; }

// Runs a goal; a solver exception (out of resources inside Z3) becomes a SpecError.
template <class F>
OpResult guarded(F f) {
  try {
    return result(f());
  } catch (const z3::exception& e) {
    fail("prove-solver-error", "-", std::string("Z3: ") + e.msg());
  }
}

std::vector<Param> with_options(std::vector<Param> ps) {
  ps.push_back({"assume", P::Json, true, "assumptions (JSON string or array)"});
  ps.push_back({"timeout_ms", P::Int, true, "per solver call"});
  ps.push_back({"smt2", P::Text, true, "write each obligation to SMT2-<name>.smt2"});
  return ps;
}

Layout L(const Json& a, const char* name) { return layout_from_json(require_arg(a, name)); }

}  // namespace

void register_prove_ops(OpRegistry& r) {
  r.add({"prove", "injective", "§2", "distinct coordinates never share an offset, for all symbol values",
         with_options({{"layout", P::Layout}}),
         [](const Json& a) { return guarded([&] { return solver::prove_injective(L(a, "layout"), options(a)); }); }});
  r.add({"prove", "in-bounds", "§3", "every offset lies in [0, size)", with_options({{"layout", P::Layout}, {"size", P::IntTuple}}),
         [](const Json& a) { return guarded([&] { return solver::prove_in_bounds(L(a, "layout"), dim_arg(a, "size"), options(a)); }); }});
  r.add({"prove", "fits-int32", "§3", "offsets and index arithmetic never overflow int32", with_options({{"layout", P::Layout}}),
         [](const Json& a) { return guarded([&] { return solver::prove_fits(L(a, "layout"), 32, options(a)); }); }});
  r.add({"prove", "fits-int64", "§3", "offsets and index arithmetic never overflow int64", with_options({{"layout", P::Layout}}),
         [](const Json& a) { return guarded([&] { return solver::prove_fits(L(a, "layout"), 64, options(a)); }); }});
  r.add({"prove", "equivalent", "§3", "the same function on the same domain", with_options({{"a", P::Layout}, {"b", P::Layout}}),
         [](const Json& a) { return guarded([&] { return solver::prove_equivalent(L(a, "a"), L(a, "b"), options(a)); }); }});
  r.add({"prove", "admissible", "§3", "A o B is admissible (left divisibility) for all symbol values",
         with_options({{"a", P::Layout}, {"b", P::Layout}}),
         [](const Json& a) { return guarded([&] { return solver::prove_admissible(L(a, "a"), L(a, "b"), options(a)); }); }});
  r.add({"prove", "divides", "§6", "divisor | extent for all symbol values (Split binding, sugar N @ m.a per D5)",
         with_options({{"extent", P::IntTuple}, {"divisor", P::IntTuple}}),
         [](const Json& a) { return guarded([&] { return solver::prove_divides(dim_arg(a, "extent"), dim_arg(a, "divisor"), options(a)); }); }});
}

}  // namespace tfspec::cli
