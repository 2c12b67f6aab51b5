// Subcommand wiring for the `tfspec` binary: one file per subcommand.
#pragma once
#include <CLI/CLI.hpp>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"
#include "tfspec/protocol/ops.hpp"

namespace tfspec::cli {

// Exit codes shared by every subcommand.
// kUnavailable: `fuzz --backend cuda` found no usable device (skipped, the CUDA error named).
enum Exit : int { kOk = 0, kViolations = 1, kUnknown = 2, kInputError = 3, kInternal = 4, kUnavailable = 5 };

// A group of registry ops as `tfspec GROUP OP ARG... [--json]` (layout, shard).
void add_group_command(CLI::App& app, const std::string& group, const std::string& description, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);
void add_prove_command(CLI::App& app, int& exit_code);
void add_fuzz_command(CLI::App& app, int& exit_code);
void add_conform_command(CLI::App& app, int& exit_code);
void add_propagate_command(CLI::App& app, int& exit_code);
void add_reshard_plan_command(CLI::App& app, int& exit_code);  // multi-GPU reshard plan (spec/MULTIGPU.md)
void add_reshard_run_command(CLI::App& app, int& exit_code);   // the plan executed on MPI (spec/MULTIGPU.md)
void add_kernel_command(CLI::App& app, int& exit_code);        // kernel pipelines (spec/KERNEL.md)
// `tfspec draw` and `tfspec shard draw` (call after the shard group is added).
void add_draw_command(CLI::App& app, int& exit_code);
// `tfspec layout print` (cmd_print.cpp; call after the layout group is added).
void add_print_command(CLI::App& app, int& exit_code);
// A layout read from text with `--bind NAME=VALUE` values substituted (§1; cmd_draw.cpp): a
// NAME the layout lacks is a usage error, a symbol left without a value unbound-dim naming it.
LayoutPtr read_bound_layout(const std::string& text, const std::vector<std::string>& binds);
// `layout check L --draw FILE`: the check picture (cmd_draw.cpp); reports its own errors.
int write_check_picture(const std::string& layout, const std::string& path);
int write_banks_picture(const Json& args, const std::string& path);  // layout banks --draw (spec/SMEM.md)
// `tfspec shard check|assemble ARGS --draw FILE`: the shard check picture, or the engines read
// back with replica mismatches marked; `args` as the registry op receives them.
int write_shard_picture(const std::string& op, const Json& args, const std::string& path);

// "; did you mean `layout`?" for the candidate nearest to an unknown word (edit distance), or ""
// when none is near enough to be a likely typo.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// Prints "error: [rule clause] message" to stderr (the single format every command uses).
// An op's answer on stdout: its JSON line with --json, else its text ending in a newline; the
// op's exit code.
int print_result(const protocol::OpResult& r, bool json);
int report_error(const std::exception& e);

// Runs a command body that returns its exit code; an exception is reported by report_error and
// its exit code returned instead (the callback of every subcommand).
template <class F>
int reported(F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace tfspec::cli
