// Crashes and round trips of the text and JSON forms (issue 8): expression size bounds,
// INT64_MIN, quoted Partial reductions, odd mesh axis names, and the property that printing then
// parsing is the identity for every generated object.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "../../reference/tests/test_support.hpp"

#include <climits>

#include "tfspec/props/shard_gen.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec {
namespace {

using tfspec::testing::error_id;

std::string sum_of(int terms) {
  std::string s = "M";
  for (int i = 1; i < terms; ++i) s += "+M";
  return s;
}

TEST(ExpressionBounds, LongChainsAreRefusedNotACrash) {  // §1
  // 40,000 terms used to build a 40,000-deep tree whose destructor overflowed the stack.
  EXPECT_EQ(error_id([] { parse_dim(sum_of(40000)); }), "expression-too-large");
  EXPECT_EQ(error_id([] { parse_layout("(" + sum_of(40000) + "):(1)"); }), "expression-too-large");
  EXPECT_EQ(error_id([] { inttuple_from_json(Json(sum_of(40000))); }), "expression-too-large");
  // kMaxExprTerms terms are fine (a left-deep tree of depth 256), one more is not.
  EXPECT_EQ(evaluate(parse_dim(sum_of(kMaxExprTerms)), {{"M", 2}}), 2 * kMaxExprTerms);
  EXPECT_EQ(error_id([] { parse_dim(sum_of(kMaxExprTerms + 1)); }), "expression-too-large");
  // Each element of a tuple is its own expression.
  std::string tuple = "(" + sum_of(200);
  for (int i = 0; i < 5; ++i) tuple += "," + sum_of(200);
  EXPECT_EQ(parse_inttuple(tuple + ")").len(), 6u);
  // Found by fuzz_layout_text: printing must never add terms. `--M` is 0-(0-M); it used to print
  // as `0-(0-M)`, so 80 of them (within the bound) printed past it and did not parse back.
  std::string negations = "--M";
  for (int i = 1; i < 80; ++i) negations += "+--M";
  ShapeDim n = parse_dim(negations);
  EXPECT_EQ(to_string(n).substr(0, 8), "--M+--M+");
  EXPECT_TRUE(structurally_equal(parse_dim(to_string(n)), n));
  EXPECT_EQ(to_string(parse_dim("-(M*N)")), "-(M*N)");  // not -M*N, which is (-M)*N
  EXPECT_EQ(to_string(parse_dim("-M*N")), "-M*N");
  EXPECT_EQ(to_string(parse_dim("K--M")), "K--M");
  EXPECT_EQ(to_string(parse_dim("0-M")), "-M");  // the same tree
  // Built expressions are bounded by terms like parsed ones: M+N+...+N with 256 names is fine,
  // a 257th is not (so whatever the algebra builds prints within the parser's bound).
  ShapeDim d = dim_var("M");
  for (int i = 1; i < kMaxExprTerms; ++i) d = dim_binary(ExprNode::Op::Add, d, dim_var("N"));
  EXPECT_EQ(d->terms, kMaxExprTerms);
  EXPECT_TRUE(structurally_equal(parse_dim(to_string(d)), d));
  EXPECT_EQ(error_id([&] { dim_binary(ExprNode::Op::Add, d, dim_var("N")); }), "expression-too-large");
  // ... and by depth: a negation prints as `-x` (no new term), so 511 nested negations of M
  // (depth 512, one term) are fine and a 512th is not.
  ShapeDim neg = dim_var("M");
  for (int i = 1; i < kMaxExprDepth; ++i) neg = dim_binary(ExprNode::Op::Sub, dim_const(0), neg);
  EXPECT_EQ(neg->depth, kMaxExprDepth);
  EXPECT_EQ(neg->terms, 1);
  EXPECT_EQ(error_id([&] { dim_binary(ExprNode::Op::Sub, dim_const(0), neg); }), "expression-too-large");
}

// fuzz_layout_text finding 7 (fuzz/RESULTS.md): the default strides of symbolic extents are
// prefix products (§1 compact column-major), so the stride of mode k has k names as terms. With
// 258 extents the last stride had 257 terms: the layout printed but did not parse back. Now
// building that stride is refused, and every layout that is built prints within the bound.
TEST(ExpressionBounds, DefaultStridesOfManySymbolicExtentsStayWithinTheBound) {  // §1
  auto extents = [](int n) {
    std::string s = "(";
    for (int i = 0; i < n; ++i) s += (i ? ",M" : "M") + std::to_string(i);
    return s + ")";
  };
  // 257 extents: the last stride is M0*M1*...*M255, exactly 256 terms.
  Layout ok = parse_layout(extents(kMaxExprTerms + 1));
  EXPECT_EQ(parse_layout(to_string(ok)), ok);
  EXPECT_EQ(error_id([&] { parse_layout(extents(kMaxExprTerms + 2)); }), "expression-too-large");
}

TEST(Int64Min, CrossesTheTextAndJsonForms) {  // §1: every int64 is representable
  Layout l = parse_layout("4:-9223372036854775807-1");
  EXPECT_EQ(l.stride().value(), INT64_MIN);
  EXPECT_EQ(to_string(l), "4:-9223372036854775808");       // prints as std::to_string does
  EXPECT_EQ(parse_layout(to_string(l)), l);                 // ... and that parses back
  EXPECT_EQ(to_json(l)["stride"], Json("-9223372036854775808"));  // beyond 2^53: a string
  EXPECT_EQ(layout_from_json(Json::parse(to_json(l).dump())), l);
  EXPECT_EQ(parse_inttuple("- 9223372036854775808").value(), INT64_MIN);
  EXPECT_EQ(error_id([] { parse_inttuple("-9223372036854775809"); }), "int-literal-range");
  EXPECT_EQ(error_id([] { parse_inttuple("9223372036854775808"); }), "int-literal-range");
  EXPECT_EQ(error_id([] { parse_inttuple("--9223372036854775808"); }), "int64-overflow");  // -INT64_MIN
  // Inside expressions: a negative constant on either side of an operator.
  for (const char* e : {"-9223372036854775808*M", "M*(-9223372036854775808)", "M-(-9223372036854775808)"}) {
    IntTuple t = parse_inttuple(e);
    EXPECT_EQ(to_string(t), e);
    EXPECT_EQ(parse_inttuple(to_string(t)), t) << e;
    EXPECT_EQ(inttuple_from_json(Json::parse(to_json(t).dump())), t) << e;
  }
  // A composed offset travels like every other integer.
  LayoutPtr c = parse_any_layout("None o -9223372036854775808 o 4:1");
  EXPECT_EQ(to_string(*c), "None o -9223372036854775808 o 4:1");
  EXPECT_EQ(to_string(*parse_any_layout(to_string(*c))), to_string(*c));
  EXPECT_EQ(to_json(*c)["offset"], Json("-9223372036854775808"));
  EXPECT_EQ(to_string(*any_layout_from_json(Json::parse(to_json(*c).dump()))), to_string(*c));
  // A Split axis too (unchecked objects keep any int64).
  EXPECT_EQ(parse_shard_attr(to_string(ShardAttr(Split{INT64_MIN}))), ShardAttr(Split{INT64_MIN}));
}

TEST(PartialText, ReductionNamesPrintEscapedAndJunkIsRefused) {  // §6
  ShardAttr odd = Partial{"a\"b\\c;d,e)"};
  EXPECT_EQ(to_string(odd), R"X(P("a\"b\\c;d,e)"))X");
  EXPECT_EQ(parse_shard_attr(to_string(odd)), odd);
  EXPECT_EQ(parse_shard_attr(R"(P('max'))"), ShardAttr(Partial{"max"}));
  EXPECT_EQ(parse_shard_attr("P(reduction=\"min\")"), ShardAttr(Partial{"min"}));
  EXPECT_EQ(parse_shard_attr("P( max )"), ShardAttr(Partial{"max"}));
  EXPECT_EQ(parse_shard_attr("P()"), ShardAttr(Partial{"sum"}));
  EXPECT_EQ(parse_shard_attr(R"(P(""))"), ShardAttr(Partial{""}));  // quoted: the empty name, reported by partial-reduction
  for (const char* junk : {"P()junk)", "P() )", "P(\"max\")x)", "P(max min)", "P(\"max)", "P(\"max\\\")", "P(max\"x\")", "P(()"})
    EXPECT_EQ(error_id([&] { parse_shard_attr(junk); }), "shard-attr-text") << junk;
  // Inside a shard layout: the quoted name may hold the separators of the surrounding text.
  ShardLayout sl = ShardLayout::unchecked(std::make_shared<Layout>(parse_layout("(3):(1)")), {odd}, parse_mesh("x=2"));
  EXPECT_EQ(parse_shard_layout(to_string(sl)), sl);
  EXPECT_EQ(shard_from_json(Json::parse(shard_to_json(sl).dump())), sl);
}

