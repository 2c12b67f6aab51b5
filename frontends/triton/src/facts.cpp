// The contiguity and divisibility facts of a TTGIR's values (spec/TRITON.md §3.4), read forward in
// program order the way Triton's axis analysis derives them for the ops that build pointers:
// make_range, splat, expand_dims, broadcast, addi, muli, addptr, extsi / extui, reshape, constants
// and the kernel's arguments (tt.divisibility); a loop's iter_args carry their initial values'
// facts. Masks: each value's constancy per dim, through cmpi, andi / ori / xori and select
// (§3.4.1).
#include <numeric>

#include "tfspec/frontends/triton/lower.hpp"

namespace tfspec::triton {
namespace {

constexpr int64_t kBig = ValueFacts::kWhole;

int64_t pow2_factor(int64_t v) { return v == 0 ? kBig : std::min<int64_t>(kBig, v & -v); }

ValueFacts unknown(size_t rank) { return ValueFacts{std::vector<bool>(rank, false), -1, 1, 1, std::vector<int64_t>(rank, 1)}; }
ValueFacts constant(size_t rank, int64_t div) { return ValueFacts{std::vector<bool>(rank, true), -1, 1, div, std::vector<int64_t>(rank, kBig)}; }

int64_t constancy(const ValueFacts& v, size_t d) { return d < v.constancy.size() ? v.constancy[d] : 1; }

// Per dim, the gcd of the operands' constancies (Triton's rule for add, mul and the logical ops).
std::vector<int64_t> gcd_constancy(const std::vector<const ValueFacts*>& xs, size_t rank) {
  std::vector<int64_t> c(rank, kBig);
  for (size_t d = 0; d < rank; ++d)
    for (const ValueFacts* x : xs) c[d] = std::gcd(c[d], constancy(*x, d));
  return c;
}

size_t rank_of(const Op& op) { return op.out_types.empty() ? (op.in_types.empty() ? 0 : op.in_types.back().shape.size()) : op.out_types[0].shape.size(); }

ValueFacts add(const ValueFacts& x, const ValueFacts& y) {
  ValueFacts r = unknown(x.constant.size());
  if (x.constant.size() != y.constant.size()) return r;
  for (size_t d = 0; d < r.constant.size(); ++d) r.constant[d] = x.constant[d] && y.constant[d];
  r.divisibility = std::gcd(x.divisibility, y.divisibility);
  for (const auto& [a, b] : {std::pair{&x, &y}, {&y, &x}})
    if (a->contiguous_dim >= 0 && b->constant[static_cast<size_t>(a->contiguous_dim)]) r.contiguous_dim = a->contiguous_dim, r.contiguity = a->contiguity;
  r.constancy = gcd_constancy({&x, &y}, r.constant.size());
  return r;
}

ValueFacts mul(const ValueFacts& x, const ValueFacts& y, bool y_is_one, bool x_is_one) {
  if (y_is_one) return x;
  if (x_is_one) return y;
  ValueFacts r = unknown(x.constant.size());
  if (x.constant.size() != y.constant.size()) return r;
  for (size_t d = 0; d < r.constant.size(); ++d) r.constant[d] = x.constant[d] && y.constant[d];
  r.divisibility = std::min(kBig, x.divisibility * y.divisibility);
  r.constancy = gcd_constancy({&x, &y}, r.constant.size());
  return r;
}

// §3.4.1 a comparison's constancy along d (Triton's axis analysis, in our words): where both sides
// repeat, the gcd of their runs; and where one side is constant along the whole dim and the other
// runs contiguously, the comparison `x < c` (or `x >= c`, and `c > x`, `c <= x`) can only change
// value at a multiple of the gcd of the run's contiguity and both sides' divisibilities.
ValueFacts compare(const ValueFacts& x, const ValueFacts& y, const std::string& pred, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  ValueFacts r = unknown(rank);
  if (x.constancy.size() != rank || y.constancy.size() != rank) return r;
  const bool lt_ge = pred == "slt" || pred == "ult" || pred == "sge" || pred == "uge";
  const bool gt_le = pred == "sgt" || pred == "ugt" || pred == "sle" || pred == "ule";
  for (size_t d = 0; d < rank; ++d) {
    int64_t c = std::gcd(constancy(x, d), constancy(y, d));
    const auto run = [&](const ValueFacts& v, const ValueFacts& k) {
      const int64_t contig = v.contiguous_dim == static_cast<int>(d) ? v.contiguity : 1;
      return std::gcd(std::gcd(contig, v.divisibility), k.divisibility);
    };
    if (lt_ge && constancy(y, d) >= shape[d]) c = std::max(c, run(x, y));
    else if (gt_le && constancy(x, d) >= shape[d]) c = std::max(c, run(y, x));
    r.constancy[d] = c;
    r.constant[d] = c >= shape[d];
  }
  return r;
}

// tt.reshape (row-major): a contiguous run along d stays one along the result's dim d' with the
// same stride (the product of the dims after it) when the run fits d' whole; constancy likewise.
ValueFacts reshape(const ValueFacts& x, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  ValueFacts r = unknown(to.size());
  r.divisibility = x.divisibility;
  auto strides = [](const std::vector<int64_t>& s) {
    std::vector<int64_t> st(s.size(), 1);
    for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
  };
  const std::vector<int64_t> sf = strides(from), st = strides(to);
  if (x.constancy.size() != from.size()) return r;
  for (size_t e = 0; e < to.size(); ++e) {
    if (to[e] == 1) {
      r.constancy[e] = kBig, r.constant[e] = true;
      continue;
    }
    for (size_t d = 0; d < from.size(); ++d) {
      if (sf[d] != st[e] || from[d] == 1) continue;
      if (to[e] % std::min(constancy(x, d), from[d]) == 0) r.constancy[e] = std::min(constancy(x, d), to[e]), r.constant[e] = x.constant[d] && from[d] == to[e];
      if (x.contiguous_dim == static_cast<int>(d) && to[e] % x.contiguity == 0) r.contiguous_dim = static_cast<int>(e), r.contiguity = x.contiguity;
    }
  }
  return r;
}

// One op's result facts from its operands' (absent operands: unknown).
ValueFacts facts_of(const Op& op, const std::map<std::string, ValueFacts>& f, const std::map<std::string, int64_t>& consts) {
  const size_t rank = rank_of(op);
  auto in = [&](size_t i) { auto it = i < op.operands.size() ? f.find(op.operands[i]) : f.end(); return it == f.end() ? unknown(rank) : it->second; };
  auto is_one = [&](size_t i) { auto it = i < op.operands.size() ? consts.find(op.operands[i]) : consts.end(); return it != consts.end() && it->second == 1; };
  // the result's shape: an op printed with one type (`arith.cmpi ... : tensor<...>`) has it as its operands'
  const std::vector<int64_t> out_shape = !op.out_types.empty() ? op.out_types[0].shape : op.in_types.empty() ? std::vector<int64_t>{} : op.in_types.back().shape;
  if (op.name == "tt.make_range") {
    const int64_t start = op.attrs.count("start") ? op.attrs.at("start") : 0, end = op.attrs.count("end") ? op.attrs.at("end") : 1;
    return ValueFacts{{false}, 0, end - start, pow2_factor(start), {1}};
  }
  if (op.name == "tt.splat") return constant(rank, in(0).divisibility);
  if (op.name == "tt.broadcast") {
    ValueFacts r = in(0);
    const std::vector<int64_t> from = op.in_types.empty() ? std::vector<int64_t>{} : op.in_types[0].shape;
    r.constant.resize(rank, true);
    r.constancy.resize(rank, kBig);
    for (size_t d = 0; d < rank && d < from.size(); ++d)
      if (from[d] == 1) r.constant[d] = true, r.constancy[d] = kBig;
    return r;
  }
  if (op.name == "tt.expand_dims" && op.attrs.count("axis")) {
    ValueFacts r = in(0);
    const int axis = static_cast<int>(op.attrs.at("axis"));
    r.constant.insert(r.constant.begin() + std::min<size_t>(axis, r.constant.size()), true);
    r.constancy.insert(r.constancy.begin() + std::min<size_t>(axis, r.constancy.size()), kBig);
    if (r.contiguous_dim >= axis) ++r.contiguous_dim;
    return r;
  }
  if (op.name == "arith.addi" || op.name == "tt.addptr") return add(in(0), in(1));
  if (op.name == "arith.muli") return mul(in(0), in(1), is_one(1), is_one(0));
  if (op.name == "arith.extsi" || op.name == "arith.extui") return in(0);  // a wider integer: the same values
  if (op.name == "tt.reshape" && !op.in_types.empty() && !out_shape.empty()) return reshape(in(0), op.in_types[0].shape, out_shape);
  if (op.name == "arith.cmpi" && op.operands.size() >= 2 && out_shape.size() == rank && rank > 0) return compare(in(0), in(1), op.predicate, out_shape);
  if ((op.name == "arith.andi" || op.name == "arith.ori" || op.name == "arith.xori") && op.operands.size() >= 2) {
    ValueFacts r = unknown(rank);
    const ValueFacts x = in(0), y = in(1);
    r.constancy = gcd_constancy({&x, &y}, rank);
    for (size_t d = 0; d < rank; ++d) r.constant[d] = x.constant.size() > d && y.constant.size() > d && x.constant[d] && y.constant[d];
    return r;
  }
  if (op.name == "arith.select" && op.operands.size() >= 3) {
    ValueFacts r = unknown(rank);
    const ValueFacts c = in(0), x = in(1), y = in(2);
    r.constancy = gcd_constancy({&c, &x, &y}, rank);
    return r;
  }
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
      // the induction variable is lb + j * s: a multiple of what divides both (Triton's axis
      // analysis takes the same gcd)
      const auto div = [&](size_t k) { return k < op.operands.size() && f.count(op.operands[k]) ? f[op.operands[k]].divisibility : int64_t{1}; };
      if (op.operands.size() >= 4) f[op.operands[0]] = constant(0, std::gcd(div(1), div(3)));
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
    if (op.name == "arith.constant") {  // another constant (a float, a boolean): the same everywhere
      f[op.results[0]] = constant(rank_of(op), 1);
      continue;
    }
    f[op.results[0]] = facts_of(op, f, consts);
  }
  return f;
}

}  // namespace tfspec::triton
