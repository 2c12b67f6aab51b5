// One nesting limit for every JSON text tfspec reads (issue 44 item 6; json_text.hpp): a document
// exactly kMaxJsonDepth deep is read, one level deeper is refused with nesting-too-deep (§1), and
// a 100,000-deep one is refused the same way, with no recursion that deep anywhere.
#include "tfspec/reference/json_text.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "tfspec/reference/error.hpp"

namespace tfspec {
namespace {

// `levels` nested containers around a 1; nlohmann counts the outermost container as depth 1.
std::string nested(int levels, bool objects = false) {
  std::string open, close;
  for (int i = 0; i < levels; ++i) {
    const bool obj = objects && i % 2 == 1;
    open += obj ? "{\"k\":" : "[";
    close += obj ? "}" : "]";
  }
  return open + "1" + std::string(close.rbegin(), close.rend());
}

std::string rule_of(const std::string& text) {
  try {
    (void)parse_json_text(text, "the test document");
  } catch (const SpecError& e) {
    return e.diagnostic().rule;
  }
  return "";
}

TEST(JsonText, TheLimitIsExact) {
  EXPECT_EQ(rule_of(nested(kMaxJsonDepth)), "");
  EXPECT_EQ(rule_of(nested(kMaxJsonDepth + 1)), "nesting-too-deep");
  EXPECT_EQ(rule_of(nested(kMaxJsonDepth + 1, true)), "nesting-too-deep");
}

TEST(JsonText, AHundredThousandLevelsAreRefusedNotACrash) {
  EXPECT_EQ(rule_of(nested(100000)), "nesting-too-deep");
  EXPECT_EQ(rule_of(nested(100000, true)), "nesting-too-deep");
  std::istringstream in(nested(100000));
  EXPECT_THROW(parse_json_stream(in, "a stream"), SpecError);
  // Cut, not refused: the outer object is still there to read a field of (serve's seq).
  bool too_deep = false;
  const Json cut = parse_json_text_cut("{\"seq\":7,\"args\":" + nested(100000) + "}", too_deep);
  EXPECT_TRUE(too_deep);
  EXPECT_EQ(cut.at("seq"), 7);
}

TEST(JsonText, TheMessageNamesWhatWasReadAndTheLimit) {
  try {
    (void)parse_json_text(nested(kMaxJsonDepth + 5), "the pipeline description");
    FAIL() << "not refused";
  } catch (const SpecError& e) {
    EXPECT_NE(e.diagnostic().message.find("the pipeline description"), std::string::npos) << e.diagnostic().message;
    EXPECT_NE(e.diagnostic().message.find(std::to_string(kMaxJsonDepth)), std::string::npos) << e.diagnostic().message;
  }
}

TEST(JsonText, MalformedTextIsLeftToTheCallersRule) {
  EXPECT_THROW(parse_json_text("[1,", "x"), Json::parse_error);
  EXPECT_THROW(parse_json_text(nested(100000).substr(0, 150000), "x"), Json::parse_error);  // unterminated, deep
}

// Any mix of arrays and objects at any depth: refused exactly when deeper than the limit.
RC_GTEST_PROP(JsonText, RefusedExactlyPastTheLimit, ()) {
  const int depth = *rc::gen::inRange(1, 3 * kMaxJsonDepth);
  const bool objects = *rc::gen::arbitrary<bool>();
  RC_ASSERT(rule_of(nested(depth, objects)) == (depth > kMaxJsonDepth ? "nesting-too-deep" : ""));
}

}  // namespace
}  // namespace tfspec
