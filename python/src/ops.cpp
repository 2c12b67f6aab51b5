// Calling protocol ops from Python: positional and keyword arguments mapped onto the op's
// parameters as the CLI maps its positional ones (text through arg_from_text), then one request
// through serve_line, so that results and refusals are exactly `tfspec serve`'s.
#include "ops.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "convert.hpp"
#include "fast_algebra.hpp"
#include "layout.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::python {
namespace {

const protocol::OpRegistry& registry() { return protocol::OpRegistry::instance(); }

const protocol::Op& find_op(const std::string& name) {
  const protocol::Op* op = registry().find_protocol(name);
  if (!op) throw py::value_error("no tfspec op \"" + name + "\" (tfspec._ops() lists them)");
  return *op;
}

// A Python argument for one parameter: text in the notation the CLI reads, anything else as JSON.
// A shape where a layout is expected (`size((4, 8))`, `blocked_product(L, (2, 2))`, as pycute and
// CuTe DSL users write) is the compact layout of that shape, exactly what `Layout(shape)` makes.
Json arg_json(const protocol::Param& p, py::handle v) {
  if (py::isinstance<py::str>(v)) return protocol::arg_from_text(p.type, v.cast<std::string>());
  const bool layout_param = p.type == protocol::ParamType::Layout || p.type == protocol::ParamType::AnyLayout;
  if (layout_param && !py::isinstance<py::bool_>(v) && (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v) || py::isinstance<py::int_>(v)))
    return to_json(py::type::of<PyLayout>()(v));
  return to_json(v);
}

bool has_symbolic_form(const std::string& name) {
  const auto names = protocol::symbolic_op_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `assume` is no parameter of the layout ops (the CLI takes it as --assume), but their symbolic
// forms read it: a keyword argument of the ops that have one.
Json args_json(const protocol::Op& op, const py::tuple& args, const py::dict& kwargs) {
  if (args.size() > op.params.size()) throw py::type_error(protocol::arity_message(op, args.size()));
  Json out = Json::object();
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].is_none()) out[op.params[i].name] = arg_json(op.params[i], args[i]);
  for (auto item : kwargs) {
    const std::string key = py::str(item.first).cast<std::string>();
    const protocol::Param* param = nullptr;
    for (const auto& p : op.params)
      if (protocol::same_op_name(p.name, key)) param = &p;
    if (!param && key == "assume" && op.group == "layout" && has_symbolic_form(op.name)) {  // spec/PROTOCOL.md "Symbolic layouts"
      out["assume"] = to_json(item.second);
      continue;
    }
    if (!param) throw py::type_error(op.protocol_name() + "() got an unexpected keyword argument '" + key + "'");
    if (out.contains(param->name)) throw py::type_error(op.protocol_name() + "() got multiple values for argument '" + key + "'");
    if (!item.second.is_none()) out[param->name] = arg_json(*param, item.second);
  }
  return out;
}

// The fast path (issue 31): the algebra's hot ops on concrete plain tfspec.Layout arguments call
// the reference's C++ functions directly: the functions the registry's ops call for exactly these
// arguments (protocol/src/ops_layout.cpp: a Layout tiler, the strict domain, no profile), without
// the protocol's JSON. Anything else (keywords, text, symbolic or composed layouts, by-mode
// tilers, integers) takes the op. tests/test_module.py compares both paths on random layouts.
using Unary = Layout (*)(const Layout&);
using Binary = Layout (*)(const Layout&, const Tiler&, DomainPolicy);
struct FastOp {
  std::string name;  // the protocol name without the group ("logical_divide")
  Unary unary = nullptr;
  Binary binary = nullptr;  // neither: complement
  PyObject* fallback = nullptr;  // the op's Python function (tfspec._api), for every other call
  std::string doc;
  PyMethodDef def{};
  PyModuleDef module{};  // the function's __self__: a module, so it prints and helps as a built-in function
};

