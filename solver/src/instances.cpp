#include "tfspec/solver/instances.hpp"

#include <algorithm>

namespace tfspec::solver {
namespace {

// The values a symbol takes in the pool: small ones, primes, powers of two and their neighbours,
// and for each constant c of the problem c-1, c, c+1, 2c, 3c, 4c (a divisor's multiples and the
// values on each side of a bound).
std::vector<int64_t> candidate_values(const std::set<int64_t>& constants) {
  std::set<int64_t> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 23, 24, 31, 32, 33, 48, 64, 96, 127, 128, 129, 192, 256, 257, 384, 512, 1024};
  for (int64_t c : constants)
    for (int64_t x : {c - 1, c, c + 1, 2 * c, 3 * c, 4 * c})
      if (x >= 1 && x <= (int64_t{1} << 40)) v.insert(x);
  return {v.begin(), v.end()};
}

bool in_bounds(const Assumptions& a, const std::string& s, int64_t x) {
  auto it = a.bounds.find(s);
  if (it == a.bounds.end()) return x >= 1;
  return (!it->second.lo || x >= *it->second.lo) && (!it->second.hi || x <= *it->second.hi);
}

}  // namespace

void constants_of(const ShapeDim& d, std::set<int64_t>& out) {
  if (d->op == ExprNode::Op::Const) {
    if (d->value >= 1 && d->value <= (int64_t{1} << 40)) out.insert(d->value);
    return;
  }
  if (d->op == ExprNode::Op::Var) return;
  constants_of(d->lhs, out);
  constants_of(d->rhs, out);
}

std::set<int64_t> problem_constants(const Assumptions& a) {
  std::set<int64_t> out;
  for (const auto& r : a.relations) {
    constants_of(r.lhs, out);
    constants_of(r.rhs, out);
  }
  return out;
}

std::vector<Bindings> sample_instances(const Assumptions& a, const std::set<int64_t>& constants, size_t cap) {
  const std::vector<std::string> names(a.symbols.begin(), a.symbols.end());
  std::vector<std::vector<int64_t>> values;
  for (const auto& s : names) {
    std::vector<int64_t> v;
    for (int64_t x : candidate_values(constants))
      if (in_bounds(a, s, x)) v.push_back(x);
    for (const auto& [name, b] : a.bounds)  // a bound's own value, where the user set one below 1
      if (name == s && b.lo && *b.lo < 1) v.insert(v.begin(), *b.lo);
    if (v.empty() && a.bounds.count(s) && a.bounds.at(s).lo) v.push_back(*a.bounds.at(s).lo);
    if (v.empty()) return {};
    values.push_back(std::move(v));
  }
  std::vector<Bindings> out;
  std::set<std::vector<int64_t>> seen;
  auto consider = [&](const std::vector<int64_t>& pick) {
    if (!seen.insert(pick).second) return;
    Bindings b;
    for (size_t i = 0; i < names.size(); ++i) b[names[i]] = pick[i];
    if (holds(a, b)) out.push_back(std::move(b));
  };
  // every combination while there are few; then the small values' combinations and a fixed
  // pseudo-random draw (an LCG: the pool is the same on every run and machine)
  double total = 1;
  for (const auto& v : values) total *= static_cast<double>(v.size());
  std::vector<size_t> idx(names.size(), 0);
  const bool all = total <= static_cast<double>(cap) * 4;
  for (bool more = true; more;) {
    std::vector<int64_t> pick;
    bool small = true;
    for (size_t i = 0; i < names.size(); ++i) {
      pick.push_back(values[i][idx[i]]);
      small = small && idx[i] < 8;
    }
    if (all || small) consider(pick);
    more = false;
    for (size_t i = 0; i < idx.size() && !more; ++i) {
      if (++idx[i] < (all ? values[i].size() : std::min<size_t>(values[i].size(), 8))) more = true;
      else idx[i] = 0;
    }
    if (out.size() >= cap) break;
  }
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t tries = 0; !all && out.size() < cap && tries < cap * 20; ++tries) {
    std::vector<int64_t> pick;
    for (const auto& v : values) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      pick.push_back(v[(state >> 33) % v.size()]);
    }
    consider(pick);
  }
  return out;
}

}  // namespace tfspec::solver
