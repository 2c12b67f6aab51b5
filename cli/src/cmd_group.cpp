// `tfspec layout OP ARG...` and `tfspec shard OP ARG...`: registry ops from the command line.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "commands.hpp"
#include "run_control.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/protocol/wire.hpp"

namespace tfspec::cli {

using protocol::Op;
using protocol::OpRegistry;
using protocol::OpResult;
using protocol::Param;
using protocol::ParamType;

namespace {
struct GroupState {
  std::string op;
  std::vector<std::string> args;
  bool json = false;
  bool list = false;
  std::string domain;  // D15: --domain strict|extend, passed as the `domain` argument
  std::vector<std::string> assume;  // layout OP on symbolic layouts: assumptions (spec/ALGEBRA.md S5)
  int64_t budget = 0, timeout_ms = 0;  // symbolic layouts: work budget (solver queries) and wall-clock last guard; 0: default
  std::string draw;    // layout check / shard check / shard assemble --draw FILE (cmd_draw.cpp)
  std::map<std::string, std::string> named;  // layout banks: --elem-bytes E etc., by parameter name
  bool inverse = false;  // layout equivalent --inverse (X2)
};

std::string signature(const Op& op);

// Named options fill the op's parameter of that name; "-" marks optional ones left out before it.
std::vector<std::string> with_named(const Op& op, std::vector<std::string> args, const std::map<std::string, std::string>& named) {
  for (const auto& [name, value] : named) {
    size_t i = 0;
    while (i < op.params.size() && op.params[i].name != name) ++i;
    std::string flag = "--" + name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (i == op.params.size()) fail(rule::kUsage, "'" + op.name + "' takes no " + flag + " (" + signature(op) + ")");
    if (args.size() <= i) args.resize(i + 1, "-");
    if (args[i] != "-") fail(rule::kUsage, flag + " given twice (positionally and as an option)");
    args[i] = value;
  }
  return args;
}

std::string signature(const Op& op) {
  std::string s = op.name;
  for (const auto& p : op.params) s += " " + (p.optional ? "[" + p.name + "]" : p.name);
  return s;
}
}  // namespace

namespace {

void add_group_options(CLI::App* sub, const std::string& group, const std::shared_ptr<GroupState>& st) {
  sub->add_option("op", st->op, "operation (see --list)");
  sub->add_option("args", st->args, "arguments in the order of the operation's parameters");
  sub->add_flag("--json", st->json, "print the result as JSON");
  sub->add_flag("--list", st->list, "list the operations of this group");
  if (group == "shard")  // from-jax / from-dtensor (issue 33): the libraries' arguments by name
    for (const char* name : {"mesh", "spec", "placements", "shape", "devices"})
      sub->add_option_function<std::string>(std::string("--") + name, [st, name = std::string(name)](const std::string& v) { st->named[name] = v; },
                                            "the parameter '" + std::string(name) + "' by name (from-jax, from-dtensor; any op that has it)");
  if (group == "shard")
    sub->add_option("--draw", st->draw,
                    "check: also write an SVG of the owners with elements sharing an (engine, offset) marked; assemble: of the values each "
                    "owner holds, replicas that disagree marked")
        ->check(non_empty("--draw names the SVG file"));
  if (group != "layout") return;
  sub->add_option("--domain", st->domain, "strict (default) or extend: a tiler past A's domain is refused, or continues A as CuTe does (D15)")
      ->check(CLI::IsMember({"strict", "extend"}));
  sub->add_option("--assume", st->assume, "symbolic layouts: an assumption over the symbols, as for `prove` (repeatable)");
  sub->add_option("--budget", st->budget, "symbolic layouts: the work budget in solver queries (default 20000): the same answer on any machine")
      ->check(integer_in(1, 10'000'000, "a number of solver queries from 1 to 10^7"));
  sub->add_option("--timeout-ms", st->timeout_ms, "symbolic layouts: the wall-clock last guard in ms (default 60000), for a solver query that ignores its limit")
      ->check(integer_in(1, 600'000, "a number of milliseconds from 1 to 600000"));
  static const std::pair<const char*, const char*> kNamed[] = {{"--elem-bytes", "elem_bytes"}, {"--vector", "vector"}, {"--banks", "banks"}, {"--bank-bytes", "bank_bytes"}};
  for (const auto& [flag, name] : kNamed)
    sub->add_option_function<std::string>(flag, [st, name = std::string(name)](const std::string& v) { st->named[name] = v; },
                                          "banks / vector_width: the parameter '" + std::string(name) + "' (spec/SMEM.md)");
  sub->add_option("--draw", st->draw, "check: also write an SVG of the layout with the offending elements marked")
      ->check(non_empty("--draw names the SVG file"));
  for (const auto& [flag, name] : {std::pair<const char*, const char*>{"--ins", "ins"}, {"--outs", "outs"}})
    sub->add_option_function<std::string>(flag, [st, name = std::string(name)](const std::string& v) { st->named[name] = v; },
                                          "to_linear: the linear layout's " + std::string(name == std::string("ins") ? "in" : "out") + "-dims, \"name=size,...\" (spec/ALGEBRA.md X2)");
  sub->add_flag("--inverse", st->inverse, "equivalent: compare A with the inverse of B (a Triton shared layout, offset -> coordinates, against a CuTe one)");
}

// A registry op that is a top-level command of its own (`propagate`: `tfspec propagate FILE`
// reads a path, the op inline JSON): the group neither lists nor runs it, the command does.
bool own_command(CLI::App* sub, const std::string& op_name) {
  for (const CLI::App* top : sub->get_parent()->get_subcommands([](CLI::App*) { return true; }))
    if (top->get_name() == op_name) return true;
  return false;
}

// `--list`, or no op: the group's ops and nested subcommands (e.g. shard draw), each of which
// `tfspec GROUP NAME` runs.
int list_ops(CLI::App* sub, const std::string& group, const GroupState& st) {
  for (const auto& op : OpRegistry::instance().ops())
    if (op.group == group && !own_command(sub, op.name)) std::cout << signature(op) << "    " << op.clause << " " << op.summary << "\n";
  for (const CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; }))
    std::cout << nested->get_name() << " ...    " << nested->get_description() << "\n";
  return st.op.empty() && !st.list ? kInputError : kOk;
}

int unknown_op(CLI::App* sub, const std::string& group, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& o : OpRegistry::instance().ops())
    if (o.group == group && !own_command(sub, o.name)) names.push_back(o.name);
  for (const CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; })) names.push_back(nested->get_name());  // draw, print
  std::cerr << "error: [usage -] unknown " << group << " operation '" << name << "'" << did_you_mean(name, names) << " (--list shows them all)\n";
  return kInputError;
}

