// Fuzz target: the propagation program reader (spec/PROPAGATION.md "Program format") on any
// text (or a program drawn from the bytes, see generated()), and `propagate` on the programs that parse, with and without --insert-reshards, when they
// are small (a mesh of at most 8 instances, at most 24 ops, values of at most 256 elements), and
// --check's two executions when the annotated program is conflict-free.
// Findings: a crash or sanitizer report; from the reader, any exception but a SpecError; from
// propagate, any exception at all (a program that parses never gets an input error); with
// --insert-reshards a conflict left other than dynamic-unresolved (nothing determines a value);
// a --check difference (a propagation bug), or a --check error other than int64-overflow.
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/rules.hpp"

using namespace tfspec;

namespace {

bool small(const propagation::Program& p) {
  if (p.mesh.size() > 8 || p.ops.size() > 24 || p.inputs.size() > 24) return false;
  for (const auto& op : p.ops)
    if (op.operands.size() > 16) return false;
  for (const auto& [name, shape] : p.shapes)
    if (propagation::num_elements(shape) > 256) return false;
  return true;
}

void check(const propagation::Propagation& r) {
  if (!r.ok() || r.program.ops.size() > 64) return;
  try {
    const propagation::CheckResult c = propagation::check_program(r, 1);
    FUZZ_CHECK(c.ok, "--check: output " + c.output + " " + c.message + " (" + std::to_string(c.expected) + " vs " + std::to_string(c.got) + ")");
  } catch (const SpecError& e) {
    FUZZ_CHECK(e.rule() == std::string(rule::kInt64Overflow.id), std::string(e.what()));
  }
}

// Programs built from bytes (an input whose first byte is a control byte below 0x10): JSON text
// seldom mutates into another valid program, so this mode draws one from tables of (4,4)
// layouts and ops whose shapes fit, to reach propagate's rules, conflicts and resolutions.
std::string generated(const unsigned char* data, size_t size) {
  size_t at = 1;
  auto next = [&](size_t n) { return at < size ? static_cast<size_t>(data[at++]) % n : 0; };
  static const char* meshes[] = {"x=2", "x=2,y=2", "x=4", "x=2,y=4", "x=1,y=2"};
  static const char* layouts[] = {"(4, 4)", "(4 @ m.x, 4)", "(4, 4 @ m.x)", "(4 @ m.y, 4)", "(4, 4 @ m.y)", "(2 @ m.x, 2, 4)", "(4 @ m.x, 4 @ m.y)",
                                  "(4, 4) where x=P()", "(4, 4) where x=P(\\\"max\\\")", "(4, 4) where x=P(\\\"min\\\")", "?", "(4 @ m.y, 4) where x=D",
                                  "(4, 4 @ m.x) where y=P()", "(4, 4) where y=D"};
  auto layout = [&] { return std::string("\"") + layouts[next(std::size(layouts))] + "\""; };
  std::string mesh = meshes[next(std::size(meshes))];
  std::string inputs, ops;
  std::vector<std::string> values;
  const size_t n_inputs = 1 + next(3);
  for (size_t i = 0; i < n_inputs; ++i) {
    values.push_back("i" + std::to_string(i));
    inputs += (i ? ", \"" : "\"") + values.back() + "\": {\"shape\": [4,4], \"layout\": " + layout() + "}";
  }
  auto pick = [&] { return "\"" + values[next(values.size())] + "\""; };
  const size_t n_ops = next(12);
  for (size_t k = 0; k < n_ops; ++k) {
    const std::string r = "v" + std::to_string(k), q = "\"" + r + "\"", tmp = "\"" + r + "t\"";
    std::string o;
    switch (next(14)) {
      case 0: o = "{\"op\": \"neg\", \"operands\": [" + pick() + "], \"result\": " + q + "}"; break;
      case 1: o = "{\"op\": \"relu\", \"operands\": [" + pick() + "], \"result\": " + q + "}"; break;
      case 2: o = "{\"op\": \"exp\", \"operands\": [" + pick() + "], \"result\": " + q + "}"; break;
      case 3: o = "{\"op\": \"scale\", \"constant\": " + std::to_string(static_cast<int>(next(7)) - 3) + ", \"operands\": [" + pick() + "], \"result\": " + q + "}"; break;
      case 4: o = "{\"op\": \"add\", \"operands\": [" + pick() + ", " + pick() + "], \"result\": " + q + "}"; break;
      case 5: o = "{\"op\": \"sub\", \"operands\": [" + pick() + ", " + pick() + "], \"result\": " + q + "}"; break;
      case 6: o = "{\"op\": \"mul\", \"operands\": [" + pick() + ", " + pick() + "], \"result\": " + q + "}"; break;
      case 7: o = "{\"op\": \"max\", \"operands\": [" + pick() + ", " + pick() + "], \"result\": " + q + "}"; break;
      case 8: o = "{\"op\": \"matmul\", \"operands\": [" + pick() + ", " + pick() + "], \"result\": " + q + "}"; break;
      case 9: o = "{\"op\": \"transpose\", \"perm\": [1,0], \"operands\": [" + pick() + "], \"result\": " + q + "}"; break;
      case 10:
        o = "{\"op\": \"reshape\", \"shape\": [" + std::string(next(2) ? "2,8" : "16") + "], \"operands\": [" + pick() + "], \"result\": " + tmp +
            "}, {\"op\": \"reshape\", \"shape\": [4,4], \"operands\": [" + tmp + "], \"result\": " + q + "}";
        break;
      case 11:
        o = "{\"op\": \"reduce\", \"reduction\": \"" + std::string(next(2) ? "sum" : "max") + "\", \"axes\": [1], \"operands\": [" + pick() + "], \"result\": " +
            tmp + "}, {\"op\": \"broadcast_in_dim\", \"shape\": [4,4], \"dims\": [0], \"operands\": [" + tmp + "], \"result\": " + q + "}";
        break;
      case 12:  // two halves of (possibly different) values, concatenated back to (4,4)
        o = "{\"op\": \"slice\", \"start\": [0,0], \"limit\": [4,2], \"operands\": [" + pick() + "], \"result\": " + tmp +
            "}, {\"op\": \"slice\", \"start\": [0,2], \"limit\": [4,4], \"operands\": [" + pick() + "], \"result\": \"" + r + "u\"}, " +
            "{\"op\": \"concat\", \"dim\": 1, \"operands\": [" + tmp + ", \"" + r + "u\"], \"result\": " + q + "}";
        break;
      default: o = "{\"op\": \"reshard\", \"layout\": " + layout() + ", \"operands\": [" + pick() + "], \"result\": " + q + "}"; break;
    }
    ops += (k ? ", " : "") + o;
    values.push_back(r);
  }
  return "{\"mesh\": \"" + mesh + "\", \"inputs\": {" + inputs + "}, \"ops\": [" + ops + "], \"outputs\": [" + pick() + "]}";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  const std::string text = size > 0 && data[0] < 0x10 ? generated(data, size) : fuzz::text_of(data, size);
  std::optional<propagation::Program> parsed;
  try {
    parsed = propagation::parse_program(propagation::read_program_json(text));
  } catch (const SpecError&) {
    return 0;  // an input error with its rule: what the reader must do with a malformed program
  }
  const propagation::Program& p = *parsed;
  if (!small(p)) return 0;
  const propagation::Propagation plain = propagation::propagate(p, false);
  (void)propagation::to_json(plain).dump(-1, ' ', false, Json::error_handler_t::replace);
  (void)propagation::to_text(plain);
  check(plain);
  const propagation::Propagation fixed = propagation::propagate(p, true);
  for (const auto& c : fixed.conflicts)
    FUZZ_CHECK(c.diagnostic.rule == std::string(rule::kDynamicUnresolved.id), c.diagnostic.rule + ": " + c.diagnostic.message);
  (void)propagation::to_json(fixed).dump(-1, ' ', false, Json::error_handler_t::replace);
  check(fixed);
  return 0;
}
