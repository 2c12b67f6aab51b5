// A deliberately wrong implementation for the runner's own tests: the reference behind the
// protocol with planted departures, each in one clause, and the ways a process can misbehave.
//   §1 shape_div never refuses (answers `a`, symbolic too)
//   §3 cosize is one short (the largest offset; symbolic too)
//   §6 shard.check drops partial-reduction          complement: `skipped`; shard.mesh: not listed
//   depth: crashes (SIGABRT, after two lines on stderr)   rank of (): hangs
//   domain_rank: echoes a wrong seq
//   crd2crd: answers a line that is not JSON
// `--honest` serves the reference unchanged (the subprocess path at 100%).
// `--mutant NAME` serves the reference with one plausible wrong op (issue 30: each must fail the
// corpus and `conform --fuzz`):
//   coalesce-noop          coalesce returns its input (the same function, not the canonical form)
//   coalesce-two           coalesce never merges more than two modes into one
//   filter-no-coalesce     filter drops size-1 and stride-0 modes but merges nothing
//   complement-multiple    complement refuses a stride that is not a multiple of the span before it
//   cosize-last            cosize is 1 + L(size-1), wrong for negative strides
//   proved-false           every symbolic answer adds the condition `0 > 1`, "proved" (issue 44)
//   proved-twice           every symbolic answer lists each required condition again as "proved"
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#endif
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"
#include "tfspec/reference/notation.hpp"

using tfspec::Json;
namespace protocol = tfspec::protocol;

namespace {

Json wrong(const protocol::OpRegistry& reg, const Json& req, Json reply) {
  const std::string op = req.value("op", "");
  const Json& args = req.contains("args") ? req["args"] : Json();
  if (op == "depth") {
    std::cerr << "wrong-toy: depth crashes on purpose\nwrong-toy: aborting" << std::endl;
    std::abort();
  }
  if (op == "rank" && args.value("t", Json()) == Json::array()) std::this_thread::sleep_for(std::chrono::hours(1));
  if (op == "domain_rank") reply["seq"] = 424242;
  if (op == "crd2crd") return Json("not json {");
  if (op == "complement") return Json{{"seq", req["seq"]}, {"skipped", {{"reason", "not implemented"}}}};
  if (op == "shape_div" && reply.contains("error")) {
    // A symbolic request (a named extent or `assume`) gets the symbolic form (spec/ALGEBRA.md S4),
    // so the departure is judged there too, not counted unsupported.
    std::function<bool(const Json&)> named = [&](const Json& j) {
      return j.is_string() || (j.is_array() && std::any_of(j.begin(), j.end(), named));
    };
    if (!args.contains("assume") && !named(args["a"]) && !named(args["b"])) return Json{{"seq", req["seq"]}, {"result", args["a"]}};
    const Json conditions = Json::array(), c{{"when", Json::array()}, {"result", args["a"]}, {"conditions", conditions}};
    return Json{{"seq", req["seq"]}, {"result", {{"result", args["a"]}, {"cases", Json::array({c})}, {"conditions", conditions}}}};
  }
  if (op == "cosize" && reply.contains("result")) {
    Json& r = reply["result"];
    if (r.is_number_integer()) r = r.get<int64_t>() - 1;
    auto one_short = [](Json& v) { v = v.is_string() ? Json("(" + v.get<std::string>() + ")-1") : v; };
    if (r.is_object() && r.contains("result")) one_short(r["result"]);  // a symbolic answer (spec/ALGEBRA.md S4): one short too
    if (r.is_object() && r.contains("cases"))
      for (auto& c : r["cases"]) one_short(c["result"]);
  }
  if (op == "shard.check" && reply.contains("result")) {
    Json kept = Json::array();
    for (const auto& v : reply["result"]["violations"])
      if (v["rule"] != "partial-reduction") kept.push_back(v);
    reply["result"]["violations"] = kept;
  }
  (void)reg;
  return reply;
}

tfspec::Layout layout_arg(const Json& j) {
  return j.is_string() ? tfspec::parse_layout(j.get<std::string>()) : tfspec::layout_from_json(j);
}

// The flat (extent, stride) modes of a concrete layout.
std::vector<std::pair<int64_t, int64_t>> modes(const tfspec::Layout& l) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const auto s = tfspec::flat_leaves(l.shape()), d = tfspec::flat_leaves(l.stride());
  for (size_t i = 0; i < s.size(); ++i) out.emplace_back(s[i].value(), d[i].value());
  return out;
}

Json layout_json(const std::vector<std::pair<int64_t, int64_t>>& m) {
  Json shape = Json::array(), stride = Json::array();
  for (const auto& [s, d] : m) shape.push_back(s), stride.push_back(d);
  if (m.empty()) shape.push_back(1), stride.push_back(0);
  return Json{{"kind", "layout"}, {"shape", shape}, {"stride", stride}};
}

