// A conformance adapter over CuTe's layout algebra (CUTLASS include/cute, header-only, host code):
// the protocol of spec/PROTOCOL.md on stdin/stdout, each request answered by the CuTe function of
// the same name with run-time integers. Structures outside the instantiated list (structures.hpp),
// symbolic values and ops without a CuTe counterpart are answered `skipped`. A CuTe crash (SIGFPE,
// a failed assert) ends this process: the runner records the case as errored and restarts it.
#include <iostream>
#include <string>

#include "ops.hpp"

namespace cute_adapter {
namespace {

Json reply(const OpMap& ops, const Json& req) {
  const Json seq = req.contains("seq") ? req["seq"] : Json();
  const std::string op = req.value("op", "");
  const auto it = ops.find(op);
  if (it == ops.end()) return {{"seq", seq}, {"skipped", {{"reason", "no CuTe counterpart in this adapter: " + op}}}};
  try {
    return {{"seq", seq}, {"result", it->second(req.value("args", Json::object()))}};
  } catch (const Skip& e) {
    return {{"seq", seq}, {"skipped", {{"reason", e.what()}}}};
  } catch (const Refusal& e) {
    return {{"seq", seq}, {"error", {{"rule", e.rule}, {"message", e.what()}}}};
  } catch (const Json::out_of_range& e) {  // a missing argument (at())
    return {{"seq", seq}, {"error", {{"rule", "protocol-missing-arg"}, {"message", e.what()}}}};
  } catch (const Json::exception& e) {  // a mistyped argument
    return {{"seq", seq}, {"error", {{"rule", "protocol-bad-args"}, {"message", e.what()}}}};
  }
}

}  // namespace
}  // namespace cute_adapter

int main() {
  using namespace cute_adapter;
  OpMap ops;
  add_tuple_ops(ops);
  add_layout_ops(ops);
  add_divide_ops(ops);
  add_product_ops(ops);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Json req = Json::parse(line, nullptr, false);
    Json out;
    if (req.is_discarded() || !req.is_object()) {
      out = {{"seq", nullptr}, {"error", {{"rule", "protocol-malformed"}, {"clause", "-"}, {"message", "not a JSON object"}}}};
    } else if (req.value("cmd", "") == "start") {
      Json names = Json::array();
      for (const auto& [name, fn] : ops) names.push_back(name);
      out = {{"cmd", "start"}, {"protocol", 1}, {"implementation", {{"name", "cute (CUTLASS include/cute)"}, {"version", "adapter 1"}}}, {"ops", names}};
    } else if (req.value("cmd", "") == "stop") {
      std::cout << Json{{"cmd", "stop"}}.dump() << std::endl;
      return 0;
    } else {
      out = reply(ops, req);
    }
    std::cout << out.dump() << std::endl;
  }
  return 0;
}
