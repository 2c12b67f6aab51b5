// §5 Topology / Mesh / MeshAxis, D6, D7, D12; ShardLayout as a LayoutBase kind (printer, JSON,
// text, ComposedLayout); reshard execution failures.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec {
namespace {

using tfspec::testing::error_id;

TEST(Mesh, TopologiesNormalizeAndThePrimaryIsTheFirst) {  // §5
  Mesh m = make_mesh({"warp(4)", "thread(32)"}, IntTuple::tuple({4, 32}), std::vector<std::string>{"w", "t"});
  ASSERT_EQ(m.topologies().size(), 2u);
  EXPECT_EQ(&m.topology(), &m.topologies()[0]);
  EXPECT_EQ(m.topology(), (Topology{"warp", 4}));
  Mesh one = mesh_from_json(Json::parse(R"J({"topologies":{"name":"warp","num_devices":4},"layout":"(4):(1)"})J"));
  EXPECT_EQ(one.topologies().size(), 1u);  // a single Topology normalizes to a one-element tuple
  EXPECT_EQ(error_id([] { Mesh({}, std::make_shared<Layout>(IntTuple::tuple({4}))); }), "mesh-topologies-empty");
  // A raw string where a Topology is expected is rejected; the surface resolver converts names.
  EXPECT_EQ(error_id([] { mesh_from_json(Json::parse(R"J({"topologies":["warp"],"layout":"(4):(1)"})J")); }), "mesh-topology-string");
  EXPECT_EQ(error_id([] { mesh_from_json(Json::parse(R"J({"topology":"cta","layout":"(4):(1)"})J")); }), "mesh-topology-string");
  EXPECT_EQ(resolve_topology("cta"), (Topology{"cta", std::nullopt}));
  EXPECT_EQ(error_id([] { resolve_topology("warp(0)"); }), "topology-num-devices");
  EXPECT_EQ(error_id([] { resolve_topology("warp"); }), "topology-dynamic-cta");  // only cta may be launch-provided
}

TEST(Mesh, Validation) {  // §5
  EXPECT_EQ(error_id([] { parse_mesh("warp(4)|x=2,y=4"); }), "mesh-topology-size");  // 8 instances, 4 devices
  EXPECT_EQ(error_id([] { make_mesh({"warp(4)"}, IntTuple::tuple({4}), std::vector<std::string>{"a", "b"}); }), "mesh-names-rank");
  EXPECT_EQ(error_id([] { parse_mesh("x=2,x=2"); }), "mesh-names-unique");
  EXPECT_EQ(error_id([] { parse_mesh("x=2,y=-1"); }), "extent-positive");
  EXPECT_EQ(error_id([] { parse_mesh("x=99999999999999999999"); }), "int-literal-range");
  EXPECT_EQ(error_id([] { parse_mesh("x=4611686018427387904,y=4"); }), "int64-overflow");
}

TEST(Mesh, TopologyDomainIsTheProductOfNumDevices) {  // §5 / D6
  EXPECT_EQ(parse_mesh("warp(8)*thread(32)|x=2,y=4,t=32").topology_domain(), 256);
  EXPECT_EQ(parse_mesh("cta|x=None,t=32").topology_domain(), std::nullopt);           // launch-provided
  EXPECT_EQ(parse_mesh("cta(None)*thread(32)|x=None,t=32").topology_domain(), std::nullopt);
}

TEST(Mesh, AxesAndStaticIndexing) {  // §5 MeshAxis, §1 fail closed
  Mesh m = parse_mesh("warp(8)*thread(32)|x=2,y=4,t=32");
  EXPECT_EQ(m.axis("y").index, 1);
  EXPECT_EQ(m.axis("y").size, 4);
  EXPECT_EQ(m.axes(2).size, 32);
  EXPECT_EQ(error_id([&] { m.axis("q"); }), "mesh-axis-unknown");
  // D12: row-major mesh layout, the last axis fastest: device (x, y, t) = (x*4 + y)*32 + t.
  EXPECT_EQ(m.device_of({1, 2, 5}), (1 * 4 + 2) * 32 + 5);
  Mesh dyn = parse_mesh("cta|x=None,t=32");
  EXPECT_EQ(error_id([&] { dyn.axes(0); }), "mesh-extent-static");
  EXPECT_EQ(error_id([&] { dyn[IntTuple::tuple({0, IntTuple::none()})]; }), "mesh-extent-static");
  Mesh sym = parse_mesh("cta|x=M,t=32");
  EXPECT_EQ(error_id([&] { sym.axes(0); }), "mesh-extent-static");
}

TEST(Mesh, DottedNames) {  // §5: names such as cta.x; mesh.x finds them
  Mesh m = parse_mesh("cta(2)*thread(4)|cta.x=2,thread.x=4");
  EXPECT_EQ(m.axis("cta.x").index, 0);
  EXPECT_EQ(error_id([&] { m.axis("x"); }), "mesh-axis-ambiguous");
  Mesh n = parse_mesh("cta(2)*thread(4)|cta.x=2,cta.y=4");
  EXPECT_EQ(n.axis("y").index, 1);
  EXPECT_EQ(read_shard_layout(Json("(4 @ m.y, 2 @ m.cta.x)"), n).attrs(), (std::vector<ShardAttr>{S(1), S(0)}));
  EXPECT_EQ(error_id([] { parse_mesh("x.=2"); }), "mesh-names-unique");
}

TEST(Mesh, ConstantSliceRecordsTheSubBox) {  // §5 / D7
  Mesh m = parse_mesh("warp(8)*thread(32)|x=2,y=4,t=32");
  Mesh s = m[IntTuple::tuple({1, IntTuple::none(), 3})];  // m[1, _, 3]
  ASSERT_EQ(s.layout()->kind(), LayoutKind::Composed);
  const auto& c = static_cast<const ComposedLayout&>(*s.layout());
  EXPECT_EQ(c.inner(), nullptr);
  EXPECT_EQ(c.offset(), 1 * 128 + 3);  // origin (1, 0, 3) under strides (128, 32, 1)
  EXPECT_EQ(to_string(*c.outer()), "(4):(32)");
  EXPECT_EQ(*s.names(), (std::vector<std::string>{"y"}));
  EXPECT_EQ(s.device_of({2}), m.device_of({1, 2, 3}));
  EXPECT_EQ(s.topologies(), m.topologies());
  Mesh s2 = s[IntTuple::tuple({2})];  // slicing a slice
  EXPECT_EQ(s2.rank(), 0);
  EXPECT_EQ(static_cast<const ComposedLayout&>(*s2.layout()).offset(), m.device_of({1, 2, 3}));
  EXPECT_EQ(error_id([&] { m[IntTuple::tuple({IntTuple::sym(dim_var("i")), 0, 0})]; }), "mesh-static-index");
  EXPECT_EQ(error_id([&] { m[IntTuple::tuple({2, 0, 0})]; }), "mesh-slice-range");
  EXPECT_EQ(error_id([&] { m[IntTuple::tuple({0, 0})]; }), "mesh-slice-rank");
  EXPECT_EQ(parse_mesh(to_string(s)), s);  // the text form round-trips the slice
  // Ranges narrow an axis: m[0, 1:3, _] keeps y (extent 2, origin 1) and t.
  Mesh r = m.slice(parse_mesh_index("(0, 1:3, _)"));
  EXPECT_EQ(static_cast<const ComposedLayout&>(*r.layout()).offset(), 1 * 32);
  EXPECT_EQ(to_string(*static_cast<const ComposedLayout&>(*r.layout()).outer()), "(2,32):(32,1)");
  EXPECT_EQ(r.device_of({1, 7}), m.device_of({0, 2, 7}));
  EXPECT_EQ(error_id([&] { m.slice(parse_mesh_index("(0, 3:5, _)")); }), "mesh-slice-range");
  EXPECT_EQ(error_id([&] { m.slice(parse_mesh_index("(0, 2:2, _)")); }), "mesh-slice-range");
  EXPECT_EQ(error_id([&] { parse_mesh_index("(i, 0, 0)"); }), "mesh-static-index");
}

TEST(Mesh, TextAndJsonRoundTrip) {
  for (const char* t : {"warp(8)*thread(32)|x=2,y=4,t=32", "device(6)|2,3", "cta(None)*thread(32)|x=None,t=32", "device(4)|x=2,y=2|layout=(2,2):(1,2)"}) {
    Mesh m = parse_mesh(t);
    EXPECT_EQ(to_string(m), t);
    EXPECT_EQ(mesh_from_json(mesh_to_json(m)), m);
  }
}

TEST(ShardLayoutKind, PrinterJsonParserAndComposed) {  // §2, §4: a LayoutBase like the others
  auto sl = parse_any_layout("shard((2,4,3):(0,0,1); S(0),S(1); x=2,y=4)");
  ASSERT_EQ(sl->kind(), LayoutKind::Shard);
  EXPECT_EQ(to_string(*sl), "shard((2,4,3):(0,0,1); S(0),S(1); device(8)|x=2,y=4)");
  Json j = to_json(*sl);
  EXPECT_EQ(j["kind"], "shard");
  auto back = any_layout_from_json(j);
  EXPECT_EQ(to_string(*back), to_string(*sl));
  EXPECT_EQ(to_string(*parse_any_layout(to_string(*sl))), to_string(*sl));
  EXPECT_EQ(sl->domain_rank(), 3);
  // ComposedLayout with a ShardLayout outer keeps the shard's shape (§4) and applies it first.
  ComposedLayout c(nullptr, 5, sl);
  EXPECT_EQ(c.shape(), IntTuple::tuple({2, 4, 3}));
  EXPECT_EQ(c.apply(IntTuple::tuple({1, 3, 2})), 5 + 2);
  // ShardAttr JSON accepts objects and sugar strings; an unknown attr is an error.
  auto s2 = shard_from_json(Json::parse(R"J({"kind":"shard","layout":"(2):(0)","attrs":[{"kind":"partial","reduction":"min"}],"mesh":"x=2"})J"));
  EXPECT_EQ(s2.attrs(), (std::vector<ShardAttr>{P("min")}));
  EXPECT_EQ(error_id([] { parse_shard_attr("Q(1)"); }), "shard-attr-text");
  EXPECT_EQ(error_id([] { parse_shard_layout("shard((2):(0); S(0))"); }), "shard-text");
}

TEST(ShardDerived, LocalShapeRegroupAndPhysicalElement) {  // §7.1.1, §8 / D2, §7.1.2 / D3
  EXPECT_EQ(regroup(IntTuple::tuple({1, 1536}), IntTuple::tuple({1, 8, 192})), (std::vector<std::vector<int>>{{0}, {1, 2}}));
  // size-1 layout dims join the current run
  EXPECT_EQ(regroup(IntTuple::tuple({2, 3}), IntTuple::tuple({2, 1, 3, 1})), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(error_id([] { regroup(IntTuple::tuple({2, 3}), IntTuple::tuple({3, 2})); }), "shard-regroup");
  EXPECT_EQ(error_id([] { regroup(IntTuple::tuple({4}), IntTuple::tuple({IntTuple::sym(dim_var("M"))})); }), "needs-concrete");
  // smem: engine is the CTA; topologies outermost first, cta(2)*thread(4): device d lives in CTA d / 4.
  ShardLayout sl = parse_shard_layout("shard((2,4,3):(0,3,1); S(0),S(1); cta(2)*thread(4)|c=2,t=4)");
  EXPECT_EQ(physical_element(sl, Storage::Smem, {1, 2}, {0, 0, 1}), (PhysicalElement{1, 2 * 3 + 1}));
  EXPECT_EQ(physical_element(sl, Storage::Rmem, {1, 2}, {0, 0, 1}), (PhysicalElement{6, 7}));
  EXPECT_EQ(physical_element(sl, Storage::Gmem, {1, 2}, {0, 0, 1}).engine, 0);
}

TEST(ShardExecution, FailuresAreExplicit) {
  ShardLayout rep = parse_shard_layout("shard((2,3):(0,1); S(0),B; x=2,y=2)");
  Tensor t{{6}, {1, 2, 3, 4, 5, 6}};
  Engines e = distribute(t, rep, Storage::Rmem);
  EXPECT_EQ(assemble(e, rep, {6}), t);
  // Broadcast replicas that disagree: instance (0, 1) corrupted.
  Engines bad = e;
  bad.buffers.at(1)[0] += 1;
  EXPECT_EQ(error_id([&] { assemble(bad, rep, {6}); }), "replica-mismatch");
  EXPECT_EQ(error_id([&] { distribute(Tensor{{6}, {1, 2, 3}}, rep, Storage::Rmem); }), "tensor-data-size");
  EXPECT_EQ(error_id([&] { distribute(Tensor{{7}, {1, 2, 3, 4, 5, 6, 7}}, rep, Storage::Rmem); }), "shard-size-match");
  Engines shortbuf = e;
  shortbuf.buffers.at(0).pop_back();
  EXPECT_EQ(error_id([&] { assemble(shortbuf, rep, {6}); }), "engine-buffer-size");
  Engines missing = e;
  missing.buffers.erase(0);
  EXPECT_EQ(error_id([&] { assemble(missing, rep, {6}); }), "engine-missing");
  ShardLayout dyn = parse_shard_layout("shard((2,3):(0,1); S(0),D; x=2,y=2)");
  EXPECT_EQ(error_id([&] { distribute(t, dyn, Storage::Rmem); }), "dynamic-unresolved");
  ShardLayout part = parse_shard_layout("shard((6):(1); P(); x=2)");
  EXPECT_EQ(error_id([&] { distribute(t, part, Storage::Gmem); }), "partial-aliased");
  ShardLayout none = parse_shard_layout("shard((2,3):None; S(0),B; x=2,y=2)");
  EXPECT_EQ(error_id([&] { distribute(t, none, Storage::Rmem); }), "shard-stride-materialized");
}

TEST(ShardExecution, ComposedUnderlyingLayout) {  // §7.1: any LayoutBase may be bound
  // Offset 2 then (2,3):(0,1): each instance's engine holds its 3 elements at offsets 2..4.
  ShardLayout sl = parse_shard_layout("shard(None o 2 o (2,3):(0,1); S(0); x=2)");
  EXPECT_TRUE(check_shard_layout(sl).ok());
  Tensor t{{2, 3}, {1, 2, 3, 4, 5, 6}};
  Engines e = distribute(t, sl, Storage::Rmem);
  EXPECT_EQ(e.buffers.at(1), (std::vector<int64_t>{0, 0, 4, 5, 6}));
  EXPECT_EQ(assemble(e, sl, {2, 3}), t);
  // Typeinfer cannot materialize strides inside a composition: S None stays reachable -> refused.
  ShardLayout none = parse_shard_layout("shard(None o 0 o (2,3):None; S(0); x=2)");
  EXPECT_EQ(error_id([&] { reshard_typeinfer(TensorType{IntTuple::tuple({6}), nullptr, Storage::Gmem}, none, Storage::Rmem); }),
            "shard-stride-materialized");
}

TEST(ShardExecution, PartialReductions) {  // §6
  Tensor t{{3}, {5, -7, 0}};
  for (const char* r : {"sum", "max", "min"}) {
    ShardLayout sl = parse_shard_layout(std::string("shard((3):(1); P(\"") + r + "\"); x=4)");
    Engines e = distribute(t, sl, Storage::Rmem);
    EXPECT_EQ(assemble(e, sl, {3}), t) << r;
  }
  // sum: instance 0 holds x, the others hold 0 (spec/SHARD.md, Partial).
  ShardLayout sum = parse_shard_layout("shard((3):(1); P(); x=2)");
  Engines e = distribute(t, sum, Storage::Rmem);
  EXPECT_EQ(e.buffers.at(0), (std::vector<int64_t>{5, -7, 0}));
  EXPECT_EQ(e.buffers.at(1), (std::vector<int64_t>{0, 0, 0}));
  // Hand-made contributions: 2 + 3 = 5, -10 + 3 = -7, 4 + -4 = 0.
  Engines hand{Storage::Rmem, {{0, {2, -10, 4}}, {1, {3, 3, -4}}}};
  EXPECT_EQ(assemble(hand, sum, {3}), t);
  // An overflowing sum is an error, never a wrapped value.
  Engines huge{Storage::Rmem, {{0, {INT64_MAX, 0, 0}}, {1, {1, 0, 0}}}};
  EXPECT_EQ(error_id([&] { assemble(huge, sum, {3}); }), "int64-overflow");
}

// D18 (spec/SHARD.md): shard((3):(2); B; x=2) on rmem puts element c at offset 2c of both
// replicas' engines, so each buffer runs to offset 4 (5 slots) with 0 in the unwritten slots 1
// and 3. assemble reads offsets 0, 2, 4 only: a longer buffer is fine, a shorter one is not.
TEST(ShardExecution, BuffersRunToTheLargestOffset) {
  ShardLayout sl = parse_shard_layout("shard((3):(2); B; x=2)");
  Engines e = distribute(Tensor{{3}, {7, 8, 9}}, sl, Storage::Rmem);
  EXPECT_EQ(e.buffers.at(0), (std::vector<int64_t>{7, 0, 8, 0, 9}));
  EXPECT_EQ(e.buffers.at(1), (std::vector<int64_t>{7, 0, 8, 0, 9}));
  Engines longer{Storage::Rmem, {{0, {7, 0, 8, 0, 9, 42}}, {1, {7, 5, 8, 5, 9}}}};
  EXPECT_EQ(assemble(longer, sl, {3}), (Tensor{{3}, {7, 8, 9}}));
  Engines shorter{Storage::Rmem, {{0, {7, 0, 8, 0}}, {1, {7, 0, 8, 0, 9}}}};
  EXPECT_EQ(error_id([&] { assemble(shorter, sl, {3}); }), "engine-buffer-size");
}

}  // namespace
}  // namespace tfspec
