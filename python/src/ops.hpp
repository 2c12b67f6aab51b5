// The protocol ops as Python callables (ops.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "tfspec/reference/json.hpp"

namespace tfspec::python {
namespace py = pybind11;

// Runs op `name` on JSON arguments as `tfspec serve` does; raises tfspec.SpecError on an error reply.
Json call_json(const std::string& name, const Json& args);
// The same with Python arguments mapped onto the op's parameters (positional, then keywords).
py::object call(const std::string& name, const py::tuple& args, const py::dict& kwargs);
void register_ops(py::module_& m);

}  // namespace tfspec::python
