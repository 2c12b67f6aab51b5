// An implementation under test as a child process speaking JSON lines on stdin/stdout. Every
// way it can misbehave (no handshake, a timeout, a crash, a malformed line, a wrong seq) costs one
// case, recorded as errored with the reason, the child's exit status or signal, and the last lines
// of its stderr; the child is killed and started again for the next case.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::conformance {
namespace {

// The least a handshake is waited for, whatever --timeout-ms is (docs/conformance.md).
constexpr int kHandshakeMs = 10000;

using Clock = std::chrono::steady_clock;

// A wait status in words; sh reports "not found" as 127, "not executable" as 126, and a command
// it did not exec that died of signal N as 128 + N.
std::string describe_status(int status) {
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (!WIFEXITED(status)) return "stopped";
  const int code = WEXITSTATUS(status);
  if (code == 127) return "command not found (exit status 127)";
  if (code == 126) return "command not executable (exit status 126)";
  std::string s = "exited with status " + std::to_string(code);
  if (code > 128 && code < 128 + 65) s += " (signal " + std::to_string(code - 128) + ", " + strsignal(code - 128) + ")";
  return s;
}

// The last lines a child wrote to stderr (each clipped), optionally copied to a file as read.
class StderrTail {
 public:
  void attach(int fd) {
    fd_ = fd;
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
    partial_.clear();
  }
  int fd() const { return fd_; }
  void copy_to(int file) { file_ = file; }
  // Reads what is there without blocking; false at end of file.
  bool drain() {
    char buf[8192];
    for (;;) {
      if (fd_ < 0) return false;
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return true;  // EAGAIN: nothing more now
      if (n == 0) {
        close_fd();
        return false;
      }
      if (file_ >= 0) copy(buf, static_cast<size_t>(n));
      for (ssize_t i = 0; i < n; ++i) add(buf[i]);
    }
  }
  // Waits up to `ms` for the end of file (a child that exited), keeping what arrives.
  void drain_until_eof(int ms) {
    const auto until = Clock::now() + std::chrono::milliseconds(ms);
    while (drain() && Clock::now() < until) {
      pollfd p{fd_, POLLIN, 0};
      poll(&p, 1, 20);
    }
  }
  // Why the copy stopped ("" while every byte was written).
  const std::string& copy_problem() const { return copy_problem_; }
  std::string take() {
    if (!partial_.empty()) push(partial_), partial_.clear();
    std::string s;
    for (const auto& l : lines_) s += l + "\n";
    lines_.clear();
    return s;
  }
  void close_fd() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  void add(char c) {
    if (c == '\n') push(partial_), partial_.clear();
    // ASCII only: the tail goes into JSON, XML and terminals whatever bytes the child wrote.
    else if (partial_.size() < 500) partial_ += (c == '\t' || (c >= 0x20 && c < 0x7f)) ? c : '?';
  }
  // The whole chunk to the --impl-stderr file; a failed write (a full disk, /dev/full) ends the
  // copy and is reported after the run, never lost silently.
  void copy(const char* buf, size_t n) {
    for (size_t done = 0; done < n;) {
      const ssize_t w = write(file_, buf + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        copy_problem_ = std::strerror(w < 0 ? errno : EIO);
        file_ = -1;
        return;
      }
      done += static_cast<size_t>(w);
    }
  }
  void push(const std::string& l) {
    lines_.push_back(l);
    if (lines_.size() > static_cast<size_t>(kStderrTailLines)) lines_.pop_front();
  }
  int fd_ = -1, file_ = -1;
  std::string copy_problem_;
  std::string partial_;
  std::deque<std::string> lines_;
};

class Subprocess : public Implementation {
 public:
  Subprocess(std::string command, int timeout_ms, std::string stderr_path)
      : command_(std::move(command)), timeout_ms_(timeout_ms), stderr_path_(std::move(stderr_path)) {}
  ~Subprocess() override {
    kill_child();
    if (stderr_file_ >= 0) close(stderr_file_);
  }

  Json start() override {
    if (!stderr_path_.empty()) {
      stderr_file_ = open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (stderr_file_ < 0) fail(rule::kUsage, "cannot open --impl-stderr " + stderr_path_ + ": " + std::strerror(errno));
    }
    std::string problem;
    if (!launch(problem)) fail(rule::kUsage, "cannot start the implementation `" + command_ + "`: " + problem);
    return hello_;
  }

