// serve --smt2-dir: SMT-LIB files created inside one directory only (issue 19; spec/PROTOCOL.md).
// The check used to be lexical (no '..', not absolute) and the file was opened by path: an
// embedded NUL cut the name short, and a symlinked directory or a pre-created symlink inside
// DIR sent the write elsewhere. Now nothing is resolved by path below DIR: one name component,
// opened relative to DIR's descriptor with O_NOFOLLOW, created exclusively.
#include "tfspec/protocol/smt2_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "tfspec/reference/error.hpp"

namespace tfspec::protocol {
namespace {

// A printable rendering of a refused name (its control bytes as \xNN) for the message.
std::string shown(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

class Fd {  // closes on every path out
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

void check_smt2_name(const std::string& name) {
  const char* why = nullptr;
  if (name.empty()) why = "is empty";
  else if (name == "." || name == "..") why = "is '.' or '..'";
  for (unsigned char c : name) {
    if (why) break;
    if (c == '/') why = "contains '/' (a name inside --smt2-dir, no directories)";
    else if (c < 0x20 || c == 0x7f) why = "contains a NUL or control character";
  }
  if (why) fail(rule::kProtocolSmt2Name, "the smt2 name \"" + shown(name) + "\" " + why);
}

std::string create_smt2_file(const std::string& dir, const std::string& file, const std::string& text) {
  check_smt2_name(file);
  const std::string path = dir + "/" + file;
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (d.get() < 0) fail(rule::kProveSmt2Write, "cannot open the --smt2-dir " + dir + ": " + std::strerror(errno));
  Fd f(::openat(d.get(), file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (f.get() < 0) {
    const int e = errno;
    if (e == EEXIST || e == ELOOP)
      fail(rule::kProtocolSmt2Exists, path + " already exists (a file, directory or symlink): serve creates each file anew and never replaces one; choose another smt2 name");
    fail(rule::kProveSmt2Write, "cannot create " + path + ": " + std::strerror(e));
  }
  const bool written = write_all(f.get(), text);
  const int e = errno;
  const bool closed = ::close(f.release()) == 0;
  if (!written || !closed) {
    ::unlinkat(d.get(), file.c_str(), 0);  // our own file, by name inside DIR: a partial file is no result
    fail(rule::kProveSmt2Write, "cannot write " + path + ": " + std::strerror(written ? errno : e));
  }
  return path;
}

}  // namespace tfspec::protocol
