// The run-time side of the CuTe adapter: an integer tree (IntTuple) read from the protocol's JSON
// or text notation (spec/PROTOCOL.md "Encodings"), with no CuTe in it. Our own parser, not the
// reference's: the adapter measures CuTe, so nothing of tfspec's algebra may answer for it.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cute_adapter {

using Json = nlohmann::json;

// An integer leaf or a tuple of trees.
struct Tree {
  bool leaf = true;
  int64_t v = 0;
  std::vector<Tree> kids;
};

// The answer is an error reply with this rule (an input CuTe cannot express at all).
struct Refusal : std::runtime_error {
  std::string rule;
  Refusal(std::string r, const std::string& m) : std::runtime_error(m), rule(std::move(r)) {}
};
// The answer is a `skipped` reply: outside what this adapter instantiates or what CuTe models.
struct Skip : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "_" for a leaf, "(_,(_,_))" for a tuple: the compile-time structure a tree needs.
std::string profile(const Tree& t);
Tree tree_from_json(const Json& j);  // numbers, decimal strings, arrays; Skip on symbolic/None
Json tree_to_json(const Tree& t);

// A plain layout argument: JSON {"kind":"layout",...} or text "(4,8):(8,1)" / "(2,3)" / "6:3".
struct LayoutArg {
  Tree shape, stride;
};
LayoutArg layout_from_json(const Json& j);

}  // namespace cute_adapter
