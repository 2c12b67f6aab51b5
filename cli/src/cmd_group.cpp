// `tfspec layout OP ARG...` and `tfspec shard OP ARG...`: registry ops from the command line.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "commands.hpp"
#include "tfspec/protocol/ops.hpp"
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
  std::string draw;    // layout check / shard check / shard assemble --draw FILE (cmd_draw.cpp)
  std::map<std::string, std::string> named;  // layout banks: --elem-bytes E etc., by parameter name
};

// Named options fill the op's parameter of that name; "-" marks optional ones left out before it.
std::vector<std::string> with_named(const Op& op, std::vector<std::string> args, const std::map<std::string, std::string>& named) {
  for (const auto& [name, value] : named) {
    size_t i = 0;
    while (i < op.params.size() && op.params[i].name != name) ++i;
    std::string flag = "--" + name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (i == op.params.size()) fail(rule::kUsage, "'" + op.name + "' takes no " + flag + " (layout banks and vector_width do)");
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

void add_group_command(CLI::App& app, const std::string& group, const std::string& description, int& exit_code) {
  auto st = std::make_shared<GroupState>();
  auto* sub = app.add_subcommand(group, description);
  sub->add_option("op", st->op, "operation (see --list)");
  sub->add_option("args", st->args, "arguments in the order of the operation's parameters");
  sub->add_flag("--json", st->json, "print the result as JSON");
  sub->add_flag("--list", st->list, "list the operations of this group");
  if (group == "layout")
    sub->add_option("--domain", st->domain, "strict (default) or extend: a tiler past A's domain is refused, or continues A as CuTe does (D15)")
        ->check(CLI::IsMember({"strict", "extend"}));
  if (group == "layout")
    sub->add_option("--assume", st->assume, "symbolic layouts: an assumption over the symbols, as for `prove` (repeatable)");
  static const std::pair<const char*, const char*> kNamed[] = {{"--elem-bytes", "elem_bytes"}, {"--vector", "vector"}, {"--banks", "banks"}, {"--bank-bytes", "bank_bytes"}};
  if (group == "layout")
    for (const auto& [flag, name] : kNamed)
      sub->add_option_function<std::string>(flag, [st, name = std::string(name)](const std::string& v) { st->named[name] = v; },
                                            "banks / vector_width: the parameter '" + std::string(name) + "' (spec/SMEM.md)");
  if (group == "layout") sub->add_option("--draw", st->draw, "check: also write an SVG of the layout with the offending elements marked");
  if (group == "shard")
    sub->add_option("--draw", st->draw,
                    "check: also write an SVG of the owners with elements sharing an (engine, offset) marked; assemble: of the values each "
                    "owner holds, replicas that disagree marked");
  sub->positionals_at_end(false);
  sub->callback([st, sub, group, &exit_code] {
    if (!sub->get_subcommands().empty()) return;  // a nested subcommand (`shard draw`) ran instead
    auto& reg = OpRegistry::instance();
    if (st->list || st->op.empty()) {
      for (const auto& op : reg.ops())
        if (op.group == group) std::cout << signature(op) << "    " << op.clause << " " << op.summary << "\n";
      for (const CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; }))  // e.g. shard draw
        std::cout << nested->get_name() << " ...    " << nested->get_description() << "\n";
      exit_code = st->op.empty() && !st->list ? kInputError : kOk;
      return;
    }
    const Op* op = reg.find(group, st->op);
    if (!op) {
      std::vector<std::string> names;
      for (const auto& o : reg.ops())
        if (o.group == group) names.push_back(o.name);
      for (const CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; })) names.push_back(nested->get_name());  // draw, print
      std::cerr << "error: [usage -] unknown " << group << " operation '" << st->op << "'" << did_you_mean(st->op, names)
                << " (--list shows them all)\n";
      exit_code = kInputError;
      return;
    }
    try {
      Json args = protocol::args_from_text(*op, with_named(*op, st->args, st->named));
      if (!st->domain.empty()) {
        bool takes_domain = false;
        for (const Param& p : op->params) takes_domain |= p.name == "domain";
        if (!takes_domain) fail(rule::kUsage, "'" + op->name + "' takes no --domain (only composition and the divides and products do)");
        args["domain"] = st->domain;
      }
      if (!st->draw.empty()) {  // drawn before the op runs, so a check that fails still leaves its picture
        int draw_rc = kOk;
        if (group == "layout" && op->name == "banks") {
          draw_rc = write_banks_picture(args, st->draw);
        } else if (group == "layout") {
          if (op->name != "check" || st->args.empty()) fail(rule::kUsage, "--draw goes with `layout check LAYOUT` and `layout banks`");
          draw_rc = write_check_picture(st->args[0], st->draw);  // drawn even when the check raises an input error
        } else {
          if (op->name != "check" && op->name != "assemble") fail(rule::kUsage, "--draw goes with `shard check` and `shard assemble`");
          draw_rc = write_shard_picture(op->name, args, st->draw);
        }
        if (draw_rc != kOk) {  // reported once; the op would fail on the same input or its picture is missing
          exit_code = draw_rc;
          return;
        }
      }
      if (group == "layout") {  // symbolic layouts: result, cases and conditions (cmd_symbolic.cpp)
        if (auto rc = run_symbolic_layout(op->name, args, st->assume, st->json)) {
          exit_code = *rc;
          return;
        }
        if (!st->assume.empty())
          fail(rule::kUsage, "--assume goes with symbolic layouts of size, cosize, coalesce, complement, composition, logical_divide, zipped_divide");
      }
      OpResult r = op->run(args);
      if (st->json) {
        std::cout << protocol::dump_line(r.json) << "\n";
      } else {
        std::cout << r.text;
        if (!r.text.empty() && r.text.back() != '\n') std::cout << "\n";
      }
      exit_code = r.exit_code;
    } catch (const std::exception& e) {
      exit_code = report_error(e);
    }
  });
}

}  // namespace tfspec::cli
