// Fuzz target (issue 30): `layout banks` / `vector_width` requests, built from the bytes so that
// extreme sizes are common: thread-value layouts of up to 2^62 pairs, shared-memory offsets near
// INT64_MAX, every access width and bank model. Through serve_line, as the CLI and `serve` run
// them. Findings: a crash, UB, an exception out of serve_line, an internal error reply.
#include <cstring>

#include "fuzz_support.hpp"
#include "reference_registry.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

using namespace tfspec;

static const protocol::OpRegistry& registry() { return fuzz::reference_registry(); }

namespace {
struct Bytes {
  const unsigned char* p;
  size_t n;
  uint64_t next() {
    uint64_t v = 0;
    for (int k = 0; k < 8 && n > 0; ++k, ++p, --n) v = v << 8 | *p;
    return v;
  }
  // Mostly small, sometimes huge or negative: the edges are where the bugs were.
  int64_t value() {
    const uint64_t v = next();
    switch (v & 7) {
      case 0: return static_cast<int64_t>(v >> 3);                       // up to 2^61
      case 1: return INT64_MAX - static_cast<int64_t>((v >> 3) & 0xffff);
      case 2: return -static_cast<int64_t>((v >> 3) & 0xffff);
      default: return static_cast<int64_t>((v >> 3) % 65);
    }
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  Bytes b{data, size};
  auto extent = [&] { const int64_t v = b.value(); return v < 1 ? int64_t{1} : v; };
  const Json tv{{"kind", "layout"}, {"shape", Json::array({extent(), extent()})}, {"stride", Json::array({b.value(), b.value()})}};
  Json smem{{"kind", "layout"}, {"shape", Json::array({extent(), extent()})}, {"stride", Json::array({b.value(), b.value()})}};
  const uint64_t choice = b.next();
  if (choice & 1)  // a swizzled shared-memory layout (extension X1)
    smem = Json{{"kind", "composed"}, {"inner", {{"kind", "swizzle"}, {"bits", b.value() % 8}, {"base", b.value() % 8}, {"shift", b.value() % 8}}},
                {"offset", b.value()}, {"outer", smem}};
  Json args{{"tv", tv}, {"smem", smem}, {"elem_bytes", int64_t{1} << ((choice >> 1) % 5)}};
  if (choice & 64) args["vector"] = int64_t{1} << ((choice >> 7) % 5);
  if (choice & 4096) args["banks"] = b.value();
  if (choice & 8192) args["bank_bytes"] = b.value();
  const Json req{{"seq", 1}, {"op", (choice & 32) ? "vector_width" : "banks"}, {"args", args}};
  bool stop = false;
  const Json reply = protocol::serve_line(registry(), protocol::dump_line(req), stop);
  if (reply.contains("error")) {
    const std::string rule = reply["error"].value("rule", "");
    FUZZ_CHECK(rule != "internal", reply.dump());
  }
  return 0;
}
