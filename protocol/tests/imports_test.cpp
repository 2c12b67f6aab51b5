// JAX / DTensor imports and exports (spec/SHARD.md I2-I7). Expected layouts are derived by hand
// in the comments from the libraries' documented semantics: JAX splits a dim over a tuple of axes
// major to minor into contiguous blocks; DTensor applies placements in mesh-dim order, each Shard
// cutting the local tensor into torch.chunk pieces; both number devices row-major over the axes.
#include <gtest/gtest.h>

#include "tfspec/protocol/imports.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/reference/owners.hpp"

#include "../../reference/tests/test_support.hpp"

using namespace tfspec;
using namespace tfspec::protocol;

namespace {

std::string jax(const std::string& mesh, const std::string& spec, std::vector<int64_t> shape, std::vector<int64_t> devices = {}) {
  return to_string(import_jax(import_mesh(mesh, devices, true), spec, shape));
}
std::string dtensor(const std::string& mesh, const std::string& placements, std::vector<int64_t> shape, std::vector<int64_t> devices = {}) {
  return to_string(import_dtensor(import_mesh(mesh, devices, false), placements, shape));
}
std::vector<std::vector<int64_t>> elements(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& h : owners(sl, IntTuple::tuple(std::vector<IntTuple>(shape.begin(), shape.end())))) out.push_back(h.elements);
  return out;
}

}  // namespace

// The example: P("x", None) on (8,16), mesh x=2,y=4. Dim 0 (8) cut in 2 blocks: factors
// (2 @ x, 4); dim 1 free. G (2,4,16); per-instance strides: 0 on the Split dim, C order over the
// local (4,16): 16, 1. y is unused: Broadcast.
TEST(Imports, JaxOneAxis) {
  EXPECT_EQ(jax("x=2,y=4", "P(\"x\", None)", {8, 16}), "shard((2,4,16):(0,16,1); S(0),B; device(8)|x=2,y=4)");
  EXPECT_EQ(jax("x=2,y=4", "PartitionSpec('x')", {8, 16}), "shard((2,4,16):(0,16,1); S(0),B; device(8)|x=2,y=4)");  // trailing dims None
  // y on dim 1 (16 = 4 blocks of 4), x on dim 0: G (2,4,4,4), y Splits G dim 2.
  EXPECT_EQ(jax("x=2,y=4", "P('x', 'y')", {8, 16}), "shard((2,4,4,4):(0,4,0,1); S(0),S(2); device(8)|x=2,y=4)");
  EXPECT_EQ(jax("x=2,y=4", "P()", {8, 16}), "shard((8,16):(16,1); B,B; device(8)|x=2,y=4)");
}

// A tuple splits one dim major to minor: ("x","y") on (16,) is 8 blocks of 2, block x*4+y:
// G (2,4,2), x on G dim 0, y on G dim 1. ("y","x") puts y outer: block y*2+x.
TEST(Imports, JaxTupleIsMajorToMinor) {
  EXPECT_EQ(jax("x=2,y=4", "P((\"x\", \"y\"),)", {16}), "shard((2,4,2):(0,0,1); S(0),S(1); device(8)|x=2,y=4)");
  EXPECT_EQ(jax("x=2,y=4", "P(('y', 'x'))", {16}), "shard((4,2,2):(0,0,1); S(1),S(0); device(8)|x=2,y=4)");
  // Owners of ("y","x") on (8,) over x=2,y=2: block y*2+x of 2 elements on device x*2+y:
  // dev0 (0,0) block 0: 0,1; dev1 (0,1) block 2: 4,5; dev2 (1,0) block 1: 2,3; dev3 block 3: 6,7.
  auto sl = import_jax(import_mesh("x=2,y=2", {}, true), "P(('y','x'))", {8});
  EXPECT_EQ(elements(sl, {8}), (std::vector<std::vector<int64_t>>{{0, 1}, {4, 5}, {2, 3}, {6, 7}}));
}

