// Check 4, bounds and global accesses (spec/KERNEL.md): the conditions under which the
// unpredicated tile copies stay inside the global tensors and move aligned, contiguous vectors.
// Each condition is `X % d == 0`; a concrete X is decided here, a symbolic one by the prover's
// `divides` goal under the description's assumptions (PROVED, REFUTED with a counterexample the
// reference replayed, or UNKNOWN: never a guess).
#include <algorithm>
#include <map>

#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/solver/prove.hpp"

namespace tfspec::kernel {
namespace {

struct Condition {
  ShapeDim n;
  int64_t d;
  std::string why;  // who needs it
};

std::string condition_text(const Condition& c) {
  const std::string n = to_string(c.n);
  const bool simple = n.find_first_of("+-*/% ") == std::string::npos;
  return (simple ? n : "(" + n + ")") + " % " + std::to_string(c.d) + " == 0";
}

Finding decide(const Condition& c, const Pipeline& p, const KernelOptions& o) {
  Finding f{"bounds", condition_text(c), Outcome::Ok, nullptr, "", {{"condition", condition_text(c)}, {"needed_by", c.why}}};
  if (auto v = const_value(c.n)) {
    if (*v % c.d == 0) {
      f.message = "holds (" + std::to_string(*v) + " = " + std::to_string(*v / c.d) + " x " + std::to_string(c.d) + "); needed by " + c.why;
      return f;
    }
    f.outcome = Outcome::Violation;
    f.rule = &rule::kKernelBounds;
    f.message = "fails: " + std::to_string(*v) + " is not a multiple of " + std::to_string(c.d) + "; needed by " + c.why;
    return f;
  }
  solver::ProveOptions po;
  po.assume = p.assume;
  po.timeout_ms = o.prove_timeout_ms;
  const solver::ProveResult r = solver::prove_divides(c.n, dim_const(c.d), po);
  f.detail["verdict"] = solver::to_string(r.verdict);
  std::string assumed;
  for (const std::string& a : r.assumptions) assumed += (assumed.empty() ? "" : ", ") + a;
  if (r.verdict == solver::Verdict::Proved) {
    f.message = "proved (" + r.method + ") under " + assumed + "; needed by " + c.why;
  } else if (r.verdict == solver::Verdict::Refuted) {
    f.outcome = Outcome::Violation;
    f.rule = &rule::kKernelBounds;
    f.message = "required, and the assumptions (" + assumed + ") allow a counterexample: " + r.counterexample_text + "; needed by " + c.why +
                " (assume it, or predicate the copy)";
    f.detail["counterexample"] = r.counterexample;
  } else {
    f.outcome = Outcome::Undecided;
    f.rule = &rule::kKernelBoundsUndecided;
    f.message = "required, neither proved nor refuted: " + r.reason + "; needed by " + c.why;
  }
  return f;
}

ShapeDim leaf_dim(const IntTuple& t, size_t i, const std::string& path, const char* what) {
  const IntTuple& leaf = t[i];
  if (!leaf.is_leaf() || leaf.is_none()) fail(rule::kKernelInput, path + ": the " + what + " of mode " + std::to_string(i) + " is one integer or expression", path);
  return leaf.as_dim();
}

// A copy's global side: each access of `vector` values runs along one mode with stride 1 and
// starts at a multiple of `vector` for every tile; the other mode's stride must then be a
// multiple of `vector` (a condition). The tensor's own base is taken to be aligned.
std::optional<Finding> global_access(const TiledCopy& c, const Layout& g, char tensor, int64_t rows, int64_t cols, int64_t bits,
                                     std::vector<Condition>& conds) {
  const std::string subject = (c.path == "epilogue" ? std::string("C epilogue") : std::string(1, tensor) + " g2s") + " (global)";
  const Partition part = copy_partition(c, rows, cols);
  const int64_t vector = c.atom_bits / bits;
  const std::string gpath = "global." + std::string(1, tensor);
  const std::array<int64_t, 2> tile = {rows, cols};
  std::array<bool, 2> along = {false, false};
  for (int64_t t = 0; t < part.threads; ++t)
    for (int64_t x = 0; x < part.values; x += vector) {
      const int64_t e0 = part.at(t, x);
      if (e0 < 0) return std::nullopt;  // coverage names it
      const int64_t r0 = e0 % rows, c0 = e0 / rows;
      const int mode = vector == 1 || part.at(t, x + 1) == e0 + 1 ? 0 : 1;
      const std::string at = "thread " + std::to_string(t) + " value " + std::to_string(x);
      for (int64_t j = 1; j < vector; ++j)
        if (part.at(t, x + j) != (mode == 0 ? e0 + j : e0 + j * rows))
          return Finding{"global", subject, Outcome::Violation, &rule::kKernelGlobalAccess,
                         at + ": its " + std::to_string(vector) + " values are not consecutive along one mode of the tile (value " + std::to_string(x + j) + " is " +
                             element_name(tensor, part.at(t, x + j), rows) + ")",
                         {{"thread", t}, {"value", x + j}}};
      const int64_t start = mode == 0 ? r0 : c0;
      if (vector > 1 && (start % vector != 0 || tile[static_cast<size_t>(mode)] % vector != 0))
        return Finding{"global", subject, Outcome::Violation, &rule::kKernelGlobalAccess,
                       at + ": the access starts at " + element_name(tensor, e0, rows) + ", not a multiple of " + std::to_string(vector) + " elements along its mode",
                       {{"thread", t}, {"value", x}}};
      along[static_cast<size_t>(mode)] = along[static_cast<size_t>(mode)] || vector > 1;
    }
  for (size_t m = 0; m < 2; ++m) {
    if (!along[m]) continue;
    const ShapeDim stride = leaf_dim(g.stride(), m, gpath, "stride");
    if (const_value(stride) != 1)
      return Finding{"global", subject, Outcome::Violation, &rule::kKernelGlobalAccess,
                     "the " + std::to_string(c.atom_bits) + "-bit accesses run along mode " + std::to_string(m) + " of " + to_string(g) + ", whose stride is " +
                         to_string(stride) + ", not 1",
                     {{"mode", m}}};
    conds.push_back({leaf_dim(g.stride(), 1 - m, gpath, "stride"), vector, subject + "'s " + std::to_string(c.atom_bits) + "-bit alignment"});
  }
  return Finding{"global", subject, Outcome::Ok, nullptr,
                 std::to_string(c.atom_bits) + "-bit accesses, contiguous in " + to_string(g) + (conds.empty() ? "" : ", aligned where the bounds conditions hold"),
                 Json::object()};
}

// A TMA load's global side (spec/KERNEL.md "TMA loads"): the tensor map's innermost dimension is
// the stride-1 mode and its other stride is a multiple of 16 bytes; out-of-range box elements are
// filled with zeros, so the tile needs no extent condition.
std::optional<Finding> tma_global(const Operand& o, std::vector<Condition>& conds) {
  const std::string subject = std::string(1, o.name) + " g2s (global)", gpath = "global." + std::string(1, o.name);
  for (size_t m = 0; m < 2; ++m)
    if (const_value(leaf_dim(o.global.stride(), m, gpath, "stride")) == 1) {
      const int64_t per16 = std::max<int64_t>(1, 128 / o.bits);
      if (per16 > 1) conds.push_back({leaf_dim(o.global.stride(), 1 - m, gpath, "stride"), per16, subject + "'s TMA stride (a multiple of 16 bytes)"});
      return Finding{"global", subject, Outcome::Ok, nullptr,
                     "TMA: innermost dimension mode " + std::to_string(m) + " of " + to_string(o.global) +
                         ", the other stride a multiple of 16 bytes where the bounds conditions hold; out-of-range elements are zero-filled (no tile condition)",
                     Json::object()};
    }
  return std::nullopt;  // the box check names it
}

void extent_conditions(const Layout& g, char tensor, std::array<int64_t, 2> tile, std::array<const char*, 2> names, std::vector<Condition>& conds) {
  for (size_t m = 0; m < 2; ++m)
    conds.push_back({leaf_dim(g.shape_ref(), m, "global." + std::string(1, tensor), "extent"), tile[m],
                     std::string("the unpredicated ") + tensor + " tiles (" + names[m] + " = " + std::to_string(tile[m]) + ")"});
}

}  // namespace

void check_bounds(const Pipeline& p, const KernelOptions& o, std::vector<Finding>& out) {
  std::vector<Condition> conds;
  if (!p.a.tma && !p.a.predicated) extent_conditions(p.a.global, 'A', {p.bm, p.bk}, {"BM", "BK"}, conds);
  if (!p.b.tma && !p.b.predicated) extent_conditions(p.b.global, 'B', {p.bn, p.bk}, {"BN", "BK"}, conds);
  if (!p.epilogue_predicated) extent_conditions(p.global_c, 'C', {p.bm, p.bn}, {"BM", "BN"}, conds);
  for (const auto& [name, on] : {std::pair{'A', p.a.predicated}, std::pair{'B', p.b.predicated}, std::pair{'C', p.epilogue_predicated}})
    if (on)
      out.push_back({"bounds", std::string(1, name) + " extents", Outcome::Ok, nullptr,
                     std::string("no condition: the ") + name + " copies are predicated, so a tile may run past the global extents", Json::object()});
  for (const Operand* op : {&p.a, &p.b})
    if (auto f = op->tma ? tma_global(*op, conds) : global_access(op->g2s, op->global, op->name, op->name == 'A' ? p.bm : p.bn, p.bk, op->bits, conds))
      out.push_back(std::move(*f));
  if (p.epilogue)
    if (auto f = global_access(*p.epilogue, p.global_c, 'C', p.bm, p.bn, p.bits_c, conds)) out.push_back(std::move(*f));
  // One finding per distinct condition, its users joined.
  std::vector<Condition> merged;
  std::map<std::string, size_t> seen;
  for (const Condition& c : conds) {
    auto [it, fresh] = seen.emplace(condition_text(c), merged.size());
    if (fresh) merged.push_back(c);
    else if (merged[it->second].why.find(c.why) == std::string::npos) merged[it->second].why += ", " + c.why;
  }
  for (const Condition& c : merged) out.push_back(decide(c, p, o));
}

}  // namespace tfspec::kernel
