// Runs the `tfspec` binary for end-to-end tests (shared by every cli test file).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
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

inline std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  auto pos = t.rfind('\n');
  return pos == std::string::npos ? t : t.substr(pos + 1);
}

}  // namespace tfspec::testing