// unreduced={"y"} is Partial(sum) on y (I4); UNCONSTRAINED leaves the unused axes Dynamic (I6).
TEST(Imports, JaxUnreducedAndUnconstrained) {
  EXPECT_EQ(jax("x=2,y=4", "P('x', None, unreduced={'y'})", {8, 16}), "shard((2,4,16):(0,16,1); S(0),P(); device(8)|x=2,y=4)");
  EXPECT_EQ(jax("x=2,y=4", "P('x', P.UNCONSTRAINED)", {8, 16}), "shard((2,4,16):(0,16,1); S(0),D; device(8)|x=2,y=4)");
}

TEST(Imports, JaxRefusals) {
  EXPECT_RULE(jax("x=2,y=4", "P('z')", {8}), "mesh-axis-unknown");
  EXPECT_RULE(jax("x=2,y=4", "P('x', 'x')", {8, 8}), "import-axis-reused");
  EXPECT_RULE(jax("x=2,y=4", "P(('x','y'), unreduced={'x'})", {8}), "import-axis-reused");
  EXPECT_RULE(jax("x=2,y=4", "P('y')", {6}), "import-uneven");  // 4 does not divide 6
  EXPECT_RULE(jax("x=2,y=4", "P(('x','y'))", {4}), "import-uneven");  // 8 blocks of a 4-extent dim
  EXPECT_RULE(jax("x=2,y=4", "P(None, None, 'x')", {8, 8}), "import-dim");
  EXPECT_RULE(jax("2,4", "P()", {8}), "import-text");  // JAX names its axes
  EXPECT_RULE(jax("x=2,y=4", "P('x'", {8}), "import-text");
  EXPECT_RULE(jax("x=2,y=4", "Q('x')", {8}), "import-text");
  EXPECT_RULE(jax("x=2|layout=(2):(1)", "P()", {8}), "import-text");
}

// I2: devices listed row-major over the axes. 0,2,1,3 on x=2,y=2: (0,1) is 2, (1,0) is 1, so
// device = x + 2y, layout (2,2):(1,2). The reversed 3,2,1,0: 3 - 2x - y, a slice with offset 3.
// 0,1,3,2: (1,1) would be 1 + 3 - 0 = 4 if affine, but is 2: refused.
TEST(Imports, DeviceOrder) {
  EXPECT_EQ(to_string(import_mesh("x=2,y=2", {0, 2, 1, 3}, true)), "device(4)|x=2,y=2|layout=(2,2):(1,2)");
  EXPECT_EQ(to_string(import_mesh("x=2,y=2", {0, 1, 2, 3}, true)), "device(4)|x=2,y=2");
  Mesh rev = import_mesh("x=2,y=2", {3, 2, 1, 0}, true);
  EXPECT_EQ(rev.device_of({0, 0}), 3);
  EXPECT_EQ(rev.device_of({0, 1}), 2);
  EXPECT_EQ(rev.device_of({1, 1}), 0);
  EXPECT_RULE(import_mesh("x=2,y=2", {0, 1, 3, 2}, true), "import-device-order");
  EXPECT_RULE(import_mesh("x=2,y=2", {0, 1, 2, 5}, true), "import-device-order");  // 5 - 2 breaks x's unit step 2
  EXPECT_RULE(import_mesh("x=2,y=2", {0, 1, 2}, true), "import-text");
  // Owners on the reversed order, P("x") on (4,): (0,0)->3 and (0,1)->2 hold 0,1; devices 1, 0 hold 2,3.
  auto sl = import_jax(rev, "P('x')", {4});
  EXPECT_EQ(elements(sl, {4}), (std::vector<std::vector<int64_t>>{{2, 3}, {2, 3}, {0, 1}, {0, 1}}));
}

