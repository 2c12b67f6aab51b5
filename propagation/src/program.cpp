// The program format (spec/PROPAGATION.md "Program format"): parsing, with the JSON path of the
// offending member in every error, and result-shape inference per op.
#include <algorithm>
#include <cstdint>
#include <set>

#include "tfspec/propagation/program.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

struct OpName {
  const char* name;
  OpKind kind;
};
constexpr OpName kOps[] = {{"neg", OpKind::Neg},         {"scale", OpKind::Scale},       {"exp", OpKind::Exp},
                           {"relu", OpKind::Relu},       {"add", OpKind::Add},           {"sub", OpKind::Sub},
                           {"mul", OpKind::Mul},         {"max", OpKind::Max},           {"matmul", OpKind::Matmul},
                           {"reduce", OpKind::Reduce},   {"transpose", OpKind::Transpose}, {"reshape", OpKind::Reshape},
                           {"broadcast_in_dim", OpKind::BroadcastInDim}, {"slice", OpKind::Slice}, {"concat", OpKind::Concat},
                           {"reshard", OpKind::Reshard}};

[[noreturn]] void fail_at(RuleRef r, const std::string& path, const std::string& msg) { fail(r, path + ": " + msg, path); }

// Re-raises a reference error (mesh or layout text) with the program path in front.
template <class F>
auto at(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const SpecError& e) {
    Diagnostic d = e.diagnostic();
    d.message = path + ": " + d.message;
    d.path = path;
    throw SpecError(d);
  }
}

const Json& member(const Json& obj, const char* key, const std::string& path) {
  if (!obj.contains(key)) fail_at(rule::kProgramFormat, path, std::string("missing member \"") + key + "\"");
  return obj[key];
}

// Every integer of the program is read here. nlohmann keeps 2^63..2^64-1 as unsigned, and
// get<int64_t>() would wrap it to a negative number: refused as every reader refuses it (§1,
// reference/src/layout/json.cpp).
int64_t int_at(const Json& j, const std::string& path) {
  if (!j.is_number_integer()) fail_at(rule::kProgramFormat, path, "expected an integer, got " + j.dump(-1, ' ', false, Json::error_handler_t::replace));
  if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    fail_at(rule::kIntLiteralRange, path, "integer " + j.dump() + " does not fit int64");
  return j.get<int64_t>();
}

std::vector<int64_t> ints_at(const Json& j, const std::string& path) {
  if (!j.is_array()) fail_at(rule::kProgramFormat, path, "expected an array of integers");
  std::vector<int64_t> v;
  for (size_t i = 0; i < j.size(); ++i) v.push_back(int_at(j[i], path + "[" + std::to_string(i) + "]"));
  return v;
}

std::string name_at(const Json& j, const std::string& path) {
  if (!j.is_string() || j.get<std::string>().empty()) fail_at(rule::kProgramFormat, path, "expected a value name (a non-empty string)");
  return j.get<std::string>();
}

std::vector<int64_t> shape_at(const Json& j, const std::string& path) {
  auto s = ints_at(j, path);
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] < 1) fail_at(rule::kProgramFormat, path + "[" + std::to_string(i) + "]", "extents are positive, got " + std::to_string(s[i]));
  if (s.size() > 8) fail_at(rule::kProgramFormat, path, "at most 8 dims");
  num_elements(s);  // int64-overflow past 2^63
  return s;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + ")";
}

