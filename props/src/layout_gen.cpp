#include "tfspec/props/layout_gen.hpp"

#include <algorithm>
#include <numeric>

namespace tfspec::props {

static IntTuple group(const std::vector<int64_t>& leaves, const std::vector<int>& cuts) {
  // cuts[i] == 1 starts a new sub-tuple before leaf i; runs of length 1 stay leaves.
  std::vector<IntTuple> modes, cur;
  auto flush = [&] {
    if (cur.size() == 1) modes.push_back(cur[0]);
    else if (!cur.empty()) modes.push_back(IntTuple::tuple(cur));
    cur.clear();
  };
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (i > 0 && cuts[i]) flush();
    cur.push_back(IntTuple(leaves[i]));
  }
  flush();
  if (modes.size() == 1) return modes[0];
  return IntTuple::tuple(modes);
}

rc::Gen<IntTuple> gen_shape(int max_leaves, int64_t max_extent) {
  return rc::gen::exec([=] {
    int n = *rc::gen::inRange(1, max_leaves + 1);
    auto leaves = *rc::gen::container<std::vector<int64_t>>(n, rc::gen::inRange<int64_t>(1, max_extent + 1));
    auto cuts = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(0, 2));
    return group(leaves, cuts);
  });
}

static IntTuple map_leaves(const IntTuple& t, const std::function<IntTuple(const IntTuple&)>& f) {
  if (t.is_leaf()) return f(t);
  std::vector<IntTuple> c;
  for (const auto& x : t.children()) c.push_back(map_leaves(x, f));
  return IntTuple::tuple(c);
}

rc::Gen<IntTuple> gen_stride_for(const IntTuple& shape, int64_t lo, int64_t hi) {
  return rc::gen::exec([=] {
    return map_leaves(shape, [&](const IntTuple&) { return IntTuple(*rc::gen::inRange<int64_t>(lo, hi + 1)); });
  });
}

rc::Gen<Layout> gen_layout(int max_leaves, int64_t max_extent) {
  return rc::gen::exec([=] {
    IntTuple s = *gen_shape(max_leaves, max_extent);
    IntTuple d = *gen_stride_for(s, 0, 48);
    return Layout(s, d);
  });
}

rc::Gen<Layout> gen_injective_layout(int max_leaves, int64_t max_extent) {
  return rc::gen::exec([=] {
    IntTuple s = *gen_shape(max_leaves, max_extent);
    auto leaves = flat_leaves(s);
    size_t n = leaves.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    order = *rc::gen::exec([order] {
      auto o = order;
      for (size_t i = o.size(); i > 1; --i) std::swap(o[i - 1], o[*rc::gen::inRange<size_t>(0, i)]);
      return o;
    });
    std::vector<int64_t> stride(n);
    int64_t cur = 1;
    for (size_t k : order) {
      stride[k] = cur;
      int64_t pad = *rc::gen::inRange<int64_t>(1, 3);  // 1 = compact, 2 = padded
      cur *= leaves[k].value() * pad;
    }
    size_t i = 0;
    IntTuple d = map_leaves(s, [&](const IntTuple&) { return IntTuple(stride[i++]); });
    return Layout(s, d);
  });
}

rc::Gen<Layout> gen_tiler_for(int64_t size) {
  return rc::gen::exec([=] {
    std::vector<int64_t> divs;
    for (int64_t k = 1; k <= size; ++k)
      if (size % k == 0) divs.push_back(k);
    int64_t t = *rc::gen::elementOf(divs);
    int64_t step = *rc::gen::elementOf(std::vector<int64_t>{1, 2, 4});
    if (size % (t * step) != 0) step = 1;
    return Layout(IntTuple(t), IntTuple(step));
  });
}

}  // namespace tfspec::props
