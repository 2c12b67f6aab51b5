// Unit tests of the optimized implementation against hand-checked values and the reference.
// The exhaustive comparison is the fuzzer's job (props/tests/fuzz_props_test.cpp).
#include <gtest/gtest.h>

#include <random>

#include "tfspec/gpu/backend.hpp"
#include "tfspec/gpu/core.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec::gpu {
namespace {

TEST(FastDivmod, ExactForEveryDividendBelowALimitAndAtTheEdges) {
  std::mt19937_64 rng(7);
  for (uint32_t d : {1u, 2u, 3u, 5u, 6u, 7u, 12u, 641u, 65535u, 65536u, 1000003u, 0x7fffffffu, 0x80000000u}) {
    FastDivmod32 f = make_fast_divmod32(d);
    FastDivmod64 g = make_fast_divmod64(d);
    auto check = [&](uint64_t n) {
      uint32_t q, r;
      f.divmod(static_cast<uint32_t>(n), q, r);
      ASSERT_EQ(q, n / d) << "32-bit n=" << n << " d=" << d;
      ASSERT_EQ(r, n % d);
      uint64_t q64, r64;
      g.divmod(n, q64, r64);
      ASSERT_EQ(q64, n / d) << "64-bit n=" << n << " d=" << d;
    };
    for (uint64_t n = 0; n < 4096; ++n) check(n);
    for (uint64_t n = 0x7fffff00u; n <= 0x7fffffffu; ++n) check(n);
    for (int i = 0; i < 20000; ++i) check(rng() & 0x7fffffffu);
  }
  for (uint64_t d : {uint64_t{3}, uint64_t{1} << 40, (uint64_t{1} << 62) + 1, uint64_t{0x7fffffffffffffff}}) {
    FastDivmod64 g = make_fast_divmod64(d);
    for (uint64_t n : {uint64_t{0}, d - 1, d, 3 * (d / 2), uint64_t{0x7fffffffffffffff}}) {
      uint64_t q, r;
      g.divmod(n, q, r);
      EXPECT_EQ(q, n / d) << n << " / " << d;
    }
  }
}

std::vector<int64_t> reference_offsets(const LayoutBase& l) {
  int64_t n = 1;
  for (const auto& x : flat_leaves(l.shape())) n *= x.value();
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(l.apply(IntTuple(i)));
  return out;
}

TEST(OffsetTables, MatchTheReferenceAndChooseTheIndexWidthFromTheBounds) {
  auto host = make_host_backend(2);
  struct Case {
    const char* text;
    IndexMode mode;
  };
  for (const Case& c : {Case{"(2,(3,4)):(1,(2,6))", kIndex32}, Case{"(4,8):(8,1)", kIndex32}, Case{"(3,1,2):(0,5,-7)", kIndex32},
                        Case{"(3,3):(1,1073741824)", kIndex64}, Case{"(2,2):(2147483647,1)", kIndex64},
                        Case{"(2,2):(4611686018427387904,4611686018427387904)", kIndex64Checked},
                        Case{"(4,2):(1,4) o 3 o (2,2):(1,2)", kIndex32}, Case{"None o 7 o (5):(3)", kIndex32}}) {
    LayoutPtr l = parse_any_layout(c.text);
    FnPlan p = compile_layout(*l);
    EXPECT_EQ(p.mode, c.mode) << c.text;
    if (c.mode == kIndex64Checked) {
      try {
        host->offsets(p);
        FAIL() << "expected int64-overflow for " << c.text;
      } catch (const SpecError& e) {
        EXPECT_EQ(e.rule(), "int64-overflow");
      }
      continue;
    }
    EXPECT_EQ(host->offsets(p), reference_offsets(*l)) << c.text;
  }
}

// Tiled runs too (make_stage_tile): tiles of the whole stage, of a prefix of its modes (the
// 4100-element layout: tile 100 x 41 = 4100 > 4096, so a tile of the first mode, 100 long, then
// carries over 41), and of a first mode too long for a tile (5000: no tile, modes 0).
TEST(OffsetTables, OdometerRunsFromAnyStartEqualElementwiseEvaluation) {
  auto none = std::make_unique<StageTile<int32_t>>();
  make_stage_tile(compile_layout(*parse_any_layout("(5000,2):(1,5000)")).stages[0], *none);
  EXPECT_EQ(none->modes, 0);
  auto prefix = std::make_unique<StageTile<int32_t>>();
  make_stage_tile(compile_layout(*parse_any_layout("(100,41):(41,1)")).stages[0], *prefix);
  EXPECT_EQ(prefix->modes, 1);
  EXPECT_EQ(prefix->size, 100);
  for (const char* text : {"(3,(2,5),4):(7,(-3,100),1)", "(1,1,6):(9,9,2)", "(5):(2147483647)", "((2,3),(4,1)):((1,2),(6,0))",
                           "(100,41):(41,1)", "(64,(64,2)):(1,(-64,3))"}) {
    FnPlan p = compile_layout(*parse_any_layout(text));
    const Stage& s = p.stages[0];
    for (int64_t start = 0; start < s.size; start += s.size > 64 ? 97 : 1)  // every start of the small ones
      for (int64_t count : {int64_t{1}, int64_t{2}, int64_t{7}, s.size - start}) {
        if (start + count > s.size) continue;
        std::vector<int64_t> run(static_cast<size_t>(count));
        std::vector<int64_t> tiled(static_cast<size_t>(count));
        if (p.mode == kIndex32) {
          layout_stage_run<int32_t>(s, start, count, run.data());
          auto t = std::make_unique<StageTile<int32_t>>();
          make_stage_tile(s, *t);
          layout_stage_tiled_run(s, *t, start, count, tiled.data());
        } else {
          layout_stage_run<int64_t>(s, start, count, run.data());
          auto t = std::make_unique<StageTile<int64_t>>();
          make_stage_tile(s, *t);
          layout_stage_tiled_run(s, *t, start, count, tiled.data());
        }
        for (int64_t j = 0; j < count; ++j) {
          int64_t v = 0;
          ASSERT_EQ(eval_index(p, start + j, v), kOk);
          ASSERT_EQ(run[j], v) << text << " start " << start << " j " << j;
          ASSERT_EQ(tiled[j], v) << text << " (tiled) start " << start << " j " << j;
        }
      }
  }
}

TEST(OffsetTables, AComposedLayoutLeavingItsInnerDomainFailsClosedLikeTheReference) {
  LayoutPtr l = parse_any_layout("(4):(1) o 2 o (3):(1)");  // 2 + 2 = 4 is outside inner's [0, 4)
  try {
    make_host_backend(1)->offsets(compile_layout(*l));
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "coord-in-domain");
    EXPECT_NE(std::string(e.what()).find("element 2"), std::string::npos) << e.what();
  }
}

