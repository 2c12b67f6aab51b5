// The per-op rules (spec/PROPAGATION.md "Op rules" and "Partial table") and the resolution of one
// op on one mesh axis. Factor rules follow Shardy's OpShardingRule; the Partial table is the one
// place that says which reductions an op commutes with (each entry proved or refuted there).
#include <algorithm>
#include <map>
#include <set>

#include "tfspec/propagation/propagation.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::propagation {
namespace {

bool elementwise(OpKind k) {
  switch (k) {
    case OpKind::Neg: case OpKind::Scale: case OpKind::Exp: case OpKind::Relu: case OpKind::Add: case OpKind::Sub: case OpKind::Mul:
    case OpKind::Max: case OpKind::Reshard:
      return true;
    default: return false;
  }
}

std::string flip(const std::string& r) { return r == "max" ? "min" : r == "min" ? "max" : r; }

// A split of factor f whose digit range starts at L (within the factor).
struct FactorSplit {
  int factor;
  int64_t lo;
};

std::optional<FactorSplit> to_factor(const OpRule& rule, const std::vector<DimFactor>& dims, const AxisState& s) {
  if (s.kind != AxisState::Split || s.dim < 0 || s.dim >= static_cast<int>(dims.size())) return std::nullopt;
  const DimFactor& df = dims[s.dim];
  if (rule.factors[df.factor].kind == FactorKind::NeedReplication) return std::nullopt;
  return FactorSplit{df.factor, checked_mul(s.lo, df.offset)};
}

enum class Fit { Has, Lacks, Unmappable };
// Where a factor split lands on a tensor: the dim holding factor f whose digit range contains
// [lo, lo*n) aligned (§7.1.1: the split must be a factor of that dim).
Fit from_factor(const std::vector<DimFactor>& dims, const std::vector<int64_t>& shape, FactorSplit fs, int64_t n, AxisState& out) {
  bool has = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].factor != fs.factor) continue;
    has = true;
    const int64_t off = dims[d].offset;
    if (fs.lo % off != 0) continue;
    const int64_t lo = fs.lo / off;
    if (shape[d] % checked_mul(lo, n) != 0) continue;
    out = AxisState::split(static_cast<int>(d), lo);
    return Fit::Has;
  }
  return has ? Fit::Unmappable : Fit::Lacks;
}

// A set of operands to all-reduce, as sorted indices; fewer first, then lexicographically.
bool fewer_lower(const std::vector<size_t>& a, const std::vector<size_t>& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; }

// Every set a minimal fix needs to consider. The Partial table's answer depends only on which
// states occur among the operands (and, for the binary ops, at which of the two places): all-
// reducing a second operand of one class (the Partials of one reduction) changes nothing the
// first did not, except that all of them removes the class. So a minimal set takes from each
// class none, its lowest operand, or all of it: at most 3^3 sets, whatever the arity (a concat
// of 1,000 operands included). PartialTable.FewestAllReducesAgreeWithBruteForce checks this
// against every subset.
std::vector<std::vector<size_t>> all_reduce_sets(const std::vector<AxisState>& in) {
  std::map<std::string, std::vector<size_t>> classes;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i].kind == AxisState::Part) classes[in[i].reduction].push_back(i);
  std::vector<std::vector<size_t>> sets = {{}};
  for (const auto& [red, members] : classes) {
    std::vector<std::vector<size_t>> next;
    for (const auto& s : sets) {
      next.push_back(s);
      next.push_back(s), next.back().push_back(members.front());
      if (members.size() > 1) next.push_back(s), next.back().insert(next.back().end(), members.begin(), members.end());
    }
    sets = std::move(next);
  }
  for (auto& s : sets) std::sort(s.begin(), s.end());
  std::sort(sets.begin(), sets.end(), fewer_lower);
  return sets;
}

}  // namespace

std::optional<std::pair<std::vector<AxisState>, AxisState>> fewest_all_reduces(const OpNode& op, const std::vector<AxisState>& in) {
  for (const auto& set : all_reduce_sets(in)) {
    if (set.empty()) continue;
    auto trial = in;
    for (size_t i : set) trial[i] = AxisState::broadcast();
    PartialOutcome o = partial_rule(op, trial);
    if (o.result) return std::make_pair(std::move(trial), *o.result);
  }
  return std::nullopt;
}