// Issue 44 item 12, I2: a sub-mesh, JAX's Mesh over devices 4..7 of an 8-device machine, is a
// slice of device(8) (the smallest domain holding the ids): the mesh layout None o 4 o (2,2):(2,1)
// sends (x,y) to 4 + 2x + y. P('x') on (8,): x = 0 (devices 4, 5) holds 0..3, x = 1 (6, 7) 4..7.
// Ids need not start at 0 or be contiguous (0,2,4,6: a slice of device(7), stride 2), but they are
// distinct and >= 0.
TEST(Imports, SubMeshes) {
  Mesh sub = import_mesh("x=2,y=2", {4, 5, 6, 7}, true);
  EXPECT_EQ(to_string(sub), "device(8)|x=2,y=2|layout=None o 4 o (2,2):(2,1)");
  EXPECT_EQ(sub.device_of({0, 0}), 4);
  EXPECT_EQ(sub.device_of({1, 1}), 7);
  auto sl = import_jax(sub, "P('x')", {8});
  const auto held = owners(sl, IntTuple::tuple({IntTuple(8)}));
  ASSERT_EQ(held.size(), 4u);
  EXPECT_EQ(held[0].device, 4);
  EXPECT_EQ(held[3].device, 7);
  EXPECT_EQ(elements(sl, {8}), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {0, 1, 2, 3}, {4, 5, 6, 7}, {4, 5, 6, 7}}));
  EXPECT_EQ(export_jax(sl, {8}).devices, (std::vector<int64_t>{4, 5, 6, 7}));  // the way back names the same devices
  Mesh even = import_mesh("4", {0, 2, 4, 6}, false);
  EXPECT_EQ(to_string(even), "device(7)|4|layout=None o 0 o (4):(2)");
  EXPECT_EQ(even.device_of({3}), 6);
  Mesh rev = import_mesh("x=2", {7, 6}, true);  // a reversed pair at the top of the machine
  EXPECT_EQ(rev.device_of({0}), 7);
  EXPECT_EQ(rev.device_of({1}), 6);
  EXPECT_RULE(import_mesh("x=2,y=2", {4, 5, 5, 7}, true), "import-device-order");  // 5 twice
  EXPECT_RULE(import_mesh("x=2", {-1, 0}, true), "import-device-order");
  EXPECT_RULE(import_mesh("x=2,y=2", {4, 5, 7, 6}, true), "import-device-order");  // not affine, as 0,1,3,2
}

// Issue 44 item 12, I7: JAX shards an empty array (every device holds an empty shard); a
// ShardLayout cannot (every extent >= 1), so an extent 0 is refused with extent-positive.
TEST(Imports, EmptyArraysAreRefused) {
  EXPECT_RULE(jax("x=2", "P('x')", {0}), "extent-positive");
  EXPECT_RULE(jax("x=2", "P()", {4, 0}), "extent-positive");
  EXPECT_RULE(dtensor("2", "Replicate()", {0}), "extent-positive");
}

// The DTensor example; Shard(0) twice splits dim 0 in mesh-dim order (dim 0 outer), as
// JAX's ("x","y") does; Partial keeps its reduction.
TEST(Imports, DTensorPlacements) {
  EXPECT_EQ(dtensor("x=2,y=4", "Shard(0),Replicate()", {8, 16}), "shard((2,4,16):(0,16,1); S(0),B; device(8)|x=2,y=4)");
  EXPECT_EQ(dtensor("2,4", "[Shard(0), Shard(0)]", {16}), "shard((2,4,2):(0,0,1); S(0),S(1); device(8)|2,4)");
  EXPECT_EQ(dtensor("2,4", "Shard(dim=-1), Partial('max')", {4, 8}), "shard((4,2,4):(4,0,1); S(1),P(\"max\"); device(8)|2,4)");
  EXPECT_EQ(dtensor("2", "Partial()", {2}), "shard((2):(1); P(); device(2)|2)");
  EXPECT_EQ(dtensor("2", "Partial(reduce_op=\"min\")", {2}), "shard((2):(1); P(\"min\"); device(2)|2)");
  EXPECT_EQ(dtensor("2", "Partial(ReduceOp.MAX)", {2}), "shard((2):(1); P(\"max\"); device(2)|2)");  // torch's enum spelling
}

