// Differential fuzzing of an implementation against the reference over the protocol.
#include "tfspec/conformance/fuzz.hpp"

#include <chrono>
#include <iostream>

#include <rapidcheck.h>
#include <rapidcheck/Check.h>
#include <rapidcheck/detail/Configuration.h>

#include "tfspec/props/layout_gen.hpp"
#include "tfspec/props/seeds.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/catalogue.hpp"

namespace tfspec::conformance {
namespace {

rc::Gen<Layout> gen_gapped_injective(const IntTuple& shape, const std::vector<int64_t>& leaves);

// Leaves in colexicographic order, rebuilt into the shape's tree.
IntTuple with_leaves(const IntTuple& shape, const std::vector<int64_t>& values, size_t& at) {
  if (shape.is_leaf()) return IntTuple(values[at++]);
  std::vector<IntTuple> c;
  for (const auto& x : shape.children()) c.push_back(with_leaves(x, values, at));
  return IntTuple::tuple(c);
}

Layout layout_of(const IntTuple& shape, const std::vector<int64_t>& strides) {
  size_t at = 0;
  return Layout(shape, with_leaves(shape, strides, at));
}

// The inputs that separate a right implementation from a plausible wrong one (issue 30), mixed
// with arbitrary ones: compact chains (coalesce must merge every mode of them), size-1 and
// stride-0 modes sprinkled in (coalesce, filter), negative strides (cosize, eval), and injective
// layouts whose strides are not multiples of the span below them (complement).
rc::Gen<Layout> gen_fuzz_layout() {
  return rc::gen::exec([] {
    const IntTuple shape = *props::gen_shape(5, 8);
    const size_t n = flat_leaves(shape).size();
    std::vector<int64_t> leaves;
    for (const auto& x : flat_leaves(shape)) leaves.push_back(x.value());
    std::vector<int64_t> d(n);
    switch (*rc::gen::inRange(0, 5)) {
      case 0: return *props::gen_layout(5, 8);
      case 1: {  // a compact chain, now and then a mode of stride 0 or a size-1 mode's odd stride
        int64_t cur = 1;
        for (size_t i = 0; i < n; ++i) {
          d[i] = leaves[i] == 1 ? *rc::gen::inRange<int64_t>(0, 9) : cur;
          if (leaves[i] != 1) cur *= leaves[i];
        }
        if (*rc::gen::inRange(0, 3) == 0) d[*rc::gen::inRange<size_t>(0, n)] = 0;
        return layout_of(shape, d);
      }
      case 2: {  // negative strides
        for (size_t i = 0; i < n; ++i) d[i] = *rc::gen::inRange<int64_t>(-24, 25);
        return layout_of(shape, d);
      }
      case 3: {  // stride-0 modes among arbitrary ones
        for (size_t i = 0; i < n; ++i) d[i] = *rc::gen::inRange(0, 2) ? 0 : *rc::gen::inRange<int64_t>(1, 33);
        return layout_of(shape, d);
      }
      default: return *gen_gapped_injective(shape, leaves);
    }
  });
}

// Injective, in a random order of the modes, each stride at or past the span of the ones below
// it, and often not a multiple of it: `(2,3):(1,3)`.
rc::Gen<Layout> gen_gapped_injective(const IntTuple& shape, const std::vector<int64_t>& leaves) {
  return rc::gen::exec([shape, leaves] {
    const size_t n = leaves.size();
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[*rc::gen::inRange<size_t>(0, i)]);
    std::vector<int64_t> d(n);
    int64_t cur = 1;
    for (size_t k : order) {
      d[k] = cur;
      cur = cur * leaves[k] + (*rc::gen::inRange(0, 2) ? 0 : *rc::gen::inRange<int64_t>(0, cur * leaves[k] + 1));
    }
    return layout_of(shape, d);
  });
}

// One generated request for `op` (inside a RapidCheck property: `*gen` draws and shrinks).
Json gen_request(const std::string& op) {
  const Layout a = *gen_fuzz_layout();
  Json args{{"layout", to_json(a)}};
  if (op == "eval") args["coord"] = *rc::gen::inRange<int64_t>(0, a.size());
  if (op == "complement") {
    const Layout c = *rc::gen::inRange(0, 2) ? *props::gen_injective_layout() : *gen_fuzz_layout();
    args = Json{{"layout", to_json(c)}, {"cotarget", *rc::gen::inRange<int64_t>(1, 512)}};
  }
  if (op == "composition" || op == "logical_divide" || op == "logical_product") {
    const Layout b = *rc::gen::arbitrary<bool>() ? *props::gen_tiler_for(a.size()) : *props::gen_layout(2, 6);
    args = Json{{"a", to_json(a)}, {"tiler", to_json(b)}};
  }
  return Json{{"seq", 1}, {"op", op}, {"args", args}};
}

void load_rapidcheck_quietly() {
  std::streambuf* saved = std::cerr.rdbuf(nullptr);
  rc::detail::configuration();
  std::cerr.rdbuf(saved);
}

}  // namespace

