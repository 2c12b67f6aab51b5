// `tfspec propagate PROGRAM.json [--insert-reshards] [--json] [--check [--seed S]]`: shard
// propagation (spec/PROPAGATION.md) through the protocol op `propagate`. Exit codes: 0 every
// value has a layout and no conflict (and --check found the outputs equal), 1 conflicts or a
// --check difference, 3 a malformed program (rule id and JSON path), 4 internal.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {
namespace {
struct PropagateState {
  std::string file;
  bool insert = false, json = false, check = false;
  uint64_t seed = 1;
};
}  // namespace

void add_propagate_command(CLI::App& app, int& exit_code) {
  auto st = std::make_shared<PropagateState>();
  auto* sub = app.add_subcommand("propagate", "Shard propagation over a tensor program (spec/PROPAGATION.md)");
  sub->add_option("program", st->file, "the program as JSON: {mesh, inputs, ops, outputs} ('-' = stdin)")->required();
  sub->add_flag("--insert-reshards", st->insert, "resolve conflicts by inserting reshards (collective and elements moved reported)");
  sub->add_flag("--json", st->json, "print {values, ops, reshards, conflicts} as JSON");
  sub->add_flag("--check", st->check, "run the program globally and shard-locally on random small integers and compare the outputs");
  sub->add_option("--seed", st->seed, "seed of the --check data (default 1)");
  sub->callback([st, &exit_code] {
    try {
      std::stringstream text;
      if (st->file == "-") {
        text << std::cin.rdbuf();
      } else {
        std::ifstream in(st->file);
        if (!in) fail(rule::kUsage, "cannot read the program file '" + st->file + "'");
        text << in.rdbuf();
      }
      Json program;
      try {
        program = Json::parse(text.str());
      } catch (const Json::exception& e) {
        fail(rule::kProgramFormat, std::string("$: the program is not JSON: ") + e.what(), "$");
      }
      const protocol::Op* op = protocol::OpRegistry::instance().find("layout", "propagate");
      if (!op) fail(rule::kInternal, "the propagate op is not registered");
      Json args{{"program", program}, {"insert_reshards", st->insert}, {"check", st->check}, {"seed", st->seed}};
      protocol::OpResult r = op->run(args);
      if (st->json) std::cout << protocol::dump_line(r.json) << "\n";
      else std::cout << r.text;
      exit_code = r.exit_code;
    } catch (const std::exception& e) {
      exit_code = report_error(e);
    }
  });
}

}  // namespace tfspec::cli
