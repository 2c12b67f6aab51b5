// Shared by the protocol tests: one request line through serve_line over the reference's ops, as
// `tfspec serve` answers it.
#pragma once
#include <string>

#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/reference/json.hpp"

namespace tfspec::testing {

inline Json ask(const std::string& line) {
  static protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
    return r;
  }();
  bool stop = false;
  return protocol::serve_line(reg, line, stop);
}

}  // namespace tfspec::testing