namespace {

using Shapes = std::vector<std::vector<int64_t>>;

// Collects an op's factors (spec/PROPAGATION.md, "factors"); add() returns the new factor's index.
struct RuleBuilder {
  OpRule r;
  RuleBuilder(const Shapes& in, const std::vector<int64_t>& out) {
    r.operands.resize(in.size());
    for (size_t i = 0; i < in.size(); ++i) r.operands[i].resize(in[i].size());
    r.result.resize(out.size());
  }
  int add(int64_t size, FactorKind k, std::string red = {}) {
    r.factors.push_back({size, k, std::move(red)});
    return static_cast<int>(r.factors.size()) - 1;
  }
  // Dim d of every operand and of the result carry one pass-through factor.
  void shared(size_t d, int64_t size) {
    int f = add(size, FactorKind::PassThrough);
    for (auto& o : r.operands) o[d] = {f, 1};
    r.result[d] = {f, 1};
  }
};

// Batch dims and m, n pass through; k (contracted) reduces by sum.
void matmul_rule(RuleBuilder& b, const Shapes& in, const std::vector<int64_t>& out) {
  auto& r = b.r;
  const size_t rank = out.size();
  for (size_t d = 0; d + 2 < rank; ++d) b.shared(d, out[d]);
  int m = b.add(out[rank - 2], FactorKind::PassThrough), n = b.add(out[rank - 1], FactorKind::PassThrough);
  int k = b.add(in[0][rank - 1], FactorKind::Reduction, "sum");
  r.operands[0][rank - 2] = r.result[rank - 2] = {m, 1};
  r.operands[1][rank - 1] = r.result[rank - 1] = {n, 1};
  r.operands[0][rank - 1] = r.operands[1][rank - 2] = {k, 1};
}

void reduce_rule(RuleBuilder& b, const OpNode& op, const Shapes& in) {
  size_t next = 0;
  for (size_t d = 0; d < in[0].size(); ++d) {
    bool reduced = std::find(op.axes.begin(), op.axes.end(), static_cast<int64_t>(d)) != op.axes.end();
    int f = b.add(in[0][d], reduced ? FactorKind::Reduction : FactorKind::PassThrough, reduced ? op.reduction : "");
    b.r.operands[0][d] = {f, 1};
    if (!reduced) b.r.result[next++] = {f, 1};
  }
}

// One factor: the row-major flat index; a dim sits at its inner size.
void reshape_rule(RuleBuilder& b, const Shapes& in, const std::vector<int64_t>& out) {
  int f = b.add(num_elements(out), FactorKind::PassThrough);
  int64_t inner = 1;
  for (size_t d = in[0].size(); d-- > 0;) {
    b.r.operands[0][d] = {f, inner};
    inner *= in[0][d];
  }
  inner = 1;
  for (size_t d = out.size(); d-- > 0;) {
    b.r.result[d] = {f, inner};
    inner *= out[d];
  }
}

void slice_rule(RuleBuilder& b, const OpNode& op, const Shapes& in, const std::vector<int64_t>& out) {
  for (size_t d = 0; d < out.size(); ++d) {
    if (op.start[d] == 0 && op.limit[d] == in[0][d]) {
      b.r.operands[0][d] = b.r.result[d] = {b.add(out[d], FactorKind::PassThrough), 1};
    } else {
      b.r.operands[0][d] = {b.add(in[0][d], FactorKind::NeedReplication), 1};
      b.r.result[d] = {b.add(out[d], FactorKind::NeedReplication), 1};
    }
  }
}

// Operands of one extent e on the concat dim: the result dim is (k, e) row-major, and a split
// inside e (the same on every operand) stays a split inside e: each instance's local concat is the
// result's local block (P1). Otherwise the concat dim needs replication.
void concat_rule(RuleBuilder& b, const OpNode& op, const Shapes& in, const std::vector<int64_t>& out) {
  const bool equal = std::all_of(in.begin(), in.end(), [&](const std::vector<int64_t>& s) { return s[op.dim] == in[0][op.dim]; });
  for (size_t d = 0; d < out.size(); ++d) {
    if (static_cast<int64_t>(d) != op.dim || equal) {
      b.shared(d, static_cast<int64_t>(d) == op.dim ? in[0][d] : out[d]);
    } else {
      for (size_t i = 0; i < in.size(); ++i) b.r.operands[i][d] = {b.add(in[i][d], FactorKind::NeedReplication), 1};
      b.r.result[d] = {b.add(out[d], FactorKind::NeedReplication), 1};
    }
  }
}

}  // namespace

