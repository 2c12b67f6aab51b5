// The CuTe layout algebra over concrete layouts (§3 "mirrors pycute"). Every operation checks its
// exact admissibility conditions and fails closed with a named rule; none returns a layout that
// computes a different function than its definition. Conditions and decisions: spec/ALGEBRA.md.
#pragma once
#include <optional>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

// A tiler is a Layout or a by-mode tuple of tilers (CuTe). Text: a layout with a stride (`4:2`,
// `(2,2):(1,4)`), a bare extent (`4` = 4:1), or a tuple without a top-level stride, which is
// by-mode as in CuTe: `(2:1,4:2)`, and `(2,4)` means `(2:1,4:1)`.
struct Tiler {
  std::optional<Layout> layout;  // set for a layout tiler
  std::vector<Tiler> modes;      // by-mode tiler otherwise
  Tiler(Layout l) : layout(std::move(l)) {}  // NOLINT
  explicit Tiler(std::vector<Tiler> m) : modes(std::move(m)) {}
  bool is_layout() const { return layout.has_value(); }
};

Layout coalesce(const Layout& l);
Layout coalesce(const Layout& l, const IntTuple& profile);  // by-mode where profile is a tuple
Layout filter(const Layout& l);
Layout filter(const Layout& l, const IntTuple& profile);

Layout composition(const Layout& a, const Layout& b);
Layout composition(const Layout& a, const Tiler& b);
// Why a composition is refused (nullopt when admissible). Used by tests and `tfspec prove`.
std::optional<Diagnostic> composition_refusal(const Layout& a, const Layout& b);

Layout complement(const Layout& l, int64_t cotarget);
Layout complement(const Layout& l);  // cotarget = cosize(l)
Layout right_inverse(const Layout& l);
Layout left_inverse(const Layout& l);

Layout logical_divide(const Layout& a, const Tiler& b);
Layout zipped_divide(const Layout& a, const Tiler& b);
Layout tiled_divide(const Layout& a, const Tiler& b);
Layout flat_divide(const Layout& a, const Tiler& b);
Layout logical_product(const Layout& a, const Tiler& b);
Layout zipped_product(const Layout& a, const Tiler& b);
Layout tiled_product(const Layout& a, const Tiler& b);
Layout flat_product(const Layout& a, const Tiler& b);
Layout blocked_product(const Layout& a, const Layout& b);
Layout raked_product(const Layout& a, const Layout& b);
int64_t max_common_vector(const Layout& a, const Layout& b);

Tiler parse_tiler(std::string_view text);
std::string to_string(const Tiler& t);

}  // namespace tfspec
