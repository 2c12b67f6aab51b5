#include "ops.hpp"
#include "structures.hpp"

namespace cute_adapter {
namespace {

template <class F>
Json on_layout(const Json& args, F f) {
  return with_layout<Structures>(args.at("layout"), [&](const auto& l) { return to_json(f(l)); });
}

void no_profile(const Json& a) {
  if (a.contains("profile") && !a["profile"].is_null()) throw Skip("a target profile is not instantiated by this adapter");
}

// eval: CuTe's layout(coord), for an integer index or a coordinate of the shape's own structure.
Json eval_op(const Json& a) {
  const Tree c = tree_from_json(a.at("coord"));
  return with_layout<Structures>(a.at("layout"), [&](const auto& l) -> Json {
    using X = std::decay_t<decltype(l.shape())>;
    if (c.leaf) return to_json(l(c.v));
    if (profile(c) != type_profile<X>()) throw Skip("a coordinate of structure " + profile(c) + " for shape " + type_profile<X>() + " is not instantiated");
    return to_json(l(build<X>(c)));
  });
}

Json complement_op(const Json& a) {
  const bool given = a.contains("cotarget") && !a["cotarget"].is_null();
  const Tree t = given ? tree_from_json(a["cotarget"]) : Tree{};
  if (!t.leaf) throw Skip("a tuple cotarget is not instantiated");
  return with_layout<Structures>(a.at("layout"), [&](const auto& l) -> Json {
    if constexpr (layout_leaves<std::decay_t<decltype(l)>>() != 1) throw dynamic_stride_skip("complement");
    else return given ? to_json(cute::complement(l, t.v)) : to_json(cute::complement(l));
  });
}

}  // namespace

void add_layout_ops(OpMap& ops) {
  ops["size"] = [](const Json& a) { return on_layout(a, [](const auto& l) { return int64_t(cute::size(l)); }); };
  ops["cosize"] = [](const Json& a) { return on_layout(a, [](const auto& l) { return int64_t(cute::cosize(l)); }); };
  ops["eval"] = eval_op;
  ops["coalesce"] = [](const Json& a) { no_profile(a); return on_layout(a, [](const auto& l) { return cute::coalesce(l); }); };
  ops["filter"] = [](const Json& a) { no_profile(a); return on_layout(a, [](const auto& l) { return cute::filter(l); }); };
  ops["complement"] = complement_op;
  ops["right_inverse"] = [](const Json& a) { return on_layout(a, [](const auto& l) { return cute::right_inverse(l); }); };
  // left_inverse static_asserts "Left inverse requires static strides": no run-time layout has one.
  ops["left_inverse"] = [](const Json&) -> Json { throw Skip("CuTe cannot compile left_inverse with run-time strides (static_assert: Left inverse requires static strides)"); };
}

}  // namespace cute_adapter
