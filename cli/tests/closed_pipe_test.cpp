// Issue 36: a closed pipe ends tfspec as it ends `cat` (docs/cli.md "Output"): `tfspec layout
// rules | head -1` is the reader saying it wants no more, not a failed write. The command dies of
// SIGPIPE (the shell's status 141) and prints nothing on stderr, whether or not the process that
// started it ignored SIGPIPE. A full disk (/dev/full) stays an error: output_write_test.cpp.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "run_tfspec.hpp"

namespace {

struct PipeRun {
  int status = -1;  // the wait status
  std::string err;  // what it wrote to stderr
};

// A private temporary file holding `text`, open for reading from its start (-1 on failure).
int temp_file_with(const std::string& text, std::string& path) {
  path = ::testing::TempDir() + "/closed_pipe_XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return -1;
  lseek(fd, 0, SEEK_SET);
  return fd;
}

// `tfspec ARGS...` with stdout on a pipe whose read end is closed before it starts (so no race
// with a reader that has not yet left), stdin from `input`, stderr to a private file.
PipeRun run_into_closed_pipe(const std::vector<std::string>& args, bool sigpipe_ignored, const std::string& input = "") {
  int fds[2];
  if (pipe(fds) != 0) return {};
  close(fds[0]);
  std::string err_path, in_path;
  const int err_fd = temp_file_with("", err_path), in_fd = temp_file_with(input, in_path);
  if (err_fd < 0 || in_fd < 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in_fd, 0), dup2(fds[1], 1), dup2(err_fd, 2);
    signal(SIGPIPE, sigpipe_ignored ? SIG_IGN : SIG_DFL);  // inherited across exec
    std::vector<char*> argv{const_cast<char*>("tfspec")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(TFSPEC_BINARY, argv.data());
    _exit(127);
  }
  close(fds[1]), close(err_fd), close(in_fd);
  PipeRun r;
  r.status = tfspec::testing::wait_or_kill(pid, 120);
  r.err = tfspec::testing::read_file(err_path);
  std::remove(err_path.c_str()), std::remove(in_path.c_str());
  return r;
}

void expect_quiet_end(const std::vector<std::string>& args, const std::string& input = "") {
  for (bool ignored : {false, true}) {
    SCOPED_TRACE(args[0] + (ignored ? ", started with SIGPIPE ignored" : ""));
    const PipeRun r = run_into_closed_pipe(args, ignored, input);
    ASSERT_NE(r.status, -1) << "did not end within 120 s";
    EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGPIPE)
        << "wait status " << r.status << (WIFEXITED(r.status) ? ", exit " + std::to_string(WEXITSTATUS(r.status)) : "");
    EXPECT_EQ(r.err, "");  // quiet: no `error: [output-write -]`
  }
}

TEST(ClosedPipe, LayoutRulesEndsQuietly) { expect_quiet_end({"layout", "rules"}); }

TEST(ClosedPipe, ALargePictureEndsQuietly) { expect_quiet_end({"draw", "(64,128):(1,64)"}); }

TEST(ClosedPipe, ProveEndsQuietly) { expect_quiet_end({"prove", "injective", "(M,N):(1,M)"}); }

// serve's replies are its answer: the reader gone, it ends as the others do (a full disk is
// still `output-write`, exit 3: output_write_test.cpp).
TEST(ClosedPipe, ServeEndsQuietly) {
  expect_quiet_end({"serve"}, "{\"cmd\":\"start\",\"protocol\":1}\n{\"seq\":1,\"op\":\"size\",\"args\":{\"layout\":\"(2,3)\"}}\n");
}

// conform ignores SIGPIPE while it talks to an implementation (to see the implementation exit):
// its closed stdout still ends it as SIGPIPE would.
TEST(ClosedPipe, ConformWithAnImplementationEndsQuietly) {
  expect_quiet_end({"conform", "--quiet", "--filter", "§7.5", "--impl", std::string(TFSPEC_BINARY) + " serve"});
}

}  // namespace
