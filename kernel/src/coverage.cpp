// Check 1, coverage (spec/KERNEL.md): each copy writes every element of its tile exactly once per
// stage, the shared-memory layout keeps the tile's elements apart, and the MMA's C partition
// covers the C tile exactly once.
#include <string>

#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/kernel/tma.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

std::string tv_name(int64_t t, int64_t v) { return "thread " + std::to_string(t) + " value " + std::to_string(v); }

Json element_json(int64_t index, int64_t rows) { return Json::array({index % rows, index / rows}); }

// Every element of the tile named by exactly one (thread, value); the first offender in
// thread-major order is named with the earlier pair it collides with.
Finding cover_once(const Partition& part, char operand, const std::string& subject) {
  Finding f{"coverage", subject, Outcome::Ok, nullptr, "", Json::object()};
  const int64_t n = part.rows * part.cols;
  std::vector<int64_t> first_writer(static_cast<size_t>(n), -1);
  std::optional<std::pair<int64_t, int64_t>> dup, outside;  // (writer index, earlier writer index)
  for (int64_t i = 0; i < part.threads * part.values; ++i) {
    const int64_t e = part.index[static_cast<size_t>(i)];
    if (e < 0) {
      if (!outside) outside = std::make_pair(i, int64_t{-1});
      continue;
    }
    int64_t& w = first_writer[static_cast<size_t>(e)];
    if (w >= 0 && !dup) dup = std::make_pair(i, w);
    if (w < 0) w = i;
  }
  int64_t missing = 0, first_missing = -1;
  for (int64_t e = 0; e < n; ++e)
    if (first_writer[static_cast<size_t>(e)] < 0 && missing++ == 0) first_missing = e;
  std::string what = std::to_string(part.rows) + "x" + std::to_string(part.cols) + " tile";
  if (!dup && !outside && missing == 0) {
    f.message = what + " covered exactly once (" + std::to_string(part.threads) + " threads x " + std::to_string(part.values) + " values)";
    return f;
  }
  f.outcome = Outcome::Violation;
  f.rule = &rule::kKernelCoverage;
  std::vector<std::string> parts;
  if (dup) {
    const int64_t e = part.index[static_cast<size_t>(dup->first)], t = dup->first / part.values, v = dup->first % part.values;
    const int64_t t0 = dup->second / part.values, v0 = dup->second % part.values;
    parts.push_back("element " + element_name(operand, e, part.rows) + " is written twice: by " + tv_name(t0, v0) + " and by " + tv_name(t, v));
    f.detail["duplicate"] = {{"thread", t}, {"value", v}, {"element", element_json(e, part.rows)}, {"first_thread", t0}, {"first_value", v0}};
  }
  if (outside) {
    const int64_t t = outside->first / part.values, v = outside->first % part.values;
    parts.push_back(tv_name(t, v) + " names no element of its copy tile");
    f.detail["outside"] = {{"thread", t}, {"value", v}};
  }
  if (missing > 0) {
    parts.push_back(std::to_string(missing) + " element" + (missing == 1 ? " is" : "s are") + " never written, the first " + element_name(operand, first_missing, part.rows));
    f.detail["missing"] = missing;
    f.detail["first_missing"] = element_json(first_missing, part.rows);
  }
  f.message = what + ": ";
  for (size_t i = 0; i < parts.size(); ++i) f.message += (i ? "; " : "") + parts[i];
  return f;
}

// The shared-memory layout maps the tile's elements to distinct offsets (else a write overwrites).
std::optional<Finding> smem_aliasing(const Operand& o, int64_t rows, int64_t cols) {
  const SmemMap m = smem_map(o, rows, cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    const int64_t owner = m.element_at[static_cast<size_t>(m.offset[static_cast<size_t>(i)])];
    if (owner == i) continue;
    const int64_t first = std::min(owner, i), second = std::max(owner, i);
    Finding f{"coverage", std::string(1, o.name) + " smem", Outcome::Violation, &rule::kKernelCoverage,
              "elements " + element_name(o.name, first, rows) + " and " + element_name(o.name, second, rows) + " share offset " +
                  std::to_string(m.offset[static_cast<size_t>(i)]) + " of " + to_string(*o.smem),
              {{"element", element_json(first, rows)}, {"other_element", element_json(second, rows)}, {"offset", m.offset[static_cast<size_t>(i)]}}};
    return f;
  }
  return std::nullopt;
}

// The stages keep apart (extension K1): with a stage stride below the tile's cosize (a padded
// buffer states its own), stage s + j's element e must not land on stage s's element e'. Checked
// from stage 0, as every pair of stages j apart is that pair shifted.
std::optional<Finding> stage_overlap(const Operand& o, int64_t rows, int64_t cols, int64_t stages) {
  const SmemMap m = smem_map(o, rows, cols);
  const int64_t stride = stage_stride_of(o, m.cosize);
  if (stages < 2 || stride >= m.cosize) return std::nullopt;
  for (int64_t i = 0; i < rows * cols; ++i)
    for (int64_t j = 1; j < stages; ++j) {
      const int64_t at = m.offset[static_cast<size_t>(i)] + j * stride;
      if (at < 0 || at >= m.cosize || m.element_at[static_cast<size_t>(at)] < 0) continue;
      const int64_t other = m.element_at[static_cast<size_t>(at)];
      return Finding{"coverage", std::string(1, o.name) + " smem", Outcome::Violation, &rule::kKernelCoverage,
                     element_name(o.name, i, rows) + " of stage " + std::to_string(j) + " and " + element_name(o.name, other, rows) +
                         " of stage 0 share offset " + std::to_string(at) + " (stages " + std::to_string(stride) + " elements apart, one stage spans " +
                         std::to_string(m.cosize) + ")",
                     {{"element", element_json(i, rows)}, {"stage", j}, {"other_element", element_json(other, rows)}, {"offset", at}, {"stage_stride", stride}}};
    }
  return std::nullopt;
}

void require_threads(const TiledCopy& c, int64_t threads) {
  if (c.threads() > threads)
    fail(rule::kKernelInput, c.path + ": the copy has " + std::to_string(c.threads()) + " threads, more than the CTA's " + std::to_string(threads), c.path);
}

}  // namespace

void check_coverage(const Pipeline& p, std::vector<Finding>& out) {
  for (const Operand* o : {&p.a, &p.b}) {
    const int64_t rows = o->name == 'A' ? p.bm : p.bn;
    if (o->tma) {
      check_tma_load(p, *o, out);
    } else {
      require_threads(o->g2s, p.threads);
      Finding f = cover_once(copy_partition(o->g2s, rows, p.bk), o->name, std::string(1, o->name) + " g2s");
      if (f.outcome == Outcome::Ok && p.stages > 1) f.message += ", in each of the " + std::to_string(p.stages) + " stages";
      out.push_back(std::move(f));
    }
    if (auto alias = smem_aliasing(*o, rows, p.bk)) out.push_back(std::move(*alias));
    else if (auto overlap = stage_overlap(*o, rows, p.bk, p.stages)) out.push_back(std::move(*overlap));
  }
  out.push_back(cover_once(mma_partition(p, 'C'), 'C', "C mma"));
  if (p.epilogue) {
    require_threads(*p.epilogue, p.threads);
    out.push_back(cover_once(copy_partition(*p.epilogue, p.bm, p.bn), 'C', "C epilogue"));
    if (p.epilogue_smem)
      if (auto alias = smem_aliasing(epilogue_staging(p), p.bm, p.bn)) out.push_back(std::move(*alias));
  }
}

}  // namespace tfspec::kernel
