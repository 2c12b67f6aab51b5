// Checks 1 and 3 for an operand loaded by TMA (spec/KERNEL.md "TMA loads", extension K1). The
// copy engine writes each box as one bulk copy: box (g, h) of the tile, dense along the global
// layout's stride-1 mode (the tensor map's innermost dimension), lands at S + sw(d) for its
// start S and the element's dense offset d in the box, sw the mode's swizzle. S must be a
// multiple of the swizzle's period (8 x span bytes; 128 bytes without a swizzle, TMA's alignment
// of shared memory), so the pattern starts where the layout's does.
#include "tfspec/kernel/tma.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "bits.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

std::string mode_name(int64_t span) { return span == 0 ? std::string("unswizzled") : std::to_string(span) + "B"; }

// The tile mode along which the global layout has stride 1 (TMA's innermost box dimension).
std::optional<size_t> contiguous_mode(const Layout& g) {
  for (size_t m = 0; m < 2; ++m) {
    const IntTuple& s = g.stride()[m];
    if (s.is_leaf() && !s.is_none() && const_value(s.as_dim()) == 1) return m;
  }
  return std::nullopt;
}

Finding box_violation(const std::string& subject, std::string message, Json detail) {
  return {"coverage", subject, Outcome::Violation, &rule::kKernelTmaBox, std::move(message), std::move(detail)};
}

// The box fits: it tiles the tile, each extent <= 256 (a tensor map's limit), its inner extent a
// multiple of 16 bytes and, under a swizzle, at most the mode's span.
Finding tma_box(const Pipeline& p, const Operand& o, const TmaLoad& t, std::optional<size_t> inner) {
  const std::string subject = std::string(1, o.name) + " g2s";
  const int64_t rows = o.name == 'A' ? p.bm : p.bn, elem_bytes = o.bits / 8;
  const std::string box = std::to_string(t.box_rows) + "x" + std::to_string(t.box_cols), tile = std::to_string(rows) + "x" + std::to_string(p.bk);
  if (!inner)
    return box_violation(subject, "neither mode of " + to_string(o.global) + " has stride 1: a TMA box's innermost dimension is the tensor's contiguous one", Json::object());
  if (std::max(t.box_rows, t.box_cols) > 256)
    return box_violation(subject, "the " + box + " box has an extent above 256, the most a tensor map allows", {{"box", {t.box_rows, t.box_cols}}});
  if (rows % t.box_rows != 0 || p.bk % t.box_cols != 0)
    return box_violation(subject, "the " + box + " box does not tile the " + tile + " tile", {{"box", {t.box_rows, t.box_cols}}});
  const int64_t inner_bytes = (*inner == 0 ? t.box_rows : t.box_cols) * elem_bytes;
  const std::string along = *inner == 0 ? (o.name == 'A' ? "M" : "N") : "K";
  if (inner_bytes % 16 != 0)
    return box_violation(subject, "the box's inner extent (along " + along + ") is " + std::to_string(inner_bytes) + " bytes, not a multiple of 16", {{"inner_bytes", inner_bytes}});
  if (t.swizzle_bytes > 0 && inner_bytes > t.swizzle_bytes)
    return box_violation(subject, "the box's inner extent (along " + along + ") is " + std::to_string(inner_bytes) + " bytes, more than the " + mode_name(t.swizzle_bytes) +
                                      " mode's span of " + std::to_string(t.swizzle_bytes),
                         {{"inner_bytes", inner_bytes}});
  const int64_t boxes = (rows / t.box_rows) * (p.bk / t.box_cols);
  Finding f{"coverage", subject, Outcome::Ok, nullptr,
            "TMA boxes of " + box + " tile the " + tile + " tile exactly once (" + std::to_string(boxes) + (boxes == 1 ? " box, " : " boxes, ") + std::to_string(inner_bytes) + " bytes along " + along +
                (t.swizzle_bytes ? " within the " + mode_name(t.swizzle_bytes) + " mode's span)" : ")"),
            {{"boxes", boxes}, {"inner_bytes", inner_bytes}}};
  if (p.stages > 1) f.message += ", in each of the " + std::to_string(p.stages) + " stages";
  return f;
}

