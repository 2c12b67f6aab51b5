#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "flat.hpp"

PYBIND11_MODULE(ovh_pybind11, m) {
  pybind11::class_<FlatLayout>(m, "FlatLayout")
      .def(pybind11::init([](std::vector<int64_t> e, std::vector<int64_t> s) { return FlatLayout{e, s}; }))
      .def("__call__", [](const FlatLayout& l, int64_t i) { return l(i); });
}
