// `tfspec propagate PROGRAM.json [--insert-reshards] [--json] [--check [--seed S]]`: shard
// propagation (spec/PROPAGATION.md) through the protocol op `propagate`. Exit codes: 0 every
// value has a layout and no conflict (and --check found the outputs equal), 1 conflicts or a
// --check difference, 3 a malformed program (rule id and JSON path), 4 internal.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "input_file.hpp"
#include "tfspec/propagation/program.hpp"
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
  sub->add_option("program", st->file, "path of the program, a JSON file {mesh, inputs, ops, outputs} ('-' reads it from stdin)")->required();
  sub->add_flag("--insert-reshards", st->insert, "resolve conflicts by inserting reshards (collective and elements moved reported)");
  sub->add_flag("--json", st->json, "print {values, ops, reshards, conflicts} as JSON");
  sub->add_flag("--check", st->check, "run the program globally and shard-locally on random small integers and compare the outputs");
  auto* seed = sub->add_option("--seed", st->seed, "seed of the --check data (default 1; only with --check)");
  sub->callback([st, seed, &exit_code] {
    try {
      // A seed without --check would change nothing: refused rather than silently ignored.
      if (seed->count() > 0 && !st->check) fail(rule::kUsage, "--seed sets the data of --check: give --check too");
      Json program = propagation::read_program_json(read_input_file(st->file, "program"));
      const protocol::Op* op = protocol::OpRegistry::instance().find("layout", "propagate");
      if (!op) fail(rule::kInternal, "the propagate op is not registered");
      Json args{{"insert_reshards", st->insert}, {"check", st->check}, {"seed", st->seed}};
      args["program"] = std::move(program);
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
