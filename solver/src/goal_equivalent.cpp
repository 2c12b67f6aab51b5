// §3 equivalence: two layouts are the same function on the same domain, i.e. equal sizes and
// A(i) == B(i) for every linear index i in [0, size) (colexicographic, D1), so that coalesce(L)
// and L compare equal although their shapes differ.
#include "engine.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/symbolic.hpp"

namespace tfspec::solver {
namespace {

// Coordinates x_i in [0, s_i), their colexicographic index and offset.
struct Point {
  std::vector<z3::expr> x;
  z3::expr index, offset;
};

Point point(z3::context& ctx, const FlatModes& f, const std::string& tag, std::vector<z3::expr>& constraints) {
  Point p{{}, ctx.int_val(0), ctx.int_val(0)};
  z3::expr scale = ctx.int_val(1);
  for (size_t i = 0; i < f.shape.size(); ++i) {
    z3::expr xi = ctx.int_const(("crd!" + tag + "!" + std::to_string(i)).c_str());
    constraints.push_back(xi >= 0 && xi < f.shape[i]);
    p.index = p.index + xi * scale;
    p.offset = p.offset + xi * f.stride[i];
    scale = scale * f.shape[i];
    p.x.push_back(xi);
  }
  return p;
}

constexpr int64_t kMaxCompare = int64_t{1} << 20;  // concrete comparison, point by point

// The function of a layout is its flat modes in colexicographic order (D1); a mode of extent 1
// adds only offset 0. Two layouts whose flat modes of extent other than 1 have equal normal
// forms, one by one, are the same function for every value of the symbols (issue 37: `prove
// equivalent L L` answered UNKNOWN for a textually identical symbolic L).
std::vector<std::pair<std::string, std::string>> function_modes(const Layout& l) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto shape = flat_leaves(l.shape_ref()), stride = flat_leaves(l.stride());
  for (size_t i = 0; i < shape.size() && i < stride.size(); ++i) {
    const std::string s = shape[i].is_sym() ? to_string(normalize(shape[i].as_dim())) : to_string(shape[i]);
    if (s == "1") continue;
    out.emplace_back(s, stride[i].is_sym() ? to_string(normalize(stride[i].as_dim())) : to_string(stride[i]));
  }
  return out;
}

}  // namespace

ProveResult prove_equivalent(const Layout& a, const Layout& b, const ProveOptions& o) {
  z3::context ctx;
  Budget budget(ctx, o.timeout_ms, o.clock);
  Encoder enc(ctx);
  FlatModes fa = flat_modes(enc, a, "a"), fb = flat_modes(enc, b, "b");
  GoalSpec g = two_layout_goal("equivalent", "§3", a, b, fa, fb);
  std::vector<z3::expr> in_domain;
  Point pa = point(ctx, fa, "a", in_domain), pb = point(ctx, fb, "b", in_domain);
  z3::expr differ = pa.index == pb.index && pa.offset != pb.offset;
  for (const auto& c : in_domain) differ = differ && c;
  g.negated.push_back(product(ctx, fa.shape) != product(ctx, fb.shape) || differ);
  const bool same_modes = function_modes(a) == function_modes(b);
  g.structural = [same_modes](const std::vector<z3::expr>&, Budget&, const LowerBounds&) -> std::optional<std::string> {
    if (same_modes) return "structural";
    return std::nullopt;
  };

  auto report = [](const Bindings& bs, const Layout& ca, const Layout& cb, std::optional<int64_t> idx) {
    Counterexample cx;
    cx.json = Json{{"symbols", bindings_json(bs)}, {"a", to_string(ca)}, {"b", to_string(cb)}};
    cx.text = at(bs) + "the layouts are " + to_string(ca) + " and " + to_string(cb) + ": ";
    if (!idx) {
      cx.json["sizes"] = Json::array({ca.size(), cb.size()});
      cx.text += "their domains differ (sizes " + std::to_string(ca.size()) + " and " + std::to_string(cb.size()) + ")";
    } else {
      cx.json["index"] = *idx;
      cx.json["offsets"] = Json::array({ca(*idx), cb(*idx)});
      cx.text += "index " + std::to_string(*idx) + " maps to " + std::to_string(ca(*idx)) + " and " + std::to_string(cb(*idx));
    }
    return cx;
  };
  auto compare = [&, report](const Bindings& bs, std::optional<int64_t> hint) -> std::optional<Counterexample> {
    Layout ca = substitute(a, bs), cb = substitute(b, bs);
    if (ca.size() != cb.size()) return report(bs, ca, cb, std::nullopt);
    if (hint) {
      if (*hint >= 0 && *hint < ca.size() && ca(*hint) != cb(*hint)) return report(bs, ca, cb, hint);
      return std::nullopt;
    }
    if (ca.size() > kMaxCompare) fail(rule::kProveUndecided, "equivalence of layouts of size " + std::to_string(ca.size()) + " is not enumerated");
    for (int64_t i = 0; i < ca.size(); ++i)
      if (ca(i) != cb(i)) return report(bs, ca, cb, i);
    return std::nullopt;
  };
  g.replay = [&, compare](const z3::model& m, const Bindings& bs) -> std::optional<Counterexample> {
    Layout ca = substitute(a, bs);
    std::vector<int64_t> xs;
    for (const auto& xi : pa.x) {
      auto v = model_int(m, xi);
      if (!v) fail(rule::kProveUndecided, "a coordinate of the model leaves int64");
      xs.push_back(*v);
    }
    Layout cb = substitute(b, bs);
    if (ca.size() != cb.size()) return compare(bs, std::nullopt);
    return compare(bs, colex_index(xs, ca));
  };
  g.concrete = [compare](const Bindings& bs) { return compare(bs, std::nullopt); };
  return run_goal(enc, g, o, budget);
}

}  // namespace tfspec::solver
