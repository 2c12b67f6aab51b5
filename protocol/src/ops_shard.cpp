// Shard-model ops (§5-§7) for `tfspec shard` and `tfspec serve` (protocol names `shard.NAME`).
// A shard layout argument is text (the sugar `(2 @ m.x, 12 @ m.y)` with `on MESH` or the mesh
// argument, or `shard(LAYOUT; ATTRS; MESH)`) or JSON ({"kind":"shard", ...}); spec/SHARD.md.
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/shard_args.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::protocol {
namespace {

using P = ParamType;

// An optional text argument; "-" on the command line means "not given".
std::optional<std::string> opt_text(const Json& a, const char* name) {
  if (!a.contains(name) || a[name].is_null()) return std::nullopt;
  if (!a[name].is_string()) return a[name].dump();
  std::string s = a[name].get<std::string>();
  if (s == "-" || s.empty()) return std::nullopt;
  return s;
}

std::optional<Mesh> opt_mesh(const Json& a) {
  if (!a.contains("mesh") || a["mesh"].is_null()) return std::nullopt;
  if (a["mesh"].is_object()) return mesh_from_json(a["mesh"]);
  if (auto t = opt_text(a, "mesh")) return parse_mesh(*t);
  return std::nullopt;
}

ShardLayout SL(const Json& a, const char* name = "layout") { return read_shard_layout(require_arg(a, name), opt_mesh(a)); }
// A shard layout that passes the analysis-stage rules (operations fail closed on invalid input).
ShardLayout valid_SL(const Json& a) {
  ShardLayout sl = SL(a);
  validate_shard_layout(sl);
  return sl;
}

std::optional<Storage> opt_storage(const Json& a, const char* name) {
  if (auto t = opt_text(a, name)) return parse_storage(*t);
  return std::nullopt;
}
Storage storage_arg(const Json& a, const char* name) {
  auto s = opt_storage(a, name);
  if (!s) fail(rule::kProtocolMissingArg, std::string("missing argument '") + name + "'");
  return *s;
}

IntTuple tuple_arg(const Json& a, const char* name) {
  const Json& j = require_arg(a, name);
  if (j.is_string()) return parse_inttuple(j.get<std::string>());
  return inttuple_from_json(j);
}
std::vector<int64_t> ints(const IntTuple& t, const char* what) {
  std::vector<int64_t> v;
  for (const auto& x : flat_leaves(t)) v.push_back(require_int(x, what));
  return v;
}
std::optional<IntTuple> opt_tuple(const Json& a, const char* name) {
  if (!a.contains(name) || a[name].is_null() || (a[name].is_string() && (a[name] == "-" || a[name] == ""))) return std::nullopt;
  return tuple_arg(a, name);
}

Tensor tensor_arg(const Json& a, const std::vector<int64_t>& shape) {
  Tensor t{shape, {}};
  if (auto d = opt_tuple(a, "data")) {
    t.data = ints(*d, "data");
  } else {  // default data: 0, 1, 2, ... in row-major order
    int64_t n = 1;
    for (int64_t e : shape) n = checked_mul(n, e);
    if (n > (int64_t{1} << 24)) fail(rule::kResourceLimit, "default data for more than 2^24 elements");
    for (int64_t i = 0; i < n; ++i) t.data.push_back(i);
  }
  return t;
}

OpResult shard_result(const ShardLayout& sl) { return {shard_to_json(sl), to_string(sl)}; }

// Materializes un-materialized strides (§7.1.2) as a Reshard from `from` to `to` would (D4).
ShardLayout typed(const ShardLayout& sl, const std::vector<int64_t>& shape, Storage from, Storage to) {
  std::vector<IntTuple> s(shape.begin(), shape.end());
  TensorType out = reshard_typeinfer(TensorType{IntTuple::tuple(s), nullptr, from}, sl, to);
  return static_cast<const ShardLayout&>(*out.layout);
}

OpResult check_op(const Json& a) {
  ShardCheckArgs c = read_shard_check_args(a);
  OpResult r = check_result(check_shard_layout(c.layout, c.options, "layout"));
  r.json["layout"] = shard_to_json(c.layout);
  return r;
}

}  // namespace

ShardCheckArgs read_shard_check_args(const Json& a) {
  ShardCheckArgs c{SL(a), {}};
  if (auto st = opt_text(a, "stage")) {
    if (*st != "analysis" && *st != "final") fail(rule::kUsage, "stage is 'analysis' or 'final'");
    c.options.final_stage = *st == "final";
  }
  c.options.storage = opt_storage(a, "storage");
  c.options.tensor_shape = opt_tuple(a, "shape");
  return c;
}

AssembleArgs read_assemble_args(const Json& a) {
  return {engines_from_json(require_arg(a, "engines")), SL(a), ints(tuple_arg(a, "shape"), "logical extent")};
}

namespace {

// The parameters most shard ops share.
struct ShardParams {
  Param layout, mesh, shape;
};
ShardParams shard_params() {
  return {{"layout", P::Text, false, "shard layout: sugar `(N @ m.a, ...)` [where ...] [on MESH], shard(LAYOUT; ATTRS; MESH), or JSON"},
          {"mesh", P::Text, true, "mesh text `[TOPO*TOPO|]x=2,y=4[|layout=L]` for sugar without `on` ('-' = none)"},
          {"shape", P::IntTuple, false, "logical TensorType.shape"}};
}

// §7: a shard layout: its check, canonical form, local shape, views and typeinfer.
std::vector<Op> shard_layout_ops() {
  const auto [layout, mesh, shape] = shard_params();
  return {
    {"shard", "check", "§7", "all rule violations of a shard layout (stage analysis|final, storage, logical shape optional)",
           {layout, {"stage", P::Text, true, "analysis (default) | final"}, {"storage", P::Text, true, "rmem | smem | gmem ('-' = unknown)"},
            {"shape", P::IntTuple, true, "logical shape ('-' = unknown)"}, mesh},
           check_op},
    {"shard", "canon", "§7.1.1", "canonical ShardLayout of sugar (S None) or of a verbose form (strides kept)", {layout, mesh},
           [](const Json& a) {
             return shard_result(valid_SL(a));
           }},
    {"shard", "local-shape", "§7.1.1", "local_shape(sl): G[k] / mesh extent on Split dims", {layout, mesh}, [](const Json& a) {
             IntTuple l = local_shape(valid_SL(a));
             return OpResult{to_json(l), to_string(l)};
           }},
    {"shard", "dim-view", "§7.5", "per-layout-dim view of the attrs (D10): S(k) on Split-bound dims, B elsewhere", {layout, mesh},
           [](const Json& a) {
             Json j = Json::array();
             std::string text;
             for (const auto& attr : layout_dim_view(valid_SL(a))) {
               j.push_back(to_string(attr));
               text += (text.empty() ? "" : ",") + to_string(attr);
             }
             return OpResult{j, "(" + text + ")"};
           }},
    {"shard", "regroup", "§8", "flat layout dims each logical dim regroups into (D2)", {{"shape", P::IntTuple, false, ""}, {"layout_shape", P::IntTuple, false, ""}},
           [](const Json& a) {
             auto runs = regroup(tuple_arg(a, "shape"), tuple_arg(a, "layout_shape"));
             Json j = runs;
             std::string text;
             for (const auto& run : runs) {
               std::vector<IntTuple> v(run.begin(), run.end());
               text += (text.empty() ? "" : ",") + to_string(IntTuple::tuple(v));
             }
             return OpResult{j, "(" + text + ")"};
           }},
    {"shard", "typeinfer", "§7.4", "Reshard typeinfer: shape kept, strides materialized by the direction rule (D4)",
           {layout, shape, {"src_storage", P::Text, false, ""}, {"dst_storage", P::Text, false, ""}, mesh}, [](const Json& a) {
             IntTuple s = tuple_arg(a, "shape");
             Storage src = storage_arg(a, "src_storage"), dst = storage_arg(a, "dst_storage");
             TensorType out = reshard_typeinfer(TensorType{s, nullptr, src}, SL(a), dst);
             const auto& sl = static_cast<const ShardLayout&>(*out.layout);
             return OpResult{Json{{"shape", to_json(out.shape)}, {"storage", to_string(out.storage)}, {"layout", shard_to_json(sl)},
                                  {"local_shape", to_json(local_shape(sl))}},
                             "shape " + to_string(out.shape) + " storage " + to_string(out.storage) + "\n" + to_string(sl)};
           }},
    {"shard", "physical", "§7.1.2", "(engine, offset) of a mesh instance's local coordinate (D3)",
           {layout, {"storage", P::Text, false, ""}, {"mesh_coord", P::IntTuple, false, ""}, {"local", P::IntTuple, false, ""}, mesh}, [](const Json& a) {
             PhysicalElement pe = physical_element(valid_SL(a), storage_arg(a, "storage"), ints(tuple_arg(a, "mesh_coord"), "mesh coordinate"),
                                                   ints(tuple_arg(a, "local"), "local coordinate"));
             return OpResult{Json{{"engine", pe.engine}, {"offset", pe.offset}},
                             "engine " + std::to_string(pe.engine) + " offset " + std::to_string(pe.offset)};
           }},
  };
}

// §7: data on the engines: distribute, assemble, reshard.
std::vector<Op> shard_data_ops() {
  const auto [layout, mesh, shape] = shard_params();
  return {
    {"shard", "distribute", "§7", "engines and buffers of a logical tensor (data default 0,1,2,...)",
           {layout, shape, {"storage", P::Text, false, ""}, {"data", P::IntTuple, true, "flat row-major data ('-' = 0,1,2,...)"}, mesh},
           [](const Json& a) {
             auto s = ints(tuple_arg(a, "shape"), "logical extent");
             Storage st = storage_arg(a, "storage");
             Engines e = distribute(tensor_arg(a, s), SL(a), st);
             return OpResult{engines_json(e), engines_text(e)};
           }},
    {"shard", "assemble", "§7", "the logical tensor from engines (replicas must agree, Partial reduced)",
           {layout, shape, {"engines", P::Json, false, ""}, mesh}, [](const Json& a) {
             AssembleArgs in = read_assemble_args(a);
             Tensor t = assemble(in.engines, in.layout, in.shape);
             std::vector<IntTuple> v(t.data.begin(), t.data.end());
             return OpResult{Json{{"shape", ints_json(t.shape)}, {"data", ints_json(t.data)}}, to_string(IntTuple::tuple(v))};
           }},
    {"shard", "reshard", "§7.4", "distribute data on src, reshard to dst, assemble: dst layout, engines and the preserved value",
           {{"src", P::Text, false, ""}, {"dst", P::Text, false, ""}, shape, {"src_storage", P::Text, false, ""}, {"dst_storage", P::Text, false, ""},
            {"data", P::IntTuple, true, "flat row-major data ('-' = 0,1,2,...)"}},
           [](const Json& a) {
             auto s = ints(tuple_arg(a, "shape"), "logical extent");
             Storage ss = storage_arg(a, "src_storage"), ds = storage_arg(a, "dst_storage");
             ShardLayout src = typed(read_shard_layout(require_arg(a, "src")), s, ss, ss);
             ShardLayout dst = typed(read_shard_layout(require_arg(a, "dst")), s, ss, ds);
             Tensor t = tensor_arg(a, s);
             Engines out = reshard(distribute(t, src, ss), src, dst, ds, s);
             bool preserved = assemble(out, dst, s) == t;
             if (!preserved) fail(rule::in(rule::kInternal, "§7.4"), "reshard changed the value (this is a tfspec bug)");
             return OpResult{Json{{"layout", shard_to_json(dst)}, {"engines", engines_json(out)}, {"preserved", preserved}},
                             to_string(dst) + "\n" + engines_text(out) + "value preserved"};
           }},
  };
}

// §5: meshes, and the rule catalogue of §5-§8.
std::vector<Op> mesh_ops() {
  return {
    {"shard", "mesh", "§5", "a mesh: topologies, axes, topology_domain (D6); with a slice `(1,_,0:2)` the sub-mesh (D7)",
           {{"mesh", P::Text, false, ""}, {"slice", P::Text, true, "per mesh axis a static int, `_` or a range `b:e`, e.g. (1,_,0:2)"}}, [](const Json& a) {
             Mesh m = mesh_from_json(require_arg(a, "mesh"));
             if (a.contains("slice")) {
               const Json& sj = a["slice"];
               if (sj.is_string()) m = m.slice(parse_mesh_index(sj.get<std::string>()));
               else m = m[coord_from_json(sj)];
             }
             auto dom = m.topology_domain();
             Json j = mesh_to_json(m);
             j["topology_domain"] = dom ? Json(*dom) : Json(nullptr);
             return OpResult{j, to_string(m) + "\ntopology_domain " + (dom ? std::to_string(*dom) : std::string("None"))};
           }},
    {"shard", "rules", "§5", "the catalogue's rules of §5-§8 (id, clause, kind, summary; `checked` if `shard check` runs it)", {},
           [](const Json&) { return rules_result(kShardClauses, checked_rules(LayoutKind::Shard)); }},
  };
}

}  // namespace

void register_shard_ops(OpRegistry& r) {
  for (auto table : {shard_layout_ops, shard_data_ops, mesh_ops})
    for (Op& op : table()) r.add(std::move(op));
}

}  // namespace tfspec::protocol