OpRule op_rule(const OpNode& op, const std::vector<std::vector<int64_t>>& in, const std::vector<int64_t>& out) {
  RuleBuilder b(in, out);
  auto& r = b.r;
  if (elementwise(op.kind)) {
    for (size_t d = 0; d < out.size(); ++d) b.shared(d, out[d]);
    return r;
  }
  switch (op.kind) {
    case OpKind::Matmul: matmul_rule(b, in, out); return r;
    case OpKind::Reduce: reduce_rule(b, op, in); return r;
    case OpKind::Transpose:
      for (size_t d = 0; d < in[0].size(); ++d) r.operands[0][d] = {b.add(in[0][d], FactorKind::PassThrough), 1};
      for (size_t i = 0; i < out.size(); ++i) r.result[i] = r.operands[0][op.perm[i]];
      return r;
    case OpKind::Reshape: reshape_rule(b, in, out); return r;
    case OpKind::BroadcastInDim:
      for (size_t d = 0; d < out.size(); ++d) r.result[d] = {b.add(out[d], FactorKind::PassThrough), 1};
      for (size_t i = 0; i < in[0].size(); ++i)
        r.operands[0][i] = in[0][i] == out[op.dims[i]] ? r.result[op.dims[i]] : DimFactor{b.add(in[0][i], FactorKind::PassThrough), 1};
      return r;
    case OpKind::Slice: slice_rule(b, op, in, out); return r;
    case OpKind::Concat: concat_rule(b, op, in, out); return r;
    default: break;
  }
  fail(rule::kInternal, "no factor rule for " + to_string(op.kind));
}

// spec/PROPAGATION.md "Partial table": each entry with its proof or counterexample there.
PartialOutcome partial_rule(const OpNode& op, const std::vector<AxisState>& in) {
  std::set<std::string> reds;
  std::vector<bool> part;
  for (const auto& s : in) {
    part.push_back(s.kind == AxisState::Part);
    if (part.back()) reds.insert(s.reduction);
  }
  if (reds.empty()) return {AxisState::broadcast(), nullptr, ""};
  const std::string name = to_string(op.kind);
  if (reds.size() > 1)
    return {std::nullopt, &rule::kPropagationPartialMismatch, name + ": Partial(" + *reds.begin() + ") meets Partial(" + *reds.rbegin() + ") on one mesh axis"};
  const std::string r = *reds.begin();
  const size_t k = std::count(part.begin(), part.end(), true);
  const bool all = k == in.size();
  auto ok = [](std::string red) { return PartialOutcome{AxisState::partial(std::move(red)), nullptr, ""}; };
  auto nonlinear = [&](const std::string& why) { return PartialOutcome{std::nullopt, &rule::kPropagationPartialNonlinear, name + " of Partial(" + r + "): " + why}; };
  auto with_broadcast = [&] {
    return PartialOutcome{std::nullopt, &rule::kPropagationPartialBroadcast, name + ": Partial(sum) with a Broadcast operand (each replica would be summed once per instance)"};
  };
  switch (op.kind) {
    case OpKind::Neg: return ok(flip(r));  // -sum = sum of -; -max = min of -
    case OpKind::Scale: return ok(r == "sum" || op.constant >= 0 ? r : flip(r));
    case OpKind::Exp: case OpKind::Relu:  // monotone: commutes with max and min, not with sum
      if (r == "sum") return nonlinear("not linear (relu(-1) + relu(1) = 1, relu(0) = 0)");
      return ok(r);
    case OpKind::Transpose: case OpKind::Reshape: case OpKind::BroadcastInDim: case OpKind::Slice: case OpKind::Reshard:
      return ok(r);  // each result element is one operand element
    case OpKind::Add: case OpKind::Sub:
      if (r == "sum") return all ? ok("sum") : with_broadcast();
      if (all) return nonlinear("max(a0+b0, a1+b1) is not max(a)+max(b) (a = (1,0), b = (0,1): 1 vs 2)");
      return ok(op.kind == OpKind::Sub && part[1] ? flip(r) : r);  // b - max(a) = min(b - a)
    case OpKind::Mul:
      if (r != "sum") return nonlinear("the other factor's sign is unknown (max(1,0) * -1 = -1, max(-1, 0) = 0)");
      if (all) return nonlinear("bilinear: (a0+a1)(b0+b1) is not a0 b0 + a1 b1");
      return ok("sum");
    case OpKind::Max:
      if (r == "sum") return nonlinear("with a = (0,2), b = (2,0): max(a0+a1, b0+b1) = 2, max(a0,b0) + max(a1,b1) = 4");
      if (r == "max" || !all) return ok(r);
      return nonlinear("max(min(a), min(b)) is not min(max(a_i, b_i)) (a = (0,5), b = (5,0): 0 vs 5)");
    case OpKind::Matmul:
      if (r != "sum") return nonlinear("a sum of products does not commute with " + r);
      if (all) return nonlinear("bilinear: (A0+A1)(B0+B1) is not A0 B0 + A1 B1");
      return ok("sum");
    case OpKind::Reduce:
      if (r == op.reduction) return ok(r);
      return nonlinear("reduce " + op.reduction + " does not commute with " + r + " (reduce sum of Partial(max) (1,0),(0,1): 2 vs 1)");
    case OpKind::Concat:
      if (r == "sum" && !all) return with_broadcast();
      return ok(r);  // max and min are idempotent: a replica is a valid contribution
    default: break;
  }
  return nonlinear("no rule");
}

