// Fuzz target: the symbolic path of the layout ops (issue 37). The input is an op name, a layout,
// a tiler or second layout, and up to three assumptions, one per line (spec/ALGEBRA.md S1-S9):
//   zipped_divide
//   (M,N):(N,1)
//   (4,2):(2,1)
//   M % 2 == 0
// It goes through serve_line as `tfspec layout OP ... --assume ...` does, with a small work
// budget. The product replays every symbolic answer against the concrete reference before it
// answers (S9), so a wrong case, a false `proved` condition, overlapping guards or a hole comes
// back as an `internal` error: a finding. So are a crash, a sanitizer report, a reply that is not
// a result or an error, and an error without a rule. Issue 46: every case has a witness key, and
// a witness satisfies its guard; every refusal case names its rule; a `required` condition has
// a counterexample, an instance of its case where the printed condition reads false (not
// undefined); no guard or condition is undefined at a witness or counterexample.
#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/symbolic_ops.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

namespace {

const protocol::OpRegistry& registry() {
  static const protocol::OpRegistry* r = [] {
    auto* x = new protocol::OpRegistry();
    protocol::register_reference_ops(*x);
    protocol::register_prove_ops(*x);
    return x;
  }();
  return *r;
}

bool takes_tiler(const std::string& op) {
  return op.find("divide") != std::string::npos || op == "composition" || op == "logical_product" || op == "zipped_product" ||
         op == "tiled_product" || op == "flat_product";
}

// One printed comparison `lhs REL rhs` at an instance; nullopt where it divides by 0.
std::optional<bool> compare(const std::string& part, const Bindings& b) {
  for (const char* rel : {" == ", " != ", " <= ", " >= ", " < ", " > "}) {
    const size_t at = part.find(rel);
    if (at == std::string::npos) continue;
    try {
      const int64_t l = evaluate(parse_dim(part.substr(0, at)), b), r = evaluate(parse_dim(part.substr(at + 4 - (rel[2] == ' '))), b);
      const std::string op(rel);
      return op == " == " ? l == r : op == " != " ? l != r : op == " <= " ? l <= r : op == " >= " ? l >= r : op == " < " ? l < r : l > r;
    } catch (const SpecError&) {
      return std::nullopt;
    }
  }
  fail(rule::kParseError, "not a comparison: " + part);
}

// A printed predicate (`q != 0 and p`) read left to right at an instance, stopping at the first
// false part: nullopt where a part read divides by 0.
std::optional<bool> reading(const std::string& pred, const Bindings& b) {
  for (size_t from = 0;;) {
    const size_t at = pred.find(" and ", from);
    const auto r = compare(pred.substr(from, at == std::string::npos ? std::string::npos : at - from), b);
    if (r != true) return r;
    if (at == std::string::npos) return true;
    from = at + 5;
  }
}

std::optional<bool> guard_at(const Json& c, const Bindings& b) {
  for (const auto& g : c["when"]) {
    const auto r = reading(g.get<std::string>(), b);
    if (r != true) return r;
  }
  return true;
}

// The issue 46 properties of one answer's cases, read from the reply alone.
void check_cases(const Json& result) {
  if (!result.is_object() || !result.contains("cases")) return;
  for (const auto& c : result["cases"]) {
    FUZZ_CHECK(c.contains("witness"), c.dump());
    if (c.contains("refused")) FUZZ_CHECK(c["refused"].contains("rule"), c.dump());
    if (!c["witness"].is_null()) FUZZ_CHECK(guard_at(c, c["witness"].get<Bindings>()) == true, "witness outside its case: " + c.dump());
    for (const auto& k : c["conditions"]) {
      if (k["status"] == "required") FUZZ_CHECK(k.contains("counterexample"), "required without a counterexample: " + k.dump());
      if (!k.contains("counterexample")) continue;
      const Bindings x = k["counterexample"].get<Bindings>();
      FUZZ_CHECK(guard_at(c, x) == true, "counterexample outside its case: " + c.dump());
      FUZZ_CHECK(reading(k["predicate"].get<std::string>(), x) == false, "counterexample does not falsify: " + k.dump());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  std::istringstream in(fuzz::text_of(data, size < 600 ? size : 600));  // short problems: each runs the solver
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l) && lines.size() < 6;) lines.push_back(l);
  if (lines.size() < 2) return 0;
  static const std::vector<std::string> ops = protocol::symbolic_op_names();
  std::string op = lines[0];
  if (std::find(ops.begin(), ops.end(), op) == ops.end()) op = ops[op.size() % ops.size()];
  Json args{{"budget", 400}, {"timeout_ms", 5000}};
  size_t next = 2;
  if (takes_tiler(op) && lines.size() > 2) {
    args["a"] = lines[1];
    args["tiler"] = lines[2];
    next = 3;
  } else if (op == "blocked_product" || op == "raked_product" || op == "max_common_vector") {
    args["a"] = lines[1];
    if (lines.size() > 2) args["b"] = lines[2];
    next = 3;
  } else if (op == "shape_div") {
    args["a"] = lines[1];
    if (lines.size() > 2) args["b"] = lines[2];
    next = 3;
  } else {
    args["layout"] = lines[1];
  }
  Json assume = Json::array();
  for (size_t i = next; i < lines.size(); ++i) assume.push_back(lines[i]);
  if (!assume.empty()) args["assume"] = assume;
  bool stop = false;
  Json reply;
  try {
    reply = protocol::serve_line(registry(), Json{{"seq", 1}, {"op", op}, {"args", args}}.dump(-1, ' ', false, Json::error_handler_t::replace), stop);
  } catch (const SpecError&) {
    return 0;
  }
  FUZZ_CHECK(reply.contains("result") || reply.contains("error") || reply.contains("skipped"), reply.dump());
  if (reply.contains("error")) {
    FUZZ_CHECK(reply["error"].contains("rule"), reply.dump());
    FUZZ_CHECK(reply["error"].value("kind", "") != "internal", reply.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  if (reply.contains("result")) {
    try {
      check_cases(reply["result"]);
    } catch (const SpecError&) {  // a predicate past the parser's limits: not judged here
    }
  }
  return 0;
}
