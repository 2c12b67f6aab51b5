// `tfspec reshard-run` outside mpiexec: the command exists in every build; built without MPI it
// says so (mpi-unavailable, exit 5). Under mpiexec: cli/tests/mpi/reshard_run_mpi_test.cpp.
#include <gtest/gtest.h>

#include "run_tfspec.hpp"

namespace {

using tfspec::testing::run_tfspec;

TEST(ReshardRunCli, TheCommandExistsWithItsOptions) {
  const auto r = run_tfspec("reshard-run --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  for (const char* opt : {"--dtype", "--seed", "--timeout", "--executor", "--mpi-variant", "--json"}) EXPECT_NE(r.out.find(opt), std::string::npos) << opt << "\n" << r.out;
}

#ifndef TFSPEC_HAVE_MPI
TEST(ReshardRunCli, WithoutMpiItSaysSo) {
  const auto r = run_tfspec("reshard-run '(8 @ m.x, 2) on x=4' '(8, 2) on x=4' '(8,2)'");
  EXPECT_EQ(r.rc, 5) << r.out;
  EXPECT_NE(r.out.find("error: [" + std::string("mpi-unavailable") + " -] this tfspec was built without MPI"), std::string::npos) << r.out;
}
#else
TEST(ReshardRunCli, WithoutMpiItSaysSo) {
  GTEST_SKIP() << "this tfspec was built with MPI; a build with -DTFSPEC_MPI=OFF runs this test (" << "mpi-unavailable" << ", exit 5)";
}
#endif

}  // namespace
