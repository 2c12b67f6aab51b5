// Execution on integer tensors (spec/PROPAGATION.md "--check"): every op globally, and per mesh
// instance on the buffers of the reference's reshard semantics (distribute / partition,
// reshard, assemble). exp runs as x^3: strictly increasing and non-linear, like exp.
#include <algorithm>
#include <random>

#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

int64_t ravel(const std::vector<int64_t>& c, const std::vector<int64_t>& shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + c[d];
  return i;
}

int64_t combine(const std::string& r, int64_t a, int64_t b) {
  if (r == "max") return std::max(a, b);
  if (r == "min") return std::min(a, b);
  return checked_add(a, b);
}

// The per-instance form (D4, rmem): 0 on Split dims, C order over the local shape, so an
// instance's buffer is its local tensor in row-major order.
ShardLayout materialized(const Sharding& s, const std::vector<int64_t>& shape, const Mesh& mesh) {
  ShardLayout sl = layout_of(s, shape, mesh);
  return ShardLayout(std::make_shared<Layout>(sl.shape(), per_instance_strides(sl)), sl.attrs(), mesh);
}

}  // namespace

namespace {

void matmul(const std::vector<Tensor>& in, Tensor& out) {
  const auto& rs = out.shape;
  const size_t r = rs.size();
  const int64_t m = rs[r - 2], n = rs[r - 1], k = in[0].shape[r - 1];
  const int64_t batch = num_elements(std::vector<int64_t>(rs.begin(), rs.end() - 2));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t q = 0; q < k; ++q) acc = checked_add(acc, checked_mul(in[0].data[(b * m + i) * k + q], in[1].data[(b * k + q) * n + j]));
        out.data[(b * m + i) * n + j] = acc;
      }
}

void reduce(const OpNode& op, const Tensor& in, Tensor& out) {
  std::vector<bool> seen(out.data.size(), false);
  for (size_t i = 0; i < in.data.size(); ++i) {
    auto c = unravel(static_cast<int64_t>(i), in.shape);
    std::vector<int64_t> oc;
    for (size_t d = 0; d < c.size(); ++d)
      if (std::find(op.axes.begin(), op.axes.end(), static_cast<int64_t>(d)) == op.axes.end()) oc.push_back(c[d]);
    const auto o = static_cast<size_t>(ravel(oc, out.shape));
    out.data[o] = seen[o] ? combine(op.reduction, out.data[o], in.data[i]) : in.data[i];
    seen[o] = true;
  }
}

// Ops that move elements: each result element is one operand element; `source` maps the result
// coordinate to (operand, operand coordinate).
template <class Source>
void move_elements(const std::vector<Tensor>& in, Tensor& out, Source source) {
  for (size_t i = 0; i < out.data.size(); ++i) {
    auto [k, c] = source(unravel(static_cast<int64_t>(i), out.shape));
    out.data[i] = in[k].data[ravel(c, in[k].shape)];
  }
}

void move_op(const OpNode& op, const std::vector<Tensor>& in, Tensor& out) {
  using Coord = std::vector<int64_t>;
  switch (op.kind) {
    case OpKind::Transpose:
      return move_elements(in, out, [&](const Coord& c) {
        Coord ic(c.size());
        for (size_t d = 0; d < c.size(); ++d) ic[op.perm[d]] = c[d];
        return std::pair{size_t{0}, ic};
      });
    case OpKind::BroadcastInDim:
      return move_elements(in, out, [&](const Coord& c) {
        Coord ic(in[0].shape.size());
        for (size_t d = 0; d < ic.size(); ++d) ic[d] = in[0].shape[d] == 1 ? 0 : c[op.dims[d]];
        return std::pair{size_t{0}, ic};
      });
    case OpKind::Slice:
      return move_elements(in, out, [&](Coord c) {
        for (size_t d = 0; d < c.size(); ++d) c[d] += op.start[d];
        return std::pair{size_t{0}, c};
      });
    case OpKind::Concat:
      return move_elements(in, out, [&](Coord c) {
        size_t k = 0;
        while (c[op.dim] >= in[k].shape[op.dim]) c[op.dim] -= in[k++].shape[op.dim];
        return std::pair{k, c};
      });
    default: fail(rule::kInternal, "not an element-moving op: " + to_string(op.kind));
  }
}

}  // namespace

