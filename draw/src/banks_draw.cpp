// The shared-memory picture of `layout banks --draw` (spec/SMEM.md): the buffer as rows of
// `banks` words, each word coloured by its bank, the words of the worst phase labelled with the
// threads that read them, and the colliding words of its worst bank marked (CUTLASS's diagrams
// of swizzled shared memory draw the same rows of 32 banks).
#include <map>

#include "picture.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::draw {

std::string banks_svg(const Layout& tv, const LayoutBase& smem, const SmemAccess& a) {
  const BankReport r = bank_conflicts(tv, smem, a);  // validates the inputs first
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = tv_offsets(tv, smem, threads, values);
  int64_t top = 0;
  for (int64_t o : off) top = std::max(top, o);
  const int64_t words = checked_add(checked_mul(checked_add(top, 1), a.elem_bytes), a.model.bank_bytes - 1) / a.model.bank_bytes;
  Grid g;
  g.kind = "banks";
  g.cols = a.model.banks;
  g.rows = (words + g.cols - 1) / g.cols;
  require_drawable(checked_mul(g.rows, g.cols), "the shared memory of " + to_string(smem));
  g.caption = "shared memory, " + std::to_string(a.model.banks) + " banks of " + std::to_string(a.model.bank_bytes) + " bytes: row = word / " +
              std::to_string(a.model.banks) + ", column = bank";
  g.cells.resize(static_cast<size_t>(g.rows * g.cols));
  for (int64_t w = 0; w < g.rows * g.cols; ++w)
    g.at(w / g.cols, w % g.cols) = Cell{{{"", palette(w % g.cols)}}, "word " + std::to_string(w) + ", bank " + std::to_string(w % g.cols), Mark::None, {}, {}};
  Picture p;
  p.title = "layout banks " + to_string(tv) + " " + to_string(smem);
  if (r.worst) {
    const PhaseCost& ph = *r.worst;
    std::map<int64_t, std::string> readers;  // word -> threads of the worst phase
    for (int64_t t = ph.first_thread; t < ph.first_thread + ph.threads; ++t) {
      const int64_t byte = checked_mul(off[static_cast<size_t>(t * values + ph.access * a.vector)], a.elem_bytes);
      for (int64_t w = byte / a.model.bank_bytes, end = checked_add(byte, r.access_bytes - 1) / a.model.bank_bytes;; ++w) {
        readers[w] += (readers[w].empty() ? "T" : ",T") + std::to_string(t);
        if (w == end) break;  // never past INT64_MAX
      }
    }
    for (const auto& [w, who] : readers) {
      Cell& c = g.at(w / g.cols, w % g.cols);
      c.stripes[0].label = who;
      c.title += ": read by " + who + " in the worst phase";
      if (r.worst->wavefronts > r.worst->ideal && w % g.cols == ph.bank) c.mark = Mark::Collision;
    }
    p.notes.push_back("worst phase: warp " + std::to_string(ph.warp) + ", access " + std::to_string(ph.access) + ", threads " +
                      std::to_string(ph.first_thread) + ".." + std::to_string(ph.first_thread + ph.threads - 1) + ": bank " + std::to_string(ph.bank) +
                      " serves " + std::to_string(ph.wavefronts) + " words (ideal " + std::to_string(ph.ideal) + ")");
  }
  p.notes.push_back("wavefronts " + std::to_string(r.wavefronts) + ", ideal " + std::to_string(r.ideal) +
                    (r.conflict_free() ? ": conflict-free" : ": " + std::to_string(r.degree()) + "-way bank conflict"));
  p.legend.push_back({palette(0), "colour: the bank (word % " + std::to_string(a.model.banks) + "); labels: the worst phase's threads"});
  p.grids.push_back(std::move(g));
  return to_svg(p);
}

}  // namespace tfspec::draw
