// The CuTe layout algebra over concrete layouts (§3 "mirrors pycute"). Every operation answers
// exactly when its result, as a function, is a layout (D17), and otherwise fails closed with a
// named rule saying why; none returns a layout that computes a different function than its
// definition. Conditions and decisions: spec/ALGEBRA.md.
#pragma once
#include <optional>
#include <vector>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

// A tiler is a Layout or a by-mode tuple of tilers (CuTe). Text: a layout with a stride (`4:2`,
// `(2,2):(1,4)`), a bare extent (`4` = 4:1), or a tuple without a top-level stride, which is
// by-mode as in CuTe: `(2:1,4:2)`, and `(2,4)` means `(2:1,4:1)`. Parsed in notation.cpp.
struct Tiler {
  std::optional<Layout> layout;  // set for a layout tiler
  std::vector<Tiler> modes;      // by-mode tiler otherwise
  Tiler(Layout l) : layout(std::move(l)) {}  // NOLINT
  explicit Tiler(std::vector<Tiler> m) : modes(std::move(m)) {}
  bool is_layout() const { return layout.has_value(); }
};
Tiler parse_tiler(std::string_view text);
std::string to_string(const Tiler& t);

// D15: what an op does when B's image runs past A's domain [0, size(A)). Strict refuses
// (composition-image-in-domain); Extend follows CuTe: A continues past its last mode, and
// `*_outside` says how many points of the result's domain map past size(A).
enum class DomainPolicy { Strict, Extend };

// Points the fallback of composition evaluates at most (D17); beyond it: composition-undecided.
inline constexpr int64_t kCompositionPointLimit = int64_t{1} << 20;

Layout coalesce(const Layout& l);
Layout coalesce(const Layout& l, const IntTuple& profile);  // by-mode where profile is a tuple
Layout filter(const Layout& l);
Layout filter(const Layout& l, const IntTuple& profile);

Layout composition(const Layout& a, const Layout& b, DomainPolicy policy = DomainPolicy::Strict);
Layout composition(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
// Why CuTe's by-mode composition is not known exact for A ∘ B (nullopt when the walk of
// spec/ALGEBRA.md A1 admits it). composition still answers past a refusal when A ∘ B is a layout
// over a refinement of B's shape. Used by tests, the `admissible` op and `tfspec prove`.
std::optional<Diagnostic> composition_refusal(const Layout& a, const Layout& b,
                                              DomainPolicy policy = DomainPolicy::Strict);

Layout complement(const Layout& l, int64_t cotarget);
Layout complement(const Layout& l);  // cotarget = cosize(l)
Layout right_inverse(const Layout& l);
Layout left_inverse(const Layout& l);

Layout logical_divide(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout zipped_divide(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout tiled_divide(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout flat_divide(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout logical_product(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout zipped_product(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout tiled_product(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout flat_product(const Layout& a, const Tiler& b, DomainPolicy policy = DomainPolicy::Strict);
Layout blocked_product(const Layout& a, const Layout& b, DomainPolicy policy = DomainPolicy::Strict);
Layout raked_product(const Layout& a, const Layout& b, DomainPolicy policy = DomainPolicy::Strict);
int64_t max_common_vector(const Layout& a, const Layout& b);

// The regroupings the divides and products share (structural: the symbolic ops reuse them).
// zip_result: (tiles, rests) from a logical divide/product by a by-mode tiler (a layout tiler's
// result is already zipped); tiled_from_zipped: (tiles, rest0, rest1, ...); flat_from_zipped:
// (tile0, ..., rest0, ...); pad_rank: l with 1:0 modes appended up to rank r; interleave_modes:
// mode i = (A'_i, C_i) (blocked) or (C_i, A'_i) (raked), C = complement(A') o B' (A5).
Layout zip_result(const Layout& r, const Tiler& b);
std::vector<Layout> modes_of(const Layout& l);
Layout tiled_from_zipped(const Layout& z);
Layout flat_from_zipped(const Layout& z);
Layout pad_rank(const Layout& l, size_t r);
Layout interleave_modes(const Layout& ap, const Layout& c, bool blocked);

// D15 under Extend: how many points of the op's result domain map past A's domain (0 when the
// op stays inside, which is when Strict answers). The zipped/tiled/flat forms count as the
// logical ones; blocked/raked products as logical_product of the rank-padded operands.
int64_t composition_outside(const Layout& a, const Tiler& b);
int64_t divide_outside(const Layout& a, const Tiler& b);
int64_t product_outside(const Layout& a, const Tiler& b);

}  // namespace tfspec