Tensor eval_op(const OpNode& op, const std::vector<Tensor>& in, const std::vector<int64_t>& rs) {
  Tensor out{rs, std::vector<int64_t>(static_cast<size_t>(num_elements(rs)), 0)};
  const size_t n = out.data.size();
  auto unary = [&](auto f) {
    for (size_t i = 0; i < n; ++i) out.data[i] = f(in[0].data[i]);
  };
  auto binary = [&](auto f) {
    for (size_t i = 0; i < n; ++i) out.data[i] = f(in[0].data[i], in[1].data[i]);
  };
  switch (op.kind) {
    case OpKind::Neg: unary([](int64_t x) { return checked_sub(0, x); }); break;
    case OpKind::Scale: unary([&](int64_t x) { return checked_mul(op.constant, x); }); break;
    case OpKind::Exp: unary([](int64_t x) { return checked_mul(checked_mul(x, x), x); }); break;
    case OpKind::Relu: unary([](int64_t x) { return std::max<int64_t>(x, 0); }); break;
    case OpKind::Add: binary([](int64_t a, int64_t b) { return checked_add(a, b); }); break;
    case OpKind::Sub: binary([](int64_t a, int64_t b) { return checked_sub(a, b); }); break;
    case OpKind::Mul: binary([](int64_t a, int64_t b) { return checked_mul(a, b); }); break;
    case OpKind::Max: binary([](int64_t a, int64_t b) { return std::max(a, b); }); break;
    case OpKind::Reshard: case OpKind::Reshape: out.data = in[0].data; break;
    case OpKind::Matmul: matmul(in, out); break;
    case OpKind::Reduce: reduce(op, in[0], out); break;
    case OpKind::Transpose: case OpKind::BroadcastInDim: case OpKind::Slice: case OpKind::Concat: move_op(op, in, out); break;
  }
  return out;
}

CheckResult check_program(const Propagation& r, uint64_t seed) {
  if (!r.ok()) fail(rule::kUsage, "--check needs a propagation without conflicts (" + std::to_string(r.conflicts.size()) + " found)");
  const Program& p = r.program;
  const Mesh& mesh = p.mesh;
  std::vector<int64_t> extents;
  for (int a = 0; a < mesh.rank(); ++a) extents.push_back(mesh.extent(a));
  const auto coords = row_major_coords(extents);
  std::mt19937_64 rng(seed);
  auto draw = [&] { return static_cast<int64_t>(rng() % 7) - 3; };

  std::map<std::string, Tensor> global;
  std::map<std::string, Engines> local;
  std::map<std::string, ShardLayout> layouts;
  for (const auto& [name, s] : r.shardings) layouts.emplace(name, materialized(s, p.shapes.at(name), mesh));
  for (const auto& in : p.inputs) {
    Tensor t{in.shape, {}};
    for (int64_t i = 0; i < num_elements(in.shape); ++i) t.data.push_back(draw());
    local.emplace(in.name, partition(t, layouts.at(in.name), Storage::Rmem, draw));
    global.emplace(in.name, std::move(t));
  }
  for (const auto& op : p.ops) {
    std::vector<Tensor> args;
    for (const auto& o : op.operands) args.push_back(global.at(o));
    const auto& rs = p.shapes.at(op.result);
    global[op.result] = eval_op(op, args, rs);
    const ShardLayout& dst = layouts.at(op.result);
    if (op.kind == OpKind::Reshard) {  // the reference's reshard: distribute(assemble(...))
      local.insert_or_assign(op.result, reshard(local.at(op.operands[0]), layouts.at(op.operands[0]), dst, Storage::Rmem, rs));
      continue;
    }
    // Shard-local: the same op with its attributes restated for the local shapes.
    const auto lrs = local_shape_of(r.shardings.at(op.result), rs, mesh);
    OpNode lop = op;
    lop.shape = lrs;
    if (op.kind == OpKind::Slice)
      for (size_t d = 0; d < lrs.size(); ++d) lop.limit[d] = op.start[d] + lrs[d];
    Engines out{Storage::Rmem, {}};
    for (const auto& m : coords) {
      const int64_t e = engine_of(mesh, m, Storage::Rmem);
      std::vector<Tensor> largs;
      for (const auto& o : op.operands) largs.push_back({local_shape_of(r.shardings.at(o), p.shapes.at(o), mesh), local.at(o).buffers.at(e)});
      out.buffers[e] = eval_op(lop, largs, lrs).data;
    }
    local.insert_or_assign(op.result, std::move(out));
  }
  CheckResult res;
  for (const auto& o : p.outputs) {
    const auto& shape = p.shapes.at(o);
    Tensor got;
    try {
      got = assemble(local.at(o), layouts.at(o), shape);
    } catch (const SpecError& e) {
      if (e.rule() != rule::kReplicaMismatch.id) throw;
      return {false, o, {}, 0, 0, "output " + o + ": " + e.what(), std::string(rule::kPropagationCheckMismatch.id)};
    }
    const Tensor& want = global.at(o);
    for (size_t i = 0; i < want.data.size(); ++i)
      if (want.data[i] != got.data[i]) return {false, o, unravel(static_cast<int64_t>(i), shape), want.data[i], got.data[i], "", std::string(rule::kPropagationCheckMismatch.id)};
  }
  return res;
}

}  // namespace tfspec::propagation
