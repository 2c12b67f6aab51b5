// Fuzz target (issue 34): `kernel check` descriptions (spec/KERNEL.md), built from the bytes on the
// passing SM80 case so that most inputs get past the reader: tile sizes, thread and value
// layouts, swizzles, the s2r atom's layouts, the MMA's atoms and permutation, stages and the
// epilogue's source vary; so do TMA loads, the epilogue's staging buffer, MN-major stages, an
// operand read from shared memory, padded stage strides and a one-value (FMA) atom with
// each thread's own universal-copy loads (extension K1). The global layouts are concrete, so no input waits on the prover.
// Findings: a crash, UB, an exception other than SpecError, an Internal rule.
#include "fuzz_support.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/views.hpp"
#include "tfspec/reference/error.hpp"

using namespace tfspec;

namespace {

struct Bytes {
  const unsigned char* p;
  size_t n;
  int64_t pick(int64_t k) {  // 0 .. k-1
    if (n == 0) return 0;
    --n;
    return *p++ % k;
  }
  int64_t pow2(int lo, int hi) { return int64_t{1} << (lo + pick(hi - lo + 1)); }
  std::string layout2() {  // a rank-2 layout of small powers of two (a stride 0 now and then)
    const int64_t s0 = pow2(0, 6), s1 = pow2(0, 4), d0 = pick(9) == 0 ? 0 : pow2(0, 6), d1 = pick(9) == 0 ? 0 : pow2(0, 8);
    return "(" + std::to_string(s0) + "," + std::to_string(s1) + "):(" + std::to_string(d0) + "," + std::to_string(d1) + ")";
  }
};

Json base() {
  return Json::parse(R"json({
    "name": "fuzz", "arch": "sm80", "threads": 128, "tile": [128, 128, 32], "stages": 3,
    "bits": {"A": 16, "B": 16, "C": 16},
    "global": {"A": "(1024,512):(512,1)", "B": "(1024,512):(512,1)", "C": "(1024,1024):(1024,1)"},
    "A": {"g2s": {"atom_bits": 128, "threads": "(32,4):(4,1)", "values": "(1,8)"}, "smem": "Sw<3,3,3> o 0 o (128,32):(32,1)",
          "s2r": {"bits": 128, "src": "(32,8):(8,1)", "dst": "(32,(2,4)):(2,(1,64))"}},
    "B": {"g2s": {"atom_bits": 128, "threads": "(32,4):(4,1)", "values": "(1,8)"}, "smem": "Sw<3,3,3> o 0 o (128,32):(32,1)",
          "s2r": {"bits": 128, "src": "(32,8):(8,1)", "dst": "(32,(2,4)):(2,(1,64))"}},
    "mma": {"shape": [16, 8, 16], "threads": 32, "A": "((4,8),(2,2,2)):((32,1),(16,8,128))", "B": "((4,8),(2,2)):((16,1),(8,64))",
            "C": "((4,8),(2,2)):((32,1),(16,8))", "atoms": "(2,2,1)", "permutation": [32, 32, 16]},
    "epilogue": {"atom_bits": 128, "threads": "(16,8):(8,1)", "values": "(1,8)"}})json");
}

void mutate(Json& j, Bytes& b) {
  while (b.n > 0) {
    const char* op = b.pick(2) ? "A" : "B";
    switch (b.pick(15)) {
      case 0: j["tile"][static_cast<size_t>(b.pick(3))] = b.pow2(3, 8); break;
      case 1: j[op]["g2s"]["threads"] = b.layout2(); break;
      case 2: j[op]["g2s"]["values"] = b.layout2(); break;
      case 3: j[op]["smem"] = "Sw<" + std::to_string(b.pick(4)) + "," + std::to_string(b.pick(5)) + "," + std::to_string(3 + b.pick(3)) + "> o 0 o (" +
                              std::to_string(b.pow2(3, 8)) + "," + std::to_string(b.pow2(3, 7)) + "):(" + std::to_string(b.pow2(0, 8)) + ",1)"; break;
      case 4: j[op]["s2r"]["dst"] = b.pick(2) ? "((4,8),(2,4)):((16,1),(8,64))" : "(32,(2,4)):(2,(1," + std::to_string(b.pow2(3, 7)) + "))"; break;
      case 5: j["mma"]["atoms"] = "(" + std::to_string(b.pow2(0, 2)) + "," + std::to_string(b.pow2(0, 2)) + ",1)"; break;
      case 6: j["mma"]["permutation"][static_cast<size_t>(b.pick(3))] = b.pick(3) == 0 ? Json(nullptr) : Json(b.pow2(3, 6)); break;
      case 7: j["stages"] = 1 + b.pick(16); break;
      case 8: j["epilogue"]["source"] = b.pick(2) ? "accumulators" : "smem"; break;
      case 9: {  // a TMA load (extension K1): any mode, any box
        static const char* const modes[] = {"none", "32B", "64B", "128B"};
        j[op]["g2s"] = {{"tma", {{"swizzle", modes[b.pick(4)]}, {"box", {b.pow2(0, 9), b.pow2(0, 7)}}}}};
        break;
      }
      case 10:  // the epilogue's staging buffer, any swizzle and store width
        j["epilogue"]["smem"] = "Sw<" + std::to_string(b.pick(4)) + "," + std::to_string(b.pick(5)) + "," + std::to_string(3 + b.pick(3)) + "> o 0 o (128,128):(" +
                                std::to_string(b.pow2(0, 8)) + ",1)";
        j["epilogue"]["r2s_bits"] = b.pow2(3, 7);
        break;
      case 11:  // an M-major (MN-major) stage for the wgmma atoms' check
        j[op]["smem"] = "Sw<" + std::to_string(b.pick(4)) + ",3,3> o 0 o ((64,2),(8,4)):((1," + std::to_string(b.pow2(6, 10)) + "),(" +
                        std::to_string(b.pow2(3, 7)) + "," + std::to_string(b.pow2(8, 12)) + "))";
        break;
      case 12: j["mma"][op] = "smem"; break;  // wgmma reads the operand from shared memory
      case 13: j[op]["stage_stride"] = b.pick(4) == 0 ? b.pick(64) : b.pow2(0, 13) + b.pick(8); break;  // packed, padded, overlapping, misaligned
      case 14:  // a SIMT FMA atom, each thread loading its own fragment (CUTLASS's sgemm)
        j["mma"] = {{"shape", {1, 1, 1}}, {"threads", 1}, {"A", "(1,1):(0,0)"}, {"B", "(1,1):(0,0)"}, {"C", "(1,1):(0,0)"},
                    {"atoms", "(" + std::to_string(b.pow2(0, 4)) + "," + std::to_string(b.pow2(0, 4)) + ",1)"}};
        j[op]["s2r"] = {{"bits", b.pow2(4, 7)}, {"src", "(1,4):(0,1)"}, {"dst", "(1,4):(0,1)"}};
        break;
      default: j[op]["g2s"]["atom_bits"] = b.pow2(4, 7); break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  Bytes b{data, size < 64 ? size : 64};
  Json j = base();
  mutate(j, b);
  try {
    const kernel::Pipeline p = kernel::read_pipeline(j);
    const kernel::KernelReport r = kernel::check_pipeline(p);
    FUZZ_CHECK(r.exit_code() >= 0 && r.exit_code() <= 2, std::to_string(r.exit_code()));
    (void)kernel::to_json(r).dump();
    (void)kernel::tile_views(p, r);
  } catch (const SpecError& e) {
    FUZZ_CHECK(e.kind() != RuleKind::Internal, std::string(e.what()));
  }
  return 0;
}
