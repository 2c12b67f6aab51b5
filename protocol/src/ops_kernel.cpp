// A kernel pipeline's data movement checked end to end (spec/KERNEL.md) as the protocol op
// `kernel.check`: `tfspec kernel check` runs this op, so the CLI's --json, a `tfspec serve` client
// and the Python builder get one answer from one code path. In tfspec_protocol_prove: the bounds
// conditions over symbolic M, N, K go to the solver.
#include <chrono>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/frontends/triton/lower.hpp"
#include "tfspec/frontends/triton/ttgir.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/layout_program.hpp"
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::protocol {
namespace {

// "232448", 232448, "227KiB", "227 KiB", "232448B": bytes; `what` names the argument in errors.
int64_t bytes_arg(const Json& j, const std::string& what, const RuleId& bad) {
  const std::string forms = what + " takes bytes or KiB (232448, 227KiB)";
  if (j.is_number_integer()) {
    const int64_t n = j.get<int64_t>();
    if (n < 1 || n > (int64_t{1} << 40)) fail(bad, forms + "; got " + std::to_string(n));
    return n;
  }
  if (!j.is_string()) fail(bad, forms);
  const std::string text = j.get<std::string>();
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    fail(bad, forms + "; got '" + text + "'");
  }
  std::string unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  if (n < 1 || n > (int64_t{1} << 40) || !(unit.empty() || unit == "KiB" || unit == "B")) fail(bad, forms + "; got '" + text + "'");
  // The limit on the bytes, checked here where the user's own text can be named (issue 44).
  if (unit == "KiB" && n > (int64_t{1} << 30))
    fail(bad, what + " is at most 2^40 bytes (1073741824KiB); got '" + text + "', " + std::to_string(n) + " KiB = " + std::to_string(n * 1024) + " bytes");
  return unit == "KiB" ? n * 1024 : n;
}

// A kernel Triton compiled (spec/TRITON.md): its TTGIR text read by frontends/triton, the layout
// program it lowers to checked by kernel/; `shared` is Triton's metadata.shared, when known.
kernel::KernelReport check_ttgir(const Json& a, const kernel::KernelOptions& o) {
  const Json& t = a["ttgir"];
  if (!t.is_string()) fail(rule::kProtocolBadArgs, "\"ttgir\" is the TTGIR text (compiled.asm[\"ttgir\"])");
  if (a.contains("pipeline")) fail(rule::kProtocolBadArgs, "give the kernel once: \"pipeline\" (a description) or \"ttgir\" (Triton's IR), not both");
  std::optional<int64_t> shared;
  if (a.contains("shared") && !a["shared"].is_null()) {
    if (!a["shared"].is_number_integer() || a["shared"].get<int64_t>() < 0)
      fail(rule::kProtocolBadArgs, "\"shared\" is Triton's metadata.shared, a number of bytes >= 0");
    shared = a["shared"].get<int64_t>();
  }
  const auto start = std::chrono::steady_clock::now();
  kernel::KernelReport r = kernel::check_layout_program(triton::lower(triton::read_ttgir(t.get<std::string>()), shared), o);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// A kernel the CuTe DSL compiled (spec/CUTE_DSL.md): the MLIR CUTE_DSL_KEEP=ir-debug dumps, read by
// frontends/cute_dsl and checked op by op, as `tfspec kernel check --from cute-dsl` does.
kernel::KernelReport check_cute_dsl(const Json& a) {
  const Json& t = a["cute_dsl"];
  if (!t.is_string()) fail(rule::kProtocolBadArgs, "\"cute_dsl\" is the MLIR text the CuTe DSL dumps (CUTE_DSL_KEEP=ir-debug)");
  if (a.contains("pipeline") || a.contains("ttgir") || a.contains("smem_limit"))
    fail(rule::kProtocolBadArgs, "\"cute_dsl\" is given alone: not with pipeline, ttgir or smem_limit (spec/CUTE_DSL.md)");
  const auto start = std::chrono::steady_clock::now();
  kernel::KernelReport r = cute_dsl::check_module(cute_dsl::read_cute_ir(t.get<std::string>()));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

OpResult kernel_check_op(const Json& a) {
  if (a.contains("cute_dsl")) {
    const kernel::KernelReport r = check_cute_dsl(a);
    return {kernel::to_json(r), kernel::to_text(r), r.exit_code()};
  }
  kernel::KernelOptions o;
  if (a.contains("smem_limit") && !a["smem_limit"].is_null()) o.smem_limit = bytes_arg(a["smem_limit"], "\"smem_limit\"", rule::kProtocolBadArgs);
  if (a.contains("ttgir")) {
    const kernel::KernelReport r = check_ttgir(a, o);
    return {kernel::to_json(r), kernel::to_text(r), r.exit_code()};
  }
  const Json& d = require_arg(a, "pipeline");
  const kernel::Pipeline p = d.is_string() ? kernel::read_pipeline_text(d.get<std::string>()) : kernel::read_pipeline(d);
  const kernel::KernelReport r = kernel::check_pipeline(p, o);
  return {kernel::to_json(r), kernel::to_text(r), r.exit_code()};
}

}  // namespace

int64_t smem_limit_bytes(const Json& j, const std::string& what, const RuleId& bad) { return bytes_arg(j, what, bad); }

void register_kernel_ops(OpRegistry& r) {
  r.add({"kernel", "check", "§4",
         "a GEMM mainloop + epilogue's data movement: coverage, agreement, banks and width, global accesses, bounds, footprint (spec/KERNEL.md)",
         {{"pipeline", ParamType::Json, true, "the pipeline description (docs/kernels/*.json), as a JSON object or its text (or give ttgir)"},
          {"smem_limit", ParamType::Text, true, "shared memory a CTA may use: bytes, or KiB as \"227KiB\" (default: the arch's)"},
          {"ttgir", ParamType::Text, true, "instead of pipeline: a kernel Triton compiled, its TTGIR text (spec/TRITON.md)"},
          {"shared", ParamType::Int, true, "with ttgir: Triton's metadata.shared (bytes), compared with the footprint"},
          {"cute_dsl", ParamType::Text, true, "instead of pipeline: a kernel the CuTe DSL compiled, its MLIR dump (spec/CUTE_DSL.md)"}},
         kernel_check_op});
}

}  // namespace tfspec::protocol