const std::map<std::string, FastOp>& fast_ops() {
  static const std::map<std::string, FastOp> ops = [] {
    std::map<std::string, FastOp> out;
    auto op = [](const char* name, Unary u, Binary b) {
      FastOp o;
      o.name = name;
      o.unary = u;
      o.binary = b;
      return o;
    };
    const std::pair<const char*, Unary> unary[] = {{"coalesce", coalesce}, {"filter", filter}, {"right_inverse", right_inverse},
                                                   {"left_inverse", left_inverse}};
    const std::pair<const char*, Binary> binary[] = {
        {"composition", composition},       {"logical_divide", logical_divide}, {"zipped_divide", zipped_divide},
        {"tiled_divide", tiled_divide},     {"flat_divide", flat_divide},       {"logical_product", logical_product},
        {"zipped_product", zipped_product}, {"tiled_product", tiled_product},   {"flat_product", flat_product}};
    for (const auto& [n, f] : unary) out[n] = op(n, f, nullptr);
    for (const auto& [n, f] : binary) out[n] = op(n, nullptr, f);
    out["complement"] = op("complement", nullptr, nullptr);
    return out;
  }();
  return ops;
}

// The op's answer through the reference's C++, or null (no exception set) when the arguments
// are not the fast path's.
PyObject* fast_result(const FastOp& op, PyObject* const* args, Py_ssize_t n) {
  if (n == 0) return nullptr;
  // coalesce and complement: the optimized flat functions (fast_algebra.hpp), which decline (then
  // the reference below answers, or raises its SpecError) wherever the reference would refuse.
  const bool is_coalesce = op.unary == static_cast<Unary>(coalesce), is_complement = !op.unary && !op.binary;
  if ((is_coalesce && n == 1) || (is_complement && n <= 2)) {
    std::optional<int64_t> cotarget;
    if (n == 2 && PyLong_Check(args[1]) && !PyBool_Check(args[1])) {
      int overflow = 0;
      const long long c = PyLong_AsLongLongAndOverflow(args[1], &overflow);
      if (!overflow && !(c == -1 && PyErr_Occurred())) cotarget = c;
      PyErr_Clear();
    }
    fast::Flat f;
    if ((n == 1 || cotarget) && concrete_flat_arg(args[0], f)) {
      if (is_coalesce) {
        fast::Flat r;
        if (fast::coalesce_into(f, r)) return wrap(r).release().ptr();
      } else if (const auto c = n == 1 ? fast::cosize(f) : cotarget) {
        if (const auto r = fast::complement(f, *c)) return wrap(*r).release().ptr();
      }
    }
  }
  const Layout* a = concrete_plain_arg(args[0]);
  if (!a) return nullptr;
  auto result = [](Layout l) { return wrap(std::make_shared<Layout>(std::move(l))).release().ptr(); };
  if (op.unary) return n == 1 ? result(op.unary(*a)) : nullptr;
  if (op.binary) {
    const Layout* t = n == 2 ? concrete_plain_arg(args[1]) : nullptr;
    return t ? result(op.binary(*a, Tiler(*t), DomainPolicy::Strict)) : nullptr;
  }
  if (n == 1) return result(complement(*a));
  if (n != 2 || !PyLong_Check(args[1]) || PyBool_Check(args[1])) return nullptr;
  int overflow = 0;
  const long long c = PyLong_AsLongLongAndOverflow(args[1], &overflow);
  if (overflow || (c == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return nullptr;
  }
  return result(complement(*a, c));
}

// A fast op as CPython calls it (METH_FASTCALL | METH_KEYWORDS: no argument tuple is built).
PyObject* fast_entry(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const FastOp* op = *static_cast<const FastOp**>(PyModule_GetState(self));
  if (!kwnames) {
    try {
      if (PyObject* r = fast_result(*op, args, nargs)) return r;
    } catch (py::error_already_set& e) {
      e.restore();
      return nullptr;
    } catch (const SpecError& e) {
      try {
        raise_spec_error(e);
      } catch (py::error_already_set& set) {
        set.restore();
      }
      return nullptr;
    } catch (const py::builtin_exception& e) {  // py::type_error and friends: their own Python type
      e.set_error();
      return nullptr;
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return nullptr;
    }
  }
  return PyObject_Vectorcall(op->fallback, args, static_cast<size_t>(nargs), kwnames);
}

std::optional<py::object> fast_call(std::string name, const py::tuple& args, const py::dict& kwargs) {
  if (!kwargs.empty() || args.empty()) return std::nullopt;
  if (name.rfind("layout.", 0) == 0) name = name.substr(7);
  const auto op = fast_ops().find(name);
  if (op == fast_ops().end()) return std::nullopt;
  std::vector<PyObject*> a;
  for (py::handle x : args) a.push_back(x.ptr());
  if (PyObject* r = fast_result(op->second, a.data(), static_cast<Py_ssize_t>(a.size()))) return py::reinterpret_steal<py::object>(r);
  return std::nullopt;
}

// tfspec.<op> for a fast op: a builtin function over fast_entry whose other calls go to
// `fallback`; `doc` starts with its text signature ("name(a, tiler, domain=None)\n--\n\n").
py::object make_fast_op(const std::string& name, py::object fallback, const std::string& doc) {
  const auto it = fast_ops().find(name);
  if (it == fast_ops().end()) throw py::value_error("no fast op \"" + name + "\"");
  auto* op = new FastOp(it->second);  // lives as long as the function: the process (never freed)
  op->fallback = fallback.release().ptr();
  op->doc = doc;
  op->def = PyMethodDef{op->name.c_str(), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fast_entry)),
                        METH_FASTCALL | METH_KEYWORDS, op->doc.c_str()};
  op->module = PyModuleDef{PyModuleDef_HEAD_INIT, "tfspec", nullptr, sizeof(FastOp*), nullptr, nullptr, nullptr, nullptr, nullptr};
  py::object self = py::reinterpret_steal<py::object>(PyModule_Create(&op->module));
  if (!self) throw py::error_already_set();
  *static_cast<FastOp**>(PyModule_GetState(self.ptr())) = op;
  PyObject* fn = PyCFunction_NewEx(&op->def, self.ptr(), py::str("tfspec").ptr());
  if (!fn) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(fn);
}

}  // namespace

