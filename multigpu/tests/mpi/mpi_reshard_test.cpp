// Reshard plans executed on MPI (spec/MULTIGPU.md "Executing a plan on MPI"), run under mpiexec:
// hand-derived cases (values and bytes written out below), mutant plans that must be caught, and
// the property over generated reshards (MpiProps; one job per rank count, 2, 4 and 8). Every rank
// runs every test; rank 0 holds the gathered DST buffers and the verdict, every rank the exit code.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <optional>

#include "mpi_cases.hpp"
#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/reference/canonical.hpp"

#include "../../../reference/tests/test_support.hpp"

// The ASan build runs a quarter of the property's cases (tests.cmake).
#ifndef TFSPEC_MPI_PROPERTY_DIVISOR
#define TFSPEC_MPI_PROPERTY_DIVISOR 1
#endif

namespace tfspec::multigpu::mpi {
namespace {

World* g_world = nullptr;
// The executor variants every case runs on (--executor=LIST, comma-separated; issue 47): the first
// is checked against the reference and the plan, every other must agree with it (the same exit
// code, verdict and DST buffers), so each variant is held to the same checks.
std::vector<ExecutorOptions> g_variants{default_executor_options()};

RunSpec spec_of(const std::string& src, const std::string& dst, const std::vector<int64_t>& shape, const std::string& dtype = "float32",
                uint64_t seed = 1) {
  const ShardLayout s = read_shard_layout(Json(src)), d = read_shard_layout(Json(dst));
  const Dtype t = dtype_of(dtype);
  RunSpec spec{plan_reshard(s, d, shape, t.bytes), materialize_for_devices(s, shape), materialize_for_devices(d, shape), shape, t, seed, {}};
  spec.expected = spec.plan.bytes;
  return spec;
}

RunOutcome execute(const RunSpec& spec) {
  RunOutcome first;
  for (size_t v = 0; v < g_variants.size(); ++v) {
    auto ex = make_mpi_executor(*g_world, spec.dtype, g_variants[v]);
    RunOutcome out = run_plan(*g_world, *ex, spec);
    if (v == 0) {
      first = std::move(out);
      continue;
    }
    EXPECT_EQ(out.exit_code, first.exit_code) << "executor " << to_string(g_variants[v]) << ": " << out.mismatch;
    if (g_world->rank() != 0) continue;
    EXPECT_EQ(out.mismatch, first.mismatch) << "executor " << to_string(g_variants[v]);
    EXPECT_EQ(out.dst, first.dst) << "executor " << to_string(g_variants[v]);
    // A one-round exchange that moves other bytes than the steps is checked against its own
    // (run_plan: Executor::own_bytes); every other variant moves the steps' bytes.
    const bool own = (g_variants[v].one_round || g_variants[v].one_round_always) && compose_one_round(spec.plan).bytes != spec.plan.bytes;
    if (!own) {
      EXPECT_EQ(out.json["devices"], first.json["devices"]) << "executor " << to_string(g_variants[v]);
    }
  }
  return first;
}

// The bytes every rank reported, as the test expects them by hand (rank order).
void expect_bytes(const RunOutcome& out, const std::vector<DeviceBytes>& want) {
  if (g_world->rank() != 0) return;
  ASSERT_EQ(out.json["devices"].size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    EXPECT_EQ(out.json["devices"][r]["sent"], want[r].sent) << "rank " << r;
    EXPECT_EQ(out.json["devices"][r]["received"], want[r].received) << "rank " << r;
  }
}

// 2x2 mesh (device = 2x + y), (4 @ m.x, 4 @ m.y) -> (4 @ m.x, 4): an all-gather along y, groups
// [0,1] and [2,3]. Each device holds a 2x2 block (L = 4) and receives its partner's: 4 float32
// = 16 B each way. DST on (x, y): rows 2x, 2x+1, all four columns, row-major: t[(2x+i)*4 + j].
TEST(MpiHand, AllGatherAlongOneAxisOfA2x2Mesh) {
  const RunSpec spec = spec_of("(4 @ m.x, 4 @ m.y) on x=2,y=2", "(4 @ m.x, 4) on x=2,y=2", {4, 4});
  EXPECT_EQ(spec.plan.pattern, "all-gather");
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 0) << out.mismatch;
  expect_bytes(out, {{16, 16}, {16, 16}, {16, 16}, {16, 16}});
  if (g_world->rank() != 0) return;
  const Tensor t = seeded_tensor({4, 4}, spec.dtype, 1);
  for (int64_t d = 0; d < 4; ++d) {
    std::vector<int64_t> want;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 4; ++j) want.push_back(t.data[static_cast<size_t>((2 * (d / 2) + i) * 4 + j)]);
    EXPECT_EQ(out.dst[static_cast<size_t>(d)], want) << "device " << d;
  }
}