TEST(MeshText, AnAxisNamedLayoutRoundTrips) {  // §5 mesh text
  Mesh m = parse_mesh("device(2)|layout=2");
  ASSERT_TRUE(m.names());
  EXPECT_EQ(*m.names(), std::vector<std::string>{"layout"});
  EXPECT_EQ(to_string(m), "device(2)|layout=2");
  EXPECT_EQ(parse_mesh(to_string(m)), m);
  Mesh custom = parse_mesh("device(4)|layout=2,x=2|layout=(2,2):(1,2)");  // column-major, axis `layout` fastest
  EXPECT_EQ(custom.device_of({1, 0}), 1);
  EXPECT_EQ(parse_mesh(to_string(custom)), custom);
  EXPECT_EQ(to_string(*parse_mesh("x=2,y=2|layout=(2,2):(1,2)").layout()), "(2,2):(1,2)");  // the override still works
}

// ---- property: print then parse is the identity

const std::vector<std::string>& odd_names() {
  static const std::vector<std::string> n = {"layout", "None", "on", "where", "S", "P", "B", "D", "shard", "device",
                                             "cta.x", "_", "__x", "x1.y2", "on.where", "M"};
  return n;
}

rc::Gen<ShapeDim> gen_dim(int depth) {
  auto leaf = rc::gen::oneOf(
      rc::gen::map(rc::gen::elementOf(std::vector<std::string>{"M", "N", "on", "where", "layout", "shard", "S", "_a", "x_1"}),
                   [](const std::string& s) { return dim_var(s); }),
      rc::gen::map(rc::gen::oneOf(rc::gen::element<int64_t>(0, 1, -1, 2, -7, INT64_MIN, INT64_MAX, INT64_MIN + 1), rc::gen::arbitrary<int64_t>()),
                   [](int64_t v) { return dim_const(v); }));
  if (depth == 0) return leaf;
  return rc::gen::oneOf(leaf, rc::gen::exec([depth] {
                          auto op = *rc::gen::element(ExprNode::Op::Add, ExprNode::Op::Sub, ExprNode::Op::Mul, ExprNode::Op::FloorDiv, ExprNode::Op::Mod);
                          ShapeDim a = *gen_dim(depth - 1), b = *gen_dim(depth - 1);
                          try {
                            return dim_binary(op, a, b);
                          } catch (const SpecError&) {  // folding overflowed or divided by 0
                            return a;
                          }
                        }));
}