Resolution resolve(const OpNode& op, const OpRule& rule, const std::vector<std::vector<int64_t>>& shapes, const std::vector<int64_t>& rshape, int64_t n,
                   const std::vector<AxisState>& in, const AxisState& result, const std::vector<bool>& user) {
  const size_t m = in.size();
  Resolution res{in, result, std::nullopt};
  if (op.kind == OpKind::Reshard) {  // the explicit collective: any operand, the target as given
    res.result = result.kind == AxisState::Dyn ? in[0] : result;
    return res;
  }
  // Candidate leading splits: user-annotated operands first, then the others, then the result.
  std::vector<int> order;
  for (size_t i = 0; i < m; ++i)
    if (user[i]) order.push_back(static_cast<int>(i));
  for (size_t i = 0; i < m; ++i)
    if (!user[i]) order.push_back(static_cast<int>(i));
  order.push_back(-1);
  auto dims_of = [&](int t) -> const std::vector<DimFactor>& { return t < 0 ? rule.result : rule.operands[t]; };
  auto shape_of = [&](int t) -> const std::vector<int64_t>& { return t < 0 ? rshape : shapes[t]; };
  auto state_of = [&](int t) -> const AxisState& { return t < 0 ? result : in[t]; };
  std::optional<FactorSplit> lead;
  std::vector<bool> stranded(m + 1, false);  // a split no viable configuration keeps
  for (int t : order) {
    auto fs = to_factor(rule, dims_of(t), state_of(t));
    if (!fs) {
      if (state_of(t).kind == AxisState::Split) stranded[t < 0 ? m : t] = true;
      continue;
    }
    bool viable = true;
    AxisState ignored;
    for (int u = -1; u < static_cast<int>(m); ++u) viable &= from_factor(dims_of(u), shape_of(u), *fs, n, ignored) != Fit::Unmappable;
    if (!viable) {
      stranded[t < 0 ? m : t] = true;
      continue;
    }
    if (!lead) lead = fs;
  }
  PartialOutcome po;
  if (lead) {
    const Factor& f = rule.factors[lead->factor];
    for (size_t i = 0; i < m; ++i) {
      AxisState s;
      res.operands[i] = from_factor(rule.operands[i], shapes[i], *lead, n, s) == Fit::Has ? s : AxisState::broadcast();
    }
    AxisState s;
    res.result = from_factor(rule.result, rshape, *lead, n, s) == Fit::Has ? s
                 : f.kind == FactorKind::Reduction           ? AxisState::partial(f.reduction)
                                                             : AxisState::broadcast();
  } else {
    for (size_t i = 0; i < m; ++i)
      if (in[i].kind == AxisState::Split) res.operands[i] = AxisState::broadcast();
    po = partial_rule(op, res.operands);
    if (po.result) {
      res.result = *po.result;
    } else {  // all-reduce the fewest Partial operands (lowest indices first) that make the op exact
      auto fix = fewest_all_reduces(op, res.operands);
      if (!fix) fail(rule::kInternal, "no all-reduce makes " + to_string(op.kind) + " exact");
      res.operands = std::move(fix->first);
      res.result = fix->second;
    }
  }
  // The conflict, if the given states are not the needed ones: the first operand that differs.
  for (size_t i = 0; i < m && !res.conflict; ++i) {
    if (res.operands[i] == in[i]) continue;
    const RuleId* id = stranded[i]                        ? &rule::kPropagationSplitReplicated
                       : !lead && po.rule                 ? po.rule
                       : in[i].kind == AxisState::Part    ? &rule::kPropagationPartialMismatch
                                                          : &rule::kPropagationSplitConflict;
    std::string why = id == po.rule ? po.message
                                    : to_string(op.kind) + ": operand " + std::to_string(i) + " (" + op.operands[i] + ") is " + to_string(in[i]) + ", the op needs " +
                                          to_string(res.operands[i]) + (stranded[i] ? " (its split dim is sliced, concatenated or regrouped across)" : "");
    res.conflict = Conflict{id, static_cast<int>(i), why};
  }
  if (!res.conflict && result.kind != AxisState::Dyn && !(result == res.result))
    res.conflict = Conflict{stranded[m] ? &rule::kPropagationSplitReplicated : &rule::kPropagationSplitConflict, -1,
                            to_string(op.kind) + ": the result " + op.result + " was given " + to_string(result) + " by its uses, the operands give " + to_string(res.result)};
  return res;
}

}  // namespace tfspec::propagation
