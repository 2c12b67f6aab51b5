// The shared-to-register tiled copies the IR states, against the tiled MMA (spec/CUTE_DSL.md §5):
// CuTe's make_tiled_copy_A/B gives the copy the MMA's operand TV layout and tile (kernel/'s
// mma_copy_layout), so the IR's `layout_copy_tv` and `tiler_mn` must name, for every (thread,
// value), the (row, k) the MMA's fragment holds there. Compared as functions, never as strings.
#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cute_dsl {
namespace s2r_copy_impl {

struct Undecided {
  std::string why;
};

// The IR's copy as (thread, value) -> (row, k): TV index t + T v -> tile index i, whose tiler
// modes map i's colexicographic coordinates (i mod |P|, i / |P|) to the operand's (row, k).
struct StatedMap {
  Layout tv, p, k;
  int64_t threads = 0, values = 0;
  std::pair<int64_t, int64_t> at(int64_t t, int64_t v) const {
    const int64_t i = tv(t + threads * v);
    if (i < 0 || i >= p.size() * k.size()) return {-1, -1};
    return {p(i % p.size()), k(i / p.size())};
  }
};

StatedMap read_stated(const StatedS2r& s) {
  Symbols syms;
  const LayoutPtr tv = read_layout(s.tv, syms);
  if (tv->kind() != LayoutKind::Layout || !syms.divisors.empty()) throw Undecided{"its TV layout " + s.tv + " is not a static layout"};
  if (!is_static(s.tiler)) throw Undecided{"its tiler " + s.tiler + " is dynamic"};
  const Tiler tiler = read_tiler(s.tiler);
  if (tiler.is_layout() || tiler.modes.size() != 2 || !tiler.modes[0].is_layout() || !tiler.modes[1].is_layout())
    throw Undecided{"its tiler " + s.tiler + " is not two layout modes (rows, K)"};
  StatedMap m{static_cast<const Layout&>(*tv), *tiler.modes[0].layout, *tiler.modes[1].layout, 0, 0};
  if (m.tv.rank() != 2) throw Undecided{"its TV layout " + s.tv + " is not (thread, value)"};
  m.threads = product_int(m.tv.shape_ref()[0]), m.values = product_int(m.tv.shape_ref()[1]);
  return m;
}

std::string pair_name(char operand, std::pair<int64_t, int64_t> x) {
  if (x.first < 0) return "no element of the tile";
  return std::string("(") + (operand == 'A' ? "m" : "n") + "=" + std::to_string(x.first) + ", k=" + std::to_string(x.second) + ")";
}

kernel::Finding compare(const kernel::Pipeline& p, const StatedS2r& s) {
  kernel::Finding f = make_finding("agreement", std::string(1, s.operand) + " s2r tiled copy");
  f.loc = s.loc;
  const std::string copy = s.alias + " (TV " + s.tv + ", tiler " + s.tiler + ")";
  try {
    const StatedMap got = read_stated(s);
    const kernel::MmaCopyLayout want = kernel::mma_copy_layout(p.mma, s.operand);
    const std::string mma = "make_tiled_copy_" + std::string(1, s.operand) + " of the tiled MMA: TV " + to_string(want.tv) + " over (" +
                            std::to_string(want.rows) + "," + std::to_string(want.cols) + ")";
    f.detail = {{"ir_tv", s.tv}, {"ir_tiler", s.tiler}, {"mma_tv", to_string(want.tv)}, {"mma_tile", Json::array({want.rows, want.cols})}};
    if (got.threads != want.threads() || got.values != want.values()) {
      f.outcome = kernel::Outcome::Violation, f.rule = &rule::kKernelS2rLayout;
      f.message = copy + " is " + std::to_string(got.threads) + " threads x " + std::to_string(got.values) + " values; " + mma + " is " +
                  std::to_string(want.threads()) + " x " + std::to_string(want.values());
      return f;
    }
    int64_t wrong = 0;
    for (int64_t t = 0; t < want.threads(); ++t)
      for (int64_t v = 0; v < want.values(); ++v) {
        const int64_t e = want.tv(t + want.threads() * v);
        const std::pair<int64_t, int64_t> expected{e % want.rows, e / want.rows}, stated = got.at(t, v);
        if (stated == expected || wrong++ > 0) continue;
        f.message = copy + ": thread " + std::to_string(t) + " value " + std::to_string(v) + " reads " + pair_name(s.operand, stated) + " where the MMA's " +
                    std::string(1, s.operand) + " fragment holds " + pair_name(s.operand, expected) + " (" + mma + ")";
        f.detail["thread"] = t, f.detail["value"] = v, f.detail["expected"] = Json::array({expected.first, expected.second});
        f.detail["stated"] = stated.first < 0 ? Json(nullptr) : Json::array({stated.first, stated.second});
      }
    if (wrong == 0) {
      f.message = copy + " is " + mma + ": each of " + std::to_string(want.threads()) + " threads x " + std::to_string(want.values()) +
                  " values reads the element the MMA's fragment holds";
      return f;
    }
    f.outcome = kernel::Outcome::Violation, f.rule = &rule::kKernelS2rLayout;
    f.message += "; " + std::to_string(wrong) + " of " + std::to_string(want.threads() * want.values()) + " (thread, value) pairs differ";
    f.detail["disagreeing"] = wrong;
  } catch (const Undecided& u) {
    f.outcome = kernel::Outcome::Undecided, f.rule = &rule::kKernelS2rLayout;
    f.message = copy + ": not compared with the tiled MMA: " + u.why;
  } catch (const SpecError& e) {  // the MMA's copy layout is not derived (the algebra's own rule)
    f.outcome = kernel::Outcome::Undecided, f.rule = &rule::kKernelS2rLayout;
    f.message = copy + ": make_tiled_copy_" + std::string(1, s.operand) + " of the tiled MMA is not derived: " + e.what();
  }
  return f;
}

}  // namespace s2r_copy_impl

void check_s2r_copies(const MappedPipeline& mp, std::vector<kernel::Finding>& out) {
  if (!mp.pipeline) return;
  for (const StatedS2r& s : mp.s2r) out.push_back(s2r_copy_impl::compare(*mp.pipeline, s));
}

}  // namespace tfspec::cute_dsl
