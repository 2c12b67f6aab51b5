#include "ops.hpp"
#include "structures.hpp"

namespace cute_adapter {
namespace {

template <class F>
Json on_t(const Json& args, F f) {
  return with_tuple<Structures>(args.at("t"), [&](const auto& t) { return to_json(f(t)); });
}

// A coordinate of structure X: an integer index, or a tree of X's own profile.
template <class X, class F>
Json with_coord(const Json& coord, F f) {
  const Tree c = tree_from_json(coord);
  if (c.leaf) return f(c.v);
  if (profile(c) != type_profile<X>()) throw Skip("a coordinate of structure " + profile(c) + " for shape " + type_profile<X>() + " is not instantiated");
  return f(build<X>(c));
}

Json crd2idx_op(const Json& a) {
  const Tree shape = tree_from_json(a.at("shape"));
  const bool strided = a.contains("stride") && !a["stride"].is_null();
  const Tree stride = strided ? tree_from_json(a["stride"]) : Tree{};
  if (strided && profile(stride) != profile(shape)) throw Refusal("stride-congruent", "stride not congruent with the shape");
  return dispatch<Structures>(profile(shape), [&]<class X>(std::type_identity<X>) {
    const X s = build<X>(shape);
    return with_coord<X>(a.at("coord"), [&](const auto& c) -> Json {
      if (strided) return to_json(cute::crd2idx(c, s, build<X>(stride)));
      if constexpr (cute::is_tuple<X>::value) return to_json(cute::crd2idx(c, s));
      else return to_json(cute::crd2idx(c, cute::make_tuple(s)));  // the 2-argument form needs a tuple shape
    });
  });
}

Json idx2crd_op(const Json& a) {
  const Tree index = tree_from_json(a.at("index"));
  if (!index.leaf) throw Skip("a tuple index is not instantiated");
  return with_tuple<Structures>(a.at("shape"), [&](const auto& s) { return to_json(cute::idx2crd(index.v, s)); });
}

Json shape_div_op(const Json& a) {
  const Tree b = tree_from_json(a.at("b"));
  if (!b.leaf) throw Skip("shape_div by a tuple is not instantiated");
  return with_tuple<Structures>(a.at("a"), [&](const auto& x) { return to_json(cute::shape_div(x, b.v)); });
}

}  // namespace

void add_tuple_ops(OpMap& ops) {
  ops["rank"] = [](const Json& a) { return on_t(a, [](const auto& t) { return int64_t(cute::rank(t)); }); };
  ops["depth"] = [](const Json& a) { return on_t(a, [](const auto& t) { return int64_t(cute::depth(t)); }); };
  ops["flatten"] = [](const Json& a) { return on_t(a, [](const auto& t) { return cute::flatten(t); }); };
  ops["product"] = [](const Json& a) { return on_t(a, [](const auto& t) { return cute::product(t); }); };
  // CuTe has no prefix_product: its exclusive prefix product is compact_col_major.
  ops["prefix_product"] = [](const Json& a) { return on_t(a, [](const auto& t) { return cute::compact_col_major(t); }); };
  ops["shape_div"] = shape_div_op;
  ops["crd2idx"] = crd2idx_op;
  ops["idx2crd"] = idx2crd_op;
}

}  // namespace cute_adapter
