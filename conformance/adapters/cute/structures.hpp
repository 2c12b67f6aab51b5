// The compile-time side: CuTe's nesting is part of a layout's type, so the adapter instantiates a
// closed list of structures (flat rank 1-4 and the one-level nestings the corpus uses) and picks
// the one whose profile equals the run-time tree's; any other structure is answered `skipped`.
#pragma once
#include <cute/layout.hpp>

#include <string>
#include <tuple>
#include <type_traits>

#include "tree.hpp"

namespace cute_adapter {

using I = int64_t;
template <class... Ts>
using T = cute::tuple<Ts...>;

// Layout (and IntTuple) structures every unary op is instantiated for: flat rank 0-4 and the
// one-level nestings of rank 1-4 the corpus uses.
using Structures = std::tuple<I, T<I>, T<I, I>, T<I, I, I>, T<I, I, I, I>,                   // flat
                              T<T<I>>, T<T<I, I>>, T<I, T<I>>, T<I, T<I, I>>, T<T<I>, I>,     // one level
                              T<T<I, I>, I>, T<I, I, T<I>>, T<T<I, I>, I, I>, T<I, T<I, I>, I>, T<T<I>, T<I>>,
                              T<T<I, I>, T<I, I>>, T<I, I, I, T<I, I>>, T<T<I>, I, I>,
                              T<I, I, T<I, I>>, T<I, T<I>, I>, T<I, I, T<I>, I>, T<I, I, I, T<I>>, T<I, T<I>, I, I>,
                              T<T<I>, I, I, I>, T<I, T<I, I>, T<I>>, T<I, I, T<I, I>, I>, T<I, T<I, I>, I, I>, T<I, T<I>, T<I, I>>,
                              T<T<I, I>, T<I>>, T<I, T<I>, T<I>>, T<T<I>, T<I>, I>, T<T<I>, T<I, I>>>;
// The `a` of the binary ops (compile time grows with |A| x |B| per op).
using BinaryA = std::tuple<I, T<I>, T<I, I>, T<I, I, I>, T<I, I, I, I>, T<T<I>>, T<T<I, I>>, T<I, T<I>>, T<I, T<I, I>>,
                           T<T<I>, I>, T<T<I, I>, I>, T<I, T<I>, I>, T<I, I, T<I, I>>, T<T<I>, I, I>, T<I, I, T<I>>,
                           T<I, T<I, I>, I>, T<T<I>, T<I>>>;
// The tiler / second layout of the binary ops.
using BinaryB = std::tuple<I, T<I>, T<I, I>, T<I, I, I>>;

template <class X>
std::string type_profile() {
  if constexpr (std::is_same_v<X, I>) {
    return "_";
  } else {
    return [&]<class... Ks>(std::type_identity<cute::tuple<Ks...>>) {
      std::string s = "(";
      ((s += type_profile<Ks>() + ","), ...);
      if (s.size() > 1) s.pop_back();
      return s + ")";
    }(std::type_identity<X>{});
  }
}

// How many integers a structure holds (CuTe's flat rank of it).
template <class X>
constexpr int leaves() {
  if constexpr (std::is_same_v<X, I>) return 1;
  else return []<class... Ks>(std::type_identity<cute::tuple<Ks...>>) { return (0 + ... + leaves<Ks>()); }(std::type_identity<X>{});
}
template <class L>
constexpr int layout_leaves() {
  if constexpr (cute::is_integral<L>::value) return 1;
  else return leaves<std::decay_t<decltype(std::declval<L>().shape())>>();
}

// CuTe's complement (so every divide and product built on it) sorts strides at compile time:
// with run-time strides it static_asserts "Dynamic-stride complement only for rank-1 layouts"
// (layout.hpp). The adapter answers such a case `skipped` with this reason instead of failing
// to compile; the results table counts them apart.
inline Skip dynamic_stride_skip(const char* what) {
  return Skip(std::string("CuTe cannot compile ") + what + " with run-time strides at flat rank > 1 (static_assert: Dynamic-stride complement only for rank-1 layouts)");
}

// The CuTe value of structure X from a tree of that profile.
template <class X>
X build(const Tree& t) {
  if constexpr (std::is_same_v<X, I>) {
    return t.v;
  } else {
    return [&]<class... Ks, size_t... Is>(std::type_identity<cute::tuple<Ks...>>, std::index_sequence<Is...>) {
      return cute::make_tuple(build<Ks>(t.kids[Is])...);
    }(std::type_identity<X>{}, std::make_index_sequence<std::tuple_size_v<X>>{});
  }
}

// Calls f(std::type_identity<X>{}) for the structure X of `list` whose profile is `prof`.
template <class List, class F>
Json dispatch(const std::string& prof, F&& f) {
  Json out;
  bool found = false;
  [&]<class... Xs>(std::type_identity<std::tuple<Xs...>>) {
    ((!found && type_profile<Xs>() == prof ? (found = true, out = f(std::type_identity<Xs>{}), 0) : 0), ...);
  }(std::type_identity<List>{});
  if (!found) throw Skip("structure " + prof + " is not among the CuTe structures this adapter instantiates");
  return out;
}

// Any CuTe IntTuple (static or dynamic ints, any depth) as protocol JSON.
template <class X>
Json to_json(const X& x) {
  if constexpr (cute::is_tuple<X>::value) {
    Json a = Json::array();
    cute::for_each(x, [&](const auto& e) { a.push_back(to_json(e)); });
    return a;
  } else {
    return static_cast<int64_t>(x);
  }
}

template <class S, class D>
Json to_json(const cute::Layout<S, D>& l) {
  return Json{{"kind", "layout"}, {"shape", to_json(l.shape())}, {"stride", to_json(l.stride())}};
}

// f(cute layout) for a layout argument whose structure is in `List`.
template <class List, class F>
Json with_layout(const Json& arg, F&& f) {
  const LayoutArg l = layout_from_json(arg);
  return dispatch<List>(profile(l.shape), [&]<class X>(std::type_identity<X>) {
    return f(cute::make_layout(build<X>(l.shape), build<X>(l.stride)));
  });
}

// f(cute IntTuple) for an IntTuple argument.
template <class List, class F>
Json with_tuple(const Json& arg, F&& f) {
  const Tree t = tree_from_json(arg);
  return dispatch<List>(profile(t), [&]<class X>(std::type_identity<X>) { return f(build<X>(t)); });
}

}  // namespace cute_adapter
