// Bulk evaluation into int64 arrays by the optimized host core of gpu/ (issue 31): the fuzzed
// and benchmarked implementation, not the reference per index and not a Python loop.
#pragma once
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "convert.hpp"

namespace tfspec::python {
namespace py = pybind11;

// tfspec.OffsetBuffer: the int64 array these return where NumPy is not importable.
void register_offset_buffer(py::module_& m);
// L(i) for every index i of [start, stop) (default: the whole domain).
py::object offsets_of(const PyLayout& l, int64_t start, std::optional<int64_t> stop);
// L(c) for each row of `coords`: 1-D, each entry an index (colexicographic, D1); 2-D (n, r),
// each row a coordinate, flat (r = flat rank) or by top-level mode (r = rank, each entry
// colexicographic inside its mode).
py::object crd2idx_of(const PyLayout& l, py::handle coords);
// (elements, offsets): the row-major logical indices of T.shape that `device` holds (ascending,
// as shard.owners lists them) and where each lies in that device's engine buffer (D3); for
// device None, {device: (elements, offsets)} for every device from one plan.
py::object device_offsets_of(const PyShardLayout& s, py::object device, py::handle shape, const std::string& storage);

}  // namespace tfspec::python
