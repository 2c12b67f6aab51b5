// The wire format's encoders beyond the reference objects themselves (those are in
// tfspec/reference/json.hpp): tilers, engine buffers, integer lists and the error envelope.
// spec/PROTOCOL.md documents every form.
#pragma once
#include <string>
#include <vector>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec::protocol {

inline constexpr int kProtocolVersion = 1;

// A tiler: a layout, or {"tiler": [T0, T1, ...]} (by-mode); an integer n means the layout n:1.
Json tiler_to_json(const Tiler& t);
Tiler tiler_from_json(const Json& j);

// Integers beyond 2^53 travel as decimal strings, like every IntTuple.
Json ints_json(const std::vector<int64_t>& v);
// {"storage": rmem|smem|gmem, "buffers": {"ENGINE": [int, ...]}}
Json engines_json(const Engines& e);
Engines engines_from_json(const Json& j);
std::string engines_text(const Engines& e);

// The error member of a reply: {"rule", "clause", "kind", "message"}; the message is valid UTF-8
// whatever bytes the input held (invalid bytes are replaced).
Json error_json(const Diagnostic& d);
// A JSON document as one line of valid UTF-8 (invalid bytes in strings replaced, never a throw).
std::string dump_line(const Json& j);

}  // namespace tfspec::protocol
