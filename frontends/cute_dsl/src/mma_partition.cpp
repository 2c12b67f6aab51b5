// The IR's own partitions of the shared views by the tiled MMA (spec/CUTE_DSL.md §5.1): the DSL's
// `cute.tiled.mma.partition A|B` result type is a thread's (V, M-rest, K-rest[, stage]) -> offset
// from its first value; kernel/'s mma_partition (CuTe's thrfrg written as index arithmetic) through
// the view's layout must give every thread the same offsets. Compared at every (thread, value).
#include "basis.hpp"
#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace {

// C over its identity tensor: the IR's offsets are coordinates (m, n) from the thread's first
// value, basis strides read as in §2.2 (two coordinate modes).
kernel::Finding c_partition_finding(const kernel::Pipeline& p, const StatedPartition& s) {
  kernel::Finding f = make_finding("agreement", "C mma partition");
  f.loc = s.loc;
  const BasisCode code{2, int64_t{1} << 31};
  std::string why;
  const std::optional<std::string> enc = basis_encoded(s.layout, code, why);
  Symbols syms;
  const LayoutPtr read = enc ? read_layout(*enc, syms) : nullptr;
  if (!read || read->kind() != LayoutKind::Layout || !syms.divisors.empty() || !basis_bounded(static_cast<const Layout&>(*read), code, why)) {
    f.outcome = kernel::Outcome::Skipped;
    f.message = "not compared: the IR's partition of C's coordinates " + s.layout + " is not a static coordinate layout of (m, n) (" + why + ")";
    return f;
  }
  const Layout& l = static_cast<const Layout&>(*read);
  const kernel::Partition part = kernel::mma_partition(p, 'C');
  f.detail = {{"ir", s.layout}, {"threads", part.threads}, {"values", part.values}};
  if (l.size() != part.values) {
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kCuteDslLayoutOp;
    f.message = "the IR's partition " + s.layout + " of C's coordinates holds " + std::to_string(l.size()) + " values a thread, kernel/'s MMA partition " +
                std::to_string(part.values);
    return f;
  }
  for (int64_t t = 0; t < part.threads; ++t)
    for (int64_t v = 0; v < part.values; ++v) {
      const int64_t e = part.at(t, v), e0 = part.at(t, 0);
      const std::vector<int64_t> ours = {e % p.bm - e0 % p.bm, e / p.bm - e0 / p.bm}, ir = basis_digits(l(v), code);
      if (ours == ir) continue;
      f.outcome = kernel::Outcome::Violation, f.rule = &rule::kCuteDslLayoutOp;
      f.detail["thread"] = t, f.detail["value"] = v, f.detail["ir_coordinate"] = ir, f.detail["coordinate"] = ours;
      f.message = "the IR's partition " + s.layout + " of C's coordinates puts thread " + std::to_string(t) + "'s value " + std::to_string(v) + " at " +
                  coordinate_text(ir) + " from its first, where the MMA's C partition holds " + kernel::element_name('C', e, p.bm) + ", " + coordinate_text(ours) + " on";
      return f;
    }
  f.message = "the IR's partition " + s.layout + " of C's coordinates is kernel/'s MMA partition at every (thread, value) (" + std::to_string(part.threads) +
              " threads x " + std::to_string(part.values) + " values, (m, n) from each thread's first value)";
  return f;
}

kernel::Finding partition_finding(const kernel::Pipeline& p, const StatedPartition& s) {
  if (s.operand == 'C') return c_partition_finding(p, s);
  const std::string name(1, s.operand);
  kernel::Finding f = make_finding("agreement", name + " mma partition");
  f.loc = s.loc;
  Symbols syms;
  const LayoutPtr read = read_layout(s.layout, syms);
  if (read->kind() != LayoutKind::Layout || !syms.divisors.empty() || static_cast<const Layout&>(*read).rank() < 3) {
    f.outcome = kernel::Outcome::Skipped;
    f.message = "not compared: the IR's partition " + s.layout + " is not a static (V, M, K[, stage]) layout";
    return f;
  }
  const Layout& l = static_cast<const Layout&>(*read);
  const kernel::Operand& o = s.operand == 'A' ? p.a : p.b;
  const kernel::Partition part = kernel::mma_partition(p, s.operand);
  const kernel::SmemMap sm = kernel::smem_map(o, s.operand == 'A' ? p.bm : p.bn, p.bk);
  const int64_t stride = kernel::stage_stride_of(o, sm.cosize);
  const int64_t values = l.mode(0).size() * l.mode(1).size() * l.mode(2).size();
  f.detail = {{"ir", s.layout}, {"threads", part.threads}, {"values", part.values}};
  const auto violation = [&](const std::string& what) {
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kCuteDslLayoutOp;
    f.message = "the IR's partition " + s.layout + " of " + name + "'s shared view " + what;
    return f;
  };
  if (values != part.values)
    return violation("holds " + std::to_string(values) + " values a thread, kernel/'s MMA partition " + std::to_string(part.values));
  if (l.rank() == 4 && p.stages > 1 && (l.mode(3).size() != p.stages || l.mode(3)(1) != stride))
    return violation("places its " + std::to_string(l.mode(3).size()) + " stages " + std::to_string(l.mode(3)(1)) + " apart, the view " +
                     std::to_string(p.stages) + " stages " + std::to_string(stride) + " apart");
  for (int64_t t = 0; t < part.threads; ++t) {
    const int64_t base = sm.offset[static_cast<size_t>(part.at(t, 0))];
    for (int64_t v = 0; v < part.values; ++v) {
      const int64_t e = part.at(t, v), ours = sm.offset[static_cast<size_t>(e)] - base;
      if (l(v) == ours) continue;
      f.detail["thread"] = t, f.detail["value"] = v, f.detail["ir_offset"] = l(v), f.detail["offset"] = ours;
      return violation("puts thread " + std::to_string(t) + "'s value " + std::to_string(v) + " at offset " + std::to_string(l(v)) +
                       " from its first, where the MMA's " + name + " partition holds " + kernel::element_name(s.operand, e, part.rows) + " at " +
                       std::to_string(ours));
    }
  }
  f.message = "the IR's partition " + s.layout + " is kernel/'s MMA partition of the view at every (thread, value) (" + std::to_string(part.threads) +
              " threads x " + std::to_string(part.values) + " values, offsets from each thread's first value" +
              (l.rank() == 4 && p.stages > 1 ? ", stages " + std::to_string(stride) + " apart)" : ")");
  return f;
}

}  // namespace

void check_mma_partitions(const MappedPipeline& mp, std::vector<kernel::Finding>& out) {
  if (!mp.pipeline) return;
  for (const StatedPartition& s : mp.partitions) {
    try {
      out.push_back(partition_finding(*mp.pipeline, s));
    } catch (const SpecError& e) {  // kernel/ refused the pipeline (its own finding says so) or the layout does not read
      kernel::Finding f = make_finding("agreement", std::string(1, s.operand) + " mma partition", kernel::Outcome::Skipped);
      f.loc = s.loc;
      f.message = std::string("not compared: ") + e.what();
      out.push_back(std::move(f));
    }
  }
}

}  // namespace tfspec::cute_dsl