Json call_json(const std::string& name, const Json& args) {
  const Json request{{"seq", 0}, {"op", name}, {"args", args}};
  const std::string line = protocol::dump_line(request);
  Json reply;
  {
    py::gil_scoped_release unlocked;  // a prove call may take seconds: let other threads run
    bool stop = false;
    reply = protocol::serve_line(registry(), line, stop);
  }
  if (reply.contains("error")) raise_spec_error(reply["error"]);
  if (!reply.contains("result")) throw py::value_error("op " + name + " was not run: " + reply.dump());
  return reply["result"];
}

py::object call(const std::string& name, const py::tuple& args, const py::dict& kwargs) {
  if (auto fast = fast_call(name, args, kwargs)) return *fast;
  return from_json(call_json(name, args_json(find_op(name), args, kwargs)));
}

void register_ops(py::module_& m) {
  m.def("_call", [](const std::string& name, py::args args, py::kwargs kwargs) { return call(name, args, kwargs); },
        "Runs protocol op NAME (spec/PROTOCOL.md) with positional or keyword arguments: text in the "
        "notation, Layout objects, or JSON-like values; returns its result as Python values.");
  m.def("_fast_op", &make_fast_op, py::arg("name"), py::arg("fallback"), py::arg("doc"),
        "tfspec.NAME as a compiled function: concrete plain Layout arguments run the reference's C++ directly, any other "
        "call goes to FALLBACK (the op's Python function); DOC begins with its text signature.");
  m.def("_fast_ops", [] {
    py::list out;
    for (const auto& [name, op] : fast_ops()) out.append(py::str(name));
    return out;
  }, "The names of the ops _fast_op compiles.");
  m.def("_refuse", [](const std::string& id, const std::string& message) {
        const RuleId* r = find_rule(id);
        if (!r) fail(rule::kInternal, "no rule '" + id + "' in the catalogue (a tfspec bug)");
        fail(*r, message);
      }, py::arg("rule"), py::arg("message"),
        "Raises the tfspec.SpecError of rule RULE (its clause and kind from the catalogue, rules.def) with MESSAGE: a "
        "refusal the Python layer makes before any op runs.");
  m.def("_call_json", [](const std::string& name, const std::string& args) {
        return call_json(name, parse_json_text(args, "the arguments")).dump(); },
        "Runs op NAME with JSON arguments (text) exactly as `tfspec serve` does; returns the result as JSON text.");
  m.def("_ops", [] {
    py::list out;
    for (const auto& op : registry().ops()) {
      py::list params;
      for (const auto& p : op.params) params.append(py::make_tuple(p.name, p.optional, p.help));
      out.append(py::make_tuple(op.protocol_name(), op.group, op.name, op.clause, op.summary, params));
    }
    return out;
  }, "Every op: (protocol name, group, name, clause, summary, [(parameter, optional, help)...]).");
  m.def("to_json", [](py::handle v) { return to_json(v).dump(); },
        "The protocol JSON text of a value (a Layout, a pycute layout, tuples, dicts, ...).");
}

}  // namespace tfspec::python
