// The comparisons the symbolic ops branch on and require (spec/ALGEBRA.md S2), shared by
// symbolic_algebra.cpp, symbolic_compose.cpp, symbolic_inverse.cpp and symbolic_product.cpp.
// Private to reference/src: each file says `using namespace symbolic_preds;` in its own
// anonymous namespace.
#pragma once
#include "tfspec/reference/symbolic.hpp"

namespace tfspec::symbolic_preds {

inline SymPred eq(const ShapeDim& a, const ShapeDim& b) { return {a, SymRel::Eq, b}; }
inline SymPred lt(const ShapeDim& a, const ShapeDim& b) { return {a, SymRel::Lt, b}; }
inline SymPred le(const ShapeDim& a, const ShapeDim& b) { return {a, SymRel::Le, b}; }
inline SymPred gt(const ShapeDim& a, const ShapeDim& b) { return {a, SymRel::Gt, b}; }
inline SymPred ge(const ShapeDim& a, const ShapeDim& b) { return {a, SymRel::Ge, b}; }
// m divides x: x % m == 0 (floor modulo, spec/ALGEBRA.md S1).
inline SymPred divides(const ShapeDim& m, const ShapeDim& x) { return eq(sym_mod(x, m), sym(0)); }

}  // namespace tfspec::symbolic_preds
