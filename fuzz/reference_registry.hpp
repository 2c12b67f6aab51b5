// The reference's op groups (layout, shard; prove is left out: Z3's time limits are not what the
// fuzz targets test) in a registry of the target's own, built once, never freed.
#pragma once
#include "tfspec/protocol/ops.hpp"

namespace tfspec::fuzz {

inline const protocol::OpRegistry& reference_registry() {
  static protocol::OpRegistry* reg = [] {
    auto* r = new protocol::OpRegistry();
    protocol::register_reference_ops(*r);
    return r;
  }();
  return *reg;
}

}  // namespace tfspec::fuzz
