// `tfspec serve`: the reference as a newline-delimited JSON process (spec/PROTOCOL.md).
#include <iostream>
#include <string>

#include "commands.hpp"
#include "tfspec/cli/ops.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::cli {

inline constexpr int kProtocolVersion = 1;
inline constexpr int kMaxJsonDepth = 2 * kMaxDepth + 16;  // IntTuples inside a few object levels

static Json error_json(const std::string& rule, const std::string& clause, const std::string& msg) {
  return Json{{"rule", rule}, {"clause", clause}, {"message", msg}};
}

// Answers one request line; sets `stop` on the stop command.
Json serve_line(const std::string& line, bool& stop) {
  Json req;
  // Nesting beyond any legal request is dropped while parsing (copying or printing a 10^5-deep
  // document would recurse that deep): the request is then answered with nesting-too-deep.
  bool too_deep = false;
  auto limit_depth = [&too_deep](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return depth <= kMaxJsonDepth;
  };
  try {
    req = Json::parse(line, limit_depth);
  } catch (const Json::exception& e) {
    return Json{{"seq", nullptr}, {"error", error_json("protocol-malformed", "-", std::string("not JSON: ") + e.what())}};
  }
  if (!req.is_object()) return Json{{"seq", nullptr}, {"error", error_json("protocol-malformed", "-", "a request is a JSON object")}};
  auto& reg = OpRegistry::instance();
  if (req.contains("cmd")) {
    const Json& cmd = req["cmd"];
    if (cmd == "start") {
      Json ops = Json::array();
      for (const auto& op : reg.ops()) ops.push_back(op.protocol_name());
      return Json{{"cmd", "start"}, {"protocol", kProtocolVersion},
                  {"implementation", {{"name", "tfspec-reference"}, {"version", "0.1.0"}}}, {"ops", ops}};
    }
    if (cmd == "stop") {
      stop = true;
      return Json{{"cmd", "stop"}};
    }
    return Json{{"seq", nullptr}, {"error", error_json("protocol-unknown-cmd", "-", "unknown cmd " + cmd.dump())}};
  }
  Json seq = req.contains("seq") && !req["seq"].is_structured() ? req["seq"] : Json(nullptr);
  if (too_deep)
    return Json{{"seq", seq}, {"error", error_json("nesting-too-deep", "§1", "request nests deeper than " + std::to_string(kMaxJsonDepth) + " levels")}};
  if (!req.contains("op") || !req["op"].is_string())
    return Json{{"seq", seq}, {"error", error_json("protocol-malformed", "-", "a request needs a string 'op'")}};
  const Op* op = reg.find_protocol(req["op"].get<std::string>());
  if (!op) return Json{{"seq", seq}, {"skipped", {{"reason", "unsupported op " + req["op"].dump()}}}};
  static const Json kNoArgs = Json::object();
  const Json& args = req.contains("args") ? req["args"] : kNoArgs;
  try {
    OpResult r = op->run(args);
    return Json{{"seq", seq}, {"result", r.json}};
  } catch (const SpecError& e) {
    return Json{{"seq", seq}, {"error", error_json(e.rule(), e.clause(), e.diagnostic().message)}};
  } catch (const Json::exception& e) {
    return Json{{"seq", seq}, {"error", error_json("protocol-bad-args", "-", e.what())}};
  } catch (const std::bad_alloc&) {
    return Json{{"seq", seq}, {"error", error_json("resource-limit", "-", "out of memory")}};
  } catch (const std::exception& e) {
    return Json{{"seq", seq}, {"error", error_json("internal", "-", e.what())}};
  }
}

void add_serve_command(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("serve", "Answer newline-delimited JSON requests on stdin (spec/PROTOCOL.md)");
  sub->callback([&exit_code] {
    std::ios::sync_with_stdio(false);
    std::string line;
    bool stop = false;
    while (!stop && std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::cout << serve_line(line, stop).dump() << "\n" << std::flush;
    }
    exit_code = kOk;
  });
}

}  // namespace tfspec::cli
