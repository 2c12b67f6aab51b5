// Text notation (CuTe style) for IntTuples, coordinates and layouts. Round trip is exact:
// parse(print(x)) == x.
//   IntTuple:  4 | M | M*2+1 | None | (a,b,...)    `(4)` is a rank-1 tuple; `()` is rank 0
//   Layout:    SHAPE[:STRIDE] | SHAPE:None         no stride = prefix_product(shape) (§3);
//                                                   `:None` = un-materialized strides (§7.1.2)
//   Composed:  INNER o OFFSET o OUTER               either side may be None (identity, §4)
//   Coord:     like IntTuple, plus `_` (the slicing wildcard)
// Expressions: + - * // (floor division; `/` is accepted as a synonym) % and parentheses.
#pragma once
#include <ostream>
#include <string>
#include <string_view>

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

IntTuple parse_inttuple(std::string_view text);
IntTuple parse_coord(std::string_view text);  // `_` allowed (as a None leaf)
ShapeDim parse_dim(std::string_view text);     // a single expression
Layout parse_layout(std::string_view text);
// Any layout kind: Layout, ComposedLayout, or `shard(...)` (closed dispatch: any_layout.cpp).
LayoutPtr parse_any_layout(std::string_view text);
// Only the pure kinds of §3-§4: Layout or ComposedLayout (whose parts may be any kind).
LayoutPtr parse_pure_layout(std::string_view text);

std::string to_string(const IntTuple& t);
std::string coord_to_string(const IntTuple& t);  // None leaves print as `_`
std::string to_string(const Layout& l);
std::string to_string(const LayoutBase& l);  // closed dispatch on the kind (any_layout.cpp)

// Stream output in text notation (test frameworks print values through these).
inline std::ostream& operator<<(std::ostream& os, const IntTuple& t) { return os << to_string(t); }
inline std::ostream& operator<<(std::ostream& os, const Layout& l) { return os << to_string(l); }

}  // namespace tfspec
