// The operation registry and text -> JSON argument conversion.
#include "tfspec/protocol/ops.hpp"

#include <utility>

#include "tfspec/protocol/wire.hpp"

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::protocol {

OpRegistry& OpRegistry::instance() {
  static OpRegistry r;
  return r;
}

void register_reference_ops(OpRegistry& r) {
  register_layout_ops(r);
  register_smem_ops(r);
  register_linear_ops(r);
  register_shard_ops(r);
  register_shard_import_ops(r);  // owners, from-/to-jax, from-/to-dtensor (issue 33)
  register_propagate_ops(r);
  register_multigpu_ops(r);
}

void OpRegistry::add(Op op) { ops_.push_back(std::move(op)); }

bool same_op_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] == '-' ? '_' : a[i];
    const char y = b[i] == '-' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

const Op* OpRegistry::find_protocol(std::string_view n) const {
  for (const auto& op : ops_)
    if (same_op_name(op.protocol_name(), n)) return &op;
  return nullptr;
}

const Op* OpRegistry::find(std::string_view group, std::string_view name) const {
  for (const auto& op : ops_)
    if (op.group == group && same_op_name(op.name, name)) return &op;
  return nullptr;
}

Op* OpRegistry::find_mutable(std::string_view group, std::string_view name) {
  return const_cast<Op*>(std::as_const(*this).find(group, name));
}

Json arg_from_text(ParamType type, const std::string& text) {
  // A tuple argument may also be written in the protocol's JSON form, `[8,16]` or `[1,[2,3]]`
  // (what a script that speaks the protocol has at hand); the op validates it as it does a request's.
  const bool json_array = !text.empty() && text.front() == '[';
  if (json_array && (type == ParamType::IntTuple || type == ParamType::Coord)) return arg_from_text(ParamType::Json, text);
  switch (type) {
    case ParamType::Layout:  // a linear layout's text is read as one; the op reads its CuTe form (plain_layout_arg)
      return is_linear_text(text) ? linear_to_json(parse_linear_layout(text)) : to_json(parse_layout(text));
    case ParamType::AnyLayout: return to_json(*parse_any_layout(text));
    case ParamType::Int: {
      IntTuple v = parse_inttuple(text);
      if (v.is_sym()) return to_json(v);  // a symbolic extent: the op's symbolic form reads it, the concrete one refuses it (needs-concrete)
      return to_json(IntTuple(require_int(v, "this argument")));
    }
    case ParamType::Coord: return to_json(parse_coord(text));
    case ParamType::IntTuple: return to_json(parse_inttuple(text));
    case ParamType::Tiler:
      if (is_linear_text(text)) {  // X2 (issue 44): a linear tiler is its CuTe form, when that is a plain Layout
        const LinearLayout l = parse_linear_layout(text);
        const LayoutPtr c = to_cute(l);
        if (c->kind() != LayoutKind::Layout)
          fail(rule::kLinearNotCute, "a tiler is a plain Layout or a by-mode tuple; the linear layout " + to_string(l) + " is the swizzled " + to_string(*c) + " as a CuTe layout");
        return tiler_to_json(Tiler(static_cast<const Layout&>(*c)));
      }
      return tiler_to_json(parse_tiler(text));
    case ParamType::Text: return Json(text);
    case ParamType::Json:
      try {
        return parse_json_text(text, "the JSON argument");
      } catch (const Json::exception& e) {
        fail(rule::kJsonMalformed, std::string("malformed JSON argument: ") + e.what());
      }
  }
  return Json();
}

std::string arity_message(const Op& op, size_t given) {
  size_t required = 0;
  std::string names;
  for (const auto& p : op.params) {
    required += p.optional ? 0 : 1;
    names += (names.empty() ? "" : ", ") + (p.optional ? "[" + p.name + "]" : p.name);
  }
  const size_t total = op.params.size();
  std::string count = std::to_string(required);
  if (total == required + 1) count += " or " + std::to_string(total);
  else if (total > required) count += " to " + std::to_string(total);
  std::string msg = "`" + op.name + "` takes " + count + (total == 1 ? " argument" : " arguments");
  if (total > 0) msg += " (" + names + ")";
  return msg + "; " + std::to_string(given) + " given";
}

Json args_from_text(const Op& op, const std::vector<std::string>& positional) {
  size_t required = 0;
  for (const auto& p : op.params) required += p.optional ? 0 : 1;
  if (positional.size() < required || positional.size() > op.params.size())
    fail(rule::kUsage, arity_message(op, positional.size()));
  Json args = Json::object();
  for (size_t i = 0; i < positional.size(); ++i) {
    // "-" stands for an optional argument not given, so a later one can be: `shard check L - gmem`.
    if (op.params[i].optional && positional[i] == "-") continue;
    args[op.params[i].name] = arg_from_text(op.params[i].type, positional[i]);
  }
  return args;
}

const Json& require_arg(const Json& args, const std::string& name) {
  if (!args.is_object() || !args.contains(name)) fail(rule::kProtocolMissingArg, "missing argument '" + name + "'");
  return args.at(name);
}

OpResult check_result(const CheckReport& report) {
  Json v = Json::array(), u = Json::array();
  std::string text;
  for (const auto& d : report.violations) {
    v.push_back(to_json(d));
    text += "violation: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")") + "\n";
  }
  for (const auto& d : report.undecided) {
    u.push_back(to_json(d));
    text += "undecided: [" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")") + "\n";
  }
  const char* verdict = !report.violations.empty() ? "violation" : !report.undecided.empty() ? "undecided" : "ok";
  if (!report.violations.empty()) text += std::to_string(report.violations.size()) + " violation(s)";
  if (!report.undecided.empty()) text += std::string(report.violations.empty() ? "" : ", ") + std::to_string(report.undecided.size()) + " undecided (not a violation: the reference could not decide within its limits)";
  if (report.ok()) text += "ok";
  int code = !report.violations.empty() ? 1 : !report.undecided.empty() ? 2 : 0;
  return OpResult{Json{{"verdict", verdict}, {"ok", report.ok()}, {"violations", v}, {"undecided", u}}, text, code};
}

OpResult rules_result(std::span<const std::string_view> clauses, const std::vector<const RuleId*>& checked) {
  Json j = Json::array();
  std::string text;
  for (const RuleId& r : catalogue()) {
    bool listed = false;
    for (auto c : clauses) listed = listed || r.clause.starts_with(c);
    if (!listed) continue;
    bool is_checked = false;
    for (const RuleId* c : checked) is_checked = is_checked || c->id == r.id;
    j.push_back(Json{{"id", r.id}, {"clause", r.clause}, {"kind", to_string(r.kind)}, {"summary", r.summary}, {"checked", is_checked}});
    text += std::string(r.id) + " " + std::string(r.clause) + " " + std::string(to_string(r.kind)) + (is_checked ? " checked" : "") + ": " + std::string(r.summary) + "\n";
  }
  return OpResult{j, text};
}

}  // namespace tfspec::protocol
