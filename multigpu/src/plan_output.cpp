// Plan output: the names of buffers, collectives and datatypes, the byte total, the human text
// (one line per collective, local copies summarized) and the JSON schema of spec/MULTIGPU.md ("JSON").
#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>

#include "tfspec/multigpu/reshard_plan.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu {
namespace {

std::string place_text(const Place& p) { return to_string(p.buffer) + "+" + std::to_string(p.offset); }

// "src+0" when every device uses the same place, else "per device".
std::string places_text(const std::map<int64_t, Place>& places) {
  if (places.empty()) return "-";
  const Place first = places.begin()->second;
  for (const auto& [d, p] : places)
    if (!(p == first)) return to_string(first.buffer) + "+(per device)";
  return place_text(first);
}

std::string groups_text(const std::vector<std::vector<int64_t>>& groups) {
  std::string s = "[";
  for (size_t i = 0; i < groups.size(); ++i) {
    s += i ? " [" : "[";
    for (size_t j = 0; j < groups[i].size(); ++j) s += (j ? "," : "") + std::to_string(groups[i][j]);
    s += "]";
  }
  return s + "]";
}

std::string axis_text(const Plan& plan, int axis) {
  return axis >= 0 && axis < static_cast<int>(plan.axis_names.size()) ? plan.axis_names[axis] : "-";
}

Json place_json(int64_t device, const Place& p) { return Json{{"device", device}, {"buffer", to_string(p.buffer)}, {"offset", p.offset}}; }

}  // namespace

std::string to_string(Buffer b) {
  switch (b) {
    case Buffer::Src: return "src";
    case Buffer::Dst: return "dst";
    case Buffer::Send: return "send";
    case Buffer::Recv: return "recv";
    case Buffer::Mid0: return "mid0";
    case Buffer::Mid1: return "mid1";
  }
  return "?";
}

std::string nccl_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::AllGather: return "ncclAllGather";
    case CollectiveKind::ReduceScatter: return "ncclReduceScatter";
    case CollectiveKind::AllReduce: return "ncclAllReduce";
    case CollectiveKind::AllToAll: return "ncclAllToAll";
    case CollectiveKind::SendRecv: return "ncclSend/ncclRecv";
  }
  return "?";
}

int64_t Plan::size_of(Buffer b, int64_t device) const {
  const std::map<int64_t, int64_t>* m = nullptr;
  switch (b) {
    case Buffer::Src: m = &src_size; break;
    case Buffer::Dst: m = &dst_size; break;
    case Buffer::Send: m = &send_size; break;
    case Buffer::Recv: m = &recv_size; break;
    case Buffer::Mid0: m = &mid0_size; break;
    case Buffer::Mid1: m = &mid1_size; break;
  }
  auto it = m ? m->find(device) : std::map<int64_t, int64_t>::const_iterator{};
  return m && it != m->end() ? it->second : 0;
}

int64_t Plan::total_bytes() const {
  int64_t n = 0;
  for (const auto& [d, b] : bytes) n = checked_add(n, b.sent);
  return n;
}

namespace {
const std::map<std::string, int64_t> kDtypeSizes = {{"int8", 1},    {"uint8", 1},    {"int32", 4},   {"uint32", 4},   {"int64", 8},
                                                    {"uint64", 8},  {"float16", 2},  {"bfloat16", 2}, {"float32", 4}, {"float64", 8}};
}  // namespace

int64_t dtype_bytes(std::string_view name) {
  return kDtypeSizes.at(dtype_name(name));
}

std::string dtype_name(std::string_view name) {
  std::string n(name);
  if (n.starts_with("nccl")) {
    n = n.substr(4);
    if (!n.empty()) n[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(n[0])));
  }
  // The short names users type (PyTorch, JAX, CUTLASS spellings), each meaning one NCCL type.
  static const std::map<std::string, std::string> kShort = {
      {"i8", "int8"},     {"s8", "int8"},       {"u8", "uint8"},      {"i32", "int32"},      {"s32", "int32"},
      {"u32", "uint32"},  {"i64", "int64"},     {"s64", "int64"},     {"u64", "uint64"},     {"int", "int32"},
      {"f16", "float16"}, {"fp16", "float16"},  {"half", "float16"},  {"bf16", "bfloat16"},  {"f32", "float32"},
      {"fp32", "float32"}, {"float", "float32"}, {"f64", "float64"},  {"fp64", "float64"},   {"double", "float64"}};
  if (auto alias = kShort.find(n); alias != kShort.end()) n = alias->second;
  if (!kDtypeSizes.count(n))
    fail(rule::kMgpuDtype, "unknown element type '" + std::string(name) +
                               "'; use an NCCL datatype: int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 "
                               "(or bf16, fp16/f16/half, f32/fp32/float, f64/fp64/double, i8 u8 i32 u32 i64 u64)");
  return n;
}