const std::vector<std::string>& conform_fuzz_ops() {
  static const std::vector<std::string> ops = {"size", "cosize", "eval", "coalesce", "filter", "injective", "complement",
                                               "composition", "logical_divide", "logical_product"};
  return ops;
}

FuzzOutcome conform_fuzz(const protocol::OpRegistry& reference, Implementation& impl, const FuzzOptions& o) {
  load_rapidcheck_quietly();
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const Json hello = impl.start();
  std::vector<std::string> ops;
  for (const auto& op : o.ops.empty() ? conform_fuzz_ops() : o.ops)
    for (const auto& listed : hello.value("ops", Json::array()))
      if (listed == op) ops.push_back(op);
  FuzzOutcome out;
  if (ops.empty()) fail(rule::kUsage, "the implementation lists none of the fuzzed ops");
  int64_t seq = 0;
  auto stopping = [&] { return o.stop && o.stop->load() != 0; };
  for (uint64_t b = 0; elapsed() < o.seconds && !out.disagreement && !stopping(); ++b) {
    const std::string op = ops[b % ops.size()];
    bool failing = false;
    auto property = [&] {
      if (stopping()) return;  // the rest of the batch passes without a case: it ends at once
      Json req = gen_request(op);
      bool stop = false;
      const Json ref = protocol::serve_line(reference, protocol::dump_line(req), stop);
      if (failing) ++out.shrink_steps;
      else ++out.cases;
      // The reference could not decide (a Limit): nothing to compare.
      if (ref.contains("error") && rule_kind(ref["error"].value("rule", "")) == RuleKind::Limit) {
        if (!failing) ++out.skipped;
        return;
      }
      req["seq"] = ++seq;
      const Reply got = impl.ask(req);
      CorpusCase c;
      c.op = op;
      // The reference's informational members (the injectivity method and witness) are not
      // part of the answer: any witness is right.
      if (ref.contains("result")) c.expect = op == "injective" ? Json{{"injective", ref["result"]["injective"]}} : ref["result"];
      else c.expect_error = {ref["error"].value("rule", "")};
      protocol::Judgement j = got.problem.empty() ? protocol::judge(c, got.json) : protocol::Judgement{Status::Errored, got.problem, Json()};
      if (j.status == Status::Unsupported) {
        if (!failing) ++out.skipped;
        return;
      }
      if (j.status == Status::Pass) {
        if (!failing) ++out.agreed;
        return;
      }
      failing = out.disagreement = true;
      req["seq"] = 1;
      out.request = req;
      out.reference = ref.contains("result") ? ref["result"] : ref["error"];
      out.impl = got.problem.empty() ? got.json : Json(got.problem);
      out.why = std::string(protocol::to_string(j.status)) + ": " + j.detail;
      RC_FAIL("the implementation disagrees with the reference");
    };
    rc::detail::TestParams params;
    params.seed = props::batch_seed(o.seed, b);
    params.maxSuccess = o.batch;
    params.maxSize = 100;
    std::streambuf* saved = std::cerr.rdbuf(nullptr);  // RapidCheck's own failure report
    std::streambuf* saved_out = std::cout.rdbuf(nullptr);
    rc::detail::checkProperty(rc::detail::toProperty(property), rc::detail::TestMetadata{}, params);
    std::cerr.rdbuf(saved);
    std::cout.rdbuf(saved_out);
  }
  impl.stop();
  out.seconds = elapsed();
  return out;
}

}  // namespace tfspec::conformance