// A layout annotation: any form read_shard_layout takes, on the program's mesh, valid for the
// value's shape (§7.1.1 size and regroup included). "?" is Dynamic everywhere (nullopt).
std::optional<ShardLayout> layout_at(const Json& j, const std::vector<int64_t>& shape, const Mesh& mesh, const std::string& path) {
  if (j.is_string() && j.get<std::string>() == "?") return std::nullopt;
  ShardLayout sl = at(path, [&] { return read_shard_layout(j, mesh); });
  if (!(sl.mesh() == mesh)) fail_at(rule::kProgramLayout, path, "the layout's mesh " + to_string(sl.mesh()) + " is not the program's mesh " + to_string(mesh));
  ShardCheckOptions o;
  o.tensor_shape = IntTuple::tuple(std::vector<IntTuple>(shape.begin(), shape.end()));
  CheckReport rep = check_shard_layout(sl, o, path);
  if (!rep.violations.empty() || !rep.undecided.empty()) {
    const Diagnostic& d = rep.violations.empty() ? rep.undecided.front() : rep.violations.front();
    fail_at(rule::kProgramLayout, path, "not a valid layout of shape " + shape_text(shape) + ": [" + d.rule + " " + d.clause + "] " + d.message);
  }
  return sl;
}

void check_axis(int64_t a, size_t rank, const std::string& path) {
  if (a < 0 || a >= static_cast<int64_t>(rank))
    fail_at(rule::kProgramOp, path, "dim " + std::to_string(a) + " is outside [0, " + std::to_string(rank) + ")");
}

void check_unique(const std::vector<int64_t>& v, const std::string& path) {
  if (std::set<int64_t>(v.begin(), v.end()).size() != v.size()) fail_at(rule::kProgramOp, path, "dims repeat");
}

}  // namespace

std::string to_string(OpKind k) {
  for (const auto& o : kOps)
    if (o.kind == k) return o.name;
  return "?";
}

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n = checked_mul(n, e);
  return n;
}

namespace {

using Shape = std::vector<int64_t>;

// Each op's result shape from its operands' (spec/PROPAGATION.md, the op table); `bad` reports
// program-shape at the op.
template <class Bad>
Shape matmul_shape(const Shape& a, const Shape& b, Bad bad) {
  if (a.size() < 2 || a.size() != b.size()) bad("operands of equal rank >= 2, got " + shape_text(a) + " and " + shape_text(b));
  size_t r = a.size();
  if (!std::equal(a.begin(), a.end() - 2, b.begin())) bad("batch dims of " + shape_text(a) + " and " + shape_text(b) + " differ");
  if (a[r - 1] != b[r - 2]) bad("contracted dims differ: " + shape_text(a) + " x " + shape_text(b));
  Shape out(a.begin(), a.end() - 1);
  out.push_back(b[r - 1]);
  return out;
}

Shape reduce_shape(const OpNode& op, const Shape& in, const std::string& path) {
  for (size_t i = 0; i < op.axes.size(); ++i) check_axis(op.axes[i], in.size(), path + ".axes[" + std::to_string(i) + "]");
  check_unique(op.axes, path + ".axes");
  Shape out;
  for (size_t d = 0; d < in.size(); ++d)
    if (std::find(op.axes.begin(), op.axes.end(), static_cast<int64_t>(d)) == op.axes.end()) out.push_back(in[d]);
  return out;
}

Shape transpose_shape(const OpNode& op, const Shape& in, const std::string& path) {
  if (op.perm.size() != in.size()) fail_at(rule::kProgramOp, path + ".perm", "a permutation of the " + std::to_string(in.size()) + " dims");
  for (size_t i = 0; i < op.perm.size(); ++i) check_axis(op.perm[i], in.size(), path + ".perm[" + std::to_string(i) + "]");
  check_unique(op.perm, path + ".perm");
  Shape out;
  for (int64_t p : op.perm) out.push_back(in[p]);
  return out;
}

template <class Bad>
Shape broadcast_shape(const OpNode& op, const Shape& in, const std::string& path, Bad bad) {
  if (op.dims.size() != in.size()) fail_at(rule::kProgramOp, path + ".dims", "one result dim per operand dim");
  for (size_t i = 0; i < op.dims.size(); ++i) {
    check_axis(op.dims[i], op.shape.size(), path + ".dims[" + std::to_string(i) + "]");
    if (in[i] != 1 && in[i] != op.shape[op.dims[i]])
      bad("operand dim " + std::to_string(i) + " (" + std::to_string(in[i]) + ") is neither 1 nor result dim " + std::to_string(op.dims[i]) + " (" +
          std::to_string(op.shape[op.dims[i]]) + ")");
  }
  check_unique(op.dims, path + ".dims");
  return op.shape;
}

template <class Bad>
Shape slice_shape(const OpNode& op, const Shape& in, const std::string& path, Bad bad) {
  if (op.start.size() != in.size() || op.limit.size() != in.size()) fail_at(rule::kProgramOp, path, "start and limit have one entry per dim");
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (op.start[d] < 0 || op.start[d] >= op.limit[d] || op.limit[d] > in[d])
      bad("dim " + std::to_string(d) + ": need 0 <= start < limit <= " + std::to_string(in[d]) + ", got [" + std::to_string(op.start[d]) + ", " +
          std::to_string(op.limit[d]) + ")");
    out.push_back(op.limit[d] - op.start[d]);
  }
  return out;
}

