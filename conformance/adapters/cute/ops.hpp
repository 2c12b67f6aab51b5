// The op table of the CuTe adapter: protocol op name -> a function of the request's args that
// answers with CuTe's result (or throws Refusal / Skip). One file per op family keeps each
// translation unit's template instantiations (and the compiler's memory) small.
#pragma once
#include <map>
#include <string>

#include "tree.hpp"

namespace cute_adapter {

using OpFn = Json (*)(const Json& args);
using OpMap = std::map<std::string, OpFn>;

void add_tuple_ops(OpMap& ops);    // rank depth flatten product prefix_product shape_div crd2idx idx2crd
void add_layout_ops(OpMap& ops);   // size cosize eval coalesce filter complement right_inverse left_inverse
void add_divide_ops(OpMap& ops);   // composition and the four divides
void add_product_ops(OpMap& ops);  // the four products, blocked_product, raked_product

}  // namespace cute_adapter