// `--draw FILE`: drawn before the op runs, so a check that fails still leaves its picture.
int draw_first(const Op& op, const std::string& group, const GroupState& st, const Json& args) {
  if (group == "layout" && op.name == "banks") return write_banks_picture(args, st.draw);
  if (group == "layout") {
    if (op.name != "check" || st.args.empty()) fail(rule::kUsage, "--draw goes with `layout check LAYOUT` and `layout banks`");
    return write_check_picture(st.args[0], st.draw);  // drawn even when the check raises an input error
  }
  if (op.name != "check" && op.name != "assemble") fail(rule::kUsage, "--draw goes with `shard check` and `shard assemble`");
  return write_shard_picture(op.name, args, st.draw);
}

// --assume, --budget, --timeout-ms: the symbolic forms' arguments (protocol/src/ops_symbolic.cpp).
void symbolic_options(const Op& op, const GroupState& st, Json& args) {
  if (st.assume.empty() && !st.budget && !st.timeout_ms) return;
  const auto names = protocol::symbolic_op_names();
  if (std::find(names.begin(), names.end(), op.name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    fail(rule::kUsage, "--assume, --budget and --timeout-ms go with the ops that take symbolic layouts: " + list);
  }
  if (!st.assume.empty()) args["assume"] = st.assume;
  if (st.budget) args["budget"] = st.budget;
  if (st.timeout_ms) args["timeout_ms"] = st.timeout_ms;
}

int run_op(const Op& op, const std::string& group, const GroupState& st) {
  Json args = protocol::args_from_text(op, with_named(op, st.args, st.named));
  if (!st.domain.empty()) {
    bool takes_domain = false;
    for (const Param& p : op.params) takes_domain |= p.name == "domain";
    if (!takes_domain) fail(rule::kUsage, "'" + op.name + "' takes no --domain (only composition and the divides and products do)");
    args["domain"] = st.domain;
  }
  if (!st.draw.empty())
    if (int rc = draw_first(op, group, st, args); rc != kOk) return rc;  // reported once: the op would fail on the same input
  symbolic_options(op, st, args);
  if (st.inverse) {
    if (op.name != "equivalent") fail(rule::kUsage, "--inverse goes with `layout equivalent A B`");
    args["inverse"] = true;
  }
  OpResult r = op.run(args);
  return print_result(r, st.json);
}

}  // namespace

int print_result(const protocol::OpResult& r, bool json) {
  if (json) {
    std::cout << protocol::dump_line(r.json) << "\n";
  } else {
    std::cout << r.text;
    if (!r.text.empty() && r.text.back() != '\n') std::cout << "\n";
  }
  return r.exit_code;
}

void add_group_command(CLI::App& app, const std::string& group, const std::string& description, int& exit_code) {
  auto st = std::make_shared<GroupState>();
  auto* sub = app.add_subcommand(group, description);
  add_group_options(sub, group, st);
  sub->positionals_at_end(false);
  sub->callback([st, sub, group, &exit_code] {
    if (!sub->get_subcommands().empty()) return;  // a nested subcommand (`shard draw`) ran instead
    if (st->list || st->op.empty()) {
      exit_code = list_ops(sub, group, *st);
      return;
    }
    const Op* op = OpRegistry::instance().find(group, st->op);
    if (op && own_command(sub, op->name)) {
      std::cerr << "error: [" << rule::kUsage.id << " -] `" << op->name << "` is a command of its own: tfspec " << op->name << " --help\n";
      exit_code = kInputError;
      return;
    }
    if (!op) {
      exit_code = unknown_op(sub, group, st->op);
      return;
    }
    try {
      exit_code = run_op(*op, group, *st);
    } catch (const std::exception& e) {
      exit_code = report_error(e);
    }
  });
}

}  // namespace tfspec::cli