template <class Bad>
Shape concat_shape(const OpNode& op, const std::vector<Shape>& in, const std::string& path, Bad bad) {
  check_axis(op.dim, in[0].size(), path + ".dim");
  Shape out = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].size() != in[0].size()) bad("operands of one rank");
    for (size_t d = 0; d < in[0].size(); ++d)
      if (static_cast<int64_t>(d) != op.dim && in[i][d] != in[0][d]) bad("operand " + std::to_string(i) + " differs off the concat dim");
    out[op.dim] = checked_add(out[op.dim], in[i][op.dim]);
  }
  return out;
}

void check_arity(const OpNode& op, size_t n, size_t lo, size_t hi, const std::string& path) {
  if (n < lo || n > hi)
    fail_at(rule::kProgramOp, path + ".operands",
            to_string(op.kind) + " takes " + std::to_string(lo) + (hi == lo ? "" : hi > 64 ? " or more" : " to " + std::to_string(hi)) + " operands, got " +
                std::to_string(n));
}

}  // namespace

std::vector<int64_t> infer_shape(const OpNode& op, const std::vector<std::vector<int64_t>>& in, const std::string& path) {
  auto bad = [&](const std::string& m) { fail_at(rule::kProgramShape, path, to_string(op.kind) + ": " + m); };
  const bool binary = op.kind == OpKind::Add || op.kind == OpKind::Sub || op.kind == OpKind::Mul || op.kind == OpKind::Max || op.kind == OpKind::Matmul;
  if (op.kind == OpKind::Concat) check_arity(op, in.size(), 1, 1000, path);
  else check_arity(op, in.size(), binary ? 2 : 1, binary ? 2 : 1, path);
  switch (op.kind) {
    case OpKind::Neg: case OpKind::Scale: case OpKind::Exp: case OpKind::Relu: case OpKind::Reshard:
      return in[0];
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Max:
      if (in[0] != in[1]) bad("operand shapes " + shape_text(in[0]) + " and " + shape_text(in[1]) + " differ (use broadcast_in_dim)");
      return in[0];
    case OpKind::Matmul: return matmul_shape(in[0], in[1], bad);
    case OpKind::Reduce: return reduce_shape(op, in[0], path);
    case OpKind::Transpose: return transpose_shape(op, in[0], path);
    case OpKind::Reshape:
      if (num_elements(op.shape) != num_elements(in[0])) bad(shape_text(in[0]) + " and " + shape_text(op.shape) + " have different sizes");
      return op.shape;
    case OpKind::BroadcastInDim: return broadcast_shape(op, in[0], path, bad);
    case OpKind::Slice: return slice_shape(op, in[0], path, bad);
    case OpKind::Concat: return concat_shape(op, in, path, bad);
  }
  fail(rule::kInternal, "unknown op kind");
}

