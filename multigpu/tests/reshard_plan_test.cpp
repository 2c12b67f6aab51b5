// The reshard planner on hand-derived cases (spec/MULTIGPU.md): each test writes out the schedule
// and byte counts it expects, derived from the collective's definition and the ring model, and
// runs the plan through the simulator against the reference's reshard (§7.4, D9).
#include <gtest/gtest.h>

#include "release_only.hpp"

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/reshard.hpp"

#include "../../reference/tests/test_support.hpp"

namespace tfspec::multigpu {
namespace {

ShardLayout shard(const std::string& text) { return parse_shard_layout(text); }

using tfspec::testing::error_id;  // the rule id a statement fails with, or "(no error)"

std::vector<const Collective*> collectives(const Plan& p) {
  std::vector<const Collective*> out;
  for (const auto& s : p.steps)
    if (auto* c = std::get_if<Collective>(&s)) out.push_back(c);
  return out;
}

// Runs the plan on `src_buffers` and returns the DST buffers; checks them against the reference.
DeviceBuffers run_and_check(const Plan& plan, const std::string& src, const std::string& dst, const std::vector<int64_t>& shape,
                            const DeviceBuffers& src_buffers) {
  ShardLayout s = materialize_for_devices(shard(src), shape);
  ShardLayout d = materialize_for_devices(shard(dst), shape);
  DeviceBuffers out = simulate(plan, src_buffers);
  Engines ref = reshard(Engines{Storage::Rmem, src_buffers}, s, d, Storage::Rmem, shape);
  EXPECT_EQ(out, ref.buffers);
  return out;
}

// 4 devices, 8 elements, Split -> Broadcast: one ncclAllGather of sendcount 2 along x. In the
// ring, every rank forwards the 3 blocks it does not own: 3 * 2 = 6 elements sent and 6 received
// (it originates 2 of the 6 it sends). At 4 bytes: 24 B each way, 96 B in all, which is the lower
// bound: each device lacks 6 of the 8 elements and must receive them (4 * 6 * 4 B = 96 B).
TEST(ReshardPlan, SplitToBroadcastIsOneAllGather) {
  const char* src = "shard((4,2):(0,1); S(0); device(4)|x=4)";
  const char* dst = "shard((4,2):(2,1); B; device(4)|x=4)";
  Plan p = plan_reshard(shard(src), shard(dst), {8}, 4);
  EXPECT_EQ(p.pattern, "all-gather");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0]->kind, CollectiveKind::AllGather);
  EXPECT_EQ(cs[0]->groups, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}}));
  EXPECT_EQ(cs[0]->count, 2);
  EXPECT_EQ(cs[0]->send.at(2), (Place{Buffer::Src, 0}));  // per-instance form: the block is Src itself
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(p.bytes.at(d), (DeviceBytes{24, 24}));
  EXPECT_EQ(p.total_bytes(), 96);
  DeviceBuffers out = run_and_check(p, src, dst, {8}, {{0, {0, 1}}, {1, {2, 3}}, {2, {4, 5}}, {3, {6, 7}}});
  EXPECT_EQ(out.at(3), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// Partial(sum) -> Broadcast: ncclAllReduce(sum) of count 8 over 4 ranks, in place on Src. Ring
// all-reduce over 4 chunks of 2: each rank sends 3 chunks in the reduce-scatter phase and 3 in
// the all-gather phase: 12 elements each way, 2(n-1)N = 48 in all (the one-way gossip bound).
TEST(ReshardPlan, PartialToBroadcastIsOneAllReduce) {
  const char* src = "shard((8):(1); P(); device(4)|x=4)";
  const char* dst = "shard((8):(1); B; device(4)|x=4)";
  Plan p = plan_reshard(shard(src), shard(dst), {8}, 1);
  EXPECT_EQ(p.pattern, "all-reduce");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0]->reduction, "sum");
  EXPECT_EQ(cs[0]->count, 8);
  EXPECT_EQ(cs[0]->send.at(1), cs[0]->recv.at(1));  // in place
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(p.bytes.at(d), (DeviceBytes{12, 12}));
  EXPECT_EQ(p.total_bytes(), 48);
  DeviceBuffers in;
  for (int64_t d = 0; d < 4; ++d) in[d] = {d, 1, -d, 10 * d, 0, 0, 0, 7};
  DeviceBuffers out = run_and_check(p, src, dst, {8}, in);
  EXPECT_EQ(out.at(0), (std::vector<int64_t>{6, 4, -6, 60, 0, 0, 0, 28}));  // 0+1+2+3 = 6, ...
}

