// Calling protocol ops from Python: positional and keyword arguments mapped onto the op's
// parameters as the CLI maps its positional ones (text through arg_from_text), then one request
// through serve_line, so that results and refusals are exactly `tfspec serve`'s.
#include "ops.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <optional>

#include "convert.hpp"
#include "layout.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/protocol/wire.hpp"

namespace tfspec::python {
namespace {

const protocol::OpRegistry& registry() { return protocol::OpRegistry::instance(); }

const protocol::Op& find_op(const std::string& name) {
  const protocol::Op* op = registry().find_protocol(name);
  if (!op) throw py::value_error("no tfspec op \"" + name + "\" (tfspec._ops() lists them)");
  return *op;
}

// A Python argument for one parameter: text in the notation the CLI reads, anything else as JSON.
Json arg_json(const protocol::Param& p, py::handle v) {
  if (py::isinstance<py::str>(v)) return protocol::arg_from_text(p.type, v.cast<std::string>());
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
std::optional<py::object> fast_call(std::string name, const py::tuple& args, const py::dict& kwargs) {
  if (!kwargs.empty() || args.empty()) return std::nullopt;
  if (name.rfind("layout.", 0) == 0) name = name.substr(7);
  using Unary = Layout (*)(const Layout&);
  using Binary = Layout (*)(const Layout&, const Tiler&, DomainPolicy);
  static const std::map<std::string, Unary> unary = {{"coalesce", coalesce}, {"filter", filter}, {"right_inverse", right_inverse},
                                                     {"left_inverse", left_inverse}};
  static const std::map<std::string, Binary> binary = {
      {"composition", composition},     {"logical_divide", logical_divide},   {"zipped_divide", zipped_divide},
      {"tiled_divide", tiled_divide},   {"flat_divide", flat_divide},         {"logical_product", logical_product},
      {"zipped_product", zipped_product}, {"tiled_product", tiled_product}, {"flat_product", flat_product}};
  const Layout* a = concrete_plain_arg(args[0]);
  if (!a) return std::nullopt;
  auto result = [](Layout l) { return wrap(std::make_shared<Layout>(std::move(l))); };
  if (auto u = unary.find(name); u != unary.end() && args.size() == 1) return result(u->second(*a));
  if (name == "complement" && args.size() == 1) return result(complement(*a));
  if (name == "complement" && args.size() == 2 && PyLong_Check(args[1].ptr()) && !PyBool_Check(args[1].ptr())) {
    int overflow = 0;
    const long long c = PyLong_AsLongLongAndOverflow(args[1].ptr(), &overflow);
    if (overflow || (c == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return std::nullopt;
    }
    return result(complement(*a, c));
  }
  if (auto b = binary.find(name); b != binary.end() && args.size() == 2)
    if (const Layout* t = concrete_plain_arg(args[1])) return result(b->second(*a, Tiler(*t), DomainPolicy::Strict));
  return std::nullopt;
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
  m.def("_call_json", [](const std::string& name, const std::string& args) {
        return call_json(name, Json::parse(args)).dump(); },
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
