// conform --fuzz: the reference served as a subprocess agrees with itself; the wrong
// implementation's cosize is caught and shrunk to a one-point layout.
#include <gtest/gtest.h>

#include "tfspec/conformance/fuzz.hpp"
#include "corpus_support.hpp"

namespace tfspec::conformance {
namespace {

const protocol::OpRegistry& registry() { return testing::reference_registry(); }

TEST(ConformFuzz, TheReferenceAgreesWithItself) {
  auto impl = subprocess(std::string(TFSPEC_WRONG_IMPL) + " --honest", 20000);
  FuzzOptions o;
  o.seconds = 1;
  o.seed = 7;
  FuzzOutcome r = conform_fuzz(registry(), *impl, o);
  EXPECT_FALSE(r.disagreement) << r.request.dump() << ": " << r.why;
  EXPECT_GT(r.agreed, 20);
}

TEST(ConformFuzz, ADepartureIsFoundAndShrunk) {
  auto impl = subprocess(TFSPEC_WRONG_IMPL, 20000);
  FuzzOptions o;
  o.seconds = 20;
  o.seed = 7;
  o.ops = {"cosize", "size"};
  FuzzOutcome r = conform_fuzz(registry(), *impl, o);
  ASSERT_TRUE(r.disagreement);
  EXPECT_EQ(r.request["op"], "cosize");
  // cosize is one short on every layout: the minimal case has one point, cosize 1 against 0.
  const Layout l = layout_from_json(r.request["args"]["layout"]);
  EXPECT_EQ(l.size(), 1) << r.request.dump();
  EXPECT_EQ(r.reference, 1);
  EXPECT_EQ(r.impl["result"], 0);
}

}  // namespace
}  // namespace tfspec::conformance
