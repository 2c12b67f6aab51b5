// JSON encoding of every reference object (spec/PROTOCOL.md documents it). Round trip exact.
//   IntTuple: int -> number (|v| > 2^53 -> decimal string), symbolic -> expression string "M*2",
//             None -> null, tuple -> array.
//   Layout:   {"kind":"layout","shape":S,"stride":D}; "stride": null = un-materialized;
//             absent = prefix_product default; "strides" accepted as a synonym (D11).
//   Composed: {"kind":"composed","inner":L|null,"offset":n,"outer":L|null}
//   A bare string is parsed with the text notation.
#pragma once
#include <nlohmann/json.hpp>

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

using Json = nlohmann::json;

Json to_json(const IntTuple& t);
IntTuple inttuple_from_json(const Json& j);
IntTuple coord_from_json(const Json& j);  // strings "_" allowed as wildcards
Json to_json(const Layout& l);
// A diagnostic: {"rule", "clause", "message", "path"} (used by checks, the solver and the protocol).
Json to_json(const Diagnostic& d);
Json to_json(const LayoutBase& l);  // closed dispatch on the kind (any_layout.cpp)
Layout layout_from_json(const Json& j);
LayoutPtr any_layout_from_json(const Json& j);


}  // namespace tfspec
