// Triton's layout encodings (the `#ttg.*<{...}>` attributes of a TTGIR) read and derived as
// tfspec linear layouts (spec/TRITON.md §2; issue 48). A frontend: it parses Triton's notation
// into tfspec's objects and decides nothing; the checks run in kernel/ on the linear layouts.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/reference/linear.hpp"

namespace tfspec::triton {

struct Encoding;

// One value of an encoding's attribute dictionary: an integer (or boolean), a word, a list, or
// a nested encoding (`parent = #mma` resolved through the module's aliases).
struct AttrValue {
  enum class Kind { Int, Word, List, Encoding } kind = Kind::Int;
  int64_t i = 0;
  std::string word;
  std::vector<AttrValue> list;
  std::shared_ptr<const Encoding> enc;
};

struct Encoding {
  std::string kind;  // blocked, slice, nvidia_mma, dot_op, linear, swizzled_shared, nvmma_shared, ...
  std::map<std::string, AttrValue> params;
  std::string text;  // as written (alias resolved), for messages
  bool shared() const { return kind.ends_with("_shared") || kind == "shared_linear"; }
  int64_t get_int(const std::string& key) const;                // triton-input when absent
  std::vector<int64_t> get_ints(const std::string& key) const;  // a list of integers
  const Encoding& get_enc(const std::string& key) const;
};
using Aliases = std::map<std::string, std::shared_ptr<const Encoding>>;

// `#ttg.blocked<{...}>` or an alias `#blocked` (resolved in `aliases`). triton-input on bad text.
std::shared_ptr<const Encoding> parse_encoding(std::string_view text, const Aliases& aliases);

// The encodings tfspec derives (§2); anything else is listed by the reader, never guessed.
bool derivable(const Encoding& e);
// Whether the encoding's CTA layout is one CTA's (§2.7): no `CTAsPerCGA` / `CTASplitNum` past 1
// and no `block` bases. A multi-CTA encoding is not derivable.
bool one_cta(const Encoding& e);
// An attribute of a derived kind that §2 does not read (the encoding is then not derivable).
std::optional<std::string> unread_attribute(const Encoding& e);

// A distributed encoding on a tensor shape: in-dims register, lane, warp, block (Triton's names,
// in that order) -> out-dims dim0, dim1, ... of the shape's sizes. A shared encoding on an
// allocation shape: in-dims offset, block -> the element the offset holds. triton-encoding for
// an encoding outside derivable(), triton-input for parameters that do not fit the shape.
LinearLayout to_linear(const Encoding& e, const std::vector<int64_t>& shape, int64_t threads_per_warp = 32);

}  // namespace tfspec::triton
