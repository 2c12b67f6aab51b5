// `tfspec serve`: the reference as a newline-delimited JSON process (spec/PROTOCOL.md).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

namespace tfspec::cli {

void add_serve_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<protocol::ServeOptions>();
  auto dir = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("serve", "Answer newline-delimited JSON requests on stdin (spec/PROTOCOL.md)");
  sub->add_option("--smt2-dir", *dir, "the directory prove.* requests may write SMT-LIB files into (refused without it)")->check(CLI::ExistingDirectory);
  sub->callback([opts, dir, &exit_code] {
    // Resolved once, here: the operator's DIR may itself be a symlink; below it nothing is
    // resolved by path again (protocol::create_smt2_file opens DIR with O_NOFOLLOW).
    if (!dir->empty()) opts->smt2_dir = std::filesystem::canonical(*dir).string();
    std::ios::sync_with_stdio(false);
    std::string line;
    bool stop = false;
    const auto& reg = protocol::OpRegistry::instance();
    while (!stop && std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::cout << protocol::dump_line(protocol::serve_line(reg, line, stop, *opts)) << "\n" << std::flush;
    }
    exit_code = kOk;
  });
}

}  // namespace tfspec::cli
