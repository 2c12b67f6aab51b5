// `tfspec`: the TileFoundry shard/layout reference, prover and conformance tools.
#include <iostream>

#include "commands.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/reference/error.hpp"

int main(int argc, char** argv) {
  using namespace tfspec::cli;
  // This binary speaks every op group: the reference's (layout, shard) and the solver's (prove).
  auto& registry = tfspec::protocol::OpRegistry::instance();
  tfspec::protocol::register_reference_ops(registry);
  tfspec::protocol::register_prove_ops(registry);
  CLI::App app{"tfspec: executable reference semantics and verification for the TileFoundry shard/layout spec"};
  app.require_subcommand(1);
  int exit_code = kOk;
  add_group_command(app, "layout", "Run a layout-algebra operation (spec §1-§4)", exit_code);
  add_group_command(app, "shard", "Shard model operations (spec §5-§7)", exit_code);
  add_prove_command(app, exit_code);
  add_serve_command(app, exit_code);
  add_fuzz_command(app, exit_code);
  add_conform_command(app, exit_code);
  add_propagate_command(app, exit_code);
  add_reshard_plan_command(app, exit_code);
  add_draw_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kInputError;
  } catch (const std::exception& e) {
    return report_error(e);
  }
  return exit_code;
}
