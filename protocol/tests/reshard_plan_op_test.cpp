// `multigpu.reshard-plan` through the serve path (spec/PROTOCOL.md, spec/MULTIGPU.md): a request
// line in, a reply line out, checked against a schedule and byte count derived by hand below, and
// the planner's refusals answered as errors with their rule ids.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "tfspec/protocol/serve.hpp"
#include "tfspec/reference/json.hpp"

#include "serve_support.hpp"

using namespace tfspec;

namespace {

using tfspec::testing::ask;  // a request line through serve_line (serve_support.hpp)

Json ask_plan(const Json& args) { return ask(Json{{"seq", 7}, {"op", "multigpu.reshard-plan"}, {"args", args}}.dump()); }

}  // namespace

// SRC (8 @ m.x, 4) on x=4: D5 with 4 | 8 gives G = (4 @ m.x, 2, 4), Split on x, so device d
// holds rows 2d, 2d+1: L = 2*4 = 8 elements, in C order over its local shape (1,2,4) (§7.1.1,
// D4's per-instance form), i.e. src offset k of device d is global element 8d + k.
// DST (8,4) on x=4 is Broadcast on x: every device holds all 32 elements at offset = row-major
// index (per-instance form of G = (8,4)).
// One axis changes Split -> Broadcast: one ncclAllGather along x, group [0,1,2,3], sendcount
// L = 8 from src+0; rank r's block lands at recv + 8r. Ring model (spec/MULTIGPU.md "The byte
// model"): each rank sends (n-1)L = 3*8 = 24 elements and receives 24; at float32 (4 B) that is
// 2 rows * 4 * 4 B = 32 B to each of its 3 peers, 96 B sent and 96 B received per device, and
// 4 * 96 = 384 B in all. This is the lower bound: each device lacks 24 of the 32 elements.
TEST(ReshardPlanOp, AllGatherOverServeMatchesTheHandDerivation) {
  Json r = ask_plan({{"src", "(8 @ m.x, 4) on x=4"}, {"dst", "(8, 4) on x=4"}, {"shape", "(8,4)"}, {"dtype", "float32"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["seq"], 7);
  const Json& p = r["result"];
  EXPECT_EQ(p["pattern"], "all-gather");
  EXPECT_EQ(p["dtype"], "float32");
  EXPECT_EQ(p["elem_bytes"], 4);
  EXPECT_EQ(p["devices"], Json::array({0, 1, 2, 3}));
  EXPECT_EQ(p["total_bytes"], 384);
  ASSERT_EQ(p["device_bytes"].size(), 4u);
  for (const Json& b : p["device_bytes"]) {
    EXPECT_EQ(b["sent"], 96) << b.dump();
    EXPECT_EQ(b["received"], 96) << b.dump();
  }
  for (const Json& b : p["buffers"]) {
    EXPECT_EQ(b["src"], 8) << b.dump();
    EXPECT_EQ(b["dst"], 32) << b.dump();
    EXPECT_GE(b["recv"].get<int64_t>(), 32) << b.dump();  // 4 blocks of 8
  }

  // Execute the JSON by hand, tracking which global element each slot holds: src offset k of
  // device d holds 8d + k; the all-gather puts rank r's src+k at recv + 8r + k on every rank.
  std::map<int64_t, std::map<std::string, std::map<int64_t, int64_t>>> holds;  // device -> buffer -> offset -> element
  for (int64_t d = 0; d < 4; ++d)
    for (int64_t k = 0; k < 8; ++k) holds[d]["src"][k] = 8 * d + k;
  int collectives = 0;
  for (const Json& s : p["steps"]) {
    if (s["op"] == "local_copy") {
      auto& dev = holds[s["device"].get<int64_t>()];
      for (const Json& run : s["runs"])
        for (int64_t i = 0; i < run[2].get<int64_t>(); ++i) {
          const auto& from = dev[s["from"].get<std::string>()];
          auto it = from.find(run[0].get<int64_t>() + i);
          ASSERT_NE(it, from.end()) << "copies an unset slot: " << s.dump();
          dev[s["to"].get<std::string>()][run[1].get<int64_t>() + i] = it->second;
        }
      continue;
    }
    ++collectives;
    ASSERT_EQ(s["op"], "ncclAllGather") << s.dump();
    EXPECT_EQ(s["mesh_axis"], 0);
    EXPECT_EQ(s["groups"], Json::parse("[[0,1,2,3]]"));
    EXPECT_EQ(s["count"], 8);
    std::map<int64_t, std::map<int64_t, int64_t>> block;  // rank -> its sent block, read before any write
    for (const Json& snd : s["send"])
      for (int64_t k = 0; k < 8; ++k)
        block[snd["device"]][k] = holds[snd["device"]][snd["buffer"].get<std::string>()].at(snd["offset"].get<int64_t>() + k);
    for (const Json& rcv : s["recv"])
      for (int64_t rank = 0; rank < 4; ++rank)
        for (int64_t k = 0; k < 8; ++k)
          holds[rcv["device"]][rcv["buffer"].get<std::string>()][rcv["offset"].get<int64_t>() + 8 * rank + k] = block[rank][k];
  }
  EXPECT_EQ(collectives, 1);
  for (int64_t d = 0; d < 4; ++d) {
    ASSERT_EQ(holds[d]["dst"].size(), 32u) << "device " << d;
    for (const auto& [offset, element] : holds[d]["dst"]) EXPECT_EQ(element, offset) << "device " << d;
  }
}

// The shape may also be JSON, the layouts shard(...) text; the dtype defaults to float32.
TEST(ReshardPlanOp, AcceptsJsonShapeAndDefaultsTheDtype) {
  Json r = ask_plan({{"src", "shard((4,2):(0,1); S(0); device(4)|x=4)"}, {"dst", "shard((4,2):(2,1); B; device(4)|x=4)"}, {"shape", Json::array({8})}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["dtype"], "float32");
  EXPECT_EQ(r["result"]["total_bytes"], 96);  // 4 ranks * 3 blocks of 2 elements * 4 B
  EXPECT_EQ(ask(R"J({"cmd":"start","protocol":1})J").dump().find("multigpu.reshard-plan") != std::string::npos, true);
}

TEST(ReshardPlanOp, RefusalsAreErrorsWithTheRuleId) {
  const auto rule_of = [](const Json& r) { return r.contains("error") ? r["error"]["rule"].get<std::string>() : "(no error): " + r.dump(); };
  const Json gather_src = "(8 @ m.x, 4) on x=4", gather_dst = "(8, 4) on x=4";
  EXPECT_EQ(rule_of(ask_plan({{"src", gather_src}, {"shape", "(8,4)"}})), "protocol-missing-arg");
  EXPECT_EQ(rule_of(ask_plan({{"src", gather_src}, {"dst", gather_dst}})), "protocol-missing-arg");
  // threads are not GPUs (§5)
  Json threads = ask_plan({{"src", "(8 @ m.x, 4) on thread(4)|x=4"}, {"dst", "(8, 4) on thread(4)|x=4"}, {"shape", "(8,4)"}});
  EXPECT_EQ(rule_of(threads), "mgpu-mesh-devices");
  EXPECT_EQ(threads.value("/error/clause"_json_pointer, Json()), "§5");
  EXPECT_EQ(rule_of(ask_plan({{"src", "shard((4):(1); B; x=4)"}, {"dst", "shard((4):(1); B; x=8)"}, {"shape", "(4)"}})), "mgpu-device-domain");
  EXPECT_EQ(rule_of(ask_plan({{"src", gather_src}, {"dst", gather_dst}, {"shape", "(8,4)"}, {"dtype", "float24"}})), "mgpu-dtype");
  EXPECT_EQ(rule_of(ask_plan({{"src", gather_src}, {"dst", gather_dst}, {"shape", "(8,4)"}, {"dtype", 4}})), "protocol-bad-args");
  EXPECT_EQ(rule_of(ask_plan({{"src", "shard((4):(1); D; x=4)"}, {"dst", "shard((4):(1); B; x=4)"}, {"shape", "(4)"}})), "dynamic-unresolved");
  // garbage never crashes the server: every line gets an answer
  for (const Json& bad : {Json{{"src", 1}, {"dst", Json::array()}, {"shape", "(8,4)"}}, Json{{"src", gather_src}, {"dst", gather_dst}, {"shape", "(x,"}},
                          Json{{"src", gather_src}, {"dst", gather_dst}, {"shape", Json::object()}}})
    EXPECT_TRUE(ask_plan(bad).contains("error")) << bad.dump();
}