// "at the lower bound", or how far above it and why.
std::string bound_text(const Plan& plan) {
  const int64_t total = plan.total_bytes();
  if (total <= plan.lower_bound_bytes) return "at the lower bound";
  std::ostringstream o;
  if (plan.lower_bound_bytes == 0) o << total << " B above the lower bound";
  else o << std::fixed << std::setprecision(2) << static_cast<double>(total) / static_cast<double>(plan.lower_bound_bytes) << " x the lower bound";
  o << ": because " << plan.above_bound_because;
  return o.str();
}

std::string to_text(const Plan& plan) {
  std::ostringstream o;
  o << "plan: " << plan.pattern << " (" << plan.devices.size() << " devices, " << plan.elem_bytes << " bytes per element)\n";
  for (size_t k = 0; k < plan.stages.size(); ++k)
    o << "stage " << k + 1 << ": " << plan.stages[k] << (k + 1 == plan.stages.size() ? " (into dst)" : k % 2 ? " (into mid1)" : " (into mid0)") << "\n";
  for (size_t i = 0; i < plan.steps.size();) {
    if (const auto* c = std::get_if<Collective>(&plan.steps[i])) {
      o << nccl_name(c->kind);
      if (!c->reduction.empty()) o << "(" << c->reduction << ")";
      if (c->kind == CollectiveKind::AllToAll || c->kind == CollectiveKind::SendRecv) {
        int64_t n = 0;
        for (const auto& t : c->transfers) n += t.count;
        o << " grouped: " << c->transfers.size() << " send/recv pairs, " << n << " elements";
        if (c->mesh_axis >= 0) o << ", along " << axis_text(plan, c->mesh_axis) << " groups " << groups_text(c->groups);
        o << ":";
        constexpr size_t kShown = 8;  // --json lists every pair
        for (size_t k = 0; k < c->transfers.size() && k < kShown; ++k) {
          const Transfer& t = c->transfers[k];
          o << " " << t.from_device << "->" << t.to_device << " " << t.count << "@send+" << t.send_offset << ":recv+" << t.recv_offset;
        }
        if (c->transfers.size() > kShown) o << " ... (" << c->transfers.size() - kShown << " more)";
        o << "\n";
      } else {
        o << " along " << axis_text(plan, c->mesh_axis) << " groups " << groups_text(c->groups) << " count " << c->count << " send "
          << places_text(c->send) << " recv " << places_text(c->recv) << "\n";
      }
      ++i;
      continue;
    }
    // A run of local copies (independent of each other): one line per (from, to), in order.
    struct Summary {
      Buffer from, to;
      int64_t devices = 0, runs = 0, elements = 0;
    };
    std::vector<Summary> lines;
    for (; i < plan.steps.size(); ++i) {
      const auto* l = std::get_if<LocalCopy>(&plan.steps[i]);
      if (!l) break;
      auto it = std::find_if(lines.begin(), lines.end(), [&](const Summary& s) { return s.from == l->from && s.to == l->to; });
      if (it == lines.end()) it = lines.insert(lines.end(), Summary{l->from, l->to});
      ++it->devices;
      it->runs += static_cast<int64_t>(l->runs.size());
      for (const auto& r : l->runs) it->elements += r.len;
    }
    for (const auto& s : lines)
      o << "local " << to_string(s.from) << "->" << to_string(s.to) << " on " << s.devices << " device" << (s.devices == 1 ? "" : "s") << ": "
        << s.elements << " elements in " << s.runs << " run" << (s.runs == 1 ? "" : "s") << "\n";
  }
  for (const auto& [d, b] : plan.bytes) o << "device " << d << ": sends " << b.sent << " B, receives " << b.received << " B\n";
  o << "total: " << plan.total_bytes() << " B moved between devices\n";
  o << "lower bound: " << plan.lower_bound_bytes << " B (spec/MULTIGPU.md): " << bound_text(plan) << "\n";
  if (plan.one_round) o << "one round: chosen, " << plan.one_round_bytes << " B in one exchange (spec/MULTIGPU.md \"One-round execution\")\n";
  else o << "one round: not chosen: " << plan.one_round_because << "\n";
  return o.str();
}