// Issue 30 item 12: swizzles (extension X1) are a stage of the core. Hand derivation: the outer
// 4:2 reaches 0, 2, 4, 6; Sw<1,0,1> xors bit 1 into bit 0: 0, 3, 4, 7.
TEST(Swizzle, HandDerivedOffsetsAndCoordinates) {
  auto host = make_host_backend(1);
  LayoutPtr l = parse_any_layout("Sw<1,0,1> o 0 o 4:2");
  EXPECT_EQ(host->offsets(compile_layout(*l)), (std::vector<int64_t>{0, 3, 4, 7}));
  EXPECT_EQ(host->crd2idx(compile_layout(*l), {1, 3}), (std::vector<int64_t>{3, 7}));
  // A swizzle reading bits past 30 needs the 64-bit width: 2^31 = bit 31 set, xored into bit 0.
  LayoutPtr wide = parse_any_layout("Sw<1,0,31> o 0 o 2:2147483648");
  const FnPlan p = compile_layout(*wide);
  EXPECT_NE(p.mode, kIndex32);
  EXPECT_EQ(host->offsets(p), (std::vector<int64_t>{0, 2147483649}));
}

// Every legal Sw<B,M,S> with B < 4, M < 6, |S| < 7, over outers with positive, negative and zero
// strides and an offset: the core's offsets equal the reference's, in whatever width it chose.
std::vector<std::string> swizzled_layouts() {
  std::vector<std::string> out;
  for (int b = 0; b < 4; ++b)
    for (int m = 0; m < 6; ++m)
      for (int s = -6; s <= 6; ++s) {
        if ((s < 0 ? -s : s) < b || s == 0) continue;
        const std::string sw = "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) + ">";
        for (const char* outer : {"(8,16):(16,1)", "(4,3,5):(1,-7,40)", "(6,2):(0,33)"})
          for (const char* off : {"0", "5", "-3"}) out.push_back(sw + " o " + off + " o " + outer);
      }
  return out;
}

