// Properties of the reshard semantics over generated meshes and shard layouts (§6, §7, D3).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>
#include <set>

#include "tfspec/props/shard_gen.hpp"
#include "tfspec/reference/canonical.hpp"

namespace tfspec {
namespace {

using props::ShardCase;

int64_t size_of(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return n;
}

std::vector<int64_t> mesh_extents(const Mesh& m) {
  std::vector<int64_t> e;
  for (int a = 0; a < m.rank(); ++a) e.push_back(m.extent(a));
  return e;
}

std::vector<int64_t> flat_local(const ShardLayout& sl) {
  std::vector<int64_t> v;
  for (const auto& x : flat_leaves(local_shape(sl))) v.push_back(x.value());
  return v;
}

RC_GTEST_PROP(ShardProps, DistributeAssembleRoundTrip, ()) {
  ShardCase c = *props::gen_shard_case();
  Tensor t{c.shape, *props::gen_data(size_of(c.shape))};
  bool partial = false, unit = false;
  for (int a = 0; a < c.layout.mesh().rank(); ++a) {
    partial = partial || std::holds_alternative<Partial>(c.layout.attrs()[a]);
    unit = unit || c.layout.mesh().extent(a) == 1;
  }
  RC_TAG(c.layout.mesh().rank(), to_string(c.storage), c.layout.mesh().topologies().size());
  RC_CLASSIFY(partial, "partial");
  RC_CLASSIFY(unit, "size-1 mesh axis");
  RC_ASSERT(assemble(distribute(t, c.layout, c.storage), c.layout, c.shape) == t);
}

// Instances differing on a Split axis own disjoint sets of layout coordinates, and together
// every instance covers the domain; each coordinate has prod(Broadcast) x prod(Partial) holders.
RC_GTEST_PROP(ShardProps, SplitOwnersDisjointCoverAndReplicaCount, ()) {
  ShardCase c = *props::gen_shard_case();
  const ShardLayout& sl = c.layout;
  std::map<std::vector<int64_t>, std::vector<std::vector<int64_t>>> owners;
  const auto locals = row_major_coords(flat_local(sl));
  for (const auto& m : row_major_coords(mesh_extents(sl.mesh())))
    for (const auto& l : locals) owners[global_coord(sl, m, l)].push_back(m);
  int64_t replicas = 1;
  std::vector<int> split_axes;
  for (int a = 0; a < sl.mesh().rank(); ++a) {
    if (std::holds_alternative<Split>(sl.attrs()[a])) split_axes.push_back(a);
    else replicas *= sl.mesh().extent(a);  // Broadcast or Partial
  }
  RC_ASSERT(static_cast<int64_t>(owners.size()) == size_of(flat_extents(sl)));  // cover
  for (const auto& [g, ms] : owners) {
    RC_ASSERT(static_cast<int64_t>(ms.size()) == replicas);
    for (const auto& m : ms)
      for (int a : split_axes) RC_ASSERT(m[a] == ms.front()[a]);  // disjoint across Split coordinates
    RC_ASSERT(ms == holders(sl, g));
  }
}

RC_GTEST_PROP(ShardProps, AssemblePartitionIsIdentity, ()) {
  ShardCase c = *props::gen_shard_case();
  Tensor t{c.shape, *props::gen_data(size_of(c.shape))};
  std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
  // Lopsided, mixed-sign contributions: mostly small, sometimes huge.
  auto draw = [&rng]() -> int64_t {
    int64_t v = static_cast<int64_t>(rng() % 2001) - 1000;
    return rng() % 5 == 0 ? v * 1000000000 : v % 7;
  };
  RC_ASSERT(assemble(partition(t, c.layout, c.storage, draw), c.layout, c.shape) == t);
}

RC_GTEST_PROP(ShardProps, ReshardPreservesValueAndIsPathIndependent, ()) {
  auto shape = *props::gen_logical_shape();
  ShardCase a = *props::gen_shard_case(shape), b = *props::gen_shard_case(shape), c = *props::gen_shard_case(shape);
  Tensor t{shape, *props::gen_data(size_of(shape))};
  Engines ea = distribute(t, a.layout, a.storage);
  Engines eb = reshard(ea, a.layout, b.layout, b.storage, shape);
  RC_ASSERT(assemble(eb, b.layout, shape) == t);
  Engines via_b = reshard(eb, b.layout, c.layout, c.storage, shape);
  Engines direct = reshard(ea, a.layout, c.layout, c.storage, shape);
  RC_ASSERT(via_b == direct);
  RC_ASSERT(assemble(direct, c.layout, shape).shape == shape);
}

RC_GTEST_PROP(ShardProps, UnevenGlobalSizesAreRejected, ()) {
  props::UnevenCase u = *props::gen_uneven();
  Mesh m = make_mesh({"device(" + std::to_string(u.extent) + ")"}, IntTuple::tuple({u.extent}), std::vector<std::string>{"x"});
  try {
    read_shard_layout(Json("(" + std::to_string(u.n) + " @ m.x)"), m);
    RC_FAIL("uneven sugar accepted");
  } catch (const SpecError& e) {
    RC_ASSERT(e.rule() == std::string("sugar-divides"));
  }
  ShardLayout sl = ShardLayout::unchecked(std::make_shared<Layout>(IntTuple::tuple({u.n}), IntTuple::tuple({1})), {Split{0}}, m);
  bool reported = false;
  for (const auto& d : check_shard_layout(sl).violations) reported = reported || d.rule == "split-divides";
  RC_ASSERT(reported);
}

// After typeinfer no reachable S is None, whatever the direction (§7.1.2), and the materialized
// layout is valid under the destination storage.
RC_GTEST_PROP(ShardProps, TypeinferMaterializes, (Storage src, Storage dst)) {
  ShardCase c = *props::gen_shard_case();
  const auto& l = static_cast<const Layout&>(*c.layout.layout());
  ShardLayout sugar = ShardLayout::unchecked(std::make_shared<Layout>(Layout::unmaterialized(l.shape_ref())), c.layout.attrs(), c.layout.mesh());
  bool partial = false;
  for (const auto& at : c.layout.attrs()) partial = partial || std::holds_alternative<Partial>(at);
  std::vector<IntTuple> s(c.shape.begin(), c.shape.end());
  try {
    TensorType out = reshard_typeinfer(TensorType{IntTuple::tuple(s), nullptr, src}, sugar, dst);
    const auto& sl = static_cast<const ShardLayout&>(*out.layout);
    RC_ASSERT(static_cast<const Layout&>(*sl.layout()).materialized());
    RC_ASSERT(out.shape == IntTuple::tuple(s));
    ShardCheckOptions o;
    o.final_stage = true;
    o.storage = dst;
    RC_ASSERT(check_shard_layout(sl, o).ok());
  } catch (const SpecError& e) {
    // Only a form that would alias is refused: Partial on shared storage, or the per-instance
    // form on smem where several instances share a CTA engine.
    RC_ASSERT(dst != Storage::Rmem);
    RC_ASSERT((partial && e.rule() == std::string("partial-aliased")) || e.rule() == std::string("shard-injective"));
  }
}

}  // namespace
}  // namespace tfspec

