// D16 mesh validity (a mesh layout maps mesh coordinates one-to-one into [0, topology_domain)),
// engines a layout does not have, and the order of the shard checks (issue 8). Expected values
// are derived by hand in the comments.
#include <gtest/gtest.h>

#include "test_support.hpp"


#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec {
namespace {

using tfspec::testing::error_id;

TEST(MeshValidity, DevicesOutOfRangeNegativeOrSharedAreRefused) {  // §5 / D16
  // (2,2):(1,4): coordinate (1,1) is device 1*1 + 1*4 = 5 >= 4 devices.
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2,y=2|layout=(2,2):(1,4)"); }), "mesh-device-range");
  // (2,2):(-1,2): coordinate (1,0) is device -1.
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2,y=2|layout=(2,2):(-1,2)"); }), "mesh-device-negative");
  // (2,2):(1,1): coordinates (1,0) and (0,1) are both device 1, though every device is in [0, 4).
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2,y=2|layout=(2,2):(1,1)"); }), "mesh-device-shared");
  // A slice whose origin (100) lies past the 4 devices; and one whose origin (3) is inside but
  // whose second instance is device 3 + 1 = 4.
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2|layout=None o 100 o (2):(1)"); }), "mesh-slice-offset");
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2|layout=None o -1 o (2):(1)"); }), "mesh-slice-offset");
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2|layout=None o 3 o (2):(1)"); }), "mesh-device-range");
  // The JSON form goes through the same constructor.
  EXPECT_EQ(error_id([] { mesh_from_json(Json::parse(R"J({"topologies":[{"name":"device","num_devices":4}],"layout":"(2,2):(1,4)"})J")); }),
            "mesh-device-range");
  // Without a static domain (a launch-provided cta) negatives and sharing are still refused.
  EXPECT_EQ(error_id([] { parse_mesh("cta(None)*thread(2)|x=2,t=2|layout=(2,2):(1,1)"); }), "mesh-device-shared");
  EXPECT_EQ(error_id([] { parse_mesh("cta(None)*thread(2)|x=2,t=2|layout=(2,2):(-2,1)"); }), "mesh-device-negative");
}

TEST(MeshValidity, ValidMeshesAndSlicesStayAccepted) {  // §5 / D7 / D12 / D16
  Mesh m = parse_mesh("warp(8)*thread(32)|x=2,y=4,t=32");
  EXPECT_EQ(m.device_of({1, 3, 31}), 255);                       // the last device, (1*4 + 3)*32 + 31
  Mesh s = m.slice(parse_mesh_index("(1,_,3)"));                 // D7: None o 131 o (4):(32)
  EXPECT_EQ(to_string(*s.layout()), "None o 131 o (4):(32)");
  EXPECT_EQ(s.device_of({3}), 131 + 3 * 32);                     // 227 < 256
  EXPECT_EQ(error_id([] { parse_mesh("device(4)|x=2,y=2|layout=(2,2):(2,1)"); }), "(no error)");  // column-major is fine
  EXPECT_EQ(error_id([] { parse_mesh("device(6)|x=2|layout=None o 4 o (2):(1)"); }), "(no error)");  // devices 4, 5
  EXPECT_EQ(error_id([] { parse_mesh("cta|x=None,t=32"); }), "(no error)");  // symbolic: left to the consumers
}

TEST(MeshValidity, ShardLayoutsOnAnInvalidMeshNeverDistribute) {  // D16: no bogus engines
  // Before D16, rmem distribute over this mesh wrote engines 0, 1, 4, 5 of a 4-device domain.
  EXPECT_EQ(error_id([] { parse_shard_layout("shard((2,2):(0,0); S(0),S(1); device(4)|x=2,y=2|layout=(2,2):(1,4))"); }), "mesh-device-range");
  EXPECT_EQ(error_id([] { parse_shard_layout("shard((2,2):(0,0); S(0),S(1); device(4)|x=2,y=2|layout=(2,2):(1,1))"); }), "mesh-device-shared");
}

TEST(Reshard, AssembleRefusesABufferForAnEngineTheLayoutDoesNotHave) {  // §7.1.2
  // shard((2):(0); S(0); x=2) under rmem: instance m holds element m at offset 0 of engine m.
  ShardLayout sl = parse_shard_layout("shard((2):(0); S(0); x=2)");
  Engines e = distribute(Tensor{{2}, {7, 9}}, sl, Storage::Rmem);
  ASSERT_EQ(e.buffers, (std::map<int64_t, std::vector<int64_t>>{{0, {7}}, {1, {9}}}));
  EXPECT_EQ(assemble(e, sl, {2}), (Tensor{{2}, {7, 9}}));
  Engines extra = e;
  extra.buffers[5] = {1};  // device 5 does not exist in device(2)
  EXPECT_EQ(error_id([&] { assemble(extra, sl, {2}); }), "engine-unknown");
  // gmem has one engine, 0: a buffer for engine 1 is refused too.
  ShardLayout shared = parse_shard_layout("shard((2):(1); S(0); x=2)");
  Engines g = distribute(Tensor{{2}, {7, 9}}, shared, Storage::Gmem);
  ASSERT_EQ(g.buffers, (std::map<int64_t, std::vector<int64_t>>{{0, {7, 9}}}));
  g.buffers[1] = {0, 0};
  EXPECT_EQ(error_id([&] { assemble(g, shared, {2}); }), "engine-unknown");
}

// fuzz_shard_text finding 8 (fuzz/RESULTS.md): a buffer runs to its largest offset, so a stride
// of 2^34 on four elements asked for 3*2^34 + 1 int64 slots and the process ran out of memory.
TEST(Distribute, BuffersPastTheElementLimitAreALimitNotACrash) {  // §7, resource-limit
  ShardLayout sparse = parse_shard_layout("shard((4):(17179869184); P(\"max\"); x=1)");
  EXPECT_EQ(error_id([&] { distribute(Tensor{{4}, {1, 2, 3, 4}}, sparse, Storage::Gmem); }), "resource-limit");
  // 2^24 slots in all is the bound: (2):(2^24 - 1) needs exactly 2^24 and is answered.
  ShardLayout edge = parse_shard_layout("shard((2):(16777215); B; x=1)");
  Engines e = distribute(Tensor{{2}, {5, 7}}, edge, Storage::Gmem);
  ASSERT_EQ(e.buffers.at(0).size(), size_t{1} << 24);
  EXPECT_EQ(e.buffers.at(0)[16777215], 7);
  EXPECT_EQ(error_id([] { distribute(Tensor{{2}, {5, 7}}, parse_shard_layout("shard((2):(16777216); B; x=1)"), Storage::Gmem); }),
            "resource-limit");
}

TEST(ShardChecks, InjectivityUndecidedIsReportedOnce) {  // §2 / D3: one walk, one report
  // 2048 instances x 1024 local elements = 2^21 pairs > the 2^20 enumeration bound.
  ShardLayout sl = parse_shard_layout("shard((2048,1024):(0,1); S(0); x=2048)");
  CheckReport r = check_shard_layout(sl);
  EXPECT_TRUE(r.violations.empty());
  ASSERT_EQ(r.undecided.size(), 1u);
  EXPECT_EQ(r.undecided[0].rule, "injectivity-undecided");
}

TEST(ShardChecks, TypeinferChecksSizesBeforeEnumerating) {  // §7.1.1 before D3
  // The order is observable through the rule reported, not through time (no timed tests): this
  // dst has 2048 instances x 1024 local elements = 2^21 (instance, element) pairs, past the 2^20
  // enumeration bound, so the D3 walk would report injectivity-undecided; size(G) = 2^21 differs
  // from size(T.shape) = 2048*1023, which must be refused first (the cheap rule, shard-size-match).
  ShardLayout dst = parse_shard_layout("shard((2048,1024):(0,1); S(0); x=2048)");
  TensorType src{IntTuple::tuple({2048, 1023}), nullptr, Storage::Gmem};
  EXPECT_EQ(error_id([&] { reshard_typeinfer(src, dst, Storage::Rmem); }), "shard-size-match");
  // With matching sizes the same dst reaches the D3 walk and is undecided.
  TensorType same{IntTuple::tuple({2048, 1024}), nullptr, Storage::Gmem};
  EXPECT_EQ(error_id([&] { reshard_typeinfer(same, dst, Storage::Rmem); }), "injectivity-undecided");
}

TEST(ShardText, LayoutMissingAndAMalformedAxisReference) {  // §7.1, §7.1.1 sugar
  EXPECT_EQ(error_id([] { shard_from_json(Json::parse(R"J({"kind":"shard","attrs":["B"],"mesh":"x=2"})J")); }), "shard-layout-missing");
  EXPECT_EQ(error_id([] { read_shard_layout(Json("(2 @ @ m.x)"), parse_mesh("x=2")); }), "sugar-text");  // was read as (2 @ m.x)
  EXPECT_EQ(to_string(read_shard_layout(Json("(2 @ m.x)"), parse_mesh("x=2"))), "shard((2):None; S(0); device(2)|x=2)");
}

TEST(LayoutCheck, ANoneExtentIsLegal) {  // §1: Layout((None,), (1,)) is a layout
  CheckReport one = check_layout(parse_layout("(None):(1)"));  // offsets 0..n-1 for every n: injective
  EXPECT_TRUE(one.ok());
  EXPECT_TRUE(check_layout(parse_layout("(None,1):(3,0)")).ok());  // the size-1 mode adds nothing
  // (None,2):(1,1): injective for None = 1 (offsets 0, 1), not for None = 2 ((1,0) and (0,1) are both 1).
  CheckReport depends = check_layout(parse_layout("(None,2):(1,1)"));
  EXPECT_TRUE(depends.violations.empty());
  ASSERT_EQ(depends.undecided.size(), 1u);
  EXPECT_EQ(depends.undecided[0].rule, "injectivity-undecided");
  EXPECT_EQ(check_layout(parse_layout("(None):(0)")).undecided.size(), 1u);  // injective only for None = 1
  // A symbolic extent is still layout-concrete (`tfspec prove` decides those).
  CheckReport sym = check_layout(parse_layout("(M):(1)"));
  ASSERT_EQ(sym.violations.size(), 1u);
  EXPECT_EQ(sym.violations[0].rule, "layout-concrete");
}

}  // namespace
}  // namespace tfspec