// A symbolic answer (spec/PROTOCOL.md) with false `proved` conditions planted: at the top and in
// every case, `0 > 1` (proved-false) or each required condition a second time (proved-twice).
void plant_proved(const std::string& name, Json& answer) {
  auto plant = [&](Json& conditions) {
    if (!conditions.is_array()) return;
    const Json was = conditions;
    if (name == "proved-false") conditions.push_back(Json{{"rule", "extent-positive"}, {"clause", "§3"}, {"predicate", "0 > 1"}, {"status", "proved"}});
    for (const auto& c : was)
      if (name == "proved-twice" && c.is_object() && c.value("status", "") == "required")
        conditions.push_back(Json{{"rule", c.value("rule", Json())}, {"clause", c.value("clause", Json())}, {"predicate", c.value("predicate", Json())}, {"status", "proved"}});
  };
  if (!answer.is_object()) return;
  if (answer.contains("conditions")) plant(answer["conditions"]);
  if (answer.contains("cases") && answer["cases"].is_array())
    for (auto& c : answer["cases"])
      if (c.is_object() && c.contains("conditions")) plant(c["conditions"]);
}

// One mutant's answer, or the reference's reply unchanged where the mutant agrees with it.
Json mutant(const std::string& name, const Json& req, Json reply) {
  const std::string op = req.value("op", "");
  const Json args = req.contains("args") ? req["args"] : Json::object();
  if (!reply.contains("result") && name != "complement-multiple") return reply;
  if (name == "proved-false" || name == "proved-twice") {
    plant_proved(name, reply["result"]);
    return reply;
  }
  if (args.contains("assume") || args.contains("profile")) return reply;  // concrete, whole-layout requests only
  try {
    if (name == "coalesce-noop" && op == "coalesce") reply["result"] = tfspec::to_json(layout_arg(args["layout"]));
    if (name == "coalesce-two" && op == "coalesce") {
      std::vector<std::pair<int64_t, int64_t>> out;
      int merged = 1;
      for (const auto& [s, d] : modes(layout_arg(args["layout"]))) {
        if (s == 1) continue;
        if (!out.empty() && merged < 2 && d == out.back().first * out.back().second) {
          out.back().first *= s;
          ++merged;
          continue;
        }
        out.emplace_back(s, d);
        merged = 1;
      }
      reply["result"] = layout_json(out);
    }
    if (name == "filter-no-coalesce" && op == "filter") {
      std::vector<std::pair<int64_t, int64_t>> out;
      for (const auto& [s, d] : modes(layout_arg(args["layout"])))
        if (s != 1 && d != 0) out.emplace_back(s, d);
      reply["result"] = layout_json(out);
    }
    if (name == "complement-multiple" && op == "complement") {
      auto m = modes(layout_arg(args["layout"]));
      std::sort(m.begin(), m.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
      for (size_t i = 1; i < m.size(); ++i)
        if (m[i - 1].first * m[i - 1].second != 0 && m[i].second % (m[i - 1].first * m[i - 1].second) != 0)
          return Json{{"seq", req["seq"]}, {"error", {{"rule", "complement-not-injective"}, {"message", "mutant: a stride that is not a multiple of the span"}}}};
    }
    if (name == "cosize-last" && op == "cosize") {
      const tfspec::Layout l = layout_arg(args["layout"]);
      reply["result"] = l(l.size() - 1) + 1;
    }
  } catch (const std::exception&) {
    return reply;  // what the mutant cannot read, the reference answers
  }
  return reply;
}

}  // namespace

int main(int argc, char** argv) {
  const bool honest = argc > 1 && std::string(argv[1]) == "--honest";
  const std::string mutant_name = argc > 2 && std::string(argv[1]) == "--mutant" ? argv[2] : "";
  protocol::OpRegistry reg;
  protocol::register_reference_ops(reg);
#ifdef TFSPEC_HAVE_PROVE
  protocol::register_prove_ops(reg);  // served honestly: the corpus's prove.* cases pass
  protocol::register_kernel_ops(reg);  // and its kernel.check cases
#endif
  std::string line;
  bool stop = false;
  while (!stop && std::getline(std::cin, line)) {
    if (line.empty()) continue;
    Json reply = protocol::serve_line(reg, line, stop);
    if (!mutant_name.empty()) {
      Json req = Json::parse(line, nullptr, false);
      if (req.is_object() && req.contains("op")) reply = mutant(mutant_name, req, reply);
    } else if (!honest) {
      Json req = Json::parse(line, nullptr, false);
      if (reply.value("cmd", "") == "start") {
        Json ops = Json::array();
        for (const auto& op : reply["ops"])
          if (op != "shard.mesh") ops.push_back(op);
        reply["ops"] = ops;
        reply["implementation"] = {{"name", "wrong-toy"}, {"version", "0"}};
      } else if (req.is_object() && req.contains("op")) {
        reply = wrong(reg, req, reply);
      }
    }
    std::cout << (reply == Json("not json {") ? std::string("not json {") : protocol::dump_line(reply)) << "\n" << std::flush;
  }
  return 0;
}