Json read_program_json(const std::string& text) {
  // The callback drops every value nested deeper than the limit while parsing, so a deep value is
  // never built (copying or destroying one recurses as deep as it nests).
  bool too_deep = false;
  Json j;
  try {
    j = parse_json_text_cut(text, too_deep);
  } catch (const Json::exception& e) {
    fail_at(rule::kProgramFormat, "$", std::string("the program is not JSON: ") + e.what());
  }
  if (too_deep) fail_at(rule::kNestingTooDeep, "$", too_deep_message("the program"));
  return j;
}

namespace {

void read_inputs(const Json& ij, Program& p) {
  if (!ij.is_object()) fail_at(rule::kProgramFormat, "inputs", "an object {NAME: {shape, layout}}");
  for (const auto& [name, v] : ij.items()) {
    const std::string path = "inputs." + name;
    if (!v.is_object()) fail_at(rule::kProgramFormat, path, "an object {shape, layout}");
    for (const auto& [k, x] : v.items())
      if (k != "shape" && k != "layout") fail_at(rule::kProgramFormat, path + "." + k, "unknown member (expected shape, layout)");
    Input in{name, shape_at(member(v, "shape", path), path + ".shape"), std::nullopt};
    in.layout = layout_at(member(v, "layout", path), in.shape, p.mesh, path + ".layout");
    p.shapes[name] = in.shape;
    p.inputs.push_back(std::move(in));
  }
}

OpKind op_kind_at(const Json& o, const std::string& path) {
  const Json& kj = member(o, "op", path);
  if (!kj.is_string()) fail_at(rule::kProgramFormat, path + ".op", "the op's name as a string");
  const std::string kname = kj.get<std::string>();
  auto it = std::find_if(std::begin(kOps), std::end(kOps), [&](const OpName& n) { return kname == n.name; });
  if (it == std::end(kOps)) fail_at(rule::kProgramOp, path + ".op", "unknown op \"" + kname + "\" (spec/PROPAGATION.md lists the ops)");
  return it->kind;
}

// The op's own attributes (spec/PROPAGATION.md); any other member is program-format.
void read_attributes(const Json& o, OpNode& op, const std::string& path) {
  std::set<std::string> allowed = {"op", "operands", "result"};
  auto need = [&](const char* key) -> const Json& {
    allowed.insert(key);
    if (!o.contains(key)) fail_at(rule::kProgramOp, path, to_string(op.kind) + " needs \"" + key + "\"");
    return o[key];
  };
  switch (op.kind) {
    case OpKind::Scale: op.constant = int_at(need("constant"), path + ".constant"); break;
    case OpKind::Reduce: {
      const Json& r = need("reduction");
      if (!r.is_string() || !is_valid_reduction(r.get<std::string>())) fail_at(rule::kProgramOp, path + ".reduction", "sum, max or min");
      op.reduction = r.get<std::string>();
      op.axes = ints_at(need("axes"), path + ".axes");
      break;
    }
    case OpKind::Transpose: op.perm = ints_at(need("perm"), path + ".perm"); break;
    case OpKind::Reshape: op.shape = shape_at(need("shape"), path + ".shape"); break;
    case OpKind::BroadcastInDim:
      op.shape = shape_at(need("shape"), path + ".shape");
      op.dims = ints_at(need("dims"), path + ".dims");
      break;
    case OpKind::Slice:
      op.start = ints_at(need("start"), path + ".start");
      op.limit = ints_at(need("limit"), path + ".limit");
      break;
    case OpKind::Concat: op.dim = int_at(need("dim"), path + ".dim"); break;
    case OpKind::Reshard: need("layout"); break;
    default: break;
  }
  for (const auto& [k, x] : o.items())
    if (!allowed.count(k)) fail_at(rule::kProgramFormat, path + "." + k, "unknown member for " + to_string(op.kind));
}

void read_op(const Json& o, size_t i, Program& p) {
  const std::string path = "ops[" + std::to_string(i) + "]";
  if (!o.is_object()) fail_at(rule::kProgramFormat, path, "an object {op, operands, result, ...}");
  OpNode op;
  op.origin = static_cast<int64_t>(i);
  op.kind = op_kind_at(o, path);
  read_attributes(o, op, path);
  const Json& ops = member(o, "operands", path);
  if (!ops.is_array()) fail_at(rule::kProgramFormat, path + ".operands", "an array of value names");
  std::vector<std::vector<int64_t>> shapes;
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::string opath = path + ".operands[" + std::to_string(k) + "]";
    std::string n = name_at(ops[k], opath);
    if (!p.shapes.count(n)) fail_at(rule::kProgramName, opath, "\"" + n + "\" is neither an input nor the result of an earlier op");
    op.operands.push_back(n);
    shapes.push_back(p.shapes[n]);
  }
  op.result = name_at(member(o, "result", path), path + ".result");
  if (p.shapes.count(op.result)) fail_at(rule::kProgramName, path + ".result", "\"" + op.result + "\" is already defined (a name is defined once)");
  std::vector<int64_t> rs = infer_shape(op, shapes, path);
  if (op.kind == OpKind::Reshard) {
    op.target = layout_at(o["layout"], rs, p.mesh, path + ".layout");
    if (!op.target) fail_at(rule::kProgramLayout, path + ".layout", "a reshard names its target layout (not \"?\")");
  }
  p.shapes[op.result] = rs;
  p.ops.push_back(std::move(op));
}

}  // namespace