// Uneven ring all-reduce: N = 4 over 3 ranks, chunks (2, 1, 1). Reduce-scatter step s: rank r sends
// chunk (r-s-1) mod 3; all-gather step s: chunk (r-s) mod 3. Rank 0 sends chunks 2, 1 then 0, 2 =
// 1+1+2+1 = 5; rank 1 sends 0, 2 then 1, 0 = 2+1+1+2 = 6; rank 2 sends 1, 0 then 2, 1 = 5.
// Receives: rank 0 gets what rank 2 sends (5), rank 1 what rank 0 sends (5), rank 2 rank 1's (6).
TEST(ReshardPlan, UnevenAllReduceFollowsTheRingChunks) {
  Plan p = plan_reshard(shard("shard((4):(1); P(\"max\"); device(3)|x=3)"), shard("shard((4):(1); B; device(3)|x=3)"), {4}, 1);
  EXPECT_EQ(p.bytes.at(0), (DeviceBytes{5, 5}));
  EXPECT_EQ(p.bytes.at(1), (DeviceBytes{6, 5}));
  EXPECT_EQ(p.bytes.at(2), (DeviceBytes{5, 6}));
  EXPECT_EQ(p.total_bytes(), 16);  // 2 (n-1) N = 2 * 2 * 4
}

// Partial(sum) -> Split: ncclReduceScatter of recvcount 2; rank q receives the sum of block q
// (elements 2q, 2q+1). Ring: each rank sends 3 blocks of 2 and receives 3: 6 each way, 24 in all
// = the bound (each of 4 blocks needs 2 elements from each of its 3 non-owners).
TEST(ReshardPlan, PartialToSplitIsOneReduceScatter) {
  const char* src = "shard((8):(1); P(); device(4)|x=4)";
  const char* dst = "shard((4,2):(0,1); S(0); device(4)|x=4)";
  Plan p = plan_reshard(shard(src), shard(dst), {8}, 1);
  EXPECT_EQ(p.pattern, "reduce-scatter");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0]->count, 2);
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(p.bytes.at(d), (DeviceBytes{6, 6}));
  DeviceBuffers in;
  for (int64_t d = 0; d < 4; ++d) in[d] = {1, 2, 3, 4, 5, 6, 7, d};
  DeviceBuffers out = run_and_check(p, src, dst, {8}, in);
  EXPECT_EQ(out.at(3), (std::vector<int64_t>{28, 6}));  // 4*7 and 0+1+2+3
}

// Split(0) -> Split(1) along x=4 on a 4x4 tensor: rank r holds row r and sends its element (r, q)
// to rank q: 3 sends of 1 element per rank, 12 in all = the elements that change owner (16 - 4).
TEST(ReshardPlan, SplitToSplitIsAnAllToAll) {
  const char* src = "shard((4,4):(0,1); S(0); device(4)|x=4)";
  const char* dst = "shard((4,4):(1,0); S(1); device(4)|x=4)";
  Plan p = plan_reshard(shard(src), shard(dst), {4, 4}, 8);
  EXPECT_EQ(p.pattern, "all-to-all");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0]->transfers.size(), 12u);
  for (const auto& t : cs[0]->transfers) EXPECT_EQ(t.count, 1);
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(p.bytes.at(d), (DeviceBytes{24, 24}));
  DeviceBuffers in;
  for (int64_t d = 0; d < 4; ++d) in[d] = {4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3};
  DeviceBuffers out = run_and_check(p, src, dst, {4, 4}, in);
  EXPECT_EQ(out.at(1), (std::vector<int64_t>{1, 5, 9, 13}));  // column 1
}

// Two meshes over one device domain: x=4 Split -> (x=2 Split, y=2 Broadcast). Device 2x+y holds
// elements 4x..4x+3; each lacks the 2 its neighbour in the pair holds: 4 sends of 2, 8 in all.
TEST(ReshardPlan, DifferentMeshesFallBackToPointToPoint) {
  const char* src = "shard((4,2):(0,1); S(0); device(4)|x=4)";
  const char* dst = "shard((2,4):(0,1); S(0),B; device(4)|x=2,y=2)";
  Plan p = plan_reshard(shard(src), shard(dst), {8}, 1);
  EXPECT_EQ(p.pattern, "point-to-point");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  std::vector<Transfer> expected = {{0, 1, 0, 0, 2}, {1, 0, 0, 0, 2}, {2, 3, 0, 0, 2}, {3, 2, 0, 0, 2}};
  auto got = cs[0]->transfers;
  std::sort(got.begin(), got.end(), [](auto& a, auto& b) { return a.from_device < b.from_device; });
  EXPECT_EQ(got, expected);
  EXPECT_EQ(p.total_bytes(), 8);
  DeviceBuffers out = run_and_check(p, src, dst, {8}, {{0, {0, 1}}, {1, {2, 3}}, {2, {4, 5}}, {3, {6, 7}}});
  EXPECT_EQ(out.at(1), (std::vector<int64_t>{0, 1, 2, 3}));
}

