// The JSON-lines server (spec/PROTOCOL.md): the loop body (one request line in, one reply out)
// and the loop over a stream, with its line-length limit and its write check.
#pragma once
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

#include "tfspec/protocol/ops.hpp"

namespace tfspec::protocol {

// The default of `tfspec serve --max-line-bytes` (spec/PROTOCOL.md "Limits").
inline constexpr size_t kDefaultMaxLineBytes = size_t{1} << 20;

struct ServeOptions {
  // Where `prove.*` may write SMT-LIB files (`smt2` argument): only under this directory, and
  // refused when unset (a client must not write wherever it likes on the server's machine).
  std::optional<std::string> smt2_dir;
  // The longest request line, in bytes without its newline: a longer one is answered with
  // protocol-line-too-long and never held in memory past this many bytes.
  size_t max_line_bytes = kDefaultMaxLineBytes;
};

// Answers one request line; sets `stop` on the stop command. Never throws: every line gets an
// answer (malformed JSON, invalid UTF-8, an unknown op, out of memory and internal errors included).
Json serve_line(const OpRegistry& reg, const std::string& line, bool& stop, const ServeOptions& opts = {});

// One line of `in` into `line`, without its '\n'. At most `max_bytes` are kept: the rest of a
// longer line is read and dropped. `length` is the line's full length. False at end of input
// when nothing was left to read.
bool read_line(std::istream& in, std::string& line, size_t max_bytes, size_t& length);

// The reply to a line longer than `max_bytes` (protocol-line-too-long; seq null: it was not read).
Json line_too_long_reply(size_t length, size_t max_bytes);

// The server loop: answers every non-blank line of `in` on `out`, one reply line each, flushed,
// until `stop` or the end of input. WriteFailed when a reply could not be written (the loop
// stops there, with a message on `err`: nobody can read the answers any more).
enum class ServeEnd { Done, WriteFailed };
ServeEnd serve(std::istream& in, std::ostream& out, std::ostream& err, const OpRegistry& reg, const ServeOptions& opts);

}  // namespace tfspec::protocol
