// Bulk evaluation (issue 31): every value comes from the index core of gpu/ (core.hpp, the host
// backend), which is fuzzed against the reference; this file only moves arrays in and out.
// Results are int64 NumPy arrays where NumPy is importable, else tfspec.OffsetBuffer objects
// (the buffer protocol: memoryview reads them without a copy).
#include "bulk.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "tfspec/gpu/backend.hpp"
#include "tfspec/gpu/core.hpp"
#include "tfspec/gpu/plan.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/mesh.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::python {
namespace {

struct OffsetBuffer {
  std::vector<int64_t> values;
};

gpu::Backend& host() {
  static const std::unique_ptr<gpu::Backend> backend = gpu::make_host_backend();
  return *backend;
}

// numpy, or None where it is not importable (looked up once; kept for the process). Not a
// function-local static initializer: the import runs Python code, which lets another thread take
// the GIL, and that thread would then wait on the initializer's guard while holding the GIL the
// importing thread needs (issue 44: two threads' first Layout.offsets() hung for good). The GIL
// alone orders the accesses; a thread that finds no module yet imports it too (sys.modules makes
// the second import a lookup) and the first store wins.
py::handle numpy() {
  static std::atomic<PyObject*> np{nullptr};
  if (PyObject* known = np.load()) return known;
  PyObject* found = Py_None;
  try {
    found = py::module_::import("numpy").release().ptr();
  } catch (py::error_already_set&) {
  }
  PyObject* expected = nullptr;
  if (!np.compare_exchange_strong(expected, found) && found != Py_None) Py_DECREF(found);
  return np.load();
}

py::object as_array(std::vector<int64_t>&& v) {
  py::object buf = py::cast(OffsetBuffer{std::move(v)});
  if (numpy().is_none()) return buf;
  return numpy().attr("frombuffer")(buf, py::str("int64"));
}

// An int64 array of n values and where to write them: numpy.empty (no pass over the memory
// before the core writes it), or an OffsetBuffer.
std::pair<py::object, int64_t*> new_array(int64_t n) {
  if (numpy().is_none()) {
    py::object buf = py::cast(OffsetBuffer{std::vector<int64_t>(static_cast<size_t>(n))});
    return {buf, buf.cast<OffsetBuffer&>().values.data()};
  }
  py::object a = numpy().attr("empty")(n, py::str("int64"));
  return {a, static_cast<int64_t*>(py::buffer(a).request(true).ptr)};
}

// An integer table: rows of `cols` values; `indices`: a 1-D input, one index a row (cols 1).
struct Table {
  std::vector<int64_t> v;
  int64_t rows = 0, cols = 1;
  bool indices = true;
};

std::string shape_text(const py::tuple& shape) { return py::repr(shape).cast<std::string>(); }

Table table_from_numpy(py::handle coords) {
  py::object a = numpy().attr("asarray")(coords);
  const std::string kind = a.attr("dtype").attr("kind").cast<std::string>();
  const std::string dtype = py::str(a.attr("dtype")).cast<std::string>();
  if (kind != "i" && kind != "u" && a.attr("size").cast<int64_t>() != 0)  // [] is float64 to NumPy: no rows, no values
    throw py::type_error("crd2idx takes integer coordinates; got an array of dtype " + dtype);
  if (kind == "u" && a.attr("dtype").attr("itemsize").cast<int>() == 8 && a.attr("size").cast<int64_t>() > 0 &&
      a.attr("max")().cast<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw py::value_error("crd2idx: a uint64 coordinate is larger than int64 holds");
  a = numpy().attr("ascontiguousarray")(a, py::str("int64"));
  const py::tuple shape = a.attr("shape");
  if (shape.size() != 1 && shape.size() != 2)
    throw py::value_error("crd2idx takes a 1-D array of indices or a 2-D array of coordinates (one a row); got an array of shape " +
                          shape_text(shape));
  Table t;
  t.rows = shape[0].cast<int64_t>();
  t.indices = shape.size() == 1;
  t.cols = t.indices ? 1 : shape[1].cast<int64_t>();
  const py::buffer_info info = py::buffer(a).request();
  const auto* p = static_cast<const int64_t*>(info.ptr);
  if (t.rows * t.cols > 0) t.v.assign(p, p + t.rows * t.cols);
  return t;
}

int64_t int_entry(py::handle h) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr()))
    throw py::type_error("crd2idx takes integer coordinates; got a " + py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  return h.cast<int64_t>();
}

