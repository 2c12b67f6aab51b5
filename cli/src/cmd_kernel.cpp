// `tfspec kernel check PIPELINE.json [--json] [--smem-limit BYTES] [--draw DIR]`: a GEMM mainloop
// + epilogue's data movement checked end to end (spec/KERNEL.md). Exit codes: 0 every check
// holds, 1 a violation, 2 a condition neither proved nor refuted, 3 a malformed description (or a
// picture that cannot be written), 4 internal.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "input_file.hpp"
#include "run_control.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/frontends/triton/lower.hpp"
#include "tfspec/kernel/layout_program.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/views.hpp"
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::cli {
namespace {

struct KernelState {
  std::string file, smem_limit, draw, from;
  bool json = false;
};


// One SVG per stage's partition, the cells the violations name marked (draw::partition_svg).
void write_pictures(const kernel::Pipeline& p, const kernel::KernelReport& r, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(rule::kUsage, "--draw: cannot create the directory '" + dir + "': " + ec.message());
  for (const kernel::TileView& v : kernel::tile_views(p, r)) {
    draw::TilePartition t;
    t.title = p.name + " " + v.title;
    t.row_dim = v.operand == 'B' ? "n" : "m";
    t.col_dim = v.operand == 'C' ? "n" : "k";
    t.threads = v.part.threads, t.values = v.part.values, t.rows = v.part.rows, t.cols = v.part.cols;
    t.index = v.part.index;
    t.exclusive = v.exclusive;
    t.offending = v.offending;
    t.notes = v.notes;
    write_report_file((std::filesystem::path(dir) / v.file).string(), draw::partition_svg(t), "the picture");
  }
}

// `--from triton KERNEL.ttgir` (spec/TRITON.md): the TTGIR read by frontends/triton, its moves
// checked by kernel/. Triton's metadata.shared comes from KERNEL.json beside it when present.
int check_triton(const KernelState& st, const Json& args) {
  if (st.from != "triton") fail(rule::kUsage, "--from: the readers are 'triton' (a TTGIR file) and 'cute-dsl' (an MLIR dump), not '" + st.from + "'");
  if (!st.draw.empty()) fail(rule::kUsage, "--draw is not available with --from triton");
  Json op_args = args;
  op_args["ttgir"] = read_input_file(st.file, "ttgir");
  std::filesystem::path meta(st.file);
  meta.replace_extension(".json");
  if (st.file != "-" && std::filesystem::exists(meta)) {
    Json j;
    std::string why;
    try {
      j = parse_json_text(read_input_file(meta.string(), "metadata"), "the kernel's metadata (" + meta.string() + ")");
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (j.is_object() && j.contains("shared") && j["shared"].is_number_integer()) op_args["shared"] = j["shared"];
    else if (why.empty()) why = "no integer \"shared\" member";
    // not Triton's metadata: the footprint is then compared with the limit only, and the user is told
    if (!why.empty())
      std::cerr << "warning: " << meta.string() << " beside the TTGIR is not Triton's metadata (" << why
                << "): the shared-memory footprint is compared with the architecture's limit only, not with metadata.shared\n";
  }
  // One code path with `tfspec serve` and the Python module: kernel.check given the TTGIR.
  const protocol::Op* op = protocol::OpRegistry::instance().find("kernel", "check");
  if (!op) fail(rule::kInternal, "the kernel.check op is not registered");
  const protocol::OpResult r = op->run(op_args);
  if (st.json) std::cout << protocol::dump_line(r.json) << "\n";
  else std::cout << r.text;
  return r.exit_code;
}

// `--from cute-dsl DUMP.mlir` (spec/CUTE_DSL.md): the DSL's MLIR read by frontends/cute_dsl, its
// layout ops recomputed and its global copies checked.
int check_cute_dsl(const KernelState& st) {
  if (!st.draw.empty() || !st.smem_limit.empty()) fail(rule::kUsage, "--draw and --smem-limit are not available with --from cute-dsl");
  const auto start = std::chrono::steady_clock::now();
  kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(read_input_file(st.file, "MLIR dump")));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (st.json) std::cout << protocol::dump_line(kernel::to_json(r)) << "\n";
  else std::cout << kernel::to_text(r);
  return r.exit_code();
}

}  // namespace

void add_kernel_command(CLI::App& app, int& exit_code) {
  auto st = std::make_shared<KernelState>();
  auto* group = app.add_subcommand("kernel", "Kernel pipelines: a GEMM mainloop + epilogue's data movement (spec/KERNEL.md)");
  group->require_subcommand(1);
  auto* check = group->add_subcommand("check", "Check coverage, agreement, banks and width, bounds and shared-memory footprint");
  check->add_option("pipeline", st->file, "the pipeline description, a JSON file (docs/kernels/*.json; '-' reads stdin)")->required();
  check->add_flag("--json", st->json, "print the findings as JSON");
  check->add_option("--from", st->from, "read the kernel from another system's artifact: 'triton' (a TTGIR file, compiled.asm[\"ttgir\"]; spec/TRITON.md) or 'cute-dsl' (the MLIR CUTE_DSL_KEEP=ir-debug dumps; spec/CUTE_DSL.md)");
  check->add_option("--draw", st->draw, "write one SVG per stage's partition into this directory, offending cells marked")
      ->check(non_empty("--draw names the directory the pictures go into"));
  check->add_option("--smem-limit", st->smem_limit, "shared memory a CTA may use, bytes or KiB (default per arch: sm80 164KiB, sm86/sm89 100KiB, sm90 228KiB)");
  check->callback([st, &exit_code] {
    exit_code = reported([&] {
      // One code path with `tfspec serve`: the protocol op `kernel.check` (protocol/src/ops_kernel.cpp).
      if (st->from == "cute-dsl") return check_cute_dsl(*st);
      if (!st->from.empty()) {
        Json args = Json::object();
        if (!st->smem_limit.empty()) args["smem_limit"] = protocol::smem_limit_bytes(Json(st->smem_limit), "--smem-limit", rule::kUsage);
        return check_triton(*st, args);
      }
      const protocol::Op* op = protocol::OpRegistry::instance().find("kernel", "check");
      if (!op) fail(rule::kInternal, "the kernel.check op is not registered");
      const std::string text = read_input_file(st->file, "pipeline");
      Json args{{"pipeline", text}};
      if (!st->smem_limit.empty()) args["smem_limit"] = protocol::smem_limit_bytes(Json(st->smem_limit), "--smem-limit", rule::kUsage);
      const protocol::OpResult r = op->run(args);
      if (!st->draw.empty()) {  // the pictures need the report itself: the same check, run again
        const kernel::Pipeline p = kernel::read_pipeline_text(text);
        kernel::KernelOptions o;
        if (args.contains("smem_limit")) o.smem_limit = args["smem_limit"].get<int64_t>();
        write_pictures(p, kernel::check_pipeline(p, o), st->draw);
      }
      if (st->json) std::cout << protocol::dump_line(r.json) << "\n";
      else std::cout << r.text;
      return r.exit_code;
    });
  });
}

}  // namespace tfspec::cli
