// `tfspec prove GOAL ARG... [--assume A]... [--timeout S] [--smt2 PREFIX] [--json]`: the prove
// group of the op registry from the command line. Exit codes (spec/PROVE.md): 0 proved,
// 1 refuted, 2 unknown, 3 usage or input error, 4 a counterexample the reference did not replay.
#include <cmath>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::cli {

using protocol::Op;
using protocol::OpRegistry;
using protocol::OpResult;
using protocol::Param;
using protocol::ParamType;

namespace {
struct ProveState {
  std::string goal;
  std::vector<std::string> args, assume;
  std::string smt2, size, storage;
  std::string of;  // --of "OP A [TILER]": the goal's layout derived by the symbolic algebra
  double timeout_s = 2.0;
  bool json = false, list = false;
};

// Parameters given as --options rather than positionally.
bool is_option(const std::string& name) {
  return name == "assume" || name == "timeout_ms" || name == "smt2" || name == "size" || name == "storage";
}

void print_goals() {
  for (const auto& op : OpRegistry::instance().ops()) {
    if (op.group != "prove") continue;
    std::string sig = op.name;
    for (const auto& p : op.params)
      if (!is_option(p.name)) sig += " " + (p.optional ? "[" + p.name + "]" : p.name);
      else if (p.name == "size" || p.name == "storage") sig += " --" + p.name + " " + p.name;
    std::cout << sig << "    " << op.clause << " " << op.summary << "\n";
  }
}

int run_given(const Op& op, const ProveState& st, const std::optional<protocol::DerivedLayout>& derived);

int run(const ProveState& st) {
  const Op* op = OpRegistry::instance().find("prove", st.goal);
  if (!op) {
    std::vector<std::string> goals;
    for (const auto& o : OpRegistry::instance().ops())
      if (o.group == "prove") goals.push_back(o.name);
    fail(rule::kUsage, "unknown goal '" + st.goal + "'" + did_you_mean(st.goal, goals) + " (tfspec prove --list shows them all)");
  }
  if (st.of.empty()) return run_given(*op, st, std::nullopt);
  // --of: each case of the derived layout is proved on its own, its guard and its required
  // conditions assumptions of its proof; --timeout bounds the derivation and, separately, each proof.
  if (!(st.timeout_s > 0 && st.timeout_s <= 600)) fail(rule::kUsage, "--timeout takes seconds in (0, 600]");
  const auto cases = protocol::derive_layout(st.of, st.assume, static_cast<int64_t>(std::ceil(st.timeout_s * 1000)));
  int worst = kOk;
  for (const auto& derived : cases) {
    if (!derived.dead.empty()) {  // the formula holds nowhere in its case: that case is not proved
      const std::string why = "the derived formula's condition " + derived.dead +
                              " fails at every instance of this case, so the formula is the reference's answer at none of them";
      if (st.json)
        std::cout << Json{{"goal", st.goal}, {"verdict", "UNKNOWN"}, {"reason", why},
                          {"of", Json{{"layout", derived.layout}, {"when", derived.when}, {"refuted", derived.dead}}}}
                         .dump()
                  << "\n";
      else
        std::cout << derived.header << "UNKNOWN " << st.goal << ": not proved in this case: " << why << "\n";
      if (worst == kOk) worst = 2;
      continue;
    }
    if (derived.vacuous) {
      if (!st.json) std::cout << derived.header << "  no instance: the case's guard and conditions cannot hold together (nothing to prove)\n";
      continue;
    }
    ProveState given = st;
    given.args.insert(given.args.begin(), derived.layout);
    given.assume.insert(given.assume.end(), derived.when.begin(), derived.when.end());
    given.assume.insert(given.assume.end(), derived.conditions.begin(), derived.conditions.end());
    int rc = kOk;
    try {
      rc = run_given(*op, given, derived);
    } catch (const SpecError& e) {
      // the prover found the case's guard and assumed conditions inconsistent, where the derivation's
      // satisfiability check could not tell: the same as a vacuous case, for this case only
      if (e.rule() != rule::kProveAssumptionsInconsistent.id) throw;
      if (!st.json) std::cout << derived.header << "  no instance: the case's guard and conditions cannot hold together (nothing to prove)\n";
      continue;
    }
    // the verdict of all cases: REFUTED in any outranks UNKNOWN, which outranks PROVED (1, 2, 0)
    auto rank = [](int x) { return x == 2 ? 1 : x == 1 ? 2 : x; };
    if (rank(rc) > rank(worst)) worst = rc;
  }
  return worst;
}

int run_given(const Op& op_ref, const ProveState& st, const std::optional<protocol::DerivedLayout>& derived) {
  const Op* op = &op_ref;
  std::vector<Param> positional;
  size_t required = 0;
  for (const auto& p : op->params)
    if (!is_option(p.name)) {
      positional.push_back(p);
      required += p.optional ? 0 : 1;
    }
  if (st.args.size() < required || st.args.size() > positional.size()) {
    Op shown = *op;  // the goal as the command line spells it: positional parameters only
    shown.name = "prove " + op->name;
    shown.params = positional;
    fail(rule::kUsage, protocol::arity_message(shown, st.args.size()));
  }
  Json args = Json::object();
  for (size_t i = 0; i < st.args.size(); ++i) args[positional[i].name] = protocol::arg_from_text(positional[i].type, st.args[i]);
  if (!st.size.empty()) {
    bool has_size = false;
    for (const auto& p : op->params) has_size = has_size || p.name == "size";
    if (!has_size) fail(rule::kUsage, "--size applies to the in-bounds goal only");
    args["size"] = protocol::arg_from_text(ParamType::IntTuple, st.size);
  } else if (op->name == "in-bounds") {
    fail(rule::kUsage, "in-bounds needs --size E");
  }
  if (!st.storage.empty()) {
    if (op->name != "shard") fail(rule::kUsage, "--storage applies to the shard goal only");
    args["storage"] = st.storage;
  }
  if (!st.assume.empty()) args["assume"] = st.assume;
  if (!(st.timeout_s > 0 && st.timeout_s <= 600)) fail(rule::kUsage, "--timeout takes seconds in (0, 600]");
  args["timeout_ms"] = static_cast<int64_t>(std::ceil(st.timeout_s * 1000));
  if (!st.smt2.empty()) args["smt2"] = st.smt2;
  OpResult r = op->run(args);
  if (derived && r.json.is_object()) r.json["of"] = Json{{"layout", derived->layout}, {"when", derived->when}, {"assumed", derived->conditions}};
  if (derived && !st.json) std::cout << derived->header;
  return print_result(r, st.json);
}
}  // namespace