// A SRC of the wrong size on one rank (rank 1 brings one element short) is an error on every rank
// (engine-buffer-size), rank 1 naming its own sizes, the others pointing at it; before the ranks
// agreed on it, rank 1 threw alone and the others waited in load()'s collectives for good.
// (4 @ m.x, 4 @ m.y) on 2x2: 4 float32 a rank, 16 B.
TEST(MpiHand, ASrcOfTheWrongSizeOnOneRankIsAnErrorOnEvery) {
  const RunSpec spec = spec_of("(4 @ m.x, 4 @ m.y) on x=2,y=2", "(4 @ m.x, 4) on x=2,y=2", {4, 4});
  for (const ExecutorOptions& v : g_variants) {
    auto ex = make_mpi_executor(*g_world, spec.dtype, v);
    const size_t bytes = g_world->rank() == 1 ? 12 : 16;
    try {
      ex->load(spec.plan, std::vector<unsigned char>(bytes, 0));
      ADD_FAILURE() << "rank " << g_world->rank() << ", executor " << to_string(v) << ": load() accepted it";
    } catch (const SpecError& e) {
      const std::string want = g_world->rank() == 1 ? "device 1 brings 12 SRC bytes; the plan needs 16" : "another device brings SRC bytes other than the plan needs";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

// Partial(sum) on x=4 -> Split: every device holds 8 contributions (each nonzero, the four
// summing to the value: run_plan's split_contributions, §6 Partial); a reduce-scatter of count 2: device r ends with t[2r], t[2r+1]. Ring: each rank
// forwards n-1 = 3 blocks of 2 int32: 24 B each way.
TEST(MpiHand, PartialSumReduceScatter) {
  const RunSpec spec = spec_of("shard((4,2):None; P(); device(4)|x=4)", "shard((4,2):None; S(0); device(4)|x=4)", {8}, "int32");
  EXPECT_EQ(spec.plan.pattern, "reduce-scatter");
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 0) << out.mismatch;
  expect_bytes(out, {{24, 24}, {24, 24}, {24, 24}, {24, 24}});
  if (g_world->rank() != 0) return;
  const Tensor t = seeded_tensor({8}, spec.dtype, 1);
  for (size_t d = 0; d < 4; ++d) EXPECT_EQ(out.dst[d], (std::vector<int64_t>{t.data[2 * d], t.data[2 * d + 1]})) << "device " << d;
}

// The inputs run_plan gives the case above (issue 47's test gap): distribute would give device 0
// every value and devices 1-3 zeros, so an executor that kept only the first rank's block would
// pass. §6 Partial: the value is the sum of the four contributions. Derived by hand: per element,
// the four buffers sum to t; every device's buffer differs from distribute's (devices 1-3 hold
// nonzero values, device 0 not t itself); and the split is the same on every call (every rank
// builds its own).
TEST(MpiHand, PartialContributionsAreSplitOverEveryRank) {
  const RunSpec spec = spec_of("shard((4,2):None; P(); device(4)|x=4)", "shard((4,2):None; S(0); device(4)|x=4)", {8}, "int32");
  const Tensor t = seeded_tensor({8}, spec.dtype, 1);
  const Engines in = split_contributions(t, spec.src, spec.dtype, spec.seed);
  EXPECT_EQ(in, split_contributions(t, spec.src, spec.dtype, spec.seed));
  ASSERT_EQ(in.buffers.size(), 4u);
  for (size_t i = 0; i < 8; ++i) {
    int64_t sum = 0;
    for (const auto& [d, b] : in.buffers) sum += b.at(i);
    EXPECT_EQ(sum, t.data[i]) << "element " << i;
  }
  EXPECT_NE(in.buffers.at(0), t.data);
  for (int64_t d = 1; d < 4; ++d) EXPECT_NE(in.buffers.at(d), std::vector<int64_t>(8, 0)) << "device " << d;
  // Unsigned dtypes hold no negative contribution: they keep distribute's (spec/MULTIGPU.md).
  EXPECT_EQ(split_contributions(t, spec.src, dtype_of("uint32"), 1), distribute(t, spec.src, Storage::Rmem));
}

// Split(0) -> Split(1) of a 4x4 tensor on x=4: device r holds row r and must end with column r;
// it keeps t[r][r] and exchanges one element with each of the 3 others: 3 float32 = 12 B each way.
TEST(MpiHand, AllToAllBetweenTwoSplits) {
  const RunSpec spec = spec_of("shard((4,4):None; S(0); device(4)|x=4)", "shard((4,4):None; S(1); device(4)|x=4)", {4, 4});
  EXPECT_EQ(spec.plan.pattern, "all-to-all");
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 0) << out.mismatch;
  expect_bytes(out, {{12, 12}, {12, 12}, {12, 12}, {12, 12}});
  if (g_world->rank() != 0) return;
  const Tensor t = seeded_tensor({4, 4}, spec.dtype, 1);
  for (size_t d = 0; d < 4; ++d) {
    std::vector<int64_t> column;
    for (size_t i = 0; i < 4; ++i) column.push_back(t.data[i * 4 + d]);
    EXPECT_EQ(out.dst[d], column) << "device " << d;
  }
}

// Two meshes over one domain (x=4 against x=2,y=2): the point-to-point fallback. SRC device r
// holds elements 2r, 2r+1; DST (S(1), S(0)) puts elements 4y+2x, 4y+2x+1 on device 2x+y: devices
// 0 and 3 keep theirs, device 1 needs 4,5 (from device 2) and device 2 needs 2,3 (from device 1).
// Two transfers of 2 float64: devices 1 and 2 send and receive 16 B, devices 0 and 3 nothing.
TEST(MpiHand, PointToPointFallback) {
  const RunSpec spec = spec_of("shard((4,2):None; S(0); device(4)|x=4)", "shard((2,2,2):None; S(1),S(0); device(4)|x=2,y=2)", {8}, "float64");
  EXPECT_EQ(spec.plan.pattern, "point-to-point");
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 0) << out.mismatch;
  expect_bytes(out, {{0, 0}, {16, 16}, {16, 16}, {0, 0}});
  if (g_world->rank() != 0) return;
  const Tensor t = seeded_tensor({8}, spec.dtype, 1);
  const std::vector<std::vector<int64_t>> want = {{t.data[0], t.data[1]}, {t.data[4], t.data[5]}, {t.data[2], t.data[3]}, {t.data[6], t.data[7]}};
  EXPECT_EQ(out.dst, want);
}

