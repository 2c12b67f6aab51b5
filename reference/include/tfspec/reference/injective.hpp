// §2 injectivity: distinct domain coordinates never share an offset.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

struct InjectivityResult {
  bool injective = false;
  std::string method;  // "separated-strides", "enumeration", ... (what decided it)
  std::optional<std::pair<IntTuple, IntTuple>> witness;  // two coordinates sharing an offset
  int64_t offset = 0;                                    // their common offset
};

// Exact for concrete layouts. Separated modes (sort-by-stride argument) are decided without
// enumerating; what is left is enumerated up to kMaxEnumeration points, beyond which the answer
// is SpecError("injectivity-undecided") (never a guess).
inline constexpr int64_t kMaxEnumeration = int64_t{1} << 24;
InjectivityResult is_injective(const Layout& l);
InjectivityResult is_injective(const LayoutBase& l);  // Layout or ComposedLayout (enumerates)

}  // namespace tfspec