TEST(Swizzle, EveryLegalSmallSwizzleMatchesTheReference) {
  auto host = make_host_backend(2);
  const auto layouts = swizzled_layouts();
  ASSERT_GT(layouts.size(), 300u);
  for (const auto& text : layouts) {
    LayoutPtr l = parse_any_layout(text);
    EXPECT_EQ(host->offsets(compile_layout(*l)), reference_offsets(*l)) << text;
  }
}

TEST(Crd2idx, BatchedCoordinatesMatchTheReference) {
  LayoutPtr l = parse_any_layout("(2,(3,4)):(1,(2,6))");
  std::vector<int64_t> coords = {0, 0, 0, 1, 2, 3, 1, 1, 1};
  auto out = make_host_backend(1)->crd2idx(compile_layout(*l), coords);
  EXPECT_EQ(out, (std::vector<int64_t>{0, 23, 9}));
}

TEST(GatherScatter, ThroughALayout) {
  auto host = make_host_backend(2);
  FnPlan p = compile_layout(*parse_any_layout("(2,3):(3,1)"));
  std::vector<int64_t> src = {10, 11, 12, 13, 14, 15};
  EXPECT_EQ(host->gather(p, src), (std::vector<int64_t>{10, 13, 11, 14, 12, 15}));
  EXPECT_EQ(host->scatter(p, {10, 13, 11, 14, 12, 15}, 6), src);
  try {
    host->scatter(compile_layout(*parse_any_layout("(2,2):(1,1)")), {1, 2, 3, 4}, 4);
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "layout-injective");
  }
}

Engines reshard_both(Backend& b, const char* src, Storage ss, const char* dst, Storage ds, const std::vector<int64_t>& shape,
                     const Tensor& t, Engines* expected) {
  ShardLayout s = parse_shard_layout(src), d = parse_shard_layout(dst);
  Engines in = distribute(t, s, ss);
  *expected = reshard(in, s, d, ds, shape);
  return b.reshard(compile_reshard(s, ss, d, ds, shape), in);
}

TEST(Reshard, Section75BothDirectionsAndPartialSums) {
  auto host = make_host_backend(2);
  Tensor t{{2, 1536}, {}};
  for (int64_t i = 0; i < 2 * 1536; ++i) t.data.push_back(i * 3 - 1000);
  const char* gmem = "shard((2,4,3,32,4):(1536,384,128,4,1); S(0),S(1),S(3); device(256)|x=2,y=4,t=32)";
  const char* rmem = "shard((2,4,3,32,4):(0,0,4,0,1); S(0),S(1),S(3); device(256)|x=2,y=4,t=32)";
  Engines expected;
  EXPECT_EQ(reshard_both(*host, gmem, Storage::Gmem, rmem, Storage::Rmem, {2, 1536}, t, &expected), expected);
  EXPECT_EQ(reshard_both(*host, rmem, Storage::Rmem, gmem, Storage::Gmem, {2, 1536}, t, &expected), expected);
  Tensor small{{6}, {5, -7, 0, 9, 2, 4}};
  EXPECT_EQ(reshard_both(*host, "shard((6):(1); P(); x=3)", Storage::Rmem, "shard((6):(1); B; x=2)", Storage::Rmem, {6}, small, &expected),
            expected);
}

