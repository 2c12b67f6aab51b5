// tfspec.Layout and tfspec.ShardLayout: reference layouts (any LayoutBase kind) with CuTe notation
// for str/repr, evaluation through the protocol ops (the answers the CLI gives) and pictures from
// draw/ for Jupyter (_repr_svg_).
#include "layout.hpp"

#include <functional>
#include <memory>

#include "convert.hpp"
#include "ops.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/mesh.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::python {
namespace {

Json json_of(const PyLayout& l) { return tfspec::to_json(*l.ptr); }

const char* kind_name(LayoutKind k) {
  switch (k) {
    case LayoutKind::Layout: return "layout";
    case LayoutKind::Composed: return "composed";
    case LayoutKind::Swizzle: return "swizzle";
    case LayoutKind::Shard: return "shard";
  }
  return "?";
}

const Layout& plain(const PyLayout& l, const char* what) {
  if (l.ptr->kind() != LayoutKind::Layout)
    throw py::type_error(std::string("a ") + kind_name(l.ptr->kind()) + " layout has no single " + what);
  return static_cast<const Layout&>(*l.ptr);
}

// A plain Python value (dicts, lists) of a JSON document, without wrapping layouts.
py::object plain_py(const Json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

LayoutPtr from_args(py::handle a, py::handle stride) {
  if (py::isinstance<PyLayout>(a) && stride.is_none()) return a.cast<const PyLayout&>().ptr;
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
  if (l.ptr->kind() == LayoutKind::Shard) return draw::shard_check_svg(static_cast<const ShardLayout&>(*l.ptr), {});
  return draw::layout_svg(*l.ptr);
}

py::object op1(const char* op, const PyLayout& l) { return from_json(call_json(op, Json{{"layout", json_of(l)}})); }

void define_layout(py::module_& m) {
  py::class_<PyLayout>(m, "Layout", py::dynamic_attr(),
                       "A layout (§3): Layout('(2,(3,4)):(1,(2,6))'), Layout(shape, stride), or any LayoutBase kind "
                       "in the notation (composed `INNER o OFFSET o OUTER`, shard(...)).")
      .def(py::init([](py::object a, py::object stride) { return PyLayout{from_args(a, stride)}; }), py::arg("layout"),
           py::arg("stride") = py::none())
      .def_property_readonly("kind", [](const PyLayout& l) { return kind_name(l.ptr->kind()); })
      .def_property_readonly("shape", [](const PyLayout& l) { return from_json(tfspec::to_json(l.ptr->shape())); })
      .def_property_readonly("stride", [](const PyLayout& l) { return from_json(tfspec::to_json(plain(l, "stride").stride())); })
      .def("size", [](const PyLayout& l) { return op1("size", l); }, "number of domain points (§3)")
      .def("cosize", [](const PyLayout& l) { return op1("cosize", l); }, "1 + the largest offset (§3)")
      .def("rank", [](const PyLayout& l) { return from_json(call_json("rank", Json{{"t", tfspec::to_json(l.ptr->shape())}})); })
      .def("depth", [](const PyLayout& l) { return from_json(call_json("depth", Json{{"t", tfspec::to_json(l.ptr->shape())}})); })
      .def("__call__", [](const PyLayout& l, py::args coord) {
             py::object c = coord.size() == 1 ? py::reinterpret_borrow<py::object>(coord[0]) : py::object(coord);
             if (py::isinstance<py::str>(c)) c = from_json(protocol_coord(c.cast<std::string>()));
             return from_json(call_json("eval", Json{{"layout", json_of(l)}, {"coord", to_json(c)}}));
           }, "the offset of an index (colexicographic, D1) or a coordinate (§3)")
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
      .def("__str__", [](const PyLayout& l) { return to_string(*l.ptr); })
      .def("__repr__", [](const PyLayout& l) {
             return std::string(l.ptr->kind() == LayoutKind::Shard ? "ShardLayout" : "Layout") + "('" + to_string(*l.ptr) + "')"; })
      .def("to_json", [](const PyLayout& l) { return plain_py(json_of(l)); }, "the protocol JSON object (spec/PROTOCOL.md)")
      .def("svg", [](const PyLayout& l) { return picture(l); }, "the picture `tfspec draw` makes (SVG text)")
      .def("_repr_svg_", [](const PyLayout& l) { return svg_or_none([&] { return picture(l); }); });
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
      .def_property_readonly("layout", [](const PyShardLayout& s) { return wrap(static_cast<const ShardLayout&>(*s.ptr).layout()); })
      .def_property_readonly("attrs", [](const PyShardLayout& s) {
             py::list out;
             for (const auto& a : static_cast<const ShardLayout&>(*s.ptr).attrs()) out.append(to_string(a));
             return py::tuple(out);
           })
      .def_property_readonly("mesh", [](const PyShardLayout& s) {
             return plain_py(mesh_to_json(static_cast<const ShardLayout&>(*s.ptr).mesh()));
           });
}

}  // namespace

Json protocol_coord(const std::string& text) { return tfspec::to_json(parse_coord(text)); }

void register_layouts(py::module_& m) {
  define_layout(m);
  define_shard_layout(m);
}

}  // namespace tfspec::python