// Without NumPy: a sequence of ints (indices) or of equally long sequences of ints (coordinates).
Table table_from_sequence(py::handle coords) {
  if (!py::isinstance<py::sequence>(coords) || py::isinstance<py::str>(coords))
    throw py::type_error("crd2idx takes a sequence of indices or of coordinates (NumPy is not importable here)");
  Table t;
  const auto seq = py::reinterpret_borrow<py::sequence>(coords);
  t.rows = static_cast<int64_t>(seq.size());
  for (int64_t r = 0; r < t.rows; ++r) {
    py::object row = seq[static_cast<size_t>(r)];
    const bool index = !py::isinstance<py::sequence>(row);
    if (r == 0) t.indices = index;
    if (index != t.indices)
      throw py::value_error("crd2idx: row " + std::to_string(r) + " is " + (index ? "an index" : "a coordinate") + "; row 0 is " +
                            (index ? "a coordinate" : "an index"));
    if (index) {
      t.v.push_back(int_entry(row));
      continue;
    }
    const auto cs = py::reinterpret_borrow<py::sequence>(row);
    if (r == 0) t.cols = static_cast<int64_t>(cs.size());
    if (static_cast<int64_t>(cs.size()) != t.cols)
      throw py::value_error("crd2idx: row " + std::to_string(r) + " has " + std::to_string(cs.size()) + " entries; row 0 has " +
                            std::to_string(t.cols));
    for (py::handle x : cs) t.v.push_back(int_entry(x));
  }
  return t;
}

// Flat extents of each top-level mode of the domain (empty when they do not add up to the plan's
// flat domain: then only flat coordinates are read).
std::vector<int> mode_ranks(const LayoutBase& l, const gpu::FnPlan& plan) {
  const IntTuple shape = l.shape();
  std::vector<int> out;
  if (shape.is_leaf()) out.push_back(1);
  else
    for (const auto& m : shape.children()) out.push_back(static_cast<int>(flatten(m).len()));
  int sum = 0;
  for (int r : out) sum += r;
  return sum == plan.domain_rank ? out : std::vector<int>{};
}

// v (0 <= v < product of extents[0, n)) as colexicographic coordinates (D1), written to out.
void colex(int64_t v, const int64_t* extents, int n, int64_t* out) {
  for (int k = 0; k < n; ++k) {
    out[k] = k + 1 < n ? v % extents[k] : v;
    if (k + 1 < n) v /= extents[k];
  }
}

void check_entry(int64_t v, int64_t size, int64_t row, const std::string& what) {
  if (v < 0 || v >= size)
    fail(rule::kCoordInDomain, "crd2idx: row " + std::to_string(row) + ": " + what + " " + std::to_string(v) + " is outside [0, " +
                                   std::to_string(size) + ")");
}