// The packed entry point on caller-owned buffers, derived by hand. Tensor (6) = 10..15.
// (a) SRC S(0), per-instance form (2,3):(0,1) on x=2 (rmem: one engine per device, D3): device 0
// holds 10,11,12 and device 1 holds 13,14,15. The caller lays engine 1 out first and leaves two
// junk slots: src = [13,14,15, J,J, 10,11,12], base {5, 0}. DST Broadcast (6):(1) on x=2: every
// device holds all six at offsets 0..5; the plan's packed layout puts engine 0 at 0 and engine 1
// at 6: [10..15, 10..15]. Runs 3 and 6 share gcd 3: the copy path.
// (b) SRC Partial(sum) (6):(1) on x=2: contributions [1..6] and six 9s sum to 10..15 (element
// path). DST S(0) (2,3):(4,1) on x=2, rmem: device 1's elements sit at offsets 4..6 of its own
// engine (the stride applies to the global coordinate, §7.1.2), so engine 1 has 7 slots and 0..3
// are holes; packed: engine 0 at 0 (3 slots), engine 1 at 3 (7): a marker in the holes stays.
void expect_packed_cases(Backend& b) {
  constexpr int64_t J = -1, M = 999;
  ReshardPlan copy = compile_reshard(parse_shard_layout("shard((2,3):(0,1); S(0); x=2)"), Storage::Rmem,
                                     parse_shard_layout("shard((6):(1); B; x=2)"), Storage::Rmem, {6});
  EXPECT_EQ(copy.run, 3);
  ASSERT_TRUE(copy.dst);
  EXPECT_EQ(copy.dst->packed.base, (std::vector<int64_t>{0, 6}));
  const PackedLayout mine{{5, 0}, {3, 3}, 8};
  const std::vector<int64_t> src{13, 14, 15, J, J, 10, 11, 12};
  std::vector<int64_t> dst(12, 0);
  b.reshard_packed(copy, mine, src.data(), dst.data());
  EXPECT_EQ(dst, (std::vector<int64_t>{10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15})) << b.name();

  ReshardPlan sum = compile_reshard(parse_shard_layout("shard((6):(1); P(); x=2)"), Storage::Rmem,
                                    parse_shard_layout("shard((2,3):(4,1); S(0); x=2)"), Storage::Rmem, {6});
  ASSERT_TRUE(sum.dst);
  EXPECT_EQ(sum.dst->packed.base, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(sum.dst->packed.size, (std::vector<int64_t>{3, 7}));
  const std::vector<int64_t> contributions{1, 2, 3, 4, 5, 6, 9, 9, 9, 9, 9, 9};
  std::vector<int64_t> out(10, M);
  b.reshard_packed(sum, sum.src.packed, contributions.data(), out.data());
  EXPECT_EQ(out, (std::vector<int64_t>{10, 11, 12, M, M, M, M, 13, 14, 15})) << b.name();

  // a refusal keeps the reference's rule: a replica that disagrees (§6 replica-mismatch)
  const std::vector<int64_t> bad{10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 99};
  ReshardPlan back = compile_reshard(parse_shard_layout("shard((6):(1); B; x=2)"), Storage::Rmem,
                                     parse_shard_layout("shard((2,3):(0,1); S(0); x=2)"), Storage::Rmem, {6});
  std::vector<int64_t> sink(6, 0);
  try {
    b.reshard_packed(back, back.src.packed, bad.data(), sink.data());
    ADD_FAILURE() << b.name() << ": a disagreeing replica was accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "replica-mismatch");
  }
}

TEST(ReshardPacked, CallerOwnedBuffersHandDerived) {
  auto host = make_host_backend(2);
  expect_packed_cases(*host);
}

// Every CUDA backend test runs twice: on the device (`cuda`: skipped, with the CUDA error named,
// where there is none) and on the emulated grid (`cuda-emu`: the same kernel source compiled for
// the host, issue 23), so the kernels run in every CI run.
class CudaBackend : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    cuda = make_backend(GetParam());
    ASSERT_TRUE(cuda);
    if (auto why = cuda->unavailable()) GTEST_SKIP() << "no usable CUDA device: " << *why;
  }
  std::unique_ptr<Backend> cuda;
};
INSTANTIATE_TEST_SUITE_P(Kernels, CudaBackend, testing::Values("cuda", "cuda-emu"),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param == "cuda" ? "device" : "emulated"; });

