// The JSON-lines server loop body (spec/PROTOCOL.md): one request line in, one reply out.
#pragma once
#include <optional>
#include <string>

#include "tfspec/protocol/ops.hpp"

namespace tfspec::protocol {

struct ServeOptions {
  // Where `prove.*` may write SMT-LIB files (`smt2` argument): only under this directory, and
  // refused when unset (a client must not write wherever it likes on the server's machine).
  std::optional<std::string> smt2_dir;
};

// Answers one request line; sets `stop` on the stop command. Never throws: every line gets an
// answer (malformed JSON, invalid UTF-8, an unknown op and internal errors included).
Json serve_line(const OpRegistry& reg, const std::string& line, bool& stop, const ServeOptions& opts = {});

}  // namespace tfspec::protocol
