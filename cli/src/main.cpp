// `tfspec`: the TileFoundry shard/layout reference, prover and conformance tools.
#include <sstream>
#include <algorithm>
#include <poll.h>
#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "commands.hpp"
#include "tfspec_version.hpp"
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/error.hpp"

namespace {

// Standard output is a pipe whose reader has gone (`tfspec layout rules | head -1`): Linux
// reports POLLERR on the write end of a pipe without readers.
bool stdout_pipe_closed() {
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return false;
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

// A closed pipe ends tfspec as it ends `cat`: by SIGPIPE, quietly (the reader asked for no more).
// Most commands die at the write itself (SIGPIPE's default, restored in main); this is for a
// command that ignored SIGPIPE while it ran (conform, to notice its implementation exiting).
[[noreturn]] void end_by_sigpipe() {
  std::signal(SIGPIPE, SIG_DFL);
  std::raise(SIGPIPE);
  std::_Exit(128 + SIGPIPE);  // not reached: SIGPIPE's default ends the process
}

// A result that could not be written is no result: every subcommand's answer goes to stdout, so
// a failed write or flush (a full disk, /dev/full) turns success into an error. A closed pipe
// is the reader's choice, not a failure: the command ends quietly, by SIGPIPE.
int checked_stdout(int exit_code) {
  using namespace tfspec::cli;
  errno = 0;
  std::cout.flush();
  const bool failed = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return exit_code;
  if (errno == EPIPE || stdout_pipe_closed()) end_by_sigpipe();
  const int err = errno;
  std::cerr << "error: [" << tfspec::rule::kOutputWrite.id << " " << tfspec::rule::kOutputWrite.clause
            << "] standard output could not be written (" << (err != 0 ? std::strerror(err) : "write failed")
            << "); the result is lost\n";
  return exit_code > kInputError ? exit_code : kInputError;
}

// An option that takes a value takes exactly one, wherever it stands: a repeatable option
// (`--assume`, `--filter`, `--fuzz-op`) is repeated for more, and never swallows the positional
// words after it (`prove --assume 'K < M' injective L` is the goal `injective`, not an assumption).
// Its help says so too: `--assume TEXT`, one value per occurrence, not `--assume TEXT ...`.
void one_value_per_option(CLI::App& app) {
  for (CLI::Option* opt : app.get_options([](CLI::Option* o) { return o->nonpositional(); }))
    if (opt->get_items_expected_max() > 1) opt->expected(1)->take_all()->allow_extra_args(false);  // help: `--assume TEXT`
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) one_value_per_option(*sub);
}

// CLI11 reads a positional vector's word written `[a,b]` as its array syntax and splits it into
// several values; tfspec's JSON arguments (data "[1,2,3]", a shape "[8,16]") must each stay the
// one word the shell gave. main() marks such words before the parse, and every option that takes
// values takes the mark off again (and the error messages never show it).
constexpr char kWordMark = '\x1f';

std::string unmarked(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), kWordMark), s.end());
  return s;
}

void unmark_values(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->get_type_size() != 0) opt->transform([](std::string s) { return unmarked(std::move(s)); });
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) unmark_values(*sub);
}

bool known_command(CLI::App& app, const std::string& word) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->check_name(word)) return true;
  return false;
}

// The deepest subcommand the parse reached (`tfspec conform`, `tfspec layout`), or the app.
CLI::App* deepest(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return deepest(*sub);
  return &app;
}

std::string help_hint(CLI::App& app) {
  std::string path;
  for (CLI::App* a = deepest(app); a && a->get_parent(); a = a->get_parent()) path = " " + a->get_name() + path;
  return "tfspec" + path + " --help lists the options";
}

// "; did you mean `--assume`?" for each word of CLI11's message that looks like an option and
// is none of the parsed command's (or its parents') options: option typos get the treatment
// commands and ops get.
std::string option_suggestions(CLI::App& app, const std::string& message) {
  std::vector<std::string> names;
  for (CLI::App* a = deepest(app); a; a = a->get_parent())
    for (const CLI::Option* o : a->get_options()) {
      for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    }
  std::string out;
  std::istringstream words(message.substr(message.find(':') == std::string::npos ? 0 : message.find(':') + 1));
  for (std::string w; words >> w;) {
    while (!w.empty() && (w.back() == ',' || w.back() == '.')) w.pop_back();
    if (w.size() < 2 || w[0] != '-' || std::find(names.begin(), names.end(), w) != names.end()) continue;
    const std::string bare = w.substr(0, w.find('='));
    const std::string hint = tfspec::cli::did_you_mean(bare, names);
    if (!hint.empty()) out += hint.substr(0, 2) + "for `" + bare + "`, " + hint.substr(2);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tfspec::cli;
  std::signal(SIGPIPE, SIG_DFL);  // a closed pipe ends us quietly, even if our parent ignored SIGPIPE
  // This binary speaks every op group: the reference's (layout, shard) and the solver's (prove).
  auto& registry = tfspec::protocol::OpRegistry::instance();
  tfspec::protocol::register_reference_ops(registry);
  tfspec::protocol::register_prove_ops(registry);
  tfspec::protocol::register_kernel_ops(registry);
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
  add_reshard_run_command(app, exit_code);
  add_kernel_command(app, exit_code);
  add_draw_command(app, exit_code);
  add_print_command(app, exit_code);
  one_value_per_option(app);
  // Both spellings of the top level, as for op names: `reshard-plan` is canonical.
  app.get_subcommand("reshard-plan")->alias("reshard_plan");
  app.get_subcommand("reshard-run")->alias("reshard_run");
  app.set_version_flag("--version", std::string("tfspec ") + TFSPEC_VERSION + " (commit " + TFSPEC_COMMIT + ")",
                       "print the version and the commit it was built from");
  if (argc > 1 && argv[1][0] != '-' && !known_command(app, argv[1])) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    std::cerr << "error: [" << tfspec::rule::kUsage.id << " -] unknown command '" << argv[1] << "'" << did_you_mean(argv[1], names)
              << " (tfspec --help lists them)\n";
    return checked_stdout(kInputError);
  }
  unmark_values(app);
  std::vector<std::string> words(argv, argv + argc);
  for (size_t i = 1; i < words.size(); ++i)
    if (words[i].size() >= 2 && words[i].front() == '[' && words[i].back() == ']') words[i].insert(words[i].begin(), kWordMark);
  std::vector<char*> marked_argv;
  for (auto& w : words) marked_argv.push_back(w.data());
  try {
    app.parse(argc, marked_argv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version: CLI11 prints them
      app.exit(e);
      exit_code = kOk;
    } else {
      const std::string what = unmarked(e.what());
      std::cerr << "error: [" << tfspec::rule::kUsage.id << " -] " << what << option_suggestions(app, what) << " (" << help_hint(app) << ")\n";
      exit_code = kInputError;
    }
  } catch (const std::exception& e) {
    exit_code = report_error(e);
  }
  return checked_stdout(exit_code);
}
