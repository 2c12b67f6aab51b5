// `tfspec serve`: the reference as a newline-delimited JSON process (spec/PROTOCOL.md).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "tfspec/protocol/serve.hpp"

namespace tfspec::cli {

void add_serve_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<protocol::ServeOptions>();
  auto dir = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("serve", "Answer newline-delimited JSON requests on stdin (spec/PROTOCOL.md)");
  sub->add_option("--smt2-dir", *dir, "the directory prove.* requests may write SMT-LIB files into (refused without it)")->check(CLI::ExistingDirectory);
  sub->add_option("--max-line-bytes", opts->max_line_bytes,
                  "the longest request line in bytes (default 1048576); a longer one is answered with protocol-line-too-long")
      ->check(CLI::Range(size_t{1}, size_t{1} << 40));
  sub->callback([opts, dir, &exit_code] {
    // Resolved once, here: the operator's DIR may itself be a symlink; below it nothing is
    // resolved by path again (protocol::create_smt2_file opens DIR with O_NOFOLLOW).
    if (!dir->empty()) opts->smt2_dir = std::filesystem::canonical(*dir).string();
    std::ios::sync_with_stdio(false);
    const auto end = protocol::serve(std::cin, std::cout, std::cerr, protocol::OpRegistry::instance(), *opts);
    exit_code = end == protocol::ServeEnd::Done ? kOk : kInputError;  // a reply that could not be written (docs/cli.md "Exit codes")
  });
}

}  // namespace tfspec::cli