void add_prove_command(CLI::App& app, int& exit_code) {
  auto st = std::make_shared<ProveState>();
  auto* sub = app.add_subcommand("prove", "Prove a goal over layouts with symbolic dims (injective, in-bounds, fits-int32, ...)");
  sub->add_option("goal", st->goal, "the goal (see --list)");
  sub->add_option("args", st->args, "the goal's objects in text notation, e.g. \"(M,N):(1,M)\"");
  sub->add_option("--assume", st->assume, "an assumption such as \"M % 128 == 0\" or \"1 <= M <= 65536\" (repeatable)");
  sub->add_option("--timeout", st->timeout_s, "seconds for the whole verdict, a hard limit (default 2)");
  sub->add_option("--smt2", st->smt2, "write each obligation to PREFIX-<name>.smt2 (SMT-LIB 2)");
  sub->add_option("--of", st->of, "the goal's layout derived by the symbolic algebra: \"OP A [TILER]\" (its conditions become assumptions)");
  sub->add_option("--size", st->size, "the in-bounds size E");
  sub->add_option("--storage", st->storage, "the shard goal's storage: rmem (default), smem or gmem (D3 engines)");
  sub->add_flag("--json", st->json, "print the verdict as JSON");
  sub->add_flag("--list", st->list, "list the goals");
  sub->positionals_at_end(false);
  sub->callback([st, &exit_code] {
    if (st->list || st->goal.empty()) {
      print_goals();
      exit_code = st->goal.empty() && !st->list ? kInputError : kOk;
      return;
    }
    exit_code = reported([&] { return run(*st); });
  });
}

}  // namespace tfspec::cli