// The table as flat coordinates of the plan's domain (domain_rank values a row).
std::vector<int64_t> flat_coords(const Table& t, const LayoutBase& l, const gpu::FnPlan& plan) {
  const int R = plan.domain_rank;
  if (!t.indices && t.cols == R) return t.v;
  std::vector<int64_t> flat(static_cast<size_t>(t.rows * R));
  if (t.indices) {
    for (int64_t r = 0; r < t.rows; ++r) {
      check_entry(t.v[r], plan.domain_size, r, "index");
      colex(t.v[r], plan.domain_extent, R, flat.data() + r * R);
    }
    return flat;
  }
  const std::vector<int> modes = mode_ranks(l, plan);
  if (static_cast<int64_t>(modes.size()) != t.cols)
    throw py::value_error("crd2idx: rows of " + std::to_string(t.cols) + " coordinates; the domain " + to_string(l.shape()) +
                          " takes " + std::to_string(R) + " (flat)" +
                          (modes.empty() || static_cast<int>(modes.size()) == R ? std::string()
                                                                                : " or " + std::to_string(modes.size()) + " (one per mode)") +
                          ", or a 1-D array of indices");
  for (int64_t r = 0; r < t.rows; ++r)
    for (int m = 0, at = 0; m < static_cast<int>(modes.size()); at += modes[m++]) {
      int64_t size = 1;
      for (int k = at; k < at + modes[m]; ++k) size *= plan.domain_extent[k];
      check_entry(t.v[r * t.cols + m], size, r, "mode " + std::to_string(m) + " coordinate");
      colex(t.v[r * t.cols + m], plan.domain_extent + at, modes[m], flat.data() + r * R + at);
    }
  return flat;
}

std::vector<int64_t> shape_arg(py::handle shape) {
  const Json j = to_json(shape);
  std::vector<int64_t> out;
  if (j.is_number_integer()) out.push_back(j.get<int64_t>());
  else if (j.is_array())
    for (const auto& e : j) {
      if (!e.is_number_integer()) throw py::type_error("device_offsets: shape takes integers; got " + j.dump());
      out.push_back(e.get<int64_t>());
    }
  else throw py::type_error("device_offsets: shape is a tuple of integers (T.shape); got " + j.dump());
  return out;
}

