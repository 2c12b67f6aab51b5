// tfspec.Layout and tfspec.ShardLayout (layout.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "tfspec/reference/json.hpp"

namespace tfspec::python {
namespace py = pybind11;
void register_layouts(py::module_& m);
// A coordinate in the notation ("(1,_)") as JSON.
Json protocol_coord(const std::string& text);
}  // namespace tfspec::python