TEST_P(CudaBackend, ReshardPackedHandDerived) { expect_packed_cases(*cuda); }

TEST_P(CudaBackend, SwizzledLayoutsMatchTheReference) {
  for (const auto& text : swizzled_layouts()) {
    LayoutPtr l = parse_any_layout(text);
    EXPECT_EQ(cuda->offsets(compile_layout(*l)), reference_offsets(*l)) << text;
  }
}

// The common contiguous run (issue 11's vectorized copies). Hand derivation: the logical index is
// row-major over G (D2), so the run of a side is the product of its trailing G dims that no mesh
// axis Splits while their strides read 1, g[last], g[last]*g[last-1], ...; two sides share gcd.
TEST(ReshardRuns, ThePlanFindsTheCommonContiguousRun) {
  auto run_of = [](const char* src, Storage ss, const char* dst, Storage ds, std::vector<int64_t> shape) {
    return compile_reshard(parse_shard_layout(src), ss, parse_shard_layout(dst), ds, shape).run;
  };
  // dims 1, 2 (32 x 1024, strides 1024, 1) on both sides: 32768
  EXPECT_EQ(run_of("shard((8,32,1024):(32768,1024,1); S(0); x=8)", Storage::Gmem, "shard((8,32,1024):(0,1024,1); S(0); x=8)",
                   Storage::Rmem, {256, 1024}),
            32768);
  // §7.5: dim 3 is Split, so only the last dim (4, stride 1) runs
  EXPECT_EQ(run_of("shard((2,4,3,32,4):(1536,384,128,4,1); S(0),S(1),S(3); device(256)|x=2,y=4,t=32)", Storage::Gmem,
                   "shard((2,4,3,32,4):(0,0,4,0,1); S(0),S(1),S(3); device(256)|x=2,y=4,t=32)", Storage::Rmem, {2, 1536}),
            4);
  // runs of 6 and 4: gcd 2 (blocks [0,2), [2,4), [4,6) lie inside both)
  EXPECT_EQ(run_of("shard((2,6):(6,1); S(0); x=2)", Storage::Gmem, "shard((3,4):(4,1); S(0); x=3)", Storage::Gmem, {12}), 2);
  // column-major: the last dim steps by 4, no run
  EXPECT_EQ(run_of("shard((4,6):(1,4); B; x=2)", Storage::Rmem, "shard((4,6):(6,1); B; x=2)", Storage::Rmem, {4, 6}), 1);
  // the last dim Split: no run
  EXPECT_EQ(run_of("shard((6,2):(1,0); S(1); x=2)", Storage::Rmem, "shard((12):(1); B; x=2)", Storage::Rmem, {12}), 1);
}

