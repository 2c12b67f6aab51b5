#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include "flat.hpp"

NB_MODULE(ovh_nanobind, m) {
  nanobind::class_<FlatLayout>(m, "FlatLayout")
      .def("__init__", [](FlatLayout* l, std::vector<int64_t> e, std::vector<int64_t> s) { new (l) FlatLayout{e, s}; })
      .def("__call__", [](const FlatLayout& l, int64_t i) { return l(i); });
}
