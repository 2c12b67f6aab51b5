// The report on a module (spec/CUTE_DSL.md): what was read, the translation validation (§2), the
// coalescing of global copies (§3), kernel/'s checks of the pipeline the ops map to (§4) and its
// s2r tiled copies against the tiled MMA (§5), or the op-by-op checks of an unmapped kernel (§6),
// each finding at the line of the op it is about.
#include <algorithm>
#include <cctype>
#include <chrono>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace {

// kernel/'s findings name subjects ("A s2r (read)", "B g2s (global)"); the op is the mapping's.
void locate(std::vector<kernel::Finding>& findings, const std::vector<std::pair<std::string, std::string>>& locs) {
  for (kernel::Finding& f : findings)
    for (const auto& [prefix, loc] : locs)
      if (f.loc.empty() && f.subject.rfind(prefix, 0) == 0) f.loc = loc;
}

void check_pipeline(const Module& m, kernel::KernelReport& r) {
  const MappedPipeline mp = map_pipeline(m);
  if (!mp.pipeline) {
    kernel::Finding f = make_finding("pipeline", "the kernel", kernel::Outcome::Skipped);
    f.message = "not mapped to a pipeline (checked op by op only): " + mp.unmapped.front();
    r.findings.push_back(std::move(f));
    check_tma_loads(m, r.findings);
    check_wgmma_operands(m, r.findings);
    check_smem_footprint(m, r.arch, r.findings);
    return;
  }
  const kernel::Pipeline& p = *mp.pipeline;
  kernel::Finding f = make_finding("pipeline", "the kernel", kernel::Outcome::Ok);
  f.message = "mapped: " + std::to_string(p.threads) + " threads, tile " + std::to_string(p.bm) + "x" + std::to_string(p.bn) + "x" + std::to_string(p.bk) +
              ", " + std::to_string(p.stages) + " stage(s); A smem " + to_string(*p.a.smem) + ", B smem " + to_string(*p.b.smem);
  f.detail = {{"threads", p.threads}, {"tile", {p.bm, p.bn, p.bk}}, {"stages", p.stages}, {"assume", p.assume}};
  r.findings.push_back(std::move(f));
  try {
    kernel::KernelReport k = kernel::check_pipeline(p);
    locate(k.findings, mp.locs);
    for (kernel::Finding& x : k.findings) r.findings.push_back(std::move(x));
    r.notes.insert(r.notes.end(), k.notes.begin(), k.notes.end());
  } catch (const SpecError& e) {  // the mapped pipeline is one kernel/ refuses: said, not guessed
    kernel::Finding x = make_finding("pipeline", "the kernel", kernel::Outcome::Skipped);
    x.message = std::string("mapped, but kernel/ does not check it: ") + e.what();
    r.findings.push_back(std::move(x));
    check_smem_footprint(m, r.arch, r.findings);  // kernel/'s footprint did not run: the allocations op by op (§6)
  }
  check_s2r_copies(mp, r.findings);  // §5: the IR's own s2r tiled copies, which kernel/ is not given
  check_mma_partitions(mp, r.findings);  // §5.1: the IR's own MMA partitions of the shared views
}

// The architecture the kernel was compiled for, read off its atoms' names: `cute_nvgpu.sm90.mma<`,
// `tma_load<sm_90, ...>`, `sm80.mma<` (the highest one named). The DSL's dump states no target
// otherwise; a kernel whose atoms name none (an elementwise kernel of universal copies) is taken as
// sm80, the oldest architecture the readers model, and the report says so (spec/CUTE_DSL.md §1).
int target_sm(const Module& m) {
  int best = 0;
  auto scan = [&best](const std::string& t) {
    for (size_t at = t.find("sm"); at != std::string::npos; at = t.find("sm", at + 2)) {
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(t[at - 1])) || t[at - 1] == '_')) continue;  // `!copy_ldsm_4` is no arch
      size_t d = at + 2 + (at + 2 < t.size() && t[at + 2] == '_');
      size_t e = d;
      while (e < t.size() && std::isdigit(static_cast<unsigned char>(t[e]))) ++e;
      if (e - d < 2 || e - d > 3) continue;
      if (e < t.size() && t[e] == 'a') ++e;
      if (e < t.size() && (t[e] == '.' || t[e] == ',' || t[e] == '>')) best = std::max(best, std::stoi(t.substr(d, e - d)));
    }
  };
  for (const auto& [name, text] : m.aliases) scan(text);
  for (const Op& op : m.ops) {
    for (const Type& t : op.operand_types) scan(t.full);
    for (const Type& t : op.result_types) scan(t.full);
  }
  return best;
}

}  // namespace

kernel::KernelReport check_module(const Module& m) {
  const auto start = std::chrono::steady_clock::now();
  kernel::KernelReport r;
  r.name = "cute-dsl";
  const int sm = target_sm(m);
  r.arch = "sm" + std::to_string(sm ? sm : 80);
  kernel::Finding read = make_finding("reader", "the IR", kernel::Outcome::Ok);
  read.message = std::to_string(m.ops.size()) + " cute ops, " + std::to_string(m.copies.size()) + " tiled copies, " +
                 std::to_string(m.mmas.size()) + " tiled MMAs read; target " + r.arch +
                 (sm ? " (named by its atoms)" : " (assumed: no atom names an architecture)");
  read.detail["arch"] = r.arch;
  if (!m.unknown_ops.empty()) {
    read.outcome = kernel::Outcome::Skipped;
    read.message += "; ops this reader does not know (not interpreted):";
    for (const std::string& n : m.unknown_ops) read.message += " " + n;
  }
  if (!m.unknown_atoms.empty()) {  // a copy or MMA the checks cannot read: the kernel is not all checked
    read.outcome = kernel::Outcome::Undecided;
    read.message += "; atoms this reader does not know (their tiled copies / MMAs not interpreted, spec/CUTE_DSL.md §1):";
    for (const std::string& n : m.unknown_atoms) read.message += " " + n;
  }
  r.findings.push_back(std::move(read));
  validate_layout_ops(m, r.findings);
  check_global_copies(m, r.findings);
  check_pipeline(m, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tfspec::cute_dsl