// No communication: the same layout (identity), Broadcast -> Split (each keeps its slice) and a
// stride change (a local permutation).
TEST(ReshardPlan, LocalReshardsMoveNothing) {
  Plan same = plan_reshard(shard("shard((4,2):(0,1); S(0); x=4)"), shard("shard((4,2):(0,1); S(0); x=4)"), {8});
  EXPECT_EQ(same.pattern, "identity");
  EXPECT_EQ(same.total_bytes(), 0);
  Plan keep = plan_reshard(shard("shard((4,2):(2,1); B; x=4)"), shard("shard((4,2):(0,1); S(0); x=4)"), {8});
  EXPECT_EQ(keep.pattern, "local");
  EXPECT_EQ(keep.total_bytes(), 0);
  DeviceBuffers full;
  for (int64_t d = 0; d < 4; ++d) full[d] = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(run_and_check(keep, "shard((4,2):(2,1); B; x=4)", "shard((4,2):(0,1); S(0); x=4)", {8}, full).at(2), (std::vector<int64_t>{4, 5}));
  Plan transpose = plan_reshard(shard("shard((2,3):(3,1); B; x=2)"), shard("shard((2,3):(1,2); B; x=2)"), {2, 3});
  EXPECT_EQ(transpose.pattern, "local");
  EXPECT_EQ(run_and_check(transpose, "shard((2,3):(3,1); B; x=2)", "shard((2,3):(1,2); B; x=2)", {2, 3},
                          {{0, {0, 1, 2, 3, 4, 5}}, {1, {0, 1, 2, 3, 4, 5}}})
                .at(1),
            (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

// D9 reduces the highest Partial axis first: (P(sum), P(max)) -> Broadcast is max over y, then
// sum over x. Contributions c(x,y): (0,0)=1 (0,1)=5 (1,0)=2 (1,1)=-3 -> max(1,5) + max(2,-3) = 7;
// the other order, max(1+2, 5-3) = 3, would be wrong.
TEST(ReshardPlan, MixedPartialsReduceInTheReferenceOrder) {
  const char* src = "shard((1):(1); P(),P(\"max\"); device(4)|x=2,y=2)";
  const char* dst = "shard((1):(1); B,B; device(4)|x=2,y=2)";
  Plan p = plan_reshard(shard(src), shard(dst), {1});
  EXPECT_EQ(p.pattern, "all-reduce + all-reduce");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]->reduction, "max");
  EXPECT_EQ(cs[1]->reduction, "sum");
  DeviceBuffers out = run_and_check(p, src, dst, {1}, {{0, {1}}, {1, {5}}, {2, {2}}, {3, {-3}}});
  EXPECT_EQ(out.at(0), (std::vector<int64_t>{7}));
  // P(max) on x -> Broadcast while y keeps P(sum): max_x(sum_y) cannot run the x reduction first,
  // so both axes are reduced and y's new Partial(sum) puts the value at y = 0, zero at y = 1.
  const char* src2 = "shard((1):(1); P(\"max\"),P(); device(4)|x=2,y=2)";
  const char* dst2 = "shard((1):(1); B,P(); device(4)|x=2,y=2)";
  Plan q = plan_reshard(shard(src2), shard(dst2), {1});
  DeviceBuffers out2 = run_and_check(q, src2, dst2, {1}, {{0, {1}}, {1, {5}}, {2, {2}}, {3, {-3}}});
  EXPECT_EQ(out2, (DeviceBuffers{{0, {6}}, {1, {0}}, {2, {6}}, {3, {0}}}));  // max(1+5, 2-3) = 6
}

// A Partial kept on one axis while another changes: the contributions travel unreduced.
TEST(ReshardPlan, KeptPartialsTravelUnreduced) {
  const char* src = "shard((2,3):(0,1); S(0),P(); device(4)|x=2,y=2)";
  const char* dst = "shard((2,3):(3,1); B,P(); device(4)|x=2,y=2)";
  Plan p = plan_reshard(shard(src), shard(dst), {2, 3});
  EXPECT_EQ(p.pattern, "all-gather");
  DeviceBuffers in{{0, {1, 2, 3}}, {1, {10, 20, 30}}, {2, {4, 5, 6}}, {3, {40, 50, 60}}};
  DeviceBuffers out = simulate(p, in);
  EXPECT_EQ(out.at(1), (std::vector<int64_t>{10, 20, 30, 40, 50, 60}));  // y = 1's contributions
  ShardLayout d = materialize_for_devices(shard(dst), {2, 3});
  EXPECT_EQ(assemble(Engines{Storage::Rmem, out}, d, {2, 3}).data, (std::vector<int64_t>{11, 22, 33, 44, 55, 66}));
}

// Two axes Split -> Broadcast at once: two ncclAllGathers, x then y. G = (2,2,2), dim 0 Split on
// x, dim 1 on y; mesh x=2,y=2 row-major, so device 2x+y holds elements 4x+2y+{0,1} = {2d, 2d+1}
// (L = 2, per-instance offsets 0, 1). Step 1 along x, groups [0,2] and [1,3], count 2 from src+0:
// device 0 (and 2) then holds [0,1 | 4,5] in recv, device 1 (and 3) [2,3 | 6,7]. Step 2 along y,
// groups [0,1] and [2,3]: recv packed into send (4 elements), count 4: every device ends with
// [0,1,4,5 | 2,3,6,7] in recv. Bytes per rank: (2-1)*2 + (2-1)*4 = 6 elements = (2*2 - 1) * L,
// 24 B at float32, 96 B in all: the lower bound (each device lacks 6 of the 8 elements).
TEST(ReshardPlan, TwoAxesGatheredAreTwoAllGathers) {
  const char* src = "(2 @ m.x, 2 @ m.y, 2) on x=2,y=2";
  const char* dst = "(2, 2, 2) on x=2,y=2";
  Plan p = plan_reshard(read_shard_layout(Json(src)), read_shard_layout(Json(dst)), {2, 2, 2}, 4);
  EXPECT_EQ(p.pattern, "all-gather + all-gather");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]->mesh_axis, 0);
  EXPECT_EQ(cs[0]->groups, (std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(cs[0]->count, 2);
  EXPECT_EQ(cs[0]->send.at(3), (Place{Buffer::Src, 0}));
  EXPECT_EQ(cs[1]->mesh_axis, 1);
  EXPECT_EQ(cs[1]->groups, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(cs[1]->count, 4);
  EXPECT_EQ(cs[1]->send.at(3), (Place{Buffer::Send, 0}));
  EXPECT_EQ(p.recv_size.at(0), 8);
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(p.bytes.at(d), (DeviceBytes{24, 24}));
  EXPECT_EQ(p.total_bytes(), 96);
  ShardLayout s = materialize_for_devices(read_shard_layout(Json(src)), {2, 2, 2});
  ShardLayout t = materialize_for_devices(read_shard_layout(Json(dst)), {2, 2, 2});
  const DeviceBuffers in{{0, {0, 1}}, {1, {2, 3}}, {2, {4, 5}}, {3, {6, 7}}};
  DeviceBuffers out = simulate(p, in);
  EXPECT_EQ(out, reshard(Engines{Storage::Rmem, in}, s, t, Storage::Rmem, {2, 2, 2}).buffers);
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(out.at(d), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // a third axis kept Split in both does not stop it; a Partial anywhere does (the fallback)
  EXPECT_EQ(plan_reshard(read_shard_layout(Json("(2 @ m.x, 2 @ m.y, 2 @ m.z) on x=2,y=2,z=2")),
                         read_shard_layout(Json("(2, 2, 2 @ m.z) on x=2,y=2,z=2")), {2, 2, 2}).pattern,
            "all-gather + all-gather");
  EXPECT_EQ(plan_reshard(read_shard_layout(Json("(2 @ m.x, 2 @ m.y, 2) where z=P() on x=2,y=2,z=2")),
                         read_shard_layout(Json("(2, 2, 2) where z=P() on x=2,y=2,z=2")), {2, 2, 2}).pattern,
            "point-to-point");
}

// Sugar (S None) is materialized to the per-instance form (D4 at one level) before planning.
TEST(ReshardPlan, SugarIsMaterializedPerInstance) {
  ShardLayout s = materialize_for_devices(shard("shard((4,2):None; S(0); x=4)"), {8});
  EXPECT_EQ(to_string(s), "shard((4,2):(0,1); S(0); device(4)|x=4)");
}

TEST(ReshardPlan, TextAndJsonNameTheCollective) {
  Plan p = plan_reshard(shard("shard((4,2):(0,1); S(0); x=4)"), shard("shard((4,2):(2,1); B; x=4)"), {8}, 2);
  EXPECT_NE(to_text(p).find("ncclAllGather along x groups [[0,1,2,3]] count 2 send src+0 recv recv+0"), std::string::npos) << to_text(p);
  Json j = to_json(p);
  EXPECT_EQ(j["steps"][0]["op"], "ncclAllGather");
  EXPECT_EQ(j["total_bytes"], 4 * 6 * 2);
  EXPECT_EQ(j["device_bytes"][0]["sent"], 12);
}

// Issue 35's example: (64, 128) float32 on x=2,y=4, Partial(sum) on x and Broadcast on y, to
// rows split on x and columns on y. Per axis: y (Broadcast -> Split) is a local slice, x (Partial
// -> Split) a reduce-scatter. After the slice each device holds its 32 columns of all 64 rows,
// 2048 contributions; the reduce-scatter along x (n = 2) sends each rank (n-1)/n of that, 1024
// float32 = 4096 B each way, 8 * 4096 = 32,768 B in all. The lower bound: every element's value
// depends on the 2 contributions along x, and its one DST owner holds one of them, so one message
// per element: 64 * 128 * 4 B = 32,768 B. The plan is at the bound; the all-reduce fallback it
// replaced moved 262,144 B (8 times as much).
TEST(ReshardPlan, PartialAndBroadcastToTwoSplitsIsASliceThenAReduceScatter) {
  TFSPEC_RELEASE_BUILD_ONLY("31 s of plan search under ASan; the planner's other cases run there");
  const auto src = read_shard_layout(Json(R"((64, 128) where x=P("sum") on x=2,y=4)"));
  const auto dst = read_shard_layout(Json("(64 @ m.x, 128 @ m.y) on x=2,y=4"));
  const Plan p = plan_reshard(src, dst, {64, 128}, 4);
  EXPECT_EQ(p.pattern, "reduce-scatter");
  EXPECT_EQ(p.stages, (std::vector<std::string>{"y: B -> S(2)", "x: P() -> S(0)"}));
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0]->kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(cs[0]->groups, (std::vector<std::vector<int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(cs[0]->count, 1024);
  for (int64_t d = 0; d < 8; ++d) EXPECT_EQ(p.bytes.at(d), (DeviceBytes{4096, 4096})) << "device " << d;
  EXPECT_EQ(p.total_bytes(), 32768);
  EXPECT_EQ(p.lower_bound_bytes, 32768);
  EXPECT_EQ(p.above_bound_because, "");
  const Json j = to_json(p);
  EXPECT_EQ(j["bytes"], 32768);
  EXPECT_EQ(j["lower_bound_bytes"], 32768);
  EXPECT_EQ(j["at_lower_bound"], true);
  EXPECT_NE(to_text(p).find("lower bound: 32768 B (spec/MULTIGPU.md): at the lower bound"), std::string::npos) << to_text(p);
  // Executed on arbitrary contributions, it assembles the tensor the reference assembles.
  const ShardLayout s = materialize_for_devices(src, {64, 128}), d = materialize_for_devices(dst, {64, 128});
  std::vector<int64_t> data(64 * 128);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int64_t>(i * 7 % 101) - 50;
  int64_t draw = 0;
  const Engines in = partition(Tensor{{64, 128}, data}, s, Storage::Rmem, [&] { return (draw++ * 13) % 29 - 14; });
  EXPECT_EQ(simulate(p, in.buffers), reshard(in, s, d, Storage::Rmem, {64, 128}).buffers);
}

// Above the bound, the plan says why. Partial(max) -> Partial(sum) on x=2 (2 elements): the
// all-reduce(max) leaves the maximum on both devices: in the ring (N = 2, chunks of 1) each rank
// sends 2N - c_r - c_(r+1) = 2 elements, 16 B in all. DST's new sum axis needs the value only at
// x = 0, which holds one of the 2 contributions: 1 message per element, 8 B.
TEST(ReshardPlan, APlanAboveTheBoundSaysWhy) {
  const Plan p = plan_reshard(shard(R"(shard((1,1,2):None; P("max"); device(2)|x=2))"), shard("shard((1,1,2):None; P(); device(2)|x=2)"), {1, 1, 2}, 4);
  EXPECT_EQ(p.pattern, "all-reduce");
  EXPECT_EQ(p.total_bytes(), 16);
  EXPECT_EQ(p.lower_bound_bytes, 8);
  EXPECT_NE(p.above_bound_because.find("all-reduced before anything moves"), std::string::npos) << p.above_bound_because;
  EXPECT_NE(to_text(p).find("2.00 x the lower bound: because"), std::string::npos) << to_text(p);
  EXPECT_EQ(to_json(p)["at_lower_bound"], false);
  // Partial(sum) on y=3 with x=2 replicas -> Split on y: a reduce-scatter in each of the 2 groups
  // along y. 6 elements, count 2: each rank sends (3-1)*2 = 4 elements, 6 ranks, 96 B. The bound:
  // per element 3 contributions and 2 owners (one per x), both holding one: 3 - 1 + 2 - 1 = 3
  // messages, 18 in all, 72 B (reduce once, then copy the result to the other replica).
  const Plan r = plan_reshard(read_shard_layout(Json(R"((2, 3, 1) where y=P("sum") on x=2,y=3)")),
                              read_shard_layout(Json("(2, 3 @ m.y, 1) on x=2,y=3")), {2, 3, 1}, 4);
  EXPECT_EQ(r.pattern, "reduce-scatter");
  EXPECT_EQ(r.total_bytes(), 96);
  EXPECT_EQ(r.lower_bound_bytes, 72);
  EXPECT_NE(r.above_bound_because.find("runs in each of 2 groups that hold the same elements"), std::string::npos) << r.above_bound_because;
}

// Refusals, each with its rule (spec/MULTIGPU.md "Which reshards qualify").
TEST(ReshardPlan, RefusalsNameTheirRules) {
  // §5: warps and threads are not GPUs.
  EXPECT_EQ(error_id([] { plan_reshard(shard("shard((4):(1); S(0); warp(4)|x=4)"), shard("shard((4):(1); B; warp(4)|x=4)"), {4}); }),
            "mgpu-mesh-devices");
  // §5: 4 devices cannot reshard onto 8.
  EXPECT_EQ(error_id([] { plan_reshard(shard("shard((4):(1); B; x=4)"), shard("shard((8):(1); B; x=8)"), {4}); }), "mgpu-device-domain");
  EXPECT_EQ(error_id([] { dtype_bytes("float24"); }), "mgpu-dtype");
  EXPECT_EQ(dtype_bytes("ncclBfloat16"), 2);
  EXPECT_EQ(dtype_bytes("int64"), 8);
  // §6: Dynamic is unresolved at execution.
  EXPECT_EQ(error_id([] { plan_reshard(shard("shard((4):(1); D; x=4)"), shard("shard((4):(1); B; x=4)"), {4}); }), "dynamic-unresolved");
  // §7.1.1: the logical shape must have size(G) elements.
  EXPECT_EQ(error_id([] { plan_reshard(shard("shard((4):(1); B; x=4)"), shard("shard((4):(1); B; x=4)"), {5}); }), "shard-size-match");
  // The simulator checks the SRC buffers it is given (§7.1.2 engine sizes).
  Plan p = plan_reshard(shard("shard((4):(1); B; x=2)"), shard("shard((4):(1); B; x=2)"), {4});
  EXPECT_EQ(error_id([&] { simulate(p, {{0, {1, 2, 3}}, {1, {1, 2, 3, 4}}}); }), "engine-buffer-size");
}

// Issue 47: a piece two replicas hold comes whole from one of them, not in alternating elements.
// SRC (64 @ m.x) on x=2,y=2 (device 2x + y): devices 0 and 1 hold elements 0..31, devices 2 and 3
// hold 32..63, at Src offset element - 32x (per-instance form). DST (64) on x=4 replicates all 64
// on every device at Dst offset = element. Device d keeps the half it holds and lacks the other 32,
// held by two replicas. Senders by run, the least loaded first, ties to the lower device: device 0
// lacks 32..63 (holders 2 and 3, both idle) -> from 2; device 1 the same (2 has 32 to send) -> 3;
// device 2 lacks 0..31 (holders 0 and 1) -> 0; device 3 -> 1. Four transfers of 32 elements,
// each one run: a pack Src[0,32) -> Send[0,32) on each sender, an unpack Recv[0,32) -> Dst on each
// receiver and the kept half Src -> Dst: 12 runs in all (before: the two holders alternated, 32
// one-element runs a device in the pack and again in the unpack, 260 runs). Bytes: 4 devices x 32
// elements x 4 B = 512 B, the lower bound (each device lacks 32 elements).
TEST(ReshardPlan, AReplicatedPieceTravelsAsOneRun) {
  const char* src = "(64 @ m.x) on x=2,y=2";
  const char* dst = "(64) on x=4";
  const ShardLayout s = read_shard_layout(Json(src)), d = read_shard_layout(Json(dst));
  const Plan p = plan_reshard(s, d, {64}, 4);
  EXPECT_EQ(p.pattern, "point-to-point");
  auto cs = collectives(p);
  ASSERT_EQ(cs.size(), 1u);
  auto got = cs[0]->transfers;
  std::sort(got.begin(), got.end(), [](auto& a, auto& b) { return a.to_device < b.to_device; });
  EXPECT_EQ(got, (std::vector<Transfer>{{2, 0, 0, 0, 32}, {3, 1, 0, 0, 32}, {0, 2, 0, 0, 32}, {1, 3, 0, 0, 32}}));
  size_t runs = 0;
  for (const auto& step : p.steps)
    if (const auto* lc = std::get_if<LocalCopy>(&step)) {
      EXPECT_EQ(lc->runs.size(), 1u) << to_string(lc->from) << " -> " << to_string(lc->to) << " on device " << lc->device;
      runs += lc->runs.size();
    }
  EXPECT_EQ(runs, 12u);
  EXPECT_EQ(p.total_bytes(), 512);
  EXPECT_EQ(p.lower_bound_bytes, 512);
  DeviceBuffers in;
  for (int64_t dev = 0; dev < 4; ++dev)
    for (int64_t e = 0; e < 32; ++e) in[dev].push_back(e + 32 * (dev / 2));
  const DeviceBuffers out = simulate(p, in);
  const Engines ref = reshard(Engines{Storage::Rmem, in}, materialize_for_devices(s, {64}), materialize_for_devices(d, {64}), Storage::Rmem, {64});
  EXPECT_EQ(out, ref.buffers);
  for (int64_t dev = 0; dev < 4; ++dev)
    for (int64_t e = 0; e < 64; ++e) EXPECT_EQ(out.at(dev).at(static_cast<size_t>(e)), e);
}

// Issue 47: two Partial axes reduced for every device. (16,16) where x=P("sum"),y=P("sum") ->
// replicated, on x=2,y=2 (device 2x + y; L = 256 elements a device, one run of Src). A
// hierarchical all-reduce, y first (the highest axis, D9): a reduce-scatter(sum) along y (groups
// [0,1] [2,3], count 128: each rank sends its other block, 128), an all-reduce(sum) of that chunk
// along x (groups [0,2] [1,3], count 128, n = 2: the ring sends 2N - c_r - c_(r+1) = 256 - 64 - 64
// = 128 a rank), an all-gather along y back into Src (count 128: 128 a rank). 384 elements a rank,
// 1536 in all = 6144 B. The bound: per element k = 4 contributions and |D| = 4 devices that need
// it, every one holding a contribution: 4 - 1 + 4 - 1 = 6 messages, x 256 elements x 4 B = 6144 B:
// at the bound (one all-reduce per axis over the whole block moved 2 x 4 ranks x 256 x 4 B = 8192 B).
// With max on x and sum on y the same schedule is D9's order (sum over y, then max over x).
TEST(ReshardPlan, TwoPartialAxesAllReduceHierarchically) {
  for (const std::string x : {"sum", "max"}) {
    SCOPED_TRACE("x=" + x);
    const std::string src = "(16,16) where x=P(\"" + x + "\"),y=P(\"sum\") on x=2,y=2", dst = "(16,16) on x=2,y=2";
    const ShardLayout s = read_shard_layout(Json(src)), d = read_shard_layout(Json(dst));
    const Plan p = plan_reshard(s, d, {16, 16}, 4);
    EXPECT_EQ(p.pattern, "reduce-scatter + all-reduce + all-gather");
    auto cs = collectives(p);
    ASSERT_EQ(cs.size(), 3u);
    const std::vector<std::vector<int64_t>> along_y = {{0, 1}, {2, 3}}, along_x = {{0, 2}, {1, 3}};
    EXPECT_EQ(cs[0]->groups, along_y);
    EXPECT_EQ(cs[0]->reduction, "sum");
    EXPECT_EQ(cs[1]->groups, along_x);
    EXPECT_EQ(cs[1]->reduction, x);
    EXPECT_EQ(cs[2]->groups, along_y);
    for (const Collective* c : cs) EXPECT_EQ(c->count, 128);
    EXPECT_EQ(cs[0]->send.at(3), (Place{Buffer::Src, 0}));
    EXPECT_EQ(cs[2]->recv.at(3), (Place{Buffer::Src, 0}));
    for (int64_t dev = 0; dev < 4; ++dev) EXPECT_EQ(p.bytes.at(dev), (DeviceBytes{384 * 4, 384 * 4}));
    EXPECT_EQ(p.total_bytes(), 6144);
    EXPECT_EQ(p.lower_bound_bytes, 6144);
    DeviceBuffers in;
    for (int64_t dev = 0; dev < 4; ++dev)
      for (int64_t e = 0; e < 256; ++e) in[dev].push_back((e * (dev + 3)) % 17 - 8);
    const DeviceBuffers out = simulate(p, in);
    const Engines ref = reshard(Engines{Storage::Rmem, in}, materialize_for_devices(s, {16, 16}), materialize_for_devices(d, {16, 16}), Storage::Rmem, {16, 16});
    EXPECT_EQ(out, ref.buffers);
  }
}

// One-round execution (issue 47, spec/MULTIGPU.md "One-round execution"), composed by hand. The
// all-gather of SplitToBroadcastIsOneAllGather: DST element j of every device is SRC element j % 2
// of device j / 2; each device receives the 6 it lacks and sends its 2 to 3 peers: 24 B each way
// at 4 B, the steps' own bytes, so the plan chooses it (96 B in all).
TEST(ReshardPlan, AnAllGatherComposesToOneRound) {
  Plan p = plan_reshard(shard("shard((4,2):(0,1); S(0); device(4)|x=4)"), shard("shard((4,2):(2,1); B; device(4)|x=4)"), {8}, 4);
  const OneRound r = compose_one_round(p);
  ASSERT_EQ(r.refused, "");
  const ComposedDst& d3 = r.dst.at(3);
  ASSERT_EQ(d3.op.size(), 8u);
  for (int64_t j = 0; j < 8; ++j) {
    EXPECT_EQ(d3.start[static_cast<size_t>(j) + 1] - d3.start[static_cast<size_t>(j)], 1) << j;
    EXPECT_EQ(d3.leaves[static_cast<size_t>(d3.start[static_cast<size_t>(j)])], (Leaf{j / 2, j % 2})) << j;
    EXPECT_EQ(d3.op[static_cast<size_t>(j)], 0) << j;
  }
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(r.bytes.at(d), (DeviceBytes{24, 24}));
  EXPECT_TRUE(p.one_round);
  EXPECT_EQ(p.one_round_bytes, 96);
  EXPECT_NE(to_text(p).find("one round: chosen, 96 B in one exchange"), std::string::npos) << to_text(p);
}

// The reduce-scatter of PartialToSplitIsOneReduceScatter: device q's DST element j is the sum of
// SRC element 2q + j of devices 0, 1, 2, 3 in that order; each device receives 3 * 2 = 6 and sends
// 2 to each of 3 peers = 6, the ring's bytes: chosen.
TEST(ReshardPlan, AReduceScatterComposesToSumsOfEveryRanksBlock) {
  Plan p = plan_reshard(shard("shard((8):(1); P(); device(4)|x=4)"), shard("shard((4,2):(0,1); S(0); device(4)|x=4)"), {8}, 1);
  const OneRound r = compose_one_round(p);
  ASSERT_EQ(r.refused, "");
  const ComposedDst& d3 = r.dst.at(3);
  EXPECT_EQ(d3.start, (std::vector<int64_t>{0, 4, 8}));
  EXPECT_EQ(d3.op, (std::vector<char>{'s', 's'}));
  EXPECT_EQ(d3.leaves, (std::vector<Leaf>{{0, 6}, {1, 6}, {2, 6}, {3, 6}, {0, 7}, {1, 7}, {2, 7}, {3, 7}}));
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(r.bytes.at(d), (DeviceBytes{6, 6}));
  EXPECT_TRUE(p.one_round);
}

// The all-reduce of PartialToBroadcastIsOneAllReduce in one round: every device receives the 8
// elements of each of 3 peers (24 B at 1 B) where the ring moves 12: not chosen, and the plan says
// why. Two Partial axes of different reductions (max of sums) do not compose into one reduction.
TEST(ReshardPlan, OneRoundIsNotChosenWhereItMovesMoreOrDoesNotCompose) {
  Plan p = plan_reshard(shard("shard((8):(1); P(); device(4)|x=4)"), shard("shard((8):(1); B; device(4)|x=4)"), {8}, 1);
  const OneRound r = compose_one_round(p);
  ASSERT_EQ(r.refused, "");
  for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(r.bytes.at(d), (DeviceBytes{24, 24}));
  EXPECT_FALSE(p.one_round);
  EXPECT_EQ(p.one_round_bytes, 96);
  EXPECT_EQ(p.one_round_because, "device 0 would send 24 B and receive 24 B in one round; the steps move 12 B and 12 B");
  EXPECT_NE(to_text(p).find("one round: not chosen: device 0 would send 24 B"), std::string::npos) << to_text(p);
  const ShardLayout s = read_shard_layout(Json("(16,16) where x=P(\"max\"),y=P(\"sum\") on x=2,y=2"));
  const Plan mixed = plan_reshard(s, read_shard_layout(Json("(16,16) on x=2,y=2")), {16, 16}, 4);
  EXPECT_FALSE(mixed.one_round);
  EXPECT_EQ(mixed.one_round_because, "the steps do not compose: a reduction of one operation takes the result of another");
  EXPECT_EQ(to_json(mixed)["one_round"]["chosen"], false);
}

// Issue 25: `--dtype` takes the short names users type; each is one NCCL type's size in bytes
// (bf16 and fp16 are 16-bit, f32 32-bit, f64 64-bit, the integer widths as named).
TEST(ReshardPlan, DtypeShortNames) {
  EXPECT_EQ(dtype_bytes("bf16"), 2);
  EXPECT_EQ(dtype_bytes("fp16"), 2);
  EXPECT_EQ(dtype_bytes("half"), 2);
  EXPECT_EQ(dtype_bytes("f32"), 4);
  EXPECT_EQ(dtype_bytes("float"), 4);
  EXPECT_EQ(dtype_bytes("f64"), 8);
  EXPECT_EQ(dtype_bytes("double"), 8);
  EXPECT_EQ(dtype_bytes("i8"), 1);
  EXPECT_EQ(dtype_bytes("u64"), 8);
  EXPECT_EQ(error_id([] { dtype_bytes("f24"); }), "mgpu-dtype");
  EXPECT_EQ(error_id([] { dtype_bytes("bf"); }), "mgpu-dtype");
}

}  // namespace
}  // namespace tfspec::multigpu
