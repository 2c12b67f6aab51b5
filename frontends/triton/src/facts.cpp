// The contiguity and divisibility facts of a TTGIR's values (spec/TRITON.md §3.4), read forward in
// program order the way Triton's axis analysis derives them for the ops that build pointers:
// make_range, splat, expand_dims, broadcast, addi, muli, addptr, constants and the kernel's
// arguments (tt.divisibility); a loop's iter_args carry their initial values' facts.
#include <numeric>

#include "tfspec/frontends/triton/lower.hpp"

namespace tfspec::triton {
namespace {

constexpr int64_t kBig = int64_t{1} << 30;

int64_t pow2_factor(int64_t v) { return v == 0 ? kBig : std::min<int64_t>(kBig, v & -v); }

ValueFacts unknown(size_t rank) { return ValueFacts{std::vector<bool>(rank, false), -1, 1, 1}; }
ValueFacts constant(size_t rank, int64_t div) { return ValueFacts{std::vector<bool>(rank, true), -1, 1, div}; }

size_t rank_of(const Op& op) { return op.out_types.empty() ? (op.in_types.empty() ? 0 : op.in_types.back().shape.size()) : op.out_types[0].shape.size(); }

ValueFacts add(const ValueFacts& x, const ValueFacts& y) {
  ValueFacts r = unknown(x.constant.size());
  if (x.constant.size() != y.constant.size()) return r;
  for (size_t d = 0; d < r.constant.size(); ++d) r.constant[d] = x.constant[d] && y.constant[d];
  r.divisibility = std::gcd(x.divisibility, y.divisibility);
  for (const auto& [a, b] : {std::pair{&x, &y}, {&y, &x}})
    if (a->contiguous_dim >= 0 && b->constant[static_cast<size_t>(a->contiguous_dim)]) r.contiguous_dim = a->contiguous_dim, r.contiguity = a->contiguity;
  return r;
}

ValueFacts mul(const ValueFacts& x, const ValueFacts& y, bool y_is_one, bool x_is_one) {
  if (y_is_one) return x;
  if (x_is_one) return y;
  ValueFacts r = unknown(x.constant.size());
  if (x.constant.size() != y.constant.size()) return r;
  for (size_t d = 0; d < r.constant.size(); ++d) r.constant[d] = x.constant[d] && y.constant[d];
  r.divisibility = std::min(kBig, x.divisibility * y.divisibility);
  return r;
}

// One op's result facts from its operands' (absent operands: unknown).
ValueFacts facts_of(const Op& op, const std::map<std::string, ValueFacts>& f, const std::map<std::string, int64_t>& consts) {
  const size_t rank = rank_of(op);
  auto in = [&](size_t i) { auto it = i < op.operands.size() ? f.find(op.operands[i]) : f.end(); return it == f.end() ? unknown(rank) : it->second; };
  auto is_one = [&](size_t i) { auto it = i < op.operands.size() ? consts.find(op.operands[i]) : consts.end(); return it != consts.end() && it->second == 1; };
  if (op.name == "tt.make_range") {
    const int64_t start = op.attrs.count("start") ? op.attrs.at("start") : 0, end = op.attrs.count("end") ? op.attrs.at("end") : 1;
    return ValueFacts{{false}, 0, end - start, pow2_factor(start)};
  }
  if (op.name == "tt.splat") return constant(rank, in(0).divisibility);
  if (op.name == "tt.broadcast") {
    ValueFacts r = in(0);
    r.constant.resize(rank, true);
    return r;
  }
  if (op.name == "tt.expand_dims" && op.attrs.count("axis")) {
    ValueFacts r = in(0);
    const int axis = static_cast<int>(op.attrs.at("axis"));
    r.constant.insert(r.constant.begin() + std::min<size_t>(axis, r.constant.size()), true);
    if (r.contiguous_dim >= axis) ++r.contiguous_dim;
    return r;
  }
  if (op.name == "arith.addi" || op.name == "tt.addptr") return add(in(0), in(1));
  if (op.name == "arith.muli") return mul(in(0), in(1), is_one(1), is_one(0));
  return unknown(rank);
}

}  // namespace

std::map<std::string, ValueFacts> global_facts(const Module& m) {
  std::map<std::string, ValueFacts> f;
  std::map<std::string, int64_t> consts;  // scalar and splat integer constants
  for (const Argument& a : m.args) {
    const int64_t bytes = a.type.pointer && a.type.elem_bits >= 8 ? a.type.elem_bits / 8 : 1;
    f[a.name] = constant(0, std::max<int64_t>(1, a.divisibility / bytes));
  }
  for (const Op& op : m.ops) {
    if (op.name == "scf.for") {  // %i = lb to ub step s iter_args(%x = %init, ...): x starts as init
      for (size_t i = 4; i + 1 < op.operands.size(); i += 2)
        if (f.count(op.operands[i + 1])) f[op.operands[i]] = f[op.operands[i + 1]];
      continue;
    }
    if (op.results.empty()) continue;
    if (op.name == "arith.constant" && op.attrs.count("value")) {
      consts[op.results[0]] = op.attrs.at("value");
      f[op.results[0]] = constant(rank_of(op), pow2_factor(op.attrs.at("value")));
      continue;
    }
    f[op.results[0]] = facts_of(op, f, consts);
  }
  return f;
}

}  // namespace tfspec::triton