// The device kernel's chunks (run_chunk): a run of 11 (prime, above 8) is cut 8 + 3, so every
// thread but the last of a run moves 8 elements (the old split took the largest divisor <= 8 of the
// run, 1 for a prime). n = 22: chunks (0,8) (8,3) (11,8) (19,3).
TEST(ReshardRuns, DeviceChunksAreEightElementsInsideOneRun) {
  const RunChunks eleven = make_run_chunks(22, 11);
  ASSERT_EQ(eleven.total, 4);
  std::vector<std::pair<int64_t, int64_t>> got;
  for (int64_t c = 0; c < eleven.total; ++c) {
    int64_t l = 0, count = 0;
    run_chunk(eleven, c, l, count);
    got.emplace_back(l, count);
  }
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int64_t>>{{0, 8}, {8, 3}, {11, 8}, {19, 3}}));
  // Every (n, run): the chunks cover [0, n) once, in order, each inside one run, at most 8 long,
  // and a run of R takes ceil(R / 8) chunks (n = 3 * run - 1 also cuts the last run short).
  for (int64_t run : {1, 2, 3, 5, 7, 8, 9, 11, 13, 16, 17, 24, 31, 64, 97})
    for (int64_t n : {run, 3 * run, 3 * run - 1, 1000 * run}) {
      const RunChunks rc = make_run_chunks(n, run);
      EXPECT_EQ(rc.total, (n + run - 1) / run * ((run + 7) / 8)) << run << " " << n;
      int64_t next = 0;
      for (int64_t c = 0; c < rc.total; ++c) {
        int64_t l = 0, count = 0;
        run_chunk(rc, c, l, count);
        if (count == 0) continue;
        ASSERT_EQ(l, next) << "run " << run << " n " << n << " chunk " << c;
        ASSERT_LE(count, 8);
        ASSERT_EQ(l / run, (l + count - 1) / run) << "chunk " << c << " crosses a run boundary";
        next = l + count;
      }
      EXPECT_EQ(next, n) << run << " " << n;
    }
}

TEST(ReshardRuns, CopiesEqualTheReferenceAndFailuresFallBackToTheElementPath) {
  auto host = make_host_backend(2);
  Tensor t{{12}, {}};
  for (int64_t i = 0; i < 12; ++i) t.data.push_back(i * 11 - 40);
  Engines expected;
  // gcd-2 runs; Broadcast replicas on the destination, a sum axis (D9: zeros at coordinate 1)
  EXPECT_EQ(reshard_both(*host, "shard((2,6):(6,1); S(0); x=2)", Storage::Gmem, "shard((3,4):(4,1); S(0),B; x=3,y=2)", Storage::Rmem, {12}, t,
                         &expected),
            expected);
  EXPECT_EQ(reshard_both(*host, "shard((12):(1); B; x=2)", Storage::Rmem, "shard((12):(1); P(); x=2)", Storage::Rmem, {12}, t, &expected),
            expected);
  // A replica disagreeing at element 7 inside a run: refused for element 7, as the reference does.
  ShardLayout s = parse_shard_layout("shard((12):(1); B; x=2)"), d = parse_shard_layout("shard((3,4):(4,1); S(0); x=3)");
  Engines in = distribute(t, s, Storage::Rmem);
  in.buffers.at(1)[7] += 1;
  ReshardPlan rp = compile_reshard(s, Storage::Rmem, d, Storage::Gmem, {12});
  ASSERT_EQ(rp.run, 4);
  try {
    reshard(in, s, d, Storage::Gmem, {12});
    FAIL() << "the reference accepts disagreeing replicas";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "replica-mismatch");
  }
  auto cuda = make_cuda_backend();
  auto emulated = make_cuda_emu_backend();
  for (Backend* b : {host.get(), cuda.get(), emulated.get()}) {
    if (b == cuda.get() && cuda->unavailable()) continue;  // gpu-check.sh runs it on a device
    try {
      b->reshard(rp, in);
      FAIL() << b->name() << ": replicas disagree";
    } catch (const SpecError& e) {
      EXPECT_EQ(e.rule(), "replica-mismatch") << b->name();
      EXPECT_NE(std::string(e.what()).find("element 7"), std::string::npos) << b->name() << ": " << e.what();
    }
  }
  // A source buffer one element short: the element path reports the last element.
  Engines short_in = distribute(t, s, Storage::Rmem);
  short_in.buffers.at(0).pop_back();
  short_in.buffers.at(1).pop_back();
  try {
    host->reshard(rp, short_in);
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.rule(), "engine-buffer-size");
    EXPECT_NE(std::string(e.what()).find("element 11"), std::string::npos) << e.what();
  }
}

