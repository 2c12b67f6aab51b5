// Issue 44 item 6: one nesting limit for every JSON tfspec reads, from any source. Each reader is
// given documents nested past the limit, at a random place inside an otherwise well-formed
// input, and must refuse with nesting-too-deep (§1): never a crash, never another answer.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "serve_support.hpp"
#include "tfspec/propagation/program.hpp"
#include "tfspec/protocol/corpus.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json_text.hpp"
#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/kernel/pipeline.hpp"
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#endif

namespace tfspec {
namespace {

std::string nested(int levels, bool objects) {
  std::string open, close;
  for (int i = 0; i < levels; ++i) {
    const bool obj = objects && i % 3 == 2;
    open += obj ? "{\"k\":" : "[";
    close = (obj ? "}" : "]") + close;
  }
  return open + "1" + close;
}

// The rule a reader refuses `text` with ("" when it answers).
using Reader = std::function<std::string(const std::string&)>;

std::string rule_thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const SpecError& e) {
    return e.diagnostic().rule;
  } catch (const Json::exception&) {
    return "json-exception";
  }
  return "";
}

std::string reply_rule(const Json& reply) { return reply.contains("error") ? reply["error"].value("rule", "?") : ""; }

#ifdef TFSPEC_HAVE_PROVE
Json ask_kernel(const std::string& line) {
  static protocol::OpRegistry reg = [] {
    protocol::OpRegistry r;
    protocol::register_reference_ops(r);
    protocol::register_kernel_ops(r);
    return r;
  }();
  bool stop = false;
  return protocol::serve_line(reg, line, stop);
}
#endif

std::vector<std::pair<std::string, Reader>> readers() {
  std::vector<std::pair<std::string, Reader>> out = {
      {"serve: a request's argument", [](const std::string& deep) { return reply_rule(testing::ask(R"j({"seq":1,"op":"size","args":{"layout":)j" + deep + "}}")); }},
      {"serve: the request itself", [](const std::string& deep) { return reply_rule(testing::ask(R"j({"seq":1,"op":"size","args":{"layout":"4:1"},"x":)j" + deep + "}")); }},
      {"a JSON shard layout's text", [](const std::string& deep) {
         return rule_thrown([&] { (void)read_shard_layout(Json(R"j({"mesh":)j" + deep + "}"), std::nullopt); });
       }},
      {"a propagation program", [](const std::string& deep) { return rule_thrown([&] { (void)propagation::read_program_json(R"j({"inputs":)j" + deep + "}"); }); }},
      {"a corpus file", [](const std::string& deep) {
         const std::string path = ::testing::TempDir() + "/deep_corpus.json";
         std::ofstream(path) << R"j({"made_by":"x","cases":)j" << deep << "}";
         const std::string r = rule_thrown([&] { (void)protocol::load_corpus_file(path); });
         std::remove(path.c_str());
         return r;
       }},
  };
#ifdef TFSPEC_HAVE_PROVE
  out.push_back({"kernel check: the description's text", [](const std::string& deep) {
                   return rule_thrown([&] { (void)kernel::read_pipeline_text(R"j({"name":"k","A":)j" + deep + "}"); });
                 }});
  out.push_back({"serve kernel.check: the pipeline as text", [](const std::string& deep) {
                   return reply_rule(ask_kernel(R"j({"seq":1,"op":"kernel.check","args":{"pipeline":)j" + Json(R"j({"A":)j" + deep + "}").dump() + "}}"));
                 }});
  out.push_back({"serve kernel.check: the pipeline as an object", [](const std::string& deep) {
                   return reply_rule(ask_kernel(R"j({"seq":1,"op":"kernel.check","args":{"pipeline":{"A":)j" + deep + "}}}"));
                 }});
#endif
  return out;
}

TEST(DeepJson, AHundredThousandLevelsAreRefusedByEveryReader) {
  const std::string deep = nested(100000, false), deep_objects = nested(100000, true);
  for (const auto& [name, read] : readers()) {
    EXPECT_EQ(read(deep), "nesting-too-deep") << name;
    EXPECT_EQ(read(deep_objects), "nesting-too-deep") << name;
  }
}

TEST(DeepJson, ServeAnswersTheNextRequestAfterADeepOne) {
  EXPECT_EQ(reply_rule(testing::ask(R"j({"seq":1,"op":"size","args":{"layout":)j" + nested(100000, false) + "}}")), "nesting-too-deep");
  const Json next = testing::ask(R"j({"seq":2,"op":"size","args":{"layout":"(4,8):(1,4)"}})j");
  EXPECT_EQ(next.value("result", Json()), 32) << next.dump();
}

// Past the limit, at any depth and any mix of arrays and objects, every reader refuses by the one rule.
RC_GTEST_PROP(DeepJson, EveryReaderRefusesPastTheOneLimit, ()) {
  const int depth = *rc::gen::inRange(tfspec::kMaxJsonDepth + 1, 8 * tfspec::kMaxJsonDepth);
  const bool objects = *rc::gen::arbitrary<bool>();
  const auto all = readers();
  const auto& [name, read] = all[*rc::gen::inRange<size_t>(0, all.size())];
  RC_ASSERT(read(nested(depth, objects)) == "nesting-too-deep");
}

}  // namespace
}  // namespace tfspec
