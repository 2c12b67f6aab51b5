// `tfspec prove`: filled in by issue 4.
#include "commands.hpp"

namespace tfspec::cli {
void add_prove_command(CLI::App&, int&) {}
}  // namespace tfspec::cli