// nlohmann's ~basic_json is noexcept and frees an array through a stack it allocates, as large as
// the array: a bad_alloc while a large array is half built would be thrown again there and
// terminate the process (issue 19, item 4). Large arrays are therefore built as std::vector<Json>,
// whose elements are freed one by one, and moved into a Json only when complete; nothing large is
// copied.
namespace {

using Items = std::vector<Json>;

Json array_of(Items&& items) { return Json(std::move(items)); }

Json step_json(const LocalCopy& l) {
  Items runs;
  runs.reserve(l.runs.size());
  for (const auto& r : l.runs) runs.push_back(Json::array({r.from, r.to, r.len}));
  return Json{{"op", "local_copy"}, {"device", l.device}, {"from", to_string(l.from)}, {"to", to_string(l.to)}, {"runs", array_of(std::move(runs))}};
}

Json step_json(const Collective& c) {
  Items groups;
  for (const auto& g : c.groups) groups.push_back(g);
  Json j{{"op", nccl_name(c.kind)}, {"mesh_axis", c.mesh_axis}, {"groups", array_of(std::move(groups))}};
  j["reduction"] = c.reduction.empty() ? Json(nullptr) : Json(c.reduction);
  if (c.kind == CollectiveKind::AllToAll || c.kind == CollectiveKind::SendRecv) {
    Items ts;
    ts.reserve(c.transfers.size());
    for (const auto& t : c.transfers)
      ts.push_back(Json{{"from", t.from_device}, {"to", t.to_device}, {"send_offset", t.send_offset}, {"recv_offset", t.recv_offset}, {"count", t.count}});
    j["transfers"] = array_of(std::move(ts));
    return j;
  }
  j["count"] = c.count;
  Items send, recv;
  for (const auto& [d, p] : c.send) send.push_back(place_json(d, p));
  for (const auto& [d, p] : c.recv) recv.push_back(place_json(d, p));
  j["send"] = array_of(std::move(send));
  j["recv"] = array_of(std::move(recv));
  return j;
}

}  // namespace

Json to_json(const Plan& plan) {
  Items steps;
  steps.reserve(plan.steps.size());
  for (const auto& step : plan.steps) std::visit([&](const auto& s) { steps.push_back(step_json(s)); }, step);
  Items buffers, bytes;
  const bool staged = !plan.mid0_size.empty() || !plan.mid1_size.empty();
  for (int64_t d : plan.devices) {
    Json sizes{{"device", d}};
    for (Buffer k : kBuffers)
      if (staged || (k != Buffer::Mid0 && k != Buffer::Mid1)) sizes[to_string(k)] = plan.size_of(k, d);
    buffers.push_back(std::move(sizes));
    const DeviceBytes b = plan.bytes.count(d) ? plan.bytes.at(d) : DeviceBytes{};
    bytes.push_back(Json{{"device", d}, {"sent", b.sent}, {"received", b.received}});
  }
  Json j{{"pattern", plan.pattern}, {"elem_bytes", plan.elem_bytes}, {"mesh_axes", plan.axis_names}, {"devices", plan.devices}};
  j["buffers"] = array_of(std::move(buffers));
  j["steps"] = array_of(std::move(steps));
  j["device_bytes"] = array_of(std::move(bytes));
  j["total_bytes"] = plan.total_bytes();
  j["bytes"] = j["total_bytes"];
  j["lower_bound_bytes"] = plan.lower_bound_bytes;
  j["at_lower_bound"] = plan.total_bytes() <= plan.lower_bound_bytes;
  j["above_bound_because"] = plan.above_bound_because.empty() ? Json(nullptr) : Json(plan.above_bound_because);
  if (!plan.stages.empty()) j["stages"] = plan.stages;
  j["one_round"] = Json{{"chosen", plan.one_round}, {"bytes", plan.one_round_bytes},
                        {"because", plan.one_round ? Json(nullptr) : Json(plan.one_round_because)}};
  return j;
}

}  // namespace tfspec::multigpu