TEST(Reshard, RefusesWithTheReferencesRuleIds) {
  auto host = make_host_backend(1);
  auto rule_of = [&](const char* src, Storage ss, const char* dst, Storage ds, std::vector<int64_t> shape) {
    try {
      compile_reshard(parse_shard_layout(src), ss, parse_shard_layout(dst), ds, shape).dst_error.value();
      return std::string("accepted");
    } catch (const SpecError& e) {
      return e.rule();
    } catch (const std::bad_optional_access&) {
      return std::string("accepted");
    }
  };
  const char* ok = "shard((6):(1); B; x=2)";
  EXPECT_EQ(rule_of("shard((3,4):(4,1); S(0); x=2)", Storage::Rmem, ok, Storage::Rmem, {12}), "split-divides");
  EXPECT_EQ(rule_of("shard((4,3):(3,1); S(0); x=2)", Storage::Rmem, ok, Storage::Rmem, {12}), "split-extent-canonical");
  EXPECT_EQ(rule_of("shard((2,3):(0,1); S(0); x=2)", Storage::Gmem, ok, Storage::Rmem, {6}), "shard-injective");
  EXPECT_EQ(rule_of("shard((3):(1); P(); x=2)", Storage::Gmem, ok, Storage::Rmem, {3}), "partial-aliased");
  EXPECT_EQ(rule_of("shard((2,3):(3,1); D; x=2)", Storage::Rmem, ok, Storage::Rmem, {6}), "dynamic-unresolved");
  EXPECT_EQ(rule_of("shard((3,2):(2,1); B; x=2)", Storage::Rmem, ok, Storage::Rmem, {2, 3}), "shard-regroup");
}

TEST_P(CudaBackend, RunsOnADeviceOrSaysWhyNot) {
  LayoutPtr l = parse_any_layout("(2,(3,4)):(1,(2,6))");
  EXPECT_EQ(cuda->offsets(compile_layout(*l)), reference_offsets(*l));
}

// The emulated grid runs the same kinds of input at about a sixteenth of the device's sizes (one
// host thread runs every emulated thread; CI's sanitizer build runs it too). Past one block, the
// grid-stride stand-in makes its loops iterate as the device's do at full size.
TEST_P(CudaBackend, EveryOperationMatchesTheHostBackendOnLargeInputs) {
  auto host = make_host_backend();
  const bool device = GetParam() == "cuda";
  const std::vector<const char*> layouts =
      device ? std::vector<const char*>{"((64,64),(64,64)):((1,4096),(64,262144))", "(3,(1024,1024),5):(2147483647,(1,3),-7)",
                                        "(1024,64):(64,1) o 5 o (4096,15):(1,4096)"}
             : std::vector<const char*>{"((16,16),(64,16)):((1,1024),(16,65536))", "(3,(256,256),5):(2147483647,(1,3),-7)",
                                        "(256,64):(64,1) o 5 o (4096,3):(1,4096)"};
  for (const char* text : layouts) {
    FnPlan p = compile_layout(*parse_any_layout(text));
    EXPECT_EQ(cuda->offsets(p), host->offsets(p)) << text;
  }
  const int64_t rows = device ? 512 : 32;
  FnPlan p = compile_layout(*parse_any_layout("(" + std::to_string(rows) + ",1024):(1024,1)"));
  std::vector<int64_t> src(static_cast<size_t>(rows * 1024));
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int64_t>(i * 7);
  EXPECT_EQ(cuda->gather(p, src), host->gather(p, src));
  EXPECT_EQ(cuda->scatter(p, src, rows * 1024), host->scatter(p, src, rows * 1024));
  Tensor t{{2, 1536}, {}};
  for (int64_t i = 0; i < 2 * 1536; ++i) t.data.push_back(i - 77);
  ShardLayout g = parse_shard_layout("shard((2,4,3,32,4):(1536,384,128,4,1); S(0),S(1),S(3); device(256)|x=2,y=4,t=32)");
  ShardLayout r = parse_shard_layout("shard((2,4,3,32,4):(0,0,4,0,1); S(0),S(1),S(3); device(256)|x=2,y=4,t=32)");
  ReshardPlan rp = compile_reshard(g, Storage::Gmem, r, Storage::Rmem, {2, 1536});
  Engines in = distribute(t, g, Storage::Gmem);
  EXPECT_EQ(cuda->reshard(rp, in), host->reshard(rp, in));
}