Program parse_program(const Json& j) {
  if (!j.is_object()) fail_at(rule::kProgramFormat, "$", "a program is a JSON object {mesh, inputs, ops, outputs}");
  for (const auto& [k, v] : j.items())
    if (k != "mesh" && k != "inputs" && k != "ops" && k != "outputs" && k != "description")
      fail_at(rule::kProgramFormat, k, "unknown member (expected mesh, inputs, ops, outputs)");
  const Json& mj = member(j, "mesh", "$");
  Mesh mesh = at("mesh", [&] {
    if (mj.is_string()) return parse_mesh(mj.get<std::string>());
    return mesh_from_json(mj);
  });
  Program p{mesh, {}, {}, {}, {}};
  at("mesh", [&] { return p.mesh.size(); });  // static extents (mesh-extent-static)
  read_inputs(member(j, "inputs", "$"), p);
  const Json& oj = member(j, "ops", "$");
  if (!oj.is_array()) fail_at(rule::kProgramFormat, "ops", "an array of ops");
  for (size_t i = 0; i < oj.size(); ++i) read_op(oj[i], i, p);
  const Json& outj = member(j, "outputs", "$");
  if (!outj.is_array()) fail_at(rule::kProgramFormat, "outputs", "an array of value names");
  for (size_t k = 0; k < outj.size(); ++k) {
    const std::string opath = "outputs[" + std::to_string(k) + "]";
    std::string n = name_at(outj[k], opath);
    if (!p.shapes.count(n)) fail_at(rule::kProgramName, opath, "\"" + n + "\" is not a value of the program");
    p.outputs.push_back(n);
  }
  return p;
}

Json op_to_json(const OpNode& op, const Mesh& mesh) {
  Json j{{"op", to_string(op.kind)}, {"operands", op.operands}, {"result", op.result}};
  switch (op.kind) {
    case OpKind::Scale: j["constant"] = op.constant; break;
    case OpKind::Reduce: j["reduction"] = op.reduction; j["axes"] = op.axes; break;
    case OpKind::Transpose: j["perm"] = op.perm; break;
    case OpKind::Reshape: j["shape"] = op.shape; break;
    case OpKind::BroadcastInDim: j["shape"] = op.shape; j["dims"] = op.dims; break;
    case OpKind::Slice: j["start"] = op.start; j["limit"] = op.limit; break;
    case OpKind::Concat: j["dim"] = op.dim; break;
    case OpKind::Reshard: if (op.target) j["layout"] = to_string(*op.target); break;
    default: break;
  }
  (void)mesh;
  if (op.inserted) j["inserted"] = true;
  return j;
}

}  // namespace tfspec::propagation
