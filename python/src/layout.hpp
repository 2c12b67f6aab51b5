// tfspec.Layout and tfspec.ShardLayout (layout.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"
#include "fast_algebra.hpp"

namespace tfspec::python {
namespace py = pybind11;
void register_layouts(py::module_& m);
// The Layout a tfspec.Layout argument holds when it is a plain Layout whose extents and strides
// are all integers (the fast paths of issue 31), else nullptr. Valid while `h` lives.
const Layout* concrete_plain_arg(py::handle h);
// The flat modes of a concrete plain tfspec.Layout argument with at most fast::kMaxModes leaves
// (without building its reference layout when a fast path made it); false for anything else.
bool concrete_flat_arg(py::handle h, fast::Flat& out);
// A coordinate in the notation ("(1,_)") as JSON.
Json protocol_coord(const std::string& text);
}  // namespace tfspec::python
