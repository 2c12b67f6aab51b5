// Check outcomes and the catalogue through the binary (issue 7), and serve's robustness on bad
// bytes (issue 8).
#include <gtest/gtest.h>

#include "run_tfspec.hpp"

using tfspec::testing::CommandResult;
using tfspec::testing::run_tfspec;

// (4096,8192):(3,5) interleaves its strides (neither mode separates), so its 2^25 points must be
// enumerated, beyond the limit: the reference cannot decide: exit 2, no violation line (before
// issue 7 this printed a violation and exited 1). With the identity inner it is the same.
TEST(Outcomes, UndecidedCheckExitsTwoWithoutAViolation) {
  CommandResult r = run_tfspec("layout check 'None o 0 o (4096,8192):(3,5)'");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("undecided: [injectivity-undecided §2]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("violation: ["), std::string::npos) << r.out;
  CommandResult j = run_tfspec("layout check '(4096,8192):(3,5)' --json");
  EXPECT_NE(j.out.find("\"verdict\":\"undecided\""), std::string::npos) << j.out;
}

// Issue 25: the identity after the column-major (4096,8192):(1,4096) is i -> i, injective by
// hand; it is now decided through its outer layout (exit 0) instead of enumerated (undecided).
TEST(Outcomes, IdentityComposedLayoutIsDecided) {
  CommandResult r = run_tfspec("layout check 'None o 0 o (4096,8192):(1,4096)'");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("undecided"), std::string::npos) << r.out;
}

TEST(Outcomes, ViolationStillExitsOne) {
  CommandResult r = run_tfspec("layout check '(2,4):(1,1)'");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("violation: [layout-injective §2]"), std::string::npos) << r.out;
}

TEST(Outcomes, RulesListTheCatalogue) {
  CommandResult l = run_tfspec("layout rules");
  EXPECT_EQ(l.rc, 0);
  EXPECT_NE(l.out.find("layout-injective §2 invariant checked"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("composition-mode-overlap §3 refusal"), std::string::npos) << l.out;
  CommandResult s = run_tfspec("shard rules --json");
  EXPECT_EQ(s.rc, 0);
  EXPECT_NE(s.out.find("\"id\":\"split-divides\""), std::string::npos) << s.out;
}

// One bad line never ends the session: each line gets its answer.
TEST(Outcomes, ServeAnswersEveryLineWhateverTheBytes) {
  CommandResult r = run_tfspec("serve", "\xff\n{\"seq\":1,\"op\":\"size\",\"args\":{\"layout\":\"4\xc3\xa9\"}}\n"
                                        "{\"seq\":2,\"op\":\"size\",\"args\":{\"layout\":\"(2,3):(1,2)\"}}\n");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("protocol-malformed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"seq\":1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"result\":6,\"seq\":2}"), std::string::npos) << r.out;
}
