// Fuzz target: multigpu.reshard-plan requests (issue 19). The input is up to three lines: SRC,
// DST (ShardLayout text: shard(...) or sugar `... on MESH`) and SHAPE (e.g. `(8,4)`), or, when it
// starts with 'S', bytes that build such a request (structured(), below). Inputs
// that read are bounded (at most 16 devices per mesh, 256 elements) so each run is fast, then
// planned twice: through serve_line (the op a client reaches) and through plan_reshard.
// Findings: a crash or a non-SpecError exception, a serve reply that is not one line of JSON with
// its seq, the two paths disagreeing on whether a plan exists, and a plan whose simulation
// (multigpu::simulate) differs from the reference's reshard (§7.4, D9) of the same buffers or
// whose bytes sent and received differ.
#include "fuzz_support.hpp"
#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

using namespace tfspec;

namespace {

constexpr int64_t kMaxDevices = 16, kMaxElements = 256;

const protocol::OpRegistry& registry() {
  static protocol::OpRegistry* reg = [] {
    auto* r = new protocol::OpRegistry();
    protocol::register_reference_ops(*r);
    return r;
  }();
  return *reg;
}

struct Request {
  std::string src, dst, shape;
};

Request split(const std::string& text) {
  Request r;
  std::string* fields[] = {&r.src, &r.dst, &r.shape};
  size_t start = 0;
  for (std::string* f : fields) {
    const size_t end = text.find('\n', start);
    *f = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return r;
}

// The layouts and shape when they read and fit the bounds; nullopt otherwise (nothing planned).
struct Inputs {
  ShardLayout src, dst;
  std::vector<int64_t> shape;
};
std::optional<Inputs> read_bounded(const Request& r) {
  try {
    Inputs in{read_shard_layout(Json(r.src)), read_shard_layout(Json(r.dst)), {}};
    int64_t n = 1;
    for (const auto& leaf : flat_leaves(parse_inttuple(r.shape))) {
      const int64_t e = require_int(leaf, "a logical extent");
      if (e < 0 || e > kMaxElements || in.shape.size() >= 4) return std::nullopt;
      n *= e;
      if (n > kMaxElements) return std::nullopt;
      in.shape.push_back(e);
    }
    if (in.src.mesh().size() > kMaxDevices || in.dst.mesh().size() > kMaxDevices) return std::nullopt;
    return in;
  } catch (const SpecError&) {
    return std::nullopt;
  }
}

// Through serve: one line of JSON with its seq; true when the reply is a plan.
bool served_plan(const Request& r) {
  const Json req{{"seq", 1}, {"op", "multigpu.reshard-plan"}, {"args", {{"src", r.src}, {"dst", r.dst}, {"shape", r.shape}}}};
  bool stop = false;
  const std::string out = protocol::dump_line(protocol::serve_line(registry(), req.dump(-1, ' ', false, Json::error_handler_t::replace), stop));
  FUZZ_CHECK(out.find('\n') == std::string::npos, out);
  const Json back = Json::parse(out);
  FUZZ_CHECK(back.is_object() && back.contains("seq") && back["seq"] == 1, out);
  FUZZ_CHECK(!back.contains("error") || back["error"]["rule"] != "internal", out);
  return back.contains("result");
}

// The plan, simulated on distribute's buffers of a known tensor, equals the reference's reshard;
// false when the planner refused.
bool check_plan(const Inputs& in, const std::string& what) {
  multigpu::Plan plan;
  try {
    plan = multigpu::plan_reshard(in.src, in.dst, in.shape);
  } catch (const SpecError& e) {
    FUZZ_CHECK(e.rule() != "internal", what + ": " + e.diagnostic().message);
    return false;
  }
  const ShardLayout s = multigpu::materialize_for_devices(in.src, in.shape), d = multigpu::materialize_for_devices(in.dst, in.shape);
  int64_t n = 1;
  for (int64_t e : in.shape) n *= e;
  Tensor t{in.shape, {}};
  for (int64_t i = 0; i < n; ++i) t.data.push_back((i * 37) % 101 - 50);  // small: no sum overflows
  Engines src, ref;
  try {  // the reference's own limits (buffers of at most 2^24 elements) bound what is simulated
    src = distribute(t, s, Storage::Rmem);
    ref = reshard(src, s, d, Storage::Rmem, in.shape);
  } catch (const SpecError& e) {
    FUZZ_CHECK(e.kind() == RuleKind::Limit, what + ": the reference refused a planned reshard: " + e.diagnostic().message);
    return true;
  }
  multigpu::DeviceBuffers out;
  try {
    out = multigpu::simulate(plan, src.buffers);
  } catch (const SpecError& e) {
    FUZZ_CHECK(false, what + ": the simulator refused the plan: " + e.diagnostic().message);
  }
  FUZZ_CHECK(out == ref.buffers, what + ": simulated plan (" + plan.pattern + ") differs from the reference's reshard");
  int64_t sent = 0, received = 0;
  for (const auto& [device, b] : plan.bytes) sent += b.sent, received += b.received;
  FUZZ_CHECK(sent == received, what + ": bytes sent and received differ");
  return true;
}

bool ascii(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// Structured mode (an input starting with 'S'): the bytes choose a mesh of 1-3 axes (extents
// 1-4, at most 16 devices), a tensor of 1-3 dims and each axis's attr in SRC and DST (Split of a
// dim, Broadcast, Partial sum / max / min), written as sugar whose Splits always divide; DST is
// on the same mesh or, one time in four, on one axis over the same devices. Random text rarely
// reads as two valid layouts, so this is what exercises the planner's patterns.
struct Bytes {
  const unsigned char* p;
  size_t n;
  int next(int mod) { return n ? (n--, *p++ % mod) : 0; }
};

std::string sugar(const std::vector<int64_t>& dims, const std::vector<int>& attrs, const std::vector<std::string>& names,
                  const std::vector<int64_t>& extents) {
  static const char* kPartial[] = {"P()", "P(\"max\")", "P(\"min\")"};
  std::string text = "(", where, mesh;
  for (size_t j = 0; j < dims.size(); ++j) {
    text += (j ? ", " : "") + std::to_string(dims[j]);
    for (size_t a = 0; a < attrs.size(); ++a)
      if (attrs[a] == static_cast<int>(j)) text += " @ m." + names[a];
  }
  for (size_t a = 0; a < attrs.size(); ++a) {
    if (attrs[a] <= -2) where += (where.empty() ? " where " : ",") + names[a] + "=" + kPartial[-2 - attrs[a]];
    mesh += (a ? "," : "") + names[a] + "=" + std::to_string(extents[a]);
  }
  return text + ")" + where + " on " + mesh;
}

// attr codes: j >= 0 Split of dim j (one axis per dim: a later axis on a taken dim is Broadcast),
// -1 Broadcast, -2 - r Partial with reduction r.
std::vector<int> attrs_of(Bytes& b, size_t axes, size_t rank) {
  std::vector<int> out;
  std::vector<bool> taken(rank, false);
  for (size_t a = 0; a < axes; ++a) {
    const int c = b.next(6);
    int code = c == 0 ? -1 : c <= 2 ? b.next(static_cast<int>(rank)) : -2 - (c - 3);
    if (code >= 0 && taken[static_cast<size_t>(code)]) code = -1;
    if (code >= 0) taken[static_cast<size_t>(code)] = true;
    out.push_back(code);
  }
  return out;
}

Request structured(Bytes b) {
  const std::vector<std::string> names = {"x", "y", "z"};
  const size_t axes = 1 + static_cast<size_t>(b.next(3)), rank = 1 + static_cast<size_t>(b.next(3));
  std::vector<int64_t> extents;
  int64_t devices = 1;
  for (size_t a = 0; a < axes; ++a) {
    extents.push_back(devices * 4 <= kMaxDevices ? 1 + b.next(4) : 1);
    devices *= extents.back();
  }
  const std::vector<int> src = attrs_of(b, axes, rank);
  const bool one_axis = b.next(4) == 0;
  const std::vector<int> dst = one_axis ? attrs_of(b, 1, rank) : attrs_of(b, axes, rank);
  std::vector<int64_t> dims;
  for (size_t j = 0; j < rank; ++j) {
    int64_t d = 1 + b.next(3);
    for (size_t a = 0; a < axes; ++a)
      if (src[a] == static_cast<int>(j) || (!one_axis && dst[a] == static_cast<int>(j))) d *= extents[a];
    if (one_axis && dst[0] == static_cast<int>(j)) d *= devices;
    dims.push_back(d);
  }
  std::string shape = "(";
  for (size_t j = 0; j < rank; ++j) shape += (j ? "," : "") + std::to_string(dims[j]);
  return {sugar(dims, src, names, extents), one_axis ? sugar(dims, dst, {"w"}, {devices}) : sugar(dims, dst, names, extents), shape + ")"};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  if (size > 1024) return 0;  // three short lines; longer texts are the text targets' business
  const Request r = size > 0 && data[0] == 'S' ? structured(Bytes{data + 1, size - 1}) : split(fuzz::text_of(data, size));
  const auto in = read_bounded(r);
  if (!in) {
    // Unreadable inputs are cheap refusals on the serve path too; readable but large ones are
    // skipped (the planner's own limit is tested by multigpu/tests/plan_limits_test.cpp).
    try {
      parse_inttuple(r.shape);
      read_shard_layout(Json(r.src));
      read_shard_layout(Json(r.dst));
      return 0;
    } catch (const SpecError&) {
    }
    served_plan(r);
    return 0;
  }
  const std::string what = "src '" + r.src + "' dst '" + r.dst + "' shape '" + r.shape + "'";
  const bool served = served_plan(r);
  const bool planned = check_plan(*in, what);
  // The serve request carries the texts as JSON strings (invalid UTF-8 replaced): compared on ASCII.
  if (ascii(r.src) && ascii(r.dst) && ascii(r.shape))
    FUZZ_CHECK(served == planned, what + ": serve and plan_reshard disagree on whether a plan exists");
  return 0;
}
