// `shard.owners` (each device's elements) and the imports from / exports to JAX and DTensor
// (`shard.from-jax`, `shard.from-dtensor`, `shard.to-jax`, `shard.to-dtensor`): spec/SHARD.md
// "Owners and imports (extension)" (I1-I7), spec/PROTOCOL.md.
#include "tfspec/protocol/imports.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/shard_args.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/owners.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::protocol {
namespace {

using P = ParamType;

std::vector<int64_t> ints_of(const Json& j, const char* what) {
  IntTuple t = j.is_string() ? parse_inttuple(j.get<std::string>()) : inttuple_from_json(j);
  std::vector<int64_t> v;
  if (t.is_leaf()) return {require_int(t, what)};
  for (const auto& x : flat_leaves(t)) v.push_back(require_int(x, what));
  return v;
}
std::string text_arg(const Json& a, const char* name) {
  const Json& j = require_arg(a, name);
  return j.is_string() ? j.get<std::string>() : j.dump();
}
std::vector<int64_t> devices_arg(const Json& a) {
  if (!a.contains("devices") || a["devices"].is_null() || a["devices"] == "-" || a["devices"] == "") return {};
  const Json& j = a["devices"];
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s.front() != '(' && s.front() != '[') s = "(" + s + ")";
    if (s.front() == '[') s = "(" + s.substr(1, s.size() - 2) + ")";
    return ints_of(Json(s), "device id");
  }
  return ints_of(j, "device id");
}
std::string ints_text(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

OpResult imported(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  auto local = logical_local_shape(sl, shape);
  Json j{{"layout", shard_to_json(sl)}, {"text", to_string(sl)}, {"local_shape", local}};
  return {j, "local shape (" + ints_text(local) + ") on each of " + std::to_string(sl.mesh().size()) + " devices\n" + to_string(sl)};
}

OpResult exported(const Exported& e, const char* flag) {
  Json j{{"mesh", e.mesh}, {"devices", e.devices}, {flag, e.sharding}};
  return {j, "--mesh " + e.mesh + "\n--devices " + ints_text(e.devices) + "\n" + e.sharding};
}

OpResult owners_op(const Json& a) {
  ShardLayout sl = read_shard_layout(require_arg(a, "layout"));
  const auto shape = ints_of(require_arg(a, "shape"), "logical extent");
  Json devices = Json::array();
  std::string text;
  for (const auto& h : owners(sl, IntTuple::tuple(std::vector<IntTuple>(shape.begin(), shape.end())))) {
    devices.push_back(Json{{"device", h.device}, {"coord", h.coord}, {"elements", h.elements}, {"replica", h.replica}, {"partial", h.partial}});
    text += "device " + std::to_string(h.device) + " coord (" + ints_text(h.coord) + ")" + (h.replica ? " replica" : "") +
            (h.partial ? " partial" : "") + ": " + ints_text(h.elements) + "\n";
  }
  return {Json{{"devices", devices}}, text};
}

}  // namespace

void register_shard_import_ops(OpRegistry& r) {
  const Param shape{"shape", P::Text, false, "the global (logical) shape, e.g. (8,16)"};
  const Param devices{"devices", P::Text, true, "device ids row-major over the mesh axes, e.g. 0,4,1,5,2,6,3,7 ('-' = 0,1,2,...)"};
  const Param mesh{"mesh", P::Text, false, "the library's mesh axes, e.g. x=2,y=4"};
  const Param layout{"layout", P::Text, false, "a shard layout (text or JSON)"};
  r.add({"shard", "owners", "§7.2", "each device's elements (row-major indices of T.shape), as a Broadcast replica or a Partial contribution",
         {layout, shape}, owners_op});
  r.add({"shard", "from-jax", "§7", "a JAX NamedSharding (mesh, PartitionSpec P(...), devices) on a shape as a ShardLayout (extension)",
         {mesh, {"spec", P::Text, false, "a PartitionSpec, e.g. P(\"x\", None)"}, shape, devices}, [](const Json& a) {
           const auto s = ints_of(require_arg(a, "shape"), "logical extent");
           return imported(import_jax(import_mesh(text_arg(a, "mesh"), devices_arg(a), true), text_arg(a, "spec"), s), s);
         }});
  r.add({"shard", "from-dtensor", "§7", "a DTensor (DeviceMesh, placements, devices) on a shape as a ShardLayout (extension)",
         {mesh, {"placements", P::Text, false, "one per mesh dim, e.g. Shard(0),Replicate()"}, shape, devices}, [](const Json& a) {
           const auto s = ints_of(require_arg(a, "shape"), "logical extent");
           return imported(import_dtensor(import_mesh(text_arg(a, "mesh"), devices_arg(a), false), text_arg(a, "placements"), s), s);
         }});
  r.add({"shard", "to-jax", "§7", "a ShardLayout on a shape as a JAX mesh, device ids and PartitionSpec, where JAX can express it (extension)",
         {layout, shape}, [](const Json& a) {
           return exported(export_jax(read_shard_layout(require_arg(a, "layout")), ints_of(require_arg(a, "shape"), "logical extent")), "spec");
         }});
  r.add({"shard", "to-dtensor", "§7", "a ShardLayout on a shape as a DTensor mesh, device ids and placements, where DTensor can express it (extension)",
         {layout, shape}, [](const Json& a) {
           return exported(export_dtensor(read_shard_layout(require_arg(a, "layout")), ints_of(require_arg(a, "shape"), "logical extent")), "placements");
         }});
}

}  // namespace tfspec::protocol
