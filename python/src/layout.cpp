// tfspec.Layout and tfspec.ShardLayout: reference layouts (any LayoutBase kind) with CuTe notation
// for str/repr, evaluation through the protocol ops (the answers the CLI gives) and pictures from
// draw/ for Jupyter (_repr_svg_).
#include "layout.hpp"

#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bulk.hpp"
#include "convert.hpp"
#include "ops.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/mesh.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::python {
namespace {

Json json_of(const PyLayout& l) { return tfspec::to_json(*l.layout()); }

const char* kind_name(LayoutKind k) {
  switch (k) {
    case LayoutKind::Layout: return "layout";
    case LayoutKind::Composed: return "composed";
    case LayoutKind::Swizzle: return "swizzle";
    case LayoutKind::Shard: return "shard";
    case LayoutKind::Linear: return "linear";
  }
  return "?";
}

const Layout& plain(const PyLayout& l, const char* what) {
  if (l.layout()->kind() != LayoutKind::Layout)
    throw py::type_error(std::string("a ") + kind_name(l.layout()->kind()) + " layout has no single " + what);
  return static_cast<const Layout&>(*l.layout());
}

// A plain Python value (dicts, lists) of a JSON document, without wrapping layouts.
py::object plain_py(const Json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

LayoutPtr from_args(py::handle a, py::handle stride) {
  if (py::isinstance<PyLayout>(a) && stride.is_none()) return a.cast<const PyLayout&>().layout();
  if (py::isinstance<py::str>(a) && stride.is_none()) return parse_any_layout(a.cast<std::string>());
  if (py::isinstance<py::dict>(a) && stride.is_none()) return any_layout_from_json(to_json(a));
  if (stride.is_none() && py::hasattr(a, "shape") && py::hasattr(a, "stride"))  // pycute, duck-typed
    return from_args(a.attr("shape"), a.attr("stride"));
  IntTuple shape = inttuple_from_json(to_json(a));
  if (stride.is_none()) return std::make_shared<Layout>(std::move(shape));
  return std::make_shared<Layout>(std::move(shape), inttuple_from_json(to_json(stride)));
}

py::object svg_or_none(const std::function<std::string()>& draw) {
  try {
    return py::str(draw());
  } catch (const SpecError&) {  // too large or symbolic: Jupyter then shows the text repr
    return py::none();
  }
}

std::string picture(const PyLayout& l) {
  if (l.layout()->kind() == LayoutKind::Shard) return draw::shard_check_svg(static_cast<const ShardLayout&>(*l.layout()), {});
  return draw::layout_svg(*l.layout());
}

py::object op1(const char* op, const PyLayout& l) { return from_json(call_json(op, Json{{"layout", json_of(l)}})); }

// The fast paths (issue 31): a plain Layout whose extents and strides are all integers is
// evaluated by the reference's C++ directly, without the JSON of the protocol path; anything
// else (symbolic, composed, shard) takes the op, so every answer is still the CLI's. Errors are
// the same SpecError either way (the translator of convert.cpp).
PyTypeObject* layout_type = nullptr;  // tfspec.Layout itself (set once by define_layout)

const Layout* concrete_plain(const PyLayout& l) {
  if (l.concrete_plain < 0) {  // a layout never changes: decided once per object
    const bool plain = l.layout()->kind() == LayoutKind::Layout;
    const auto* L = plain ? static_cast<const Layout*>(l.layout().get()) : nullptr;
    l.concrete_plain = L && L->materialized() && is_concrete(L->shape_ref()) && is_concrete(L->stride());
  }
  return l.concrete_plain ? static_cast<const Layout*>(l.layout().get()) : nullptr;
}

// A Python int that fits int64 (not a bool), or nullopt.
std::optional<int64_t> small_int(py::handle h) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) return std::nullopt;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

// A tuple (nested) of Python ints as an IntTuple coordinate, or nullopt.
std::optional<IntTuple> int_coord(py::handle h) {
  if (auto v = small_int(h)) return IntTuple(*v);
  if (!PyTuple_Check(h.ptr())) return std::nullopt;
  std::vector<IntTuple> c;
  for (py::handle x : py::reinterpret_borrow<py::tuple>(h)) {
    auto y = int_coord(x);
    if (!y) return std::nullopt;
    c.push_back(std::move(*y));
  }
  return IntTuple::tuple(std::move(c));
}

// L(i) / L(coord) (§3): the flat fast path's result, then a concrete plain layout, then the op.
py::object apply_py(const PyLayout& l, const py::args& coord) {
  if (l.flat_n > 0 && coord.size() == 1) {  // a fast path's result, still flat: L(i) inside the domain
    if (auto i = small_int(coord[0])) {
      if (auto v = fast::apply(l.flat_shape, l.flat_stride, l.flat_n, *i)) return py::int_(*v);
    }
  }
  if (const Layout* L = concrete_plain(l); L && coord.size() == 1) {  // the fast path: L(i), L((i, j))
    if (auto i = small_int(coord[0])) return py::int_((*L)(*i));
    if (auto c = int_coord(coord[0])) return py::int_(L->apply(*c));
  }
  py::object c = coord.size() == 1 ? py::reinterpret_borrow<py::object>(coord[0]) : py::object(coord);
  if (py::isinstance<py::str>(c)) c = from_json(protocol_coord(c.cast<std::string>()));
  return from_json(call_json("eval", Json{{"layout", json_of(l)}, {"coord", to_json(c)}}));
}

// What a notebook embeds stays small (issue 31): a picture of at most kReprCells domain points and
// kReprBytes of text, else None (Jupyter shows the text repr); .svg() draws the full picture.
py::object repr_svg(const PyLayout& l) {
  constexpr int64_t kReprCells = 1024;     // a 32 x 32 tile
  constexpr size_t kReprBytes = 512 * 1024;
  if (l.layout()->kind() != LayoutKind::Shard) {  // a shard picture is stripes: small at any size
    try {
      if (product_int(l.layout()->shape(), "size") > kReprCells) return py::none();
    } catch (const SpecError&) {  // symbolic: draw refuses it below
    }
  }
  py::object svg = svg_or_none([&] { return picture(l); });
  if (!svg.is_none() && py::len(svg) > kReprBytes) return py::none();
  return svg;
}

void define_layout(py::module_& m) {
  register_offset_buffer(m);
  py::class_<PyLayout> layout(m, "Layout",
                              "A layout (§3): Layout('(2,(3,4)):(1,(2,6))'), Layout(shape, stride), or any LayoutBase kind "
                              "in the notation (composed `INNER o OFFSET o OUTER`, shard(...)).");
  layout_type = reinterpret_cast<PyTypeObject*>(layout.ptr());
  layout.def(py::init([](py::object a, py::object stride) { return PyLayout{from_args(a, stride)}; }), py::arg("layout"),
           py::arg("stride") = py::none())
      .def_property_readonly("kind", [](const PyLayout& l) { return kind_name(l.layout()->kind()); })
      .def_property_readonly("shape", [](const PyLayout& l) { return from_json(tfspec::to_json(l.layout()->shape())); })
      .def_property_readonly("stride", [](const PyLayout& l) { return from_json(tfspec::to_json(plain(l, "stride").stride())); })
      .def("size", [](const PyLayout& l) -> py::object {
             if (const Layout* L = concrete_plain(l)) return py::int_(L->size());
             return op1("size", l);
           }, "number of domain points (§3)")
      .def("cosize", [](const PyLayout& l) -> py::object {
             if (const Layout* L = concrete_plain(l)) return py::int_(L->cosize());
             return op1("cosize", l);
           }, "1 + the largest offset (§3)")
      .def("offsets", [](const PyLayout& l, int64_t start, std::optional<int64_t> stop) { return offsets_of(l, start, stop); },
           py::arg("start") = 0, py::arg("stop") = py::none(),
           "L(i) for every index i of [start, stop) (default: the whole domain) as an int64 NumPy array (a buffer object "
           "where NumPy is absent), computed by the optimized host backend")
      .def("crd2idx", [](const PyLayout& l, py::handle coords) { return crd2idx_of(l, coords); }, py::arg("coords"),
           "L(c) for each row of an integer array: 1-D, each entry an index (colexicographic, D1); 2-D (n, r), each row a "
           "coordinate, flat (r = flat rank) or one entry per top-level mode; an int64 NumPy array, by the optimized host backend")
      .def("rank", [](const PyLayout& l) { return from_json(call_json("rank", Json{{"t", tfspec::to_json(l.layout()->shape())}})); })
      .def("depth", [](const PyLayout& l) { return from_json(call_json("depth", Json{{"t", tfspec::to_json(l.layout()->shape())}})); })
      .def("__call__", &apply_py, "the offset of an index (colexicographic, D1) or a coordinate (§3)")
      .def("__getitem__", [](const PyLayout& l, int64_t i) { return from_json(call_json("mode", Json{{"layout", json_of(l)}, {"i", i}})); })
      .def("__eq__", [](const PyLayout& l, py::object other) -> py::object {
             if (py::isinstance<PyLayout>(other)) return py::bool_(json_of(l) == json_of(other.cast<const PyLayout&>()));
             if (py::isinstance<py::str>(other)) {
               try {
                 return py::bool_(json_of(l) == tfspec::to_json(*parse_any_layout(other.cast<std::string>())));
               } catch (const SpecError&) {  // text that is no layout is simply not equal
                 return py::bool_(false);
               }
             }
             return py::reinterpret_borrow<py::object>(Py_NotImplemented);
           })
      .def("__hash__", [](const PyLayout& l) { return py::hash(py::str(json_of(l).dump())); })
      .def("__str__", [](const PyLayout& l) { return to_string(*l.layout()); })
      .def("__repr__", [](const PyLayout& l) {
             return std::string(l.layout()->kind() == LayoutKind::Shard ? "ShardLayout" : "Layout") + "('" + to_string(*l.layout()) + "')"; })
      .def("to_json", [](const PyLayout& l) { return plain_py(json_of(l)); }, "the protocol JSON object (spec/PROTOCOL.md)")
      .def("svg", [](const PyLayout& l) { return picture(l); }, "the picture `tfspec draw` makes (SVG text)")
      .def("_repr_svg_", &repr_svg, "the picture a notebook embeds: None past 1024 domain points or 512 KiB of SVG (.svg() draws it whole)");
}

void define_shard_layout(py::module_& m) {
  py::class_<PyShardLayout, PyLayout>(m, "ShardLayout",
                                      "A shard layout (§6, §7): shard(LAYOUT; ATTRS; MESH) text, the sugar "
                                      "`(N @ m.a, ...) [on MESH]` (canonicalized, D5; or give mesh=), or JSON.")
      .def(py::init([](py::object text, py::object mesh) {
             std::optional<Mesh> me;
             if (py::isinstance<py::str>(mesh)) me = parse_mesh(mesh.cast<std::string>());
             else if (!mesh.is_none()) me = mesh_from_json(to_json(mesh));
             return PyShardLayout{{std::make_shared<ShardLayout>(read_shard_layout(to_json(text), me))}};
           }), py::arg("layout"), py::arg("mesh") = py::none())
      .def_property_readonly("layout", [](const PyShardLayout& s) { return wrap(static_cast<const ShardLayout&>(*s.layout()).layout()); })
      .def_property_readonly("attrs", [](const PyShardLayout& s) {
             py::list out;
             for (const auto& a : static_cast<const ShardLayout&>(*s.layout()).attrs()) out.append(to_string(a));
             return py::tuple(out);
           })
      .def("device_offsets", [](const PyShardLayout& s, py::object device, py::handle shape, const std::string& storage) {
             if (!device.is_none() && (!PyLong_Check(device.ptr()) || PyBool_Check(device.ptr())))
               throw py::type_error("device_offsets: device is an int (the mesh layout's value) or None (every device)");
             return device_offsets_of(s, device, shape, storage); }, py::arg("device"), py::arg("shape"), py::arg("storage"),
           "(elements, offsets) for one device (the mesh layout's value, as shard.owners names it) executing T.shape under "
           "a storage (rmem, smem, gmem): the row-major indices of T it holds, ascending, and each one's offset in that "
           "device's engine buffer (D3; under gmem all devices share one engine); int64 NumPy arrays, by the optimized host "
           "backend's core. device=None: {device: (elements, offsets)} for every device, the shard layout validated once")
      .def_property_readonly("mesh", [](const PyShardLayout& s) {
             return plain_py(mesh_to_json(static_cast<const ShardLayout&>(*s.layout()).mesh()));
           });
}

}  // namespace