  Reply ask(const Json& request) override {
    std::string problem;
    // An implementation that no longer starts costs each remaining case nothing but this line.
    if (failed_launches_ >= 3) return Reply{Json(), "the implementation no longer starts (3 restarts failed)", false, true, ""};
    if (pid_ <= 0 && !launch(problem)) {
      ++failed_launches_;
      return Reply{Json(), "restart failed: " + problem, false, true, err_.take()};
    }
    failed_launches_ = 0;
    err_.drain();
    err_.take();  // lines written between cases belong to none
    bool timed_out = false;
    crashed_ = false;
    Reply r = exchange(request, problem, timed_out);
    if (problem.empty() && (!r.json.is_object() || r.json.value("seq", Json()) != request["seq"]))
      problem = "reply echoes seq " + (r.json.is_object() ? r.json.value("seq", Json()).dump() : std::string("none")) +
                ", expected " + request["seq"].dump() + ": " + r.json.dump().substr(0, 200);
    if (problem.empty()) {
      err_.drain();
      return Reply{r.json, "", false, false, err_.take()};
    }
    kill_child();
    ++restarts_;
    return Reply{Json(), problem, timed_out, crashed_, err_.take()};
  }

  void stop() override {
    if (pid_ <= 0) return;
    std::string ignored;
    bool timed_out = false;
    write_line(Json{{"cmd", "stop"}}, ignored);
    Json bye;
    read_line(bye, ignored, timed_out);
    kill_child();
  }

  int restarts() const override { return restarts_; }
  void set_deadline(Clock::time_point at) override { run_deadline_ = at; }
  void set_interrupt(const std::atomic<int>* flag) override { interrupt_ = flag; }
  std::string copy_problem() const override {
    return err_.copy_problem().empty() ? "" : "cannot write --impl-stderr " + stderr_path_ + ": " + err_.copy_problem();
  }