// A staged plan (issue 35): (4, 4) with Partial(sum) on x and Broadcast on y, on x=2,y=2 (device
// 2x + y), to rows split on x and columns on y. Stage 1 slices columns 2y, 2y+1 locally into mid0
// (8 contributions); stage 2 reduce-scatters along x (groups [0,2] and [1,3], count 4): each rank
// sends (2-1) * 4 float32 = 16 B and receives 16 B. DST device 2x + y holds rows 2x, 2x+1 and
// columns 2y, 2y+1: t[(2x+i)*4 + 2y + j].
TEST(MpiHand, StagedSliceThenReduceScatter) {
  const RunSpec spec = spec_of(R"((4, 4) where x=P("sum") on x=2,y=2)", "(4 @ m.x, 4 @ m.y) on x=2,y=2", {4, 4});
  EXPECT_EQ(spec.plan.pattern, "reduce-scatter");
  EXPECT_EQ(spec.plan.stages.size(), 2u);
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 0) << out.mismatch;
  expect_bytes(out, {{16, 16}, {16, 16}, {16, 16}, {16, 16}});
  if (g_world->rank() != 0) return;
  const Tensor t = seeded_tensor({4, 4}, spec.dtype, 1);
  for (int64_t d = 0; d < 4; ++d) {
    std::vector<int64_t> want;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j) want.push_back(t.data[static_cast<size_t>((2 * (d / 2) + i) * 4 + 2 * (d % 2) + j)]);
    EXPECT_EQ(out.dst[static_cast<size_t>(d)], want) << "device " << d;
  }
}

Collective& first_collective(Plan& p) {
  for (auto& s : p.steps)
    if (auto* c = std::get_if<Collective>(&s)) return *c;
  throw std::logic_error("no collective");
}

