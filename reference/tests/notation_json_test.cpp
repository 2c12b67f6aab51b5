// Text notation and JSON encoding: exact round trips and clear errors on bad input.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"

using namespace tfspec;

TEST(Notation, ParsesCuteNotation) {
  Layout l = parse_layout("(2,(3,4)):(1,(2,6))");
  EXPECT_EQ(l.shape_ref(), IntTuple::tuple({2, IntTuple::tuple({3, 4})}));
  EXPECT_EQ(l.stride(), IntTuple::tuple({1, IntTuple::tuple({2, 6})}));
  EXPECT_EQ(to_string(l), "(2,(3,4)):(1,(2,6))");
}

TEST(Notation, SymbolicNamesAndExpressions) {
  Layout l = parse_layout("(M,N):(1,M-1)");
  EXPECT_EQ(to_string(l), "(M,N):(1,M-1)");
  EXPECT_EQ(to_string(parse_layout("((M+1)*2,N//4)")), "((M+1)*2,N//4):(1,(M+1)*2)");
  EXPECT_EQ(to_string(parse_layout("(M/4,M%8)")), "(M//4,M%8):(1,M//4)");  // `/` is floor division
  // precedence: 2+3*M is 2+(3*M); the printer never adds or loses meaning
  ShapeDim d = parse_dim("2+3*M");
  EXPECT_EQ(evaluate(d, {{"M", 5}}), 17);
  EXPECT_EQ(evaluate(parse_dim(to_string(d)), {{"M", 5}}), 17);
  EXPECT_EQ(evaluate(parse_dim("M-(N-1)"), {{"M", 5}, {"N", 3}}), 3);
  EXPECT_EQ(to_string(parse_dim("M-(N-1)")), "M-(N-1)");
  EXPECT_EQ(evaluate(parse_dim("-7//2"), {}), -4);  // floor, as in Python
}

// Issue 25: powers, as users write bounds (`M <= 2^29`). Values by hand: 2^29 = 536870912,
// 2**16 = 65536, -2^2 = -(2^2) = -4 (the power binds tighter than the minus, as in Python),
// 3*2^3 = 24, (M+1)^2 at M=4 is 25, M^3 at M=5 is 125, 2^3^2 is refused (write the parentheses).
TEST(Notation, Powers) {
  EXPECT_EQ(evaluate(parse_dim("2^29"), {}), 536870912);
  EXPECT_EQ(evaluate(parse_dim("2**16"), {}), 65536);
  EXPECT_EQ(evaluate(parse_dim("-2^2"), {}), -4);
  EXPECT_EQ(evaluate(parse_dim("(-2)^3"), {}), -8);
  EXPECT_EQ(evaluate(parse_dim("3*2^3"), {}), 24);
  EXPECT_EQ(evaluate(parse_dim("2^0"), {}), 1);
  EXPECT_EQ(evaluate(parse_dim("(-1)^9223372036854775807"), {}), -1);
  EXPECT_EQ(evaluate(parse_dim("2^62"), {}), int64_t{1} << 62);
  EXPECT_EQ(evaluate(parse_dim("(M+1)^2"), {{"M", 4}}), 25);
  EXPECT_EQ(evaluate(parse_dim("M**3"), {{"M", 5}}), 125);
  EXPECT_EQ(to_string(parse_layout("(2^3,M^2)")), "(8,M*M):(1,8)");
  EXPECT_RULE(parse_dim("2^63"), "int-literal-range");
  EXPECT_RULE(parse_dim("2^3^2"), "parse-error");
  EXPECT_RULE(parse_dim("2^M"), "parse-error");
  EXPECT_RULE(parse_dim("M^17"), "expression-too-large");
}

TEST(Notation, NoneAndUnmaterialized) {
  Layout dyn = parse_layout("(None):(1)");
  EXPECT_TRUE(dyn.shape_ref()[0].is_none());
  Layout un = parse_layout("(2,4):None");
  EXPECT_FALSE(un.materialized());
  EXPECT_EQ(to_string(un), "(2,4):None");
  EXPECT_EQ(parse_layout(to_string(un)), un);
  Layout r0 = parse_layout("():()");
  EXPECT_TRUE(r0.materialized());
  EXPECT_FALSE(r0 == un);
}

