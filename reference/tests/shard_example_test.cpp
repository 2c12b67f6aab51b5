// §7.5: the spec's worked example, both directions, with the spec's exact results.
#include <gtest/gtest.h>

#include <set>

#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec {
namespace {

// §7.5: logical (2, 1536), sugar (2 @ m.x, 12 @ m.y, 128 @ m.t), mesh (x=2, y=4, t=32) of 8 warps
// of 32 threads.
struct Example {
  Mesh mesh = parse_mesh("warp(8)*thread(32)|x=2,y=4,t=32");
  ShardLayout sugar = read_shard_layout(Json("(2 @ m.x, 12 @ m.y, 128 @ m.t)"), mesh);
  IntTuple shape = IntTuple::tuple({2, 1536});
};

TEST(ShardExample, SugarCanonicalizesToTheSpecLayoutWithNoneStrides) {
  Example ex;
  const auto& l = static_cast<const Layout&>(*ex.sugar.layout());
  EXPECT_EQ(l.shape_ref(), IntTuple::tuple({2, 4, 3, 32, 4}));  // §7.5: 12 -> (4, 3), 128 -> (32, 4)
  EXPECT_FALSE(l.materialized());                                  // §7.1.2: sugar emits S None
  // D10: attrs per mesh axis; the spec's five-attr list is the per-layout-dim view.
  EXPECT_EQ(ex.sugar.attrs(), (std::vector<ShardAttr>{S(0), S(1), S(3)}));
  EXPECT_EQ(layout_dim_view(ex.sugar), (std::vector<ShardAttr>{S(0), S(1), B(), S(3), B()}));
  EXPECT_EQ(local_shape(ex.sugar), IntTuple::tuple({1, 1, 3, 1, 4}));
}

TEST(ShardExample, GmemToRmemIsPerInstance) {
  Example ex;
  TensorType src{ex.shape, nullptr, Storage::Gmem};
  TensorType out = reshard_typeinfer(src, ex.sugar, Storage::Rmem);
  EXPECT_EQ(out.shape, ex.shape);  // §7.4
  const auto& sl = static_cast<const ShardLayout&>(*out.layout);
  const auto& l = static_cast<const Layout&>(*sl.layout());
  EXPECT_EQ(l.stride(), IntTuple::tuple({0, 0, 4, 0, 1}));  // §7.5
  EXPECT_EQ(local_shape(sl), IntTuple::tuple({1, 1, 3, 1, 4}));

  // Every one of the 256 instances gets its own engine of 3 x 4 = 12 elements in C order:
  // instance (x, y, t) holds G coordinate (x, y, c2, t, c4), i.e. logical element
  // [x, (y*3 + c2)*128 + t*4 + c4], at offset c2*4 + c4.
  Tensor t{{2, 1536}, {}};
  for (int64_t i = 0; i < 2 * 1536; ++i) t.data.push_back(i);
  Engines e = distribute(t, sl, Storage::Rmem);
  ASSERT_EQ(e.buffers.size(), 256u);
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t y = 0; y < 4; ++y)
      for (int64_t th = 0; th < 32; ++th) {
        const auto& buf = e.buffers.at(ex.mesh.device_of({x, y, th}));
        ASSERT_EQ(buf.size(), 12u);
        for (int64_t c2 = 0; c2 < 3; ++c2)
          for (int64_t c4 = 0; c4 < 4; ++c4) EXPECT_EQ(buf[c2 * 4 + c4], x * 1536 + (y * 3 + c2) * 128 + th * 4 + c4);
      }
  EXPECT_EQ(assemble(e, sl, {2, 1536}), t);
}

TEST(ShardExample, RmemToGmemIsSharedCOrder) {
  Example ex;
  TensorType src{ex.shape, nullptr, Storage::Rmem};
  TensorType out = reshard_typeinfer(src, ex.sugar, Storage::Gmem);
  const auto& sl = static_cast<const ShardLayout&>(*out.layout);
  EXPECT_EQ(static_cast<const Layout&>(*sl.layout()).stride(), IntTuple::tuple({1536, 384, 128, 4, 1}));  // §7.5

  // The 8 warps (x, y) write disjoint offsets of one gmem buffer, which together cover it.
  std::map<std::pair<int64_t, int64_t>, std::set<int64_t>> by_warp;
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t y = 0; y < 4; ++y)
      for (int64_t th = 0; th < 32; ++th)
        for (int64_t c2 = 0; c2 < 3; ++c2)
          for (int64_t c4 = 0; c4 < 4; ++c4) {
            PhysicalElement pe = physical_element(sl, Storage::Gmem, {x, y, th}, {0, 0, c2, 0, c4});
            EXPECT_EQ(pe.engine, 0);
            by_warp[{x, y}].insert(pe.offset);
          }
  std::set<int64_t> all;
  for (const auto& [warp, offs] : by_warp) {
    EXPECT_EQ(offs.size(), 32u * 12u);
    for (int64_t o : offs) EXPECT_TRUE(all.insert(o).second) << "offset " << o << " written by two warps";
  }
  EXPECT_EQ(all.size(), 3072u);
  EXPECT_EQ(*all.rbegin(), 3071);

  Tensor t{{2, 1536}, {}};
  for (int64_t i = 0; i < 2 * 1536; ++i) t.data.push_back(i * 7 - 5);
  Engines e = distribute(t, sl, Storage::Gmem);
  ASSERT_EQ(e.buffers.size(), 1u);
  EXPECT_EQ(e.buffers.at(0), t.data);  // C order over G is the logical row-major order
}

TEST(ShardExample, ExplicitStridesAreKeptVerbatim) {
  Example ex;
  // §7.5 last paragraph: user-provided strides bypass materialization.
  ShardLayout given = read_shard_layout(Json("shard((2,4,3,32,4):(0,0,1,0,3); S(0),S(1),S(3); warp(8)*thread(32)|x=2,y=4,t=32)"));
  TensorType out = reshard_typeinfer(TensorType{ex.shape, nullptr, Storage::Gmem}, given, Storage::Rmem);
  EXPECT_EQ(static_cast<const Layout&>(*static_cast<const ShardLayout&>(*out.layout).layout()).stride(), IntTuple::tuple({0, 0, 1, 0, 3}));
}

TEST(ShardExample, ReshardShapeOnlyChangesLayout) {
  // §7.4: a (1, 1536) tensor may reshard to layout.shape (1, 8, 192); TensorType.shape stays.
  Mesh m = parse_mesh("warp(8)|w=8");
  ShardLayout dst = read_shard_layout(Json("(1, 8 @ m.w, 192)"), m);
  TensorType out = reshard_typeinfer(TensorType{IntTuple::tuple({1, 1536}), nullptr, Storage::Gmem}, dst, Storage::Rmem);
  EXPECT_EQ(out.shape, IntTuple::tuple({1, 1536}));
  EXPECT_EQ(out.layout->shape(), IntTuple::tuple({1, 8, 192}));
}

}  // namespace
}  // namespace tfspec
