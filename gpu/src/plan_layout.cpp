// Layout / ComposedLayout -> FnPlan (§3, §4), with the bounds that decide the index width.
#include <string>

#include "tfspec/gpu/plan.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec::gpu {
namespace {

constexpr __int128 kInt32Max = INT32_MAX;
constexpr __int128 kInt64Max = INT64_MAX;

// The leaves of an IntTuple in order (our own walk: flattening is structure, not an answer).
void leaves(const IntTuple& t, std::vector<const IntTuple*>& out) {
  if (t.is_leaf()) {
    out.push_back(&t);
    return;
  }
  for (const auto& c : t.children()) leaves(c, out);
}

int64_t concrete_leaf(const IntTuple& leaf, const char* what) {
  if (!leaf.is_int()) fail(rule::kNeedsConcrete, std::string(what) + " is not a static int (symbolic or None)");
  return leaf.value();
}

// Product of the leaves, failing closed like the reference's size().
int64_t concrete_size(const std::vector<const IntTuple*>& ls) {
  int64_t n = 1;
  for (const IntTuple* x : ls)
    if (__builtin_mul_overflow(n, concrete_leaf(*x, "an extent"), &n)) fail(rule::kInt64Overflow, "the domain size overflows int64");
  return n;
}

struct Builder {
  FnPlan& plan;
  PlanBounds& bounds;
  __int128 running = 0;  // bound on the current value

  Stage& push() {
    if (plan.num_stages == kMaxStages)
      fail(rule::kResourceLimit, "the layout nests more than " + std::to_string(kMaxStages) + " stages");
    return plan.stages[plan.num_stages++];
  }

  void add(int64_t offset) {
    Stage& s = push();
    s.is_layout = kStageAdd;
    s.add = offset;
    running += offset < 0 ? -static_cast<__int128>(offset) : offset;
    if (running > bounds.max_abs) bounds.max_abs = running;
  }

  void layout(const Layout& l) {
    if (!l.materialized()) fail(rule::kStrideUnmaterialized, "the layout's strides are un-materialized (None)");
    std::vector<const IntTuple*> ext, str;
    leaves(l.shape_ref(), ext);
    leaves(l.stride(), str);
    if (ext.size() > static_cast<size_t>(kMaxModes))
      fail(rule::kResourceLimit, "more than " + std::to_string(kMaxModes) + " flat modes in one layout");
    Stage& s = push();
    s.is_layout = kStageLayout;
    s.n = static_cast<int32_t>(ext.size());
    s.size = concrete_size(ext);
    __int128 b = 0;
    for (int k = 0; k < s.n; ++k) {
      s.extent[k] = ext[k]->value();
      s.stride[k] = concrete_leaf(*str[k], "a stride");
      b += static_cast<__int128>(s.extent[k] - 1) * (s.stride[k] < 0 ? -static_cast<__int128>(s.stride[k]) : s.stride[k]);
    }
    running = b;
    if (running > bounds.max_abs) bounds.max_abs = running;
    if (s.size > bounds.max_stage_size) bounds.max_stage_size = s.size;
  }

  // Sw<B,M,S> changes only the B bits of Z, all below bit M + |S| + B <= 63: the value moves by
  // less than 2^(M+|S|+B), which the bound adds (a swizzle reading bits past 30 thus forces the
  // 64-bit width, where its masks and shifts are those of the reference).
  void swizzle(const Swizzle& w) {
    Stage& s = push();
    s.is_layout = kStageSwizzle;
    s.sw_mask = w.yyy_mask();
    s.sw_shift = w.shift();
    running += static_cast<__int128>(1) << (w.base() + (w.shift() < 0 ? -w.shift() : w.shift()) + w.bits());
    if (running > bounds.max_abs) bounds.max_abs = running;
  }

  void any(const LayoutBase& l) {
    switch (l.kind()) {
      case LayoutKind::Layout: return layout(static_cast<const Layout&>(l));
      case LayoutKind::Shard: return any(*static_cast<const ShardLayout&>(l).layout());
      case LayoutKind::Composed: {
        const auto& c = static_cast<const ComposedLayout&>(l);
        if (c.outer()) any(*c.outer());
        add(c.offset());
        if (c.inner()) any(*c.inner());
        return;
      }
      case LayoutKind::Swizzle: return swizzle(static_cast<const Swizzle&>(l));  // extension X1
      case LayoutKind::Linear:  // extension X2: the optimized core has no XOR-of-bases stage yet
        fail(rule::kResourceLimit, "the optimized offset core has no linear-layout stage; the reference evaluates linear layouts (`tfspec layout eval`)");
    }
  }
};

// The domain (flat extents of shape()): from outer when present, else inner (§4).
void domain(const LayoutBase& l, FnPlan& p) {
  IntTuple shape = l.shape();
  std::vector<const IntTuple*> ext;
  leaves(shape, ext);
  if (ext.size() > static_cast<size_t>(kMaxModes))
    fail(rule::kResourceLimit, "more than " + std::to_string(kMaxModes) + " flat modes in the domain");
  p.domain_rank = static_cast<int32_t>(ext.size());
  p.domain_size = concrete_size(ext);
  for (int k = 0; k < p.domain_rank; ++k) p.domain_extent[k] = ext[k]->value();
}

}  // namespace

IndexMode choose_index_mode(const PlanBounds& b) {
  if (b.max_abs <= kInt32Max && b.domain_size <= INT32_MAX && b.max_stage_size <= INT32_MAX) return kIndex32;
  if (b.max_abs <= kInt64Max) return kIndex64;
  return kIndex64Checked;
}

FnPlan compile_layout(const LayoutBase& l, const PlanPolicy& policy) {
  FnPlan p{};
  PlanBounds bounds;
  Builder build{p, bounds};
  build.any(l);
  domain(l, p);
  bounds.domain_size = p.domain_size;
  p.mode = policy.index_mode(bounds);
  for (int i = 0; i < p.num_stages; ++i) {
    Stage& s = p.stages[i];
    for (int k = 0; k < s.n; ++k) {
      s.div64[k] = policy.div64(static_cast<uint64_t>(s.extent[k]));
      if (p.mode == kIndex32) s.div32[k] = policy.div32(static_cast<uint32_t>(s.extent[k]));
    }
  }
  return p;
}

[[noreturn]] void raise_status(Status st, int64_t index, const char* what) {
  const std::string at = std::string(what) + " element " + std::to_string(index) + ": ";
  switch (st) {
    case kCoordInDomain: fail(rule::kCoordInDomain, at + "a stage's input lies outside its layout's domain");
    case kOverflow: fail(rule::kInt64Overflow, at + "the offset overflows int64");
    case kEngineMissing: fail(rule::kEngineMissing, at + "no buffer for the engine that holds it");
    case kEngineBufferSize: fail(rule::kEngineBufferSize, at + "the offset lies past the end of its buffer");
    case kOffsetNegative: fail(rule::kEngineOffsetNegative, at + "the offset lies below the buffer's base");
    case kReplicaMismatch: fail(rule::kReplicaMismatch, at + "Broadcast replicas disagree");
    case kCollision: fail(rule::kLayoutInjective, at + "another index already wrote this offset");
    case kOk: break;
  }
  fail(rule::kInternal, at + "unknown status " + std::to_string(static_cast<int>(st)));
}

}  // namespace tfspec::gpu
