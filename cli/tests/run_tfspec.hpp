// Runs the `tfspec` binary for end-to-end tests (shared by every cli test file).
#pragma once
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tfspec::testing {

struct CommandResult {
  int rc;
  std::string out;  // stdout and stderr together
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `tfspec ARGS` (ARGS is shell text); stdin_text, if any, goes through a private temporary file,
// so tests running in parallel never share one.
inline CommandResult run_tfspec(const std::string& args, const std::string& stdin_text = "") {
  std::string cmd = std::string(TFSPEC_BINARY) + " " + args + " 2>&1";
  std::string in_file;
  if (!stdin_text.empty()) {
    in_file = ::testing::TempDir() + "/tfspec_stdin_XXXXXX";
    int fd = mkstemp(in_file.data());
    if (fd < 0) return {-1, "mkstemp failed"};
    size_t off = 0;
    while (off < stdin_text.size()) {
      ssize_t w = write(fd, stdin_text.data() + off, stdin_text.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fd);
    cmd += " < " + in_file;
  }
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  if (!in_file.empty()) std::remove(in_file.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

// `tfspec ARGS...` started directly (no shell: a shell would start a background job with SIGINT
// ignored), stdout and stderr to out_path; returns its pid (-1 on failure).
inline pid_t spawn_tfspec(const std::vector<std::string>& args, const std::string& out_path) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 1), dup2(fd, 2);
  std::vector<char*> argv{const_cast<char*>("tfspec")};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(TFSPEC_BINARY, argv.data());
  _exit(127);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The wait status of pid, killing it after `seconds` (then -1).
inline int wait_or_kill(pid_t pid, int seconds) {
  int status = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(seconds)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

// Polls out_path until it holds `text` (at most `seconds`).
inline bool wait_for_output(const std::string& out_path, const std::string& text, int seconds) {
  for (int i = 0; i < seconds * 20; ++i) {
    if (read_file(out_path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

inline std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  auto pos = t.rfind('\n');
  return pos == std::string::npos ? t : t.substr(pos + 1);
}

}  // namespace tfspec::testing
