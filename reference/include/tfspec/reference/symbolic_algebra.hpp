// The layout algebra on symbolic shapes (spec/ALGEBRA.md S1-S4): each operation of algebra.hpp
// rerun over ShapeDims through a SymExec, so that every branch on a value is a path condition
// and every refusal of the concrete algorithm an obligation with its rule. `explore` (symbolic.hpp)
// runs one over all paths; `summarize` turns the paths into results, case guards and conditions.
#pragma once
#include <string>
#include <vector>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec {

bool is_symbolic(const Layout& l);  // a Sym leaf in shape or stride (None leaves are not symbolic)
bool is_symbolic(const Tiler& t);

// Each is the concrete operation's algorithm, branch for branch (S2).
ShapeDim sym_size(const Layout& l);
ShapeDim sym_size(const IntTuple& shape);
ShapeDim sym_cosize(SymExec& ex, const Layout& l);
Layout sym_coalesce(SymExec& ex, const Layout& l);
Layout sym_complement(SymExec& ex, const Layout& l, const ShapeDim& cotarget);
// S3: CuTe's walk (spec/ALGEBRA.md A1) and its by-mode answer; the walk's refusals are the
// obligations. Exact for `composition_refusal` (admissible); sufficient for `composition`, which
// also answers past the walk where A∘B is still a layout (D17), a function no symbolic walk sees.
Layout sym_composition(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_logical_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_zipped_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
// S6 (symbolic_product.cpp): the regroupings of the divide and the products, each the concrete
// op's composition of the ones above (so exact for the walk, sufficient for the reference, as S3).
Layout sym_tiled_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_flat_divide(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_filter(SymExec& ex, const Layout& l);  // exact
// By mode (algebra.cpp's coalesce/filter with a profile): a leaf profile is the whole op; a tuple
// profile of length n applies the op to modes 0..n-1 by their own profiles and keeps the rest.
Layout sym_coalesce(SymExec& ex, const Layout& l, const IntTuple& profile);
Layout sym_filter(SymExec& ex, const Layout& l, const IntTuple& profile);
Layout sym_logical_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_zipped_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_tiled_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_flat_product(SymExec& ex, const Layout& a, const Tiler& b, DomainPolicy policy);
Layout sym_blocked_product(SymExec& ex, const Layout& a, const Layout& b, DomainPolicy policy);
Layout sym_raked_product(SymExec& ex, const Layout& a, const Layout& b, DomainPolicy policy);
// S7 (symbolic_index.cpp): idx2crd of a symbolic index into a symbolic shape (colexicographic,
// D1: `//` and `%` atoms, no branch); slice with a concrete coordinate (`_` wildcards), its
// coordinate bounds the conditions (coord-in-domain), exact.
IntTuple sym_idx2crd(const ShapeDim& idx, const IntTuple& shape);
// crd2crd (no branch) and shape_div (branches on which extent divides the other; the refusals,
// extent-positive and shape-div-divisibility, are its conditions), exact.
IntTuple sym_crd2crd(const IntTuple& crd, const IntTuple& dst, const IntTuple& src);
IntTuple sym_shape_div(SymExec& ex, const IntTuple& a, const IntTuple& b);
struct SymSlice {
  Layout layout;
  ShapeDim offset;
};
SymSlice sym_slice(SymExec& ex, const IntTuple& crd, const Layout& l);
// L(c) for a concrete index or coordinate: crd2idx, the coordinate bounds its conditions. Exact.
ShapeDim sym_eval(SymExec& ex, const IntTuple& coord, const Layout& l);
// S8 (symbolic_inverse.cpp): right_inverse and left_inverse, exact (every branch on the order of
// the strides asks the decider); max_common_vector through the walk of A ∘ right_inverse(B):
// sufficient (the reference counts point by point where the walk refuses).
Layout sym_right_inverse(SymExec& ex, const Layout& l);
Layout sym_left_inverse(SymExec& ex, const Layout& l);
ShapeDim sym_max_common_vector(SymExec& ex, const Layout& a, const Layout& b);

// crd2idx with a concrete coordinate (or an integer index, colexicographic as D1) into a
// symbolic shape and stride: a polynomial; no branch.
ShapeDim sym_crd2idx(const IntTuple& crd, const IntTuple& shape, const IntTuple& stride);

// S4: what the paths say. A condition is a predicate whose failure refuses the op: an obligation
// on the answer's path, or a branch whose other side refuses on every path below it.
struct SymCondition {
  std::string rule, clause;
  SymPred pred;
  bool decided = false;  // proved by the decider (under its assumptions) on this path
};
template <class R>
struct SymAnswer {
  std::vector<SymPred> when;               // case guards (other sides that answer differently)
  R result;
  std::vector<SymCondition> conditions;    // every one holds where this case answers
};
template <class R>
struct SymSummary {
  std::vector<SymAnswer<R>> answers;       // the op answers exactly where one guard+conditions hold
  std::vector<SymCase<R>> refusals;        // the refusing paths (guard and diagnostic)
};
SymSummary<Layout> summarize(const std::vector<SymCase<Layout>>& cases);
SymSummary<ShapeDim> summarize(const std::vector<SymCase<ShapeDim>>& cases);
SymSummary<IntTuple> summarize(const std::vector<SymCase<IntTuple>>& cases);
SymSummary<SymSlice> summarize(const std::vector<SymCase<SymSlice>>& cases);
// S4b: cases whose results agree as functions under each other's guards (two sides of one step)
// become one case in the form that holds on both; a guard `M == c` is substituted into its
// case's result. `d` decides the equalities under a guard.
void simplify(SymSummary<Layout>& s, Decider& d);
void simplify(SymSummary<ShapeDim>& s, Decider& d);
void simplify(SymSummary<IntTuple>& s, Decider& d);
void simplify(SymSummary<SymSlice>& s, Decider& d);

}  // namespace tfspec