// _StridedShard(0, split_factor=2) on 2 ranks over (8,): torch.chunk into 4 pieces of 2, rank i
// gets pieces i and i+2: rank 0 holds 0,1,4,5, rank 1 holds 2,3,6,7; the dim is (2, 2 @ x, 2).
// Followed by Shard(0) on a second mesh dim (FSDP over TP): the local (2, 2) cut in 2 takes the
// outer 2, so rank (dp, tp) holds block 2*tp + dp.
TEST(Imports, DTensorStridedShard) {
  auto one = import_dtensor(import_mesh("2", {}, false), "_StridedShard(0, split_factor=2)", {8});
  EXPECT_EQ(to_string(one), "shard((2,2,2):(2,0,1); S(1); device(2)|2)");
  EXPECT_EQ(elements(one, {8}), (std::vector<std::vector<int64_t>>{{0, 1, 4, 5}, {2, 3, 6, 7}}));
  auto fsdp = import_dtensor(import_mesh("dp=2,tp=2", {}, false), "[_StridedShard(dim=0, split_factor=2), Shard(0)]", {8});
  EXPECT_EQ(to_string(fsdp), "shard((2,2,2):(0,0,1); S(1),S(0); device(4)|dp=2,tp=2)");
  // devices (dp,tp) = 2*dp + tp: (0,0) block 0, (0,1) block 2, (1,0) block 1, (1,1) block 3.
  EXPECT_EQ(elements(fsdp, {8}), (std::vector<std::vector<int64_t>>{{0, 1}, {4, 5}, {2, 3}, {6, 7}}));
  // On a mesh dim of extent 1 the one rank takes every piece in order: the whole local tensor,
  // whatever the split_factor (3 does not divide 8 here). Then Shard(0) over 2: rank j holds 4j..4j+3.
  EXPECT_EQ(dtensor("1,2", "_StridedShard(0, split_factor=3), Shard(0)", {8}), "shard((1,2,4):(0,0,1); S(0),S(1); device(2)|1,2)");
}

// Issue 44 item 1: a one-element placement list, in every bracket form, keeps its keyword
// arguments. `[X]` and torch's printed one-tuple `(X,)` are the placements inside; `(X)` is X, as
// in Python. Partial(reduce_op='max') on one axis is P("max"), never the default sum; Shard(dim=0)
// on 2 ranks over (8,) is (2 @ x, 4): G (2,4), per-instance strides (0,1).
TEST(Imports, DTensorOneElementListsKeepTheirKeywords) {
  for (const char* form : {"Partial(reduce_op='max')", "[Partial(reduce_op='max')]", "(Partial(reduce_op='max'),)", "(Partial(reduce_op='max'))",
                           "[Partial(reduce_op=\"max\")]", "[ Partial( reduce_op = 'max' ) ]", "(Partial(reduce_op='max'), )"})
    EXPECT_EQ(dtensor("dp=2", form, {8}), "shard((8):(1); P(\"max\"); device(2)|dp=2)") << form;
  for (const char* form : {"Shard(dim=0)", "[Shard(dim=0)]", "(Shard(dim=0),)", "(Shard(dim=0))", "[Shard(0)]", "(Shard(0),)", "[Shard(dim=-1)]"})
    EXPECT_EQ(dtensor("2", form, {8}), "shard((2,4):(0,1); S(0); device(2)|2)") << form;
  // Two and more elements in each bracket form: (x, y) = (2, 2) on (4, 8): Shard(1) on x is
  // (4, 2 @ x, 4); Partial("min") on y.
  for (const char* form : {"[Shard(dim=1), Partial(reduce_op='min')]", "(Shard(dim=1), Partial(reduce_op='min'))",
                           "Shard(dim=1), Partial(reduce_op='min')", "(Shard(dim=1), Partial(reduce_op='min'),)"})
    EXPECT_EQ(dtensor("x=2,y=2", form, {4, 8}), "shard((4,2,4):(4,0,1); S(1),P(\"min\"); device(4)|x=2,y=2)") << form;
  // A list inside a list is not a placement.
  EXPECT_RULE(dtensor("2", "[[Shard(0)]]", {8}), "import-text");
}