TEST(Notation, RankOneTupleIsNotALeaf) {
  EXPECT_TRUE(parse_inttuple("(4)").is_tuple());
  EXPECT_TRUE(parse_inttuple("4").is_int());
  EXPECT_EQ(to_string(parse_inttuple("(4)")), "(4)");
}

TEST(Notation, ComposedLayouts) {
  LayoutPtr c = parse_any_layout("(4,8):(8,1) o 2 o (2,2):(1,4)");
  ASSERT_EQ(c->kind(), LayoutKind::Composed);
  EXPECT_EQ(to_string(*c), "(4,8):(8,1) o 2 o (2,2):(1,4)");
  LayoutPtr n = parse_any_layout("None o 3 o 4:2");
  EXPECT_EQ(to_string(*n), "None o 3 o 4:2");
  EXPECT_EQ(n->apply(IntTuple(1)), 5);
}

TEST(Notation, MalformedInputNamesTheProblem) {
  EXPECT_RULE(parse_layout("(2,3"), "parse-error");
  EXPECT_RULE(parse_layout("(2,3):(1,2))"), "parse-error");
  EXPECT_RULE(parse_layout("(2,,3)"), "parse-error");
  EXPECT_RULE(parse_layout(""), "parse-error");
  EXPECT_RULE(parse_layout("(2,3):(1,2,3)"), "stride-congruent");
  EXPECT_RULE(parse_layout("99999999999999999999:1"), "int-literal-range");
  EXPECT_RULE(parse_layout("(o,2)"), "parse-error");
  EXPECT_RULE(parse_layout("(M//0)"), "division-by-zero");
}

TEST(Json, RoundTripsEveryObject) {
  for (const char* s : {"(2,(3,4)):(1,(2,6))", "(M,N):(1,M-1)", "(2,4):None", "():()", "(None):(1)"}) {
    Layout l = parse_layout(s);
    EXPECT_EQ(layout_from_json(Json::parse(to_json(l).dump())), l) << s;
  }
  LayoutPtr c = parse_any_layout("(4,8):(8,1) o 2 o None");
  LayoutPtr back = any_layout_from_json(Json::parse(to_json(*c).dump()));
  EXPECT_EQ(to_string(*back), to_string(*c));
}

TEST(Json, BigIntegersTravelAsStrings) {
  Layout l(IntTuple(2), IntTuple(int64_t{1} << 60));
  Json j = to_json(l);
  EXPECT_TRUE(j["stride"].is_string());  // beyond 2^53 a JSON number would lose precision
  EXPECT_EQ(layout_from_json(j), l);
}

TEST(Json, StridesSynonymAndDefaults) {
  // D11: "strides" is accepted for "stride"; an absent stride is the prefix product.
  EXPECT_EQ(layout_from_json(Json::parse(R"({"shape":[2,4],"strides":[4,1]})")), parse_layout("(2,4):(4,1)"));
  EXPECT_EQ(layout_from_json(Json::parse(R"({"shape":[2,4]})")), parse_layout("(2,4):(1,2)"));
  EXPECT_FALSE(layout_from_json(Json::parse(R"({"shape":[2,4],"stride":null})")).materialized());
}

TEST(Json, BadJsonIsRefused) {
  EXPECT_RULE(layout_from_json(Json::parse(R"({"shape":[2.5]})")), "json-type");
  EXPECT_RULE(layout_from_json(Json::parse(R"({"shape":[true]})")), "json-type");
  EXPECT_RULE(layout_from_json(Json::parse(R"({"stride":[1]})")), "json-type");
  EXPECT_RULE(layout_from_json(Json::parse(R"({"shape":[18446744073709551615]})")), "int-literal-range");
  std::string deep(100000, '[');
  deep += "1" + std::string(100000, ']');
  EXPECT_RULE(inttuple_from_json(Json::parse(deep)), "nesting-too-deep");
}
