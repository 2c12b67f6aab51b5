// `tfspec conform --jobs N` (issue 22): N implementation processes, one report. The report of a
// run over three processes must be the report of the same run over one (case order, statuses,
// details, restarts), with a misbehaving implementation (wrong answers, crashes, skips) so every
// status crosses the workers.
#include <gtest/gtest.h>

#include "release_only.hpp"

#include <atomic>

#include "corpus_support.hpp"
#include "tfspec/conformance/runner.hpp"

namespace tfspec::conformance {
namespace {

using testing::corpus;

// Counts the cases each worker's implementation was asked, to see that all of them worked.
class Counting : public Implementation {
 public:
  explicit Counting(std::unique_ptr<Implementation> inner) : inner_(std::move(inner)) {}
  Json start() override { return inner_->start(); }
  Reply ask(const Json& request) override {
    ++asked;
    return inner_->ask(request);
  }
  void stop() override { inner_->stop(); }
  int restarts() const override { return inner_->restarts(); }
  int asked = 0;

 private:
  std::unique_ptr<Implementation> inner_;
};

// The JSON report without wall times, which differ from run to run.
Json timeless(const Report& r) {
  Json j = json_report(r);
  j.erase("seconds");
  for (auto& c : j["cases"]) c.erase("seconds");
  return j;
}

RunOptions slice() {
  RunOptions o;
  o.filters = {"§1"};    // shape_div departures, depth crashes, crd2crd garbage, skips
  o.excludes = {"rank"};  // the planted hang would cost a timeout per run
  return o;
}

TEST(Jobs, ThreeProcessesReportWhatOneReports) {
  TFSPEC_RELEASE_BUILD_ONLY("two whole-corpus replays compared (the ASan build starts the jobs in Jobs.EveryProcessIsStartedBeforeAnyCase)");
  auto one = subprocess(TFSPEC_WRONG_IMPL, 5000);
  const Report single = run(corpus(), *one, slice());
  std::vector<std::unique_ptr<Counting>> three;
  std::vector<Implementation*> workers;
  for (int k = 0; k < 3; ++k) {
    three.push_back(std::make_unique<Counting>(subprocess(TFSPEC_WRONG_IMPL, 5000)));
    workers.push_back(three.back().get());
  }
  const Report parallel = run(corpus(), workers, slice());
  const Counts n = single.totals();
  ASSERT_GT(n.pass, 0);
  ASSERT_GT(n.fail, 0);     // shape_div never refuses
  ASSERT_GT(n.errored, 0);  // depth crashes: each case restarts a worker's process
  EXPECT_EQ(timeless(parallel), timeless(single));
  EXPECT_EQ(parallel.restarts, n.errored);
  int asked = 0;
  for (const auto& w : three) {
    EXPECT_GT(w->asked, 0) << "a worker got no case";
    asked += w->asked;
  }
  int listed = 0;  // cases of ops in the handshake: each is asked of exactly one worker
  for (const auto& o : single.cases) listed += o.detail != "op not listed in the handshake";
  EXPECT_EQ(asked, listed);
}

TEST(Jobs, EveryProcessIsStartedBeforeAnyCase) {
  auto good = subprocess(TFSPEC_WRONG_IMPL, 5000);
  auto bad = subprocess("exit 3", 500);
  std::vector<Implementation*> workers{good.get(), bad.get()};
  EXPECT_THROW(run(corpus(), workers, slice()), SpecError);
}

}  // namespace
}  // namespace tfspec::conformance
