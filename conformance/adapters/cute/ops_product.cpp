#include "binary.hpp"
#include "ops.hpp"

namespace cute_adapter {

// CuTe's blocked/raked products take a Layout: an integer b becomes make_layout(b).
template <class Y>
auto as_layout(const Y& y) {
  if constexpr (cute::is_integral<Y>::value) return cute::make_layout(y);
  else return y;
}

// logical_product(A, B) = (A, composition(complement(A, size(A)*cosize(B)), B)): A of flat rank 1.
template <class X, class Y, class Op>
auto product_if(const X& x, const Y& y, const char* what, Op op) {
  if constexpr (layout_leaves<X>() == 1) return op(x, y);
  else { throw dynamic_stride_skip(what); return x; }
}

// blocked/raked_product zip the modes of append<R>(A) and append<R>(B): with R = 1 and an
// integer (rank-0) shape on either side there is no tuple to zip, and CuTe does not compile.
template <class X, class Y, class Op>
auto block_if(const X& x, const Y& y, const char* what, Op op) {
  using XS = std::decay_t<decltype(x.shape())>;
  using YS = std::decay_t<decltype(y.shape())>;
  if constexpr (!cute::is_tuple<XS>::value || !cute::is_tuple<YS>::value) {
    throw Skip(std::string("CuTe cannot compile ") + what + " for an integer (non-tuple) shape: it zips the modes of a rank-1 tuple (static_assert: Mismatched Ranks)");
    return x;
  } else {
    return product_if(x, y, what, op);
  }
}

void add_product_ops(OpMap& ops) {
  ops["logical_product"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return product_if(x, y, "logical_product", [](const auto& p, const auto& q) { return cute::logical_product(p, q); }); }); };
  ops["zipped_product"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return product_if(x, y, "zipped_product", [](const auto& p, const auto& q) { return cute::zipped_product(p, q); }); }); };
  ops["tiled_product"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return product_if(x, y, "tiled_product", [](const auto& p, const auto& q) { return cute::tiled_product(p, q); }); }); };
  ops["flat_product"] = [](const Json& a) { return binary(a, "tiler", [](const auto& x, const auto& y) { return product_if(x, y, "flat_product", [](const auto& p, const auto& q) { return cute::flat_product(p, q); }); }); };
  // blocked/raked take a layout b; an integer b is CuTe's make_layout(b).
  ops["blocked_product"] = [](const Json& a) {
    return binary(a, "b", [](const auto& x, const auto& y) { return block_if(x, as_layout(y), "blocked_product", [](const auto& p, const auto& q) { return cute::blocked_product(p, q); }); });
  };
  ops["raked_product"] = [](const Json& a) {
    return binary(a, "b", [](const auto& x, const auto& y) { return block_if(x, as_layout(y), "raked_product", [](const auto& p, const auto& q) { return cute::raked_product(p, q); }); });
  };
}

}  // namespace cute_adapter