namespace tfspec {
namespace {

// Malformed text and JSON fail closed with a SpecError, never a crash or another exception.
RC_GTEST_PROP(ShardProps, MalformedInputFailsClosed, ()) {
  static const std::vector<std::string> tokens = {"(", ")", ",", ";", "|", "@", "m.", "x", "y", "=", "*", ":", "_", "-", "0", "1",
                                                   "2", "4", "9223372036854775807", "None", "S(", "P(", "\"max\"", "B", "D", "shard(",
                                                   " on ", " where ", "warp(", "cta", "thread(", "layout=", " o ", "[", "]", "{", "}"};
  auto picks = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, tokens.size()));
  std::string text;
  for (size_t i : picks) text += tokens[i];
  for (int form = 0; form < 4; ++form) {
    try {
      switch (form) {
        case 0: check_shard_layout(parse_shard_layout("shard(" + text + ")")); break;
        case 1: parse_mesh(text); break;
        case 2: read_shard_layout(Json(text), parse_mesh("x=2,y=4")); break;
        case 3: check_shard_layout(read_shard_layout(Json("(" + text + ") on x=2"))); break;
      }
    } catch (const SpecError&) {
    } catch (const std::exception& e) {
      RC_FAIL(std::string("non-SpecError on '") + text + "': " + e.what());
    }
  }
}

}  // namespace
}  // namespace tfspec
