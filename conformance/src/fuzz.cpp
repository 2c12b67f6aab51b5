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

// One generated request for `op` (inside a RapidCheck property: `*gen` draws and shrinks).
Json gen_request(const std::string& op) {
  const Layout a = *props::gen_layout();
  Json args{{"layout", to_json(a)}};
  if (op == "eval") args["coord"] = *rc::gen::inRange<int64_t>(0, a.size());
  if (op == "complement") args = Json{{"layout", to_json(*props::gen_injective_layout())}, {"cotarget", *rc::gen::inRange<int64_t>(1, 512)}};
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