rc::Gen<IntTuple> gen_odd_tuple(int depth) {
  auto leaf = rc::gen::oneOf(rc::gen::map(gen_dim(3), [](const ShapeDim& d) { return IntTuple::sym(d); }),
                             rc::gen::just(IntTuple::none()));
  if (depth == 0) return leaf;
  return rc::gen::oneOf(leaf, rc::gen::exec([depth] {
                          const int n = *rc::gen::inRange(0, 4);
                          return IntTuple::tuple(*rc::gen::container<std::vector<IntTuple>>(static_cast<size_t>(n), gen_odd_tuple(depth - 1)));
                        }));
}

RC_GTEST_PROP(RoundTrip, IntTuplesWithOddNamesAndExtremes, ()) {
  const IntTuple t = *gen_odd_tuple(2);
  RC_ASSERT(parse_inttuple(to_string(t)) == t);
  RC_ASSERT(inttuple_from_json(Json::parse(to_json(t).dump())) == t);
}

RC_GTEST_PROP(RoundTrip, ShardLayoutsWithOddNamesAndReductions, ()) {
  const auto c = *props::gen_shard_case();
  const ShardLayout& base = c.layout;
  const int r = base.mesh().rank();
  // Unique odd axis names, arbitrary reduction strings, any Split axis, an optional composed offset.
  std::vector<std::string> names = odd_names();
  for (int i = 0; i < r; ++i) std::swap(names[i], names[*rc::gen::inRange<size_t>(i, names.size())]);
  names.resize(static_cast<size_t>(r));
  std::vector<ShardAttr> attrs = base.attrs();
  const auto chars = std::string("ab \"\\;,()|=':{}[]\tm\n");
  for (auto& a : attrs) {
    if (*rc::gen::inRange(0, 3) == 0) a = Partial{*rc::gen::container<std::string>(rc::gen::elementOf(chars))};
    else if (*rc::gen::inRange(0, 5) == 0) a = Split{*rc::gen::element<int64_t>(INT64_MIN, INT64_MAX, -1, 7)};
  }
  LayoutPtr layout = base.layout();
  if (*rc::gen::inRange(0, 3) == 0)
    layout = std::make_shared<ComposedLayout>(nullptr, *rc::gen::element<int64_t>(INT64_MIN, INT64_MAX, 0, -5), layout);
  ShardLayout sl = ShardLayout::unchecked(layout, attrs, Mesh(base.mesh().topologies(), base.mesh().layout(), names));
  const std::string text = to_string(sl);
  RC_ASSERT(parse_shard_layout(text) == sl);
  RC_ASSERT(to_string(parse_shard_layout(text)) == text);
  RC_ASSERT(shard_from_json(Json::parse(shard_to_json(sl).dump())) == sl);
  RC_ASSERT(parse_mesh(to_string(sl.mesh())) == sl.mesh());
}

}  // namespace
}  // namespace tfspec