TEST_P(CudaBackend, ContiguousRunReshardsMatchTheHostBackend) {
  auto host = make_host_backend();
  const bool device = GetParam() == "cuda";  // emulated: (8, 512), runs of 512 (see above)
  const int64_t rows = device ? 64 : 8, cols = device ? 4096 : 512;
  Tensor t{{rows, cols}, {}};
  for (int64_t i = 0; i < rows * cols; ++i) t.data.push_back(i * 7 - 3);
  const std::string per = std::to_string(rows / 8), width = std::to_string(cols);
  const std::string big_src = "shard((8," + per + "," + width + "):(" + std::to_string(rows / 8 * cols) + "," + width + ",1); S(0); x=8)";
  const std::string big_dst = "shard((8," + per + "," + width + "):(0," + width + ",1); S(0); x=8)";
  // runs of 8 x 4096 (chunks of 8), of 6 (gcd 2: chunks of 2, half of them 16-byte misaligned),
  // and a Broadcast destination with a sum axis
  struct Case {
    const char *src, *dst;
    Storage ss, ds;
    std::vector<int64_t> shape;
  };
  for (const Case& c : {Case{big_src.c_str(), big_dst.c_str(), Storage::Gmem, Storage::Rmem, {rows, cols}},
                        Case{"shard((2,6):(6,1); S(0); x=2)", "shard((3,4):(4,1); S(0); x=3)", Storage::Gmem, Storage::Gmem, {12}},
                        Case{"shard((12):(1); B; x=2)", "shard((3,4):(4,1); S(0),P(); x=3,y=2)", Storage::Rmem, Storage::Rmem, {12}}}) {
    Tensor in_t{c.shape, std::vector<int64_t>(t.data.begin(), t.data.begin() + (c.shape.size() == 1 ? 12 : rows * cols))};
    ShardLayout s = parse_shard_layout(c.src), d = parse_shard_layout(c.dst);
    ReshardPlan rp = compile_reshard(s, c.ss, d, c.ds, c.shape);
    EXPECT_GT(rp.run, 1) << c.src;
    Engines in = distribute(in_t, s, c.ss);
    EXPECT_EQ(cuda->reshard(rp, in), host->reshard(rp, in)) << c.src << " -> " << c.dst;
  }
}

// Registers, local memory and occupancy of every kernel on this device (gpu-check.sh keeps the log).
// Device only: the emulated grid has no registers or occupancy to report.
TEST(CudaDevice, KernelReport) {
  auto cuda = make_cuda_backend();
  if (auto why = cuda->unavailable()) GTEST_SKIP() << "no usable CUDA device: " << *why;
  const std::string report = cuda_kernel_report();
  std::cout << report;
  EXPECT_NE(report.find("reshard_runs_kernel: "), std::string::npos);
  EXPECT_EQ(report.find(" 0 blocks/SM"), std::string::npos) << "a kernel cannot be resident";
}

}  // namespace
}  // namespace tfspec::gpu
