// An implementation under test as a child process speaking JSON lines on stdin/stdout. Every
// way it can misbehave (no handshake, a timeout, a crash, a malformed line, a wrong seq) costs one
// case, recorded as errored; the child is killed and started again for the next case.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "tfspec/conformance/runner.hpp"
#include "tfspec/protocol/wire.hpp"

namespace tfspec::conformance {
namespace {

class Subprocess : public Implementation {
 public:
  Subprocess(std::string command, int timeout_ms, std::string stderr_path)
      : command_(std::move(command)), timeout_ms_(timeout_ms), stderr_path_(std::move(stderr_path)) {}
  ~Subprocess() override { kill_child(); }

  Json start() override {
    std::string problem;
    if (!launch(problem)) fail(rule::kUsage, "cannot start the implementation `" + command_ + "`: " + problem);
    return hello_;
  }

  Reply ask(const Json& request) override {
    std::string problem;
    // An implementation that no longer starts costs each remaining case nothing but this line.
    if (failed_launches_ >= 3) return Reply{Json(), "the implementation no longer starts (3 restarts failed)"};
    if (pid_ <= 0 && !launch(problem)) {
      ++failed_launches_;
      return Reply{Json(), "restart failed: " + problem};
    }
    failed_launches_ = 0;
    Reply r = exchange(request, problem);
    if (!problem.empty()) {
      kill_child();
      ++restarts_;
      return Reply{Json(), problem};
    }
    if (!r.json.is_object() || r.json.value("seq", Json()) != request["seq"]) {
      kill_child();
      ++restarts_;
      return Reply{Json(), "reply echoes seq " + (r.json.is_object() ? r.json.value("seq", Json()).dump() : std::string("none")) +
                               ", expected " + request["seq"].dump() + ": " + r.json.dump().substr(0, 200)};
    }
    return r;
  }

  void stop() override {
    if (pid_ <= 0) return;
    std::string ignored;
    write_line(Json{{"cmd", "stop"}}, ignored);
    Json bye;
    read_line(bye, ignored);
    kill_child();
  }

  int restarts() const override { return restarts_; }

 private:
  bool launch(std::string& problem) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) {
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
      dup2(in[0], 0);
      dup2(out[1], 1);
      int err = open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (err >= 0) dup2(err, 2);
      close(in[0]), close(in[1]), close(out[0]), close(out[1]);
      execl("/bin/sh", "sh", "-c", command_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    buffer_.clear();
    std::string p;
    if (!write_line(Json{{"cmd", "start"}, {"protocol", protocol::kProtocolVersion}}, p) || !read_line(hello_, p) ||
        !hello_.is_object() || hello_.value("cmd", "") != "start" || hello_.value("protocol", Json()) != protocol::kProtocolVersion) {
      problem = "no handshake for protocol " + std::to_string(protocol::kProtocolVersion) + (p.empty() ? std::string() : " (" + p + ")");
      kill_child();
      return false;
    }
    return true;
  }

  Reply exchange(const Json& request, std::string& problem) {
    Json reply;
    if (!write_line(request, problem) || !read_line(reply, problem)) return Reply{};
    return Reply{reply, ""};
  }

  bool write_line(const Json& j, std::string& problem) {
    const std::string line = protocol::dump_line(j) + "\n";
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = write(to_child_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        problem = "the implementation closed its input (crashed?)";
        return false;
      }
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // One line within the timeout; blank lines are skipped.
  bool read_line(Json& out, std::string& problem) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
          out = Json::parse(line);
          return true;
        } catch (const Json::exception&) {
          problem = "malformed reply line: " + line.substr(0, 200);
          return false;
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        problem = "no reply within " + std::to_string(timeout_ms_) + " ms";
        return false;
      }
      pollfd p{from_child_, POLLIN, 0};
      int rc = poll(&p, 1, static_cast<int>(left));
      if (rc < 0 && errno == EINTR) continue;
      if (rc == 0) continue;
      char buf[65536];
      ssize_t n = read(from_child_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        problem = "the implementation exited without a reply (crashed?)";
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
      kill(-pid_, SIGKILL);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  std::string command_;
  int timeout_ms_;
  std::string stderr_path_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_;
  Json hello_;
  int restarts_ = 0;
  int failed_launches_ = 0;
};

}  // namespace

std::unique_ptr<Implementation> subprocess(const std::string& command, int timeout_ms, const std::string& stderr_path) {
  // A child that exits makes our next write raise SIGPIPE: handle it as a failed write.
  signal(SIGPIPE, SIG_IGN);
  return std::make_unique<Subprocess>(command, timeout_ms, stderr_path);
}

}  // namespace tfspec::conformance
