// Symbol values substituted into a layout of any kind (§1: a ShapeDim has a value under
// bindings). `tfspec draw --bind M=16` and `tfspec layout print --bind` draw the concrete layout.
#pragma once
#include <set>
#include <string>

#include "tfspec/reference/layout.hpp"
#include "tfspec/reference/shapedim.hpp"

namespace tfspec {

// The named dims a tuple or a layout (every part of a composed or shard layout, its mesh
// included) mentions.
void collect_symbols(const IntTuple& t, std::set<std::string>& out);
std::set<std::string> layout_symbols(const LayoutBase& l);

// Every symbolic leaf replaced by its value; None leaves stay None. SpecError("unbound-dim")
// names a symbol without a value; the result is built by the checked constructors, so a value
// that makes the layout invalid (an extent 0) fails with that constructor's rule.
IntTuple bind_symbols(const IntTuple& t, const Bindings& b);
LayoutPtr bind_symbols(const LayoutBase& l, const Bindings& b);

}  // namespace tfspec
