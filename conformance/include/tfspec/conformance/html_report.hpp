// The conformance report as one self-contained HTML file (issue 14): inline CSS and SVG, no
// scripts, no external assets. The per-clause table, then every failing or errored case in a
// <details> element with its arguments, expected and actual reply, the note that derives the
// expected value, and, when both answers are layouts, their pictures side by side.
#pragma once
#include <string>

#include "tfspec/conformance/runner.hpp"

namespace tfspec::conformance {

// At most this many failures carry pictures (the rest are listed in words).
inline constexpr int kMaxPicturedFailures = 50;

// XHTML (well-formed XML), so any XML parser reads it.
std::string html_report(const Report& r);

}  // namespace tfspec::conformance
