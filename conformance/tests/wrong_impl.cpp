// A deliberately wrong implementation for the runner's own tests: the reference behind the
// protocol with planted departures, each in one clause, and the ways a process can misbehave.
//   §1 shape_div never refuses (answers `a`, symbolic too)
//   §3 cosize is one short (the largest offset; symbolic too)
//   §6 shard.check drops partial-reduction          complement: `skipped`; shard.mesh: not listed
//   depth: crashes (SIGABRT, after two lines on stderr)   rank of (): hangs
//   domain_rank: echoes a wrong seq
//   crd2crd: answers a line that is not JSON
// `--honest` serves the reference unchanged (the subprocess path at 100%).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/prove_ops.hpp"
#endif
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  const bool honest = argc > 1 && std::string(argv[1]) == "--honest";
  protocol::OpRegistry reg;
  protocol::register_reference_ops(reg);
#ifdef TFSPEC_HAVE_PROVE
  protocol::register_prove_ops(reg);  // served honestly: the corpus's prove.* cases pass
#endif
  std::string line;
  bool stop = false;
  while (!stop && std::getline(std::cin, line)) {
    if (line.empty()) continue;
    Json reply = protocol::serve_line(reg, line, stop);
    if (!honest) {
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
