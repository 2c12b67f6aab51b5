// Calling protocol ops from Python: positional and keyword arguments mapped onto the op's
// parameters as the CLI maps its positional ones (text through arg_from_text), then one request
// through serve_line, so that results and refusals are exactly `tfspec serve`'s.
#include "ops.hpp"

#include <pybind11/stl.h>

#include <algorithm>

#include "convert.hpp"
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