Json protocol_coord(const std::string& text) { return tfspec::to_json(parse_coord(text)); }

namespace {
// The PyLayout of a tfspec.Layout argument (a subclass too), or null for anything else.
const PyLayout* layout_arg(py::handle h) {
  // The hot path's own test (issue 31): an exact tfspec.Layout holds its PyLayout as the first
  // value of a simple pybind11 instance, so neither check below needs pybind11's type registry
  // (a hash of the C++ type's name per lookup, a fifth of a fast call's time).
  if (Py_TYPE(h.ptr()) == layout_type) {
    auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
    if (inst->simple_layout) {
      if (!inst->simple_holder_constructed || !inst->simple_value_holder[0])  // Layout.__new__(Layout) alone
        require_initialised(h);  // raises its TypeError
      return static_cast<const PyLayout*>(inst->simple_value_holder[0]);
    }
  }
  if (!py::isinstance<PyLayout>(h)) return nullptr;
  return &h.cast<const PyLayout&>();
}
}  // namespace

const Layout* concrete_plain_arg(py::handle h) {
  const PyLayout* l = layout_arg(h);
  return l ? concrete_plain(*l) : nullptr;
}

bool concrete_flat_arg(py::handle h, fast::Flat& out) {
  const PyLayout* l = layout_arg(h);
  if (!l) return false;
  if (l->flat(out)) return true;  // a fast path's result, still flat
  const Layout* L = concrete_plain(*l);
  return L && fast::flat_into(*L, out);
}

void register_layouts(py::module_& m) {
  define_layout(m);
  define_shard_layout(m);
}

}  // namespace tfspec::python
