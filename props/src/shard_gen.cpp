#include "tfspec/props/shard_gen.hpp"

#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::props {
namespace {

// A row-major refinement of extent t (D2): t itself, or t split into two or three factors,
// sometimes with a size-1 dim joining the run.
std::vector<int64_t> refine(int64_t t) {
  std::vector<int64_t> divs;
  for (int64_t d = 2; d < t; ++d)
    if (t % d == 0) divs.push_back(d);
  std::vector<int64_t> out;
  if (divs.empty() || *rc::gen::inRange(0, 3) == 0) {
    out.push_back(t);
  } else {
    int64_t d = *rc::gen::elementOf(divs);
    out = {d, t / d};
  }
  if (*rc::gen::inRange(0, 5) == 0) out.insert(out.begin() + *rc::gen::inRange<size_t>(0, out.size() + 1), 1);
  return out;
}

struct Axis {
  int64_t extent;
  ShardAttr attr;
};

}  // namespace

rc::Gen<std::vector<int64_t>> gen_logical_shape() {
  return rc::gen::exec([] {
    int r = *rc::gen::inRange(1, 4);
    std::vector<int64_t> t;
    int64_t size = 1;
    for (int i = 0; i < r; ++i) {
      int64_t e = *rc::gen::element<int64_t>(1, 2, 3, 4, 6, 8);
      if (size * e > 96) e = 1;
      size *= e;
      t.push_back(e);
    }
    return t;
  });
}

rc::Gen<ShardCase> gen_shard_case(const std::vector<int64_t>& shape) { return gen_shard_case(shape, false); }

rc::Gen<ShardCase> gen_shard_case(const std::vector<int64_t>& shape, bool contiguous_tail) {
  return rc::gen::exec([shape, contiguous_tail] {
    const Storage storage = *rc::gen::arbitrary<Storage>();
    std::vector<int64_t> g;
    for (int64_t t : shape)
      for (int64_t f : refine(t)) g.push_back(f);
    size_t tail = g.size();  // the last dim of extent > 1
    for (size_t k = 0; k < g.size(); ++k)
      if (g[k] > 1) tail = k;
    std::vector<Axis> axes;
    for (size_t k = 0; k < g.size() && axes.size() < 3; ++k)
      if (!(contiguous_tail && k == tail) && *rc::gen::inRange(0, 3) != 0) axes.push_back({g[k], Split{static_cast<int64_t>(k)}});
    int extra = std::min<int>(*rc::gen::inRange(axes.empty() ? 1 : 0, 3), 4 - static_cast<int>(axes.size()));
    for (int i = 0; i < extra; ++i) {
      int64_t e = *rc::gen::inRange<int64_t>(1, 4);
      // Partial contributions need distinct engines (D3): only rmem guarantees that here.
      int kind = *rc::gen::inRange(0, storage == Storage::Rmem ? 4 : 1);
      ShardAttr a = kind == 0 ? ShardAttr(Broadcast{}) : ShardAttr(Partial{kind == 1 ? "sum" : kind == 2 ? "max" : "min"});
      axes.push_back({e, a});
    }
    // Mesh axis order is arbitrary.
    for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[*rc::gen::inRange<size_t>(0, i)]);
    std::vector<IntTuple> ext;
    std::vector<ShardAttr> attrs;
    std::vector<std::string> names;
    int64_t n = 1;
    for (size_t i = 0; i < axes.size(); ++i) {
      ext.push_back(axes[i].extent);
      attrs.push_back(axes[i].attr);
      names.push_back("a" + std::to_string(i));
      n *= axes[i].extent;
    }
    // Topologies: one device topology, or an outer/inner pair split after the first j axes.
    std::vector<std::string> topos;
    int form = *rc::gen::inRange(0, 3);
    if (form == 0) {
      topos.push_back("device(" + std::to_string(n) + ")");
    } else {
      size_t j = *rc::gen::inRange<size_t>(0, axes.size() + 1);
      int64_t outer = 1;
      for (size_t i = 0; i < j; ++i) outer *= axes[i].extent;
      topos.push_back((form == 1 ? "cta(" : "warp(") + std::to_string(outer) + ")");
      topos.push_back("thread(" + std::to_string(n / outer) + ")");
    }
    std::optional<std::vector<std::string>> opt_names;
    if (*rc::gen::inRange(0, 2) == 1) opt_names = names;
    Mesh mesh = make_mesh(topos, IntTuple::tuple(ext), opt_names);
    std::vector<IntTuple> gs(g.begin(), g.end());
    ShardLayout bare = ShardLayout::unchecked(std::make_shared<Layout>(Layout::unmaterialized(IntTuple::tuple(gs))), attrs, mesh);
    bool per_instance = storage == Storage::Rmem && *rc::gen::inRange(0, 2) == 1;
    IntTuple strides = per_instance ? per_instance_strides(bare) : shared_strides(bare);
    ShardLayout sl(std::make_shared<Layout>(IntTuple::tuple(gs), strides), attrs, mesh);
    return ShardCase{shape, sl, storage};
  });
}

void showValue(const ShardCase& c, std::ostream& os) {
  std::vector<IntTuple> t(c.shape.begin(), c.shape.end());
  os << "shape " << to_string(IntTuple::tuple(t)) << " storage " << to_string(c.storage) << " " << to_string(c.layout);
}

rc::Gen<ShardCase> gen_shard_case() {
  return rc::gen::mapcat(gen_logical_shape(), [](const std::vector<int64_t>& t) { return gen_shard_case(t); });
}

rc::Gen<std::vector<int64_t>> gen_data(int64_t n) {
  auto value = rc::gen::weightedOneOf<int64_t>({{3, rc::gen::inRange<int64_t>(-9, 10)},
                                                {1, rc::gen::inRange<int64_t>(-1000000000000, 1000000000000)}});
  return rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(n), value);
}

rc::Gen<UnevenCase> gen_uneven() {
  return rc::gen::exec([] {
    int64_t e = *rc::gen::inRange<int64_t>(2, 6);
    int64_t q = *rc::gen::inRange<int64_t>(0, 5);
    int64_t r = *rc::gen::inRange<int64_t>(1, e);
    return UnevenCase{e, e * q + r};
  });
}

}  // namespace tfspec::props