// Issue 44 item 4: DTensor refuses Partial placements with different reduce ops, so the import
// does (I4); equal ones are one Partial on each axis. torch 2.15 prints _StridedShard's
// split_factor as `sf=`: _StridedShard(dim=0, sf=2) is _StridedShard(0, split_factor=2) (the
// case of DTensorStridedShard: rank 0 holds 0,1,4,5).
TEST(Imports, DTensorMixedPartialsAndTheSfSpelling) {
  EXPECT_RULE(dtensor("2,2", "Partial('sum'), Partial('min')", {4}), "import-partial-reduction");
  EXPECT_RULE(dtensor("2,2,2", "Partial(), Shard(0), Partial(reduce_op='max')", {4}), "import-partial-reduction");
  EXPECT_RULE(dtensor("2,2", "[Partial('max'), Partial('min')]", {4}), "import-partial-reduction");
  EXPECT_EQ(dtensor("2,2", "Partial('max'), Partial(reduce_op='max')", {4}), "shard((4):(1); P(\"max\"),P(\"max\"); device(4)|2,2)");
  EXPECT_EQ(dtensor("2,2", "Partial(), Partial('sum')", {4}), "shard((4):(1); P(),P(); device(4)|2,2)");
  for (const char* form : {"_StridedShard(dim=0, sf=2)", "[_StridedShard(dim=0, sf=2)]", "(_StridedShard(dim=0, sf=2),)", "_StridedShard(0, sf=2)"}) {
    auto sl = import_dtensor(import_mesh("2", {}, false), form, {8});
    EXPECT_EQ(to_string(sl), "shard((2,2,2):(2,0,1); S(1); device(2)|2)") << form;
    EXPECT_EQ(elements(sl, {8}), (std::vector<std::vector<int64_t>>{{0, 1, 4, 5}, {2, 3, 6, 7}})) << form;
  }
  EXPECT_RULE(dtensor("2", "_StridedShard(dim=0)", {8}), "import-text");  // no split_factor at all
}

TEST(Imports, DTensorRefusals) {
  EXPECT_RULE(dtensor("2", "Shard(0)", {3}), "import-uneven");  // torch.chunk: 2 and 1
  EXPECT_RULE(dtensor("4", "Shard(0)", {2}), "import-uneven");  // torch.chunk: 1, 1, empty, empty
  EXPECT_RULE(dtensor("2", "Partial('avg')", {2}), "import-partial-reduction");
  EXPECT_RULE(dtensor("2", "Partial('product')", {2}), "import-partial-reduction");
  EXPECT_RULE(dtensor("2,2", "Shard(0)", {4}), "shard-attrs-rank");
  EXPECT_RULE(dtensor("2", "Shard(2)", {4, 4}), "import-dim");
  EXPECT_RULE(dtensor("2", "Sharded(0)", {4}), "import-text");
  // _StridedShard(0, 2) on x=2 leaves (2, _, 2) free; a Shard(0) by 4 would take both free
  // factors as one block, but x's split lies between them.
  EXPECT_RULE(dtensor("2,4", "_StridedShard(0, split_factor=2), Shard(0)", {8}), "import-not-expressible");
}

// The way back (I5): ("y","x") has y outer, which JAX writes and DTensor's Shard cannot.
TEST(Imports, Exports) {
  auto sl = import_jax(import_mesh("x=2,y=2", {}, true), "P(None, ('y','x'))", {3, 8});
  Exported j = export_jax(sl, {3, 8});
  EXPECT_EQ(j.sharding, "P(None, ('y', 'x'))");
  EXPECT_EQ(j.mesh, "x=2,y=2");
  EXPECT_EQ(j.devices, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_RULE(export_dtensor(sl, {3, 8}), "import-not-expressible");
  auto d = import_dtensor(import_mesh("x=2,y=2", {0, 2, 1, 3}, false), "Shard(1), Partial('max')", {3, 8});
  Exported e = export_dtensor(d, {3, 8});
  EXPECT_EQ(e.sharding, "Shard(1), Partial('max')");
  EXPECT_EQ(e.devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_RULE(export_jax(d, {3, 8}), "import-not-expressible");  // JAX's unreduced is a sum
  // x splitting the inner factor of (8,) = (2,4 @ x): blocks are not contiguous; neither library.
  auto replicated = import_jax(import_mesh("x=4", {}, true), "P()", {8});
  EXPECT_RULE(export_jax(parse_shard_layout("shard((2,4):(1,0); S(1); x=4)"), {8}), "import-not-expressible");
  EXPECT_EQ(export_jax(replicated, {8}).sharding, "P(None)");
  EXPECT_EQ(logical_local_shape(sl, {3, 8}), (std::vector<int64_t>{3, 2}));
}