// Every element of every box at S + sw(d), S aligned to the swizzle's period.
Finding tma_placement(const Pipeline& p, const Operand& o, const TmaLoad& t, size_t inner) {
  const int64_t rows = o.name == 'A' ? p.bm : p.bn, elem_bytes = o.bits / 8;
  const SmemMap m = smem_map(o, rows, p.bk);
  const Swizzle sw = tma_element_swizzle(t.swizzle_bytes, elem_bytes);
  const int64_t period = std::max<int64_t>(128, 8 * t.swizzle_bytes) / elem_bytes;
  Finding f{"agreement", std::string(1, o.name) + " g2s (tma)", Outcome::Violation, &rule::kKernelTmaSwizzle, "", Json::object()};
  for (int64_t h = 0; h < p.bk / t.box_cols; ++h)
    for (int64_t g = 0; g < rows / t.box_rows; ++g) {
      const int64_t start = m.offset[static_cast<size_t>(t.box_rows * g + rows * (t.box_cols * h))];
      const std::string which = "box (" + std::to_string(g) + ", " + std::to_string(h) + ")";
      if (start % period != 0) {
        f.message = which + " starts at offset " + std::to_string(start) + ", not a multiple of " + std::to_string(period) + " elements (" +
                    std::to_string(period * elem_bytes) + " bytes), where the " + mode_name(t.swizzle_bytes) + " mode's pattern starts";
        f.detail = {{"box", {g, h}}, {"start", start}, {"period", period}};
        return f;
      }
      for (int64_t c = 0; c < t.box_cols; ++c)
        for (int64_t r = 0; r < t.box_rows; ++r) {
          const int64_t e = (t.box_rows * g + r) + rows * (t.box_cols * h + c);
          const int64_t dense = inner == 0 ? r + t.box_rows * c : c + t.box_cols * r, want = start + sw(dense);
          if (m.offset[static_cast<size_t>(e)] == want) continue;
          f.message = "element " + element_name(o.name, e, rows) + " is at offset " + std::to_string(m.offset[static_cast<size_t>(e)]) + " of " + to_string(*o.smem) +
                      ", but the " + mode_name(t.swizzle_bytes) + " TMA mode writes it at " + std::to_string(want) + " (" + which + ", " + to_string(sw) +
                      " on element offsets)";
          f.detail = {{"element", {e % rows, e / rows}}, {"offset", m.offset[static_cast<size_t>(e)]}, {"expected", want}, {"box", {g, h}}};
          return f;
        }
    }
  f.outcome = Outcome::Ok;
  f.rule = nullptr;
  f.message = "the layout is where the " + mode_name(t.swizzle_bytes) + " TMA mode writes each element: every box dense along " +
              (inner == 0 ? std::string(o.name == 'A' ? "M" : "N") : std::string("K")) + ", " + to_string(sw) + " on element offsets, from a " +
              std::to_string(period * elem_bytes) + "-byte aligned start";
  f.detail = {{"swizzle", to_string(sw)}, {"period_bytes", period * elem_bytes}};
  return f;
}

}  // namespace

Swizzle tma_byte_swizzle(int64_t span_bytes) { return Swizzle(span_bytes == 0 ? 0 : log2_exact(span_bytes / 16), 4, 3); }

Swizzle tma_element_swizzle(int64_t span_bytes, int64_t elem_bytes) {
  return Swizzle(span_bytes == 0 ? 0 : log2_exact(span_bytes / 16), 4 - log2_exact(elem_bytes), 3);
}

void check_tma_load(const Pipeline& p, const Operand& o, std::vector<Finding>& out) {
  const TmaLoad& t = *o.tma;
  const std::optional<size_t> inner = contiguous_mode(o.global);
  Finding box = tma_box(p, o, t, inner);
  const bool fits = box.outcome == Outcome::Ok;
  out.push_back(std::move(box));
  if (fits) out.push_back(tma_placement(p, o, t, *inner));
  else out.push_back({"agreement", std::string(1, o.name) + " g2s (tma)", Outcome::Skipped, nullptr, "not checked: the box does not fit (see coverage)", Json::object()});
}

Finding tma_banks(const Pipeline&, const Operand& o) {
  return {"banks", std::string(1, o.name) + " g2s (write)", Outcome::Ok, nullptr,
          "not applicable: TMA writes shared memory as a bulk copy, not as per-thread accesses (spec/SMEM.md's bank model does not apply)",
          {{"applicable", false}}};
}

}  // namespace tfspec::kernel
