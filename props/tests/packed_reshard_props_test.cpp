// The packed reshard entry point (gpu::Backend::reshard_packed) on caller-owned flat buffers,
// against the reference's reshard (§7.4) on the fuzzer's generated reshard cases: the source laid
// out in the caller's own order (engines in reverse id order, a gap of junk before each), the
// destination in the plan's layout, once zeroed (it must equal the reference's engines exactly)
// and once filled with a marker (slots no element maps to must keep it; every other slot as in
// the zeroed run). Refusals carry the reference's rule id.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tfspec/props/fuzz.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::props {
namespace {

constexpr int64_t kJunk = -777777, kMarker = 0x5eed5eed;

bool undecided(const std::optional<std::string>& rule) {
  return rule && *rule != rule::kInt64Overflow.id && rule_kind(*rule) == RuleKind::Limit;
}

// Engines in reverse id order, two junk elements before each: a layout no plan would choose.
gpu::PackedLayout reversed_with_gaps(const gpu::ReshardPlan& rp, const Engines& in, std::vector<int64_t>& data) {
  gpu::PackedLayout l;
  const size_t n = rp.src.engine_size.size();
  l.base.assign(n, -1);
  l.size.assign(n, 0);
  for (size_t e = n; e-- > 0;) {
    auto it = in.buffers.find(static_cast<int64_t>(e));
    if (it == in.buffers.end()) continue;
    data.push_back(kJunk);
    data.push_back(kJunk);
    l.base[e] = static_cast<int64_t>(data.size());
    l.size[e] = static_cast<int64_t>(it->second.size());
    data.insert(data.end(), it->second.begin(), it->second.end());
  }
  l.total = static_cast<int64_t>(data.size());
  return l;
}

void expect_packed_equals_reference(gpu::Backend& backend) {
  gpu::Backend* host = &backend;
  const FuzzCase c = *gen_fuzz_case("reshard");
  const FuzzAnswer ref = reference_answer(c);
  if (undecided(ref.rule)) RC_SUCCEED("undecided by the reference");
  std::optional<std::string> refused;
  std::vector<int64_t> zeroed, marked;
  std::optional<gpu::ReshardPlan> rp;
  try {
    rp = gpu::compile_reshard(parse_shard_layout(c.src), c.src_storage, parse_shard_layout(c.dst), c.dst_storage, c.shape);
    const Engines in = fuzz_source_engines(c);
    std::vector<int64_t> src;
    const gpu::PackedLayout layout = reversed_with_gaps(*rp, in, src);
    const size_t dst_size = static_cast<size_t>(rp->dst ? rp->dst->packed.total : 0);
    zeroed.assign(dst_size, 0);
    host->reshard_packed(*rp, layout, src.data(), zeroed.data());
    marked.assign(dst_size, kMarker);
    host->reshard_packed(*rp, layout, src.data(), marked.data());
  } catch (const SpecError& e) {
    refused = e.rule();
  }
  if (undecided(refused) && !ref.rule) RC_SUCCEED("a plan limit of the backend");
  RC_CLASSIFY(ref.rule.has_value(), "refused");
  RC_CLASSIFY(rp && rp->run > 1, "contiguous runs");
  const std::string where = "case " + fuzz_case_text(c) + "\nreference " + describe(ref);
  if (ref.rule || refused) {
    if (ref.rule != refused) RC_FAIL(where + "\npacked refused " + refused.value_or("nothing"));
    return;
  }
  RC_ASSERT(ref.engines.has_value());
  if (gpu::unpack(*rp->dst, zeroed.data()) != *ref.engines) RC_FAIL(where + "\npacked (zeroed dst) differs");
  for (size_t i = 0; i < marked.size(); ++i)
    if (!(marked[i] == zeroed[i] || (marked[i] == kMarker && zeroed[i] == 0)))
      RC_FAIL(where + "\nslot " + std::to_string(i) + ": " + std::to_string(marked[i]) + " over a marker, " + std::to_string(zeroed[i]) + " over zeros");
}

RC_GTEST_PROP(PackedReshard, CallerOwnedBuffersEqualTheReference, ()) {
  static auto host = gpu::make_host_backend(2);
  expect_packed_equals_reference(*host);
}
// The same on the CUDA kernels, run on the emulated grid (issue 23): the run kernel and the
// assemble / distribute kernels with the caller's source layout.
RC_GTEST_PROP(PackedReshard, CallerOwnedBuffersEqualTheReferenceOnTheEmulatedKernels, ()) {
  static auto emulated = gpu::make_cuda_emu_backend();
  expect_packed_equals_reference(*emulated);
}

}  // namespace
}  // namespace tfspec::props
