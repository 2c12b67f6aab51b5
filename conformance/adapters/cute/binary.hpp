// The binary ops (composition, divides, products) over the A x B structure lists.
#pragma once
#include "structures.hpp"

namespace cute_adapter {

// op(A, B) where B is `args[second]`: an integer n (CuTe's own integer tiler path) or a layout.
template <class Op>
Json binary(const Json& args, const char* second, Op op) {
  if (args.value("domain", "strict") != "strict") throw Skip("domain \"extend\" (D15) has no CuTe counterpart");
  const Json& b = args.at(second);
  const bool bare_shape = b.is_string() && b.get<std::string>().find(':') == std::string::npos && b.get<std::string>().find('(') != std::string::npos;
  if ((b.is_object() && b.contains("tiler")) || bare_shape) throw Skip("by-mode tilers (a tuple of layouts) are not instantiated by this adapter");
  return with_layout<BinaryA>(args.at("a"), [&](const auto& A) -> Json {
    if (b.is_number_integer()) return to_json(op(A, b.get<int64_t>()));
    return with_layout<BinaryB>(b, [&](const auto& B) { return to_json(op(A, B)); });
  });
}

}  // namespace cute_adapter
