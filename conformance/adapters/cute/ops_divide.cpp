#include "binary.hpp"
#include "ops.hpp"

namespace cute_adapter {

namespace {

template <class X, class Y, class Op>
auto divide_if(const X& x, const Y& y, const char* what, Op op) {
  if constexpr (layout_leaves<Y>() == 1) return op(x, y);
  else { throw dynamic_stride_skip(what); return x; }
}

}  // namespace

void add_divide_ops(OpMap& ops) {
  ops["composition"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return cute::composition(x, y); }); };
  // logical_divide(A, B) = composition(A, (B, complement(B, size(A)))): B of flat rank 1.
  ops["logical_divide"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return divide_if(x, y, "logical_divide", [](const auto& p, const auto& q) { return cute::logical_divide(p, q); }); }); };
  ops["zipped_divide"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return divide_if(x, y, "zipped_divide", [](const auto& p, const auto& q) { return cute::zipped_divide(p, q); }); }); };
  ops["tiled_divide"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return divide_if(x, y, "tiled_divide", [](const auto& p, const auto& q) { return cute::tiled_divide(p, q); }); }); };
  ops["flat_divide"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return divide_if(x, y, "flat_divide", [](const auto& p, const auto& q) { return cute::flat_divide(p, q); }); }); };
}

}  // namespace cute_adapter
