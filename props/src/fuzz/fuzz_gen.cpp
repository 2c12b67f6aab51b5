// Generators for the differential fuzzer. Values are built constructively (no RC_PRE), and every
// choice is a RapidCheck draw, so a failing case shrinks mode by mode and value by value.
#include "tfspec/props/fuzz.hpp"
#include "tfspec/reference/swizzle.hpp"
#include "tfspec/props/layout_gen.hpp"
#include "tfspec/props/shard_gen.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::props {
namespace {

constexpr int64_t kMaxDomain = 4096;

int64_t gen_extent() {
  return *rc::gen::weightedOneOf<int64_t>({{4, rc::gen::inRange<int64_t>(1, 5)}, {2, rc::gen::just<int64_t>(1)}, {1, rc::gen::inRange<int64_t>(5, 9)}});
}

// Strides: small (both signs), zero, and values around 2^31 (so plans straddle the int32
// boundary and the 32/64-bit decision matters), sometimes far beyond.
int64_t gen_stride(bool wide) {
  if (!wide) return *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 9)}, {1, rc::gen::inRange<int64_t>(-4, 0)}});
  const int64_t near31 = *rc::gen::element<int64_t>(int64_t{1} << 31, (int64_t{1} << 31) - 1, (int64_t{1} << 31) + 1, int64_t{1} << 30,
                                                    (int64_t{1} << 30) + 3, (int64_t{1} << 32) - 1, -(int64_t{1} << 31), 715827883);
  return *rc::gen::weightedOneOf<int64_t>({{8, rc::gen::inRange<int64_t>(0, 17)},
                                          {2, rc::gen::inRange<int64_t>(-8, 0)},
                                          {3, rc::gen::just(near31)},
                                          {1, rc::gen::inRange<int64_t>(int64_t{1} << 31, int64_t{1} << 44)},
                                          {1, rc::gen::inRange<int64_t>(int64_t{1} << 60, int64_t{1} << 62)}});  // overflows int64
}

// A layout of rank 1-8, each mode a leaf or a tuple of 1-3 leaves; domain <= 4096.
Layout gen_layout_body(bool wide) {
  const int rank = *rc::gen::inRange(1, 9);
  std::vector<IntTuple> shape, stride;
  int64_t size = 1;
  for (int m = 0; m < rank; ++m) {
    const int leaves = *rc::gen::weightedOneOf<int>({{4, rc::gen::just(0)}, {1, rc::gen::inRange(1, 4)}});  // 0: a leaf
    std::vector<IntTuple> s, d;
    for (int k = 0; k < std::max(1, leaves); ++k) {
      int64_t e = gen_extent();
      if (size * e > kMaxDomain) e = 1;
      size *= e;
      s.push_back(e);
      d.push_back(gen_stride(wide));
    }
    shape.push_back(leaves == 0 ? s[0] : IntTuple::tuple(s));
    stride.push_back(leaves == 0 ? d[0] : IntTuple::tuple(d));
  }
  if (rank == 1 && *rc::gen::inRange(0, 2) == 0) return Layout(shape[0], stride[0]);
  return Layout(IntTuple::tuple(shape), IntTuple::tuple(stride));
}

// Largest offset + 1 of a layout with the given strides (for buffer sizes near the edge).
int64_t span(const Layout& l) {
  int64_t hi = 0;
  auto s = flat_leaves(l.shape_ref()), d = flat_leaves(l.stride());
  for (size_t k = 0; k < s.size(); ++k)
    if (d[k].value() > 0) hi += (s[k].value() - 1) * d[k].value();
  return hi + 1;
}

std::string layout_text(const LayoutPtr& l) { return to_string(*l); }

std::vector<int64_t> flat_extents_of(const LayoutBase& l) {
  std::vector<int64_t> e;
  for (const auto& x : flat_leaves(l.shape())) e.push_back(x.value());
  return e;
}

