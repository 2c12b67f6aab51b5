// `tfspec layout print LAYOUT [--latex] [--bind M=16]` (issue 25): the layout's offsets in the
// terminal, as CuTe's print_layout prints them, or as print_latex's TikZ picture, for a user
// without an SVG viewer. The text comes from draw/ (layout_text.cpp); protocol stays below it.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tfspec/draw/draw.hpp"

namespace tfspec::cli {
namespace {
struct PrintArgs {
  std::string layout;
  std::vector<std::string> bind;
  bool latex = false;
};
}  // namespace

void add_print_command(CLI::App& app, int& exit_code) {
  // A subcommand of the layout group, as `shard draw` is of the shard group (cmd_group.cpp leaves
  // the group's op dispatch alone when a nested subcommand ran).
  CLI::App* layout = app.get_subcommand("layout");
  auto a = std::make_shared<PrintArgs>();
  auto* sub = layout->add_subcommand("print", "Print a layout's offsets as CuTe's print_layout does (--latex: print_latex's TikZ picture)");
  sub->add_option("layout", a->layout, "a layout in CuTe notation, INNER o OFFSET o OUTER, or shard(...)")->required();
  sub->add_flag("--latex", a->latex, "a standalone LaTeX/TikZ picture, as CuTe's print_latex");
  sub->add_option("--bind", a->bind, "NAME=VALUE: the value of a symbol of the layout, e.g. M=16 (repeat for more)");
  sub->callback([a, &exit_code] {
    exit_code = reported([&] {
      const LayoutPtr l = read_bound_layout(a->layout, a->bind);
      std::cout << (a->latex ? draw::print_latex(*l) : draw::print_layout(*l));
      return kOk;
    });
  });
}

}  // namespace tfspec::cli