// (device, mesh coordinate) of every instance, by device: the mesh layout's value at the
// coordinate (§5), as shard.owners names devices.
std::vector<std::pair<int64_t, std::vector<int64_t>>> devices_of(const ShardLayout& sl, const gpu::ShardPlan& p) {
  const gpu::FnPlan mesh = gpu::compile_layout(*sl.mesh().layout());
  if (mesh.domain_rank != p.mesh_rank) fail(rule::kResourceLimit, "device_offsets: a mesh layout over nested axes");
  int64_t instances = 1;
  for (int a = 0; a < p.mesh_rank; ++a) instances *= p.mesh_extent[a];
  std::vector<std::pair<int64_t, std::vector<int64_t>>> out;
  for (int64_t inst = 0; inst < instances; ++inst) {
    std::vector<int64_t> m(static_cast<size_t>(p.mesh_rank));
    for (int a = 0; a < p.mesh_rank; ++a) m[a] = (inst / p.mesh_step[a]) % p.mesh_extent[a];  // row-major
    int64_t d = 0;
    if (const gpu::Status st = gpu::eval_coord(mesh, m.data(), d); st != gpu::kOk) gpu::raise_status(st, inst, "mesh device");
    out.emplace_back(d, std::move(m));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The elements of the device at mesh coordinate m and their offsets: its box of G (a Split dim k
// spans [m[a] * local[k], (m[a] + 1) * local[k]), every other dim all of g[k]) walked row-major,
// so the row-major logical indices come out ascending (D2); each offset by the core's eval_coord.
void device_box(const gpu::ShardPlan& p, const std::vector<int64_t>& m, std::vector<int64_t>& elements, std::vector<int64_t>& offsets) {
  const int n = p.rank;
  int64_t lo[gpu::kMaxModes], hi[gpu::kMaxModes], g[gpu::kMaxModes], step[gpu::kMaxModes];
  for (int k = n; k-- > 0;) {
    lo[k] = p.bind[k] >= 0 ? m[p.bind[k]] * p.local[k] : 0;
    hi[k] = p.bind[k] >= 0 ? lo[k] + p.local[k] : p.g[k];
    if (lo[k] >= hi[k]) return;  // an empty dim: nothing held
    step[k] = k + 1 < n ? step[k + 1] * p.g[k + 1] : 1;
    g[k] = lo[k];
  }
  for (;;) {
    int64_t e = 0, off = 0;
    for (int k = 0; k < n; ++k) e += g[k] * step[k];
    if (const gpu::Status st = gpu::eval_coord(p.layout, g, off); st != gpu::kOk) gpu::raise_status(st, e, "device_offsets");
    elements.push_back(e);
    offsets.push_back(off);
    int k = n - 1;
    for (; k >= 0 && ++g[k] == hi[k]; --k) g[k] = lo[k];  // the odometer, last dim fastest
    if (k < 0) return;
  }
}

}  // namespace

void register_offset_buffer(py::module_& m) {
  py::class_<OffsetBuffer>(m, "OffsetBuffer", py::buffer_protocol(), "int64 offsets (the buffer protocol: numpy.asarray, memoryview)")
      .def_buffer([](OffsetBuffer& b) {
        return py::buffer_info(b.values.data(), sizeof(int64_t), py::format_descriptor<int64_t>::format(), 1,
                               {static_cast<py::ssize_t>(b.values.size())}, {static_cast<py::ssize_t>(sizeof(int64_t))});
      })
      .def("__len__", [](const OffsetBuffer& b) { return b.values.size(); });
}

// The whole domain by the host backend's tiled odometer runs, a range element by element.
py::object offsets_of(const PyLayout& l, int64_t start, std::optional<int64_t> stop) {
  const gpu::FnPlan plan = gpu::compile_layout(*l.layout());
  const int64_t n = plan.domain_size, end = stop.value_or(n);
  if (start < 0 || end > n || start > end)
    fail(rule::kCoordInDomain, "offsets(" + std::to_string(start) + ", " + std::to_string(end) + ") of a layout of " + std::to_string(n) + " points");
  std::pair<py::object, int64_t*> array = new_array(end - start);
  int64_t* out = array.second;
  {
    py::gil_scoped_release unlocked;
    if (start == 0 && end == n) {
      host().offsets_into(plan, out);
    } else {
      for (int64_t i = start; i < end; ++i)
        if (const gpu::Status st = gpu::eval_index(plan, i, out[i - start]); st != gpu::kOk) gpu::raise_status(st, i, "offsets");
    }
  }
  return std::move(array.first);
}

py::object crd2idx_of(const PyLayout& l, py::handle coords) {
  const gpu::FnPlan plan = gpu::compile_layout(*l.layout());
  const Table t = numpy().is_none() ? table_from_sequence(coords) : table_from_numpy(coords);
  std::vector<int64_t> flat = flat_coords(t, *l.layout(), plan);
  std::vector<int64_t> out;
  {
    py::gil_scoped_release unlocked;
    if (plan.domain_rank == 0) flat.assign(static_cast<size_t>(t.rows), 0);  // one point: every row is ()
    out = host().crd2idx(plan, flat);
  }
  return as_array(std::move(out));
}

py::object device_offsets_of(const PyShardLayout& s, py::object device, py::handle shape, const std::string& storage) {
  const auto& sl = static_cast<const ShardLayout&>(*s.layout());
  const gpu::HostShardPlan hp = gpu::compile_shard(sl, parse_storage(storage), shape_arg(shape));
  const gpu::ShardPlan& p = hp.plan;
  const auto devices = devices_of(sl, p);
  auto held_by = [&](const std::vector<int64_t>& m) {
    std::vector<int64_t> elements, offsets;
    {
      py::gil_scoped_release unlocked;
      device_box(p, m, elements, offsets);
    }
    return py::make_tuple(as_array(std::move(elements)), as_array(std::move(offsets)));
  };
  if (device.is_none()) {  // every device, one plan
    py::dict out;
    for (const auto& [d, m] : devices) out[py::int_(d)] = held_by(m);
    return out;
  }
  const int64_t wanted = device.cast<int64_t>();
  for (const auto& [d, m] : devices)
    if (d == wanted) return held_by(m);
  throw py::value_error("device_offsets: no device " + std::to_string(wanted) + " in the mesh " + to_string(sl.mesh()) +
                        " (its devices are the mesh layout's values)");
}

}  // namespace tfspec::python
