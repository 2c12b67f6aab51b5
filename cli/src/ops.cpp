// The operation registry and text -> JSON argument conversion.
#include "tfspec/cli/ops.hpp"

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cli {

OpRegistry& OpRegistry::instance() {
  static OpRegistry* r = [] {
    auto* reg = new OpRegistry();
    register_layout_ops(*reg);
    register_shard_ops(*reg);
    register_prove_ops(*reg);
    return reg;
  }();
  return *r;
}

void OpRegistry::add(Op op) { ops_.push_back(std::move(op)); }

const Op* OpRegistry::find_protocol(std::string_view n) const {
  for (const auto& op : ops_)
    if (op.protocol_name() == n) return &op;
  return nullptr;
}

const Op* OpRegistry::find(std::string_view group, std::string_view name) const {
  for (const auto& op : ops_)
    if (op.group == group && op.name == name) return &op;
  return nullptr;
}

static Json tiler_to_json(const Tiler& t) {
  if (t.is_layout()) return to_json(*t.layout);
  Json modes = Json::array();
  for (const auto& m : t.modes) modes.push_back(tiler_to_json(m));
  return Json{{"tiler", modes}};
}

Json arg_from_text(ParamType type, const std::string& text) {
  switch (type) {
    case ParamType::Layout: return to_json(parse_layout(text));
    case ParamType::AnyLayout: return to_json(*parse_any_layout(text));
    case ParamType::Int: {
      IntTuple v = parse_inttuple(text);
      return to_json(IntTuple(require_int(v, "this argument")));
    }
    case ParamType::Coord: return to_json(parse_coord(text));
    case ParamType::IntTuple: return to_json(parse_inttuple(text));
    case ParamType::Tiler: return tiler_to_json(parse_tiler(text));
    case ParamType::Text: return Json(text);
    case ParamType::Json:
      try {
        bool too_deep = false;
        Json j = Json::parse(text, [&too_deep](int depth, Json::parse_event_t, Json&) {
          if (depth > 2 * kMaxDepth + 16) too_deep = true;
          return !too_deep;
        });
        if (too_deep) fail("nesting-too-deep", "§1", "JSON argument nests too deeply");
        return j;
      } catch (const Json::exception& e) {
        fail("json-malformed", "§2", std::string("malformed JSON argument: ") + e.what());
      }
  }
  return Json();
}

Json args_from_text(const Op& op, const std::vector<std::string>& positional) {
  size_t required = 0;
  for (const auto& p : op.params) required += p.optional ? 0 : 1;
  if (positional.size() < required || positional.size() > op.params.size()) {
    std::string sig;
    for (const auto& p : op.params) sig += " " + (p.optional ? "[" + p.name + "]" : p.name);
    fail("usage", "-", "'" + op.name + "' takes" + sig + " (" + std::to_string(positional.size()) + " given)");
  }
  Json args = Json::object();
  for (size_t i = 0; i < positional.size(); ++i) args[op.params[i].name] = arg_from_text(op.params[i].type, positional[i]);
  return args;
}

const Json& require_arg(const Json& args, const std::string& name) {
  if (!args.is_object() || !args.contains(name)) fail("protocol-missing-arg", "-", "missing argument '" + name + "'");
  return args.at(name);
}

Json diag_json(const Diagnostic& d) {
  return Json{{"rule", d.rule}, {"clause", d.clause}, {"message", d.message}, {"path", d.path}};
}

OpResult check_result(const std::vector<Diagnostic>& diags) {
  Json v = Json::array();
  std::string text;
  for (const auto& d : diags) {
    v.push_back(diag_json(d));
    text += "violation: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")") + "\n";
  }
  text += diags.empty() ? "ok" : std::to_string(diags.size()) + " violation(s)";
  return OpResult{Json{{"ok", diags.empty()}, {"violations", v}}, text, diags.empty() ? 0 : 1};
}

}  // namespace tfspec::cli