FuzzCase gen_reshard_case() {
  FuzzCase c;
  c.op = "reshard";
  std::optional<ShardCase> src, dst;
  const int variant = *rc::gen::inRange(0, 20);
  if (variant == 0) {  // uneven: a mesh axis that does not divide the extent it Splits (D8)
    UnevenCase u = *gen_uneven();
    c.shape = {u.n};
    c.src = "shard((" + std::to_string(u.n) + "):(1); S(0); x=" + std::to_string(u.extent) + ")";
    c.src_storage = Storage::Rmem;
    dst.emplace(*gen_shard_case(c.shape));
  } else {
    c.shape = *gen_logical_shape();
    const bool runs = variant >= 14;  // both sides with a contiguous tail: gpu/'s vectorized run path
    src.emplace(*gen_shard_case(c.shape, runs));
    dst.emplace(*gen_shard_case(c.shape, runs));
    c.src = to_string(src->layout);
    c.src_storage = variant < 3 ? *rc::gen::arbitrary<Storage>() : src->storage;  // other storages may alias
  }
  c.dst = to_string(dst->layout);
  c.dst_storage = variant == 3 || variant == 4 ? *rc::gen::arbitrary<Storage>() : dst->storage;
  if (variant == 5) {  // an unresolved Dynamic attr on one Broadcast axis of the destination
    auto attrs = dst->layout.attrs();
    for (auto& a : attrs)
      if (std::holds_alternative<Broadcast>(a)) {
        a = Dynamic{};
        break;
      }
    c.dst = to_string(ShardLayout::unchecked(dst->layout.layout(), attrs, dst->layout.mesh()));
  }
  int64_t n = 1;
  for (int64_t e : c.shape) n *= e;
  c.data = *gen_data(n);
  c.noise = *rc::gen::inRange<uint64_t>(0, 1000000);
  return c;
}

}  // namespace

rc::Gen<Layout> gen_fuzz_layout() {
  return rc::gen::exec([] { return gen_layout_body(true); });
}

// ComposedLayout(inner, offset, outer): inner a small layout or None, outer a layout with
// non-negative strides or None; the offset keeps the image mostly inside inner's domain.
rc::Gen<LayoutPtr> gen_fuzz_composed() {
  return rc::gen::exec([]() -> LayoutPtr {
    // 0: both, 1: no inner, 2: no outer, 3: both (outer into inner), 4: a swizzle inner (X1)
    const int form = *rc::gen::inRange(0, 5);
    LayoutPtr inner, outer;
    if (form == 4) {  // Sw<B,M,S>, legal: |S| >= B, M + |S| + B <= 63; mostly small, now and then past bit 31
      const int64_t b = *rc::gen::inRange<int64_t>(0, 4), m = *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 5)}, {1, rc::gen::inRange<int64_t>(25, 40)}});
      const int64_t mag = *rc::gen::inRange<int64_t>(std::max<int64_t>(b, 1), 7);
      inner = std::make_shared<Swizzle>(b, m, *rc::gen::arbitrary<bool>() ? mag : -mag);
    } else if (form != 1) {
      inner = std::make_shared<Layout>(gen_layout_body(*rc::gen::inRange(0, 4) == 0));
    }
    if (form != 2) {
      Layout o = gen_layout_body(false);
      outer = std::make_shared<Layout>(o);
    }
    int64_t offset = *rc::gen::weightedOneOf<int64_t>({{4, rc::gen::inRange<int64_t>(0, 4)}, {1, rc::gen::inRange<int64_t>(-3, 40)}});
    if (form == 3 && inner && outer) {  // aim the outer's image inside inner's domain
      const int64_t room = product_int(inner->shape()) - span(static_cast<const Layout&>(*outer));
      offset = room > 0 ? *rc::gen::inRange<int64_t>(0, room + 1) : 0;
    }
    return std::make_shared<ComposedLayout>(inner, offset, outer);
  });
}

rc::Gen<FuzzCase> gen_fuzz_case(const std::string& op) {
  return rc::gen::exec([op] {
    FuzzCase c;
    c.op = op;
    if (op == "reshard") return gen_reshard_case();
    const bool composed = *rc::gen::inRange(0, 10) < 3;
    if (op == "offsets" || op == "crd2idx") {
      LayoutPtr l = composed ? *gen_fuzz_composed() : std::make_shared<Layout>(*gen_fuzz_layout());
      c.layout = layout_text(l);
      if (op == "crd2idx") {
        const auto ext = flat_extents_of(*l);
        const int count = *rc::gen::inRange(1, 9);
        for (int j = 0; j < count; ++j) {
          std::vector<int64_t> crd;
          for (int64_t e : ext) crd.push_back(*rc::gen::inRange<int64_t>(0, e));
          // out of the domain (plain layouts: a composed one without outer defines no check)
          if (!composed && !crd.empty() && *rc::gen::inRange(0, 12) == 0) {
            size_t k = *rc::gen::inRange<size_t>(0, crd.size());
            crd[k] = *rc::gen::element<int64_t>(-1, ext[k]);
          }
          c.coords.push_back(crd);
        }
      }
      return c;
    }
    // gather / scatter: small strides (real buffers), injective layouts half of the time
    Layout l = *rc::gen::inRange(0, 2) == 0 ? *gen_injective_layout(4, 6) : gen_layout_body(false);
    c.layout = to_string(l);
    c.buffer = std::max<int64_t>(0, span(l) + *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 3)}, {1, rc::gen::inRange<int64_t>(-2, 0)}}));
    return c;
  });
}

}  // namespace tfspec::props