// A mutant plan, executed with the true plan's byte figures, must be caught on rank 0's verdict,
// which every rank receives (exit code 1).
TEST(MpiMutant, WrongDeviceGroupIsCaught) {
  RunSpec spec = spec_of("(4 @ m.x, 4 @ m.y) on x=2,y=2", "(4 @ m.x, 4) on x=2,y=2", {4, 4});
  first_collective(spec.plan).groups = {{0, 2}, {1, 3}};  // gathers along x instead of y
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 1);
  if (g_world->rank() == 0) {
    EXPECT_NE(out.mismatch.find("the reference's reshard has"), std::string::npos) << out.mismatch;
    EXPECT_EQ(out.json["rule"], "mpi-mismatch");
  }
}

TEST(MpiMutant, WrongCountIsCaught) {
  RunSpec spec = spec_of("(4 @ m.x, 4 @ m.y) on x=2,y=2", "(4 @ m.x, 4) on x=2,y=2", {4, 4});
  first_collective(spec.plan).count -= 1;  // each rank gathers one element too few
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 1);
  if (g_world->rank() == 0) {
    EXPECT_NE(out.mismatch.find("the reference's reshard has"), std::string::npos) << out.mismatch;
    EXPECT_EQ(out.json["rule"], "mpi-mismatch");
  }
}

// A plan whose byte figures are wrong (the values right) is caught by the byte comparison.
TEST(MpiMutant, WrongByteFigureIsCaught) {
  RunSpec spec = spec_of("(4 @ m.x, 4 @ m.y) on x=2,y=2", "(4 @ m.x, 4) on x=2,y=2", {4, 4});
  spec.expected[2].received += 4;
  const RunOutcome out = execute(spec);
  EXPECT_EQ(out.exit_code, 1);
  if (g_world->rank() == 0) {
    EXPECT_EQ(out.mismatch, "rank 2 (device 2): sent 16 B and received 16 B; the plan says 16 B and 20 B");
  }
}

using tfspec::testing::error_id;

// The property: generated reshards over exactly the world's devices; every one is executed and
// must equal the reference's reshard with the plan's bytes; Dynamic is refused alike everywhere.
TEST(MpiProps, GeneratedReshardsMatchTheReferenceAndThePlan) {
  const int ranks = g_world->size();
  const int cases = (ranks <= 2 ? 120 : ranks <= 4 ? 100 : 60) / TFSPEC_MPI_PROPERTY_DIVISOR;
  std::mt19937_64 gen(20261201 + static_cast<uint64_t>(ranks));
  std::map<std::string, int> patterns;
  for (int i = 0; i < cases; ++i) {
    const auto c = mpi_testing::generate_case(gen, ranks);
    const uint64_t seed = 1 + static_cast<uint64_t>(i);
    std::optional<RunSpec> planned_spec;
    const std::string planned = error_id([&] { planned_spec = spec_of(c.src, c.dst, c.shape, c.dtype, seed); });
    if (c.dynamic) {
      EXPECT_EQ(planned, "dynamic-unresolved") << c.command(ranks, seed);
      ++patterns["dynamic (refused)"];
      continue;
    }
    ASSERT_EQ(planned, "(no error)") << c.command(ranks, seed);
    const RunSpec& spec = *planned_spec;
    ++patterns[spec.plan.pattern];
    const RunOutcome out = execute(spec);
    ASSERT_EQ(out.exit_code, 0) << out.mismatch << "\n  reproduce: " << c.command(ranks, seed);
  }
  if (g_world->rank() == 0) {
    std::cout << cases << " cases on " << ranks << " ranks:";
    for (const auto& [p, n] : patterns) std::cout << " " << p << " " << n << ";";
    std::cout << "\n";
  }
}

}  // namespace
}  // namespace tfspec::multigpu::mpi

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tfspec::multigpu::mpi::World world(60);
  tfspec::multigpu::mpi::g_world = &world;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!a.starts_with("--executor=")) continue;
    auto& v = tfspec::multigpu::mpi::g_variants;
    v.clear();
    for (size_t start = 11; start <= a.size();) {
      const size_t end = std::min(a.find(',', start), a.size());
      v.push_back(tfspec::multigpu::mpi::parse_executor_options(a.substr(start, end - start)));
      start = end + 1;
    }
  }
  if (world.rank() != 0) {  // one report: rank 0's (failures on other ranks still print)
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  if (rc != 0 && world.rank() != 0) std::cerr << "rank " << world.rank() << ": tests failed\n";
  return rc;
}