 private:
  bool launch(std::string& problem) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      problem = std::strerror(errno);
      return false;
    }
    pid_ = fork();
    if (pid_ < 0) {
      problem = std::strerror(errno);
      return false;
    }
    if (pid_ == 0) {
      setpgid(0, 0);  // its own process group: a kill reaches whatever the shell started
      dup2(in[0], 0);  // dup2 clears O_CLOEXEC on the copies
      dup2(out[1], 1);
      dup2(err[1], 2);
      execl("/bin/sh", "sh", "-c", command_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]), close(out[1]), close(err[1]);
    to_child_ = in[1];
    fcntl(to_child_, F_SETFL, fcntl(to_child_, F_GETFL) | O_NONBLOCK);  // write_line: a bounded wait
    from_child_ = out[0];
    err_.attach(err[0]);
    err_.copy_to(stderr_file_);
    reaped_ = false;
    buffer_.clear();
    std::string p;
    bool timed_out = false;
    // The handshake gets at least kHandshakeMs: an interpreter's start (python, its imports) on a
    // busy machine can take longer than one case's --timeout-ms (docs/conformance.md).
    const int wait_ms = std::max(timeout_ms_, kHandshakeMs);
    if (!write_line(Json{{"cmd", "start"}, {"protocol", protocol::kProtocolVersion}}, p, wait_ms) || !read_line(hello_, p, timed_out, wait_ms) ||
        !hello_.is_object() || hello_.value("cmd", Json()) != Json("start") || hello_.value("protocol", Json()) != protocol::kProtocolVersion) {
      if (p.empty()) p = "answered " + hello_.dump().substr(0, 200);
      problem = "no handshake for protocol " + std::to_string(protocol::kProtocolVersion) + " (" + p + ")";
      kill_child();
      const std::string tail = err_.take();
      if (!tail.empty()) problem += "; its stderr ended:\n" + tail;
      return false;
    }
    return true;
  }

  Reply exchange(const Json& request, std::string& problem, bool& timed_out) {
    Json reply;
    last_write_timed_out_ = false;
    if (!write_line(request, problem)) {
      timed_out = last_write_timed_out_;
      return Reply{};
    }
    if (!read_line(reply, problem, timed_out)) return Reply{};
    return Reply{reply, "", false, false, ""};
  }

  bool interrupted() const { return interrupt_ && interrupt_->load() != 0; }

  // The whole line, within the same timeout as a reply: the pipe is non-blocking, so a child that
  // stopped reading (a request larger than the pipe buffer) costs a timeout, not the run, and a
  // stop signal ends the wait at once. Its stderr is read meanwhile (it may block on that too).
  bool write_line(const Json& j, std::string& problem) { return write_line(j, problem, timeout_ms_); }
  bool write_line(const Json& j, std::string& problem, int limit_ms) {
    const std::string line = protocol::dump_line(j) + "\n";
    const auto deadline = std::min(Clock::now() + std::chrono::milliseconds(limit_ms), run_deadline_);
    size_t done = 0;
    while (done < line.size()) {
      if (interrupted()) {
        problem = "interrupted by signal " + std::to_string(interrupt_->load()) + " while writing the request";
        return false;
      }
      ssize_t n = write(to_child_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
          problem = "the implementation did not read its request within " + std::to_string(limit_ms) + " ms (" + std::to_string(done) + " of " +
                    std::to_string(line.size()) + " bytes written; --timeout-ms)";
          last_write_timed_out_ = true;
          return false;
        }
        pollfd p[2] = {{to_child_, POLLOUT, 0}, {err_.fd(), POLLIN, 0}};
        if (poll(p, err_.fd() >= 0 ? 2 : 1, static_cast<int>(std::min<int64_t>(left, 100))) > 0 && p[1].revents) err_.drain();
        continue;
      }
      if (n <= 0) {
        problem = "the implementation closed its input: " + exit_status();
        crashed_ = true;
        return false;
      }
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // After the child closed its stdout: how it ended (it has 500 ms to exit), its stderr read to
  // the end.
  std::string exit_status() {
    if (pid_ <= 0) return "not running";
    int status = 0;
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    for (;;) {
      const pid_t w = waitpid(pid_, &status, WNOHANG);
      if (w == pid_) break;
      if (w < 0 || Clock::now() >= until) return "it closed its output and is still running";
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    reaped_ = true;
    err_.drain_until_eof(200);
    return describe_status(status);
  }

  // One line within the timeout; blank lines are skipped. Stderr is read meanwhile.
  bool read_line(Json& out, std::string& problem, bool& timed_out) { return read_line(out, problem, timed_out, timeout_ms_); }
  bool read_line(Json& out, std::string& problem, bool& timed_out, int limit_ms) {
    const auto deadline = std::min(Clock::now() + std::chrono::milliseconds(limit_ms), run_deadline_);
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
          out = parse_json_text(line, "the reply");
          return true;
        } catch (const SpecError& e) {
          problem = e.diagnostic().message;
          return false;
        } catch (const Json::exception&) {
          problem = "malformed reply line: " + line.substr(0, 200);
          return false;
        }
      }
      // Rounded up: a reply given up on a fraction of a millisecond early would leave the run's
      // deadline not yet reached, and the runner would ask the next case (a flaky Trust test).
      if (interrupted()) {
        problem = "interrupted by signal " + std::to_string(interrupt_->load()) + " while waiting for the reply";
        return false;
      }
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        problem = deadline == run_deadline_ ? std::string("no reply before the run's deadline (--deadline)")
                                            : "no reply within " + std::to_string(limit_ms) + " ms (" + (limit_ms == timeout_ms_ ? "--timeout-ms" : "a handshake waits at least " + std::to_string(kHandshakeMs) + " ms") + ")";
        timed_out = true;
        return false;
      }
      pollfd p[2] = {{from_child_, POLLIN, 0}, {err_.fd(), POLLIN, 0}};
      int rc = poll(p, err_.fd() >= 0 ? 2 : 1, static_cast<int>(std::min<int64_t>(left, 100)));  // a stop signal is seen within 0.1 s
      if (rc < 0 && errno == EINTR) continue;
      if (rc <= 0) continue;
      if (p[1].revents) err_.drain();
      if (!p[0].revents) continue;
      char buf[65536];
      ssize_t n = read(from_child_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        problem = "the implementation ended without a reply: " + exit_status();
        crashed_ = true;
        return false;
      }
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  void kill_child() {
    if (to_child_ >= 0) close(to_child_);
    if (from_child_ >= 0) close(from_child_);
    to_child_ = from_child_ = -1;
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);  // the group: what the shell started
      if (!reaped_) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
      err_.drain();  // whatever it wrote before it died
    }
    err_.close_fd();
    pid_ = -1;
  }

  std::string command_;
  int timeout_ms_;
  Clock::time_point run_deadline_ = Clock::time_point::max();
  std::string stderr_path_;
  int stderr_file_ = -1;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int to_child_ = -1, from_child_ = -1;
  StderrTail err_;
  std::string buffer_;
  Json hello_;
  int restarts_ = 0;
  int failed_launches_ = 0;
  const std::atomic<int>* interrupt_ = nullptr;
  bool crashed_ = false, last_write_timed_out_ = false;
};

}  // namespace

std::unique_ptr<Implementation> subprocess(const std::string& command, int timeout_ms, const std::string& stderr_path) {
  if (timeout_ms <= 0) fail(rule::kUsage, "the per-case timeout must be at least 1 ms, not " + std::to_string(timeout_ms));
  // A child that exits makes our next write raise SIGPIPE: handle it as a failed write.
  signal(SIGPIPE, SIG_IGN);
  return std::make_unique<Subprocess>(command, timeout_ms, stderr_path);
}

}  // namespace tfspec::conformance
