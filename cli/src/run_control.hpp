// What `fuzz` and `conform` share about a long run: the option checks of a time budget, the
// report files (a write that fails is an input error, exit 3, never a silent loss), and stopping
// at a case boundary on SIGINT / SIGTERM (docs/cli.md, "Exit codes": 128 + the signal number).
#pragma once
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include "tfspec/reference/error.hpp"

namespace tfspec::cli {

// A budget in seconds: a finite number from a millisecond (NaN never ends, 0 or less runs nothing,
// 1e-10 s is no time on any clock) to 10^7 s, about 115 days (a deadline of 1e10 s would overflow
// the clock's nanoseconds and end at once).
inline constexpr double kMinSeconds = 1e-3, kMaxSeconds = 1e7;
// `lo_text` is `lo` as the message writes it; `why` (when not empty) says why nothing shorter.
inline CLI::Validator seconds_from(double lo, const std::string& lo_text, const std::string& why) {
  return CLI::Validator(
      [lo, lo_text, why](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v) || v < lo || v > kMaxSeconds)
          return "must be a finite number of seconds from " + lo_text + " to 1e7 (about 115 days), not '" + s + "'" + (why.empty() ? "" : ": " + why);
        return "";
      },
      "SECONDS");
}
inline CLI::Validator positive_seconds() { return seconds_from(kMinSeconds, "0.001", ""); }
// --rank-timeout: the silence after which a rank is given up. Every rank sends rank 0 a note
// every 0.2 s and rank 0 sends the others a sign of life every 0.5 s, so below a second ranks at
// work would be given up (measured: 0.3 s ended a healthy 3-rank run with exit 2).
inline CLI::Validator rank_timeout_seconds() {
  return seconds_from(1, "1", "the ranks' notes come every 0.2 s and rank 0's signs of life every 0.5 s, so less would give up ranks at work");
}

// A whole number in [lo, hi], read exactly (CLI11's own range check prints its bounds as
// doubles, "Value 0 not in range 0.000000 to 1.79e308", which names neither rule nor bound).
inline CLI::Validator integer_in(unsigned long long lo, unsigned long long hi, const std::string& what) {
  return CLI::Validator(
      [lo, hi, what](std::string& s) -> std::string {
        const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || v < lo || v > hi) return "must be " + what + ", not '" + s + "'";
        return "";
      },
      "INTEGER");
}

// A non-empty string (an empty one would silently mean "not given").
inline CLI::Validator non_empty(const std::string& why) {
  return CLI::Validator([why](std::string& s) -> std::string { return s.empty() ? "must not be empty: " + why : ""; }, "TEXT");
}

// Writes a report file whole: open, write, flush and close checked (`/dev/full` is refused).
inline void write_report_file(const std::string& path, const std::string& text, const std::string& what = "the report file") {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(rule::kUsage, "cannot open " + what + " " + path + ": " + std::strerror(errno));
  out << text;
  out.flush();
  const bool written = static_cast<bool>(out);
  out.close();
  if (!written || out.fail()) fail(rule::kOutputWrite, "cannot write " + what + " " + path + ": " + std::strerror(errno ? errno : EIO));
}

// The report files of a run, checked before it starts rather than after (a campaign of an hour
// would otherwise end in "cannot open"): each is opened for appending, which truncates none that
// exists; one the check created is removed again. "" is a report not asked for.
inline void check_report_paths(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    if (p.empty()) continue;
    struct stat st {};
    const bool existed = ::stat(p.c_str(), &st) == 0;
    std::FILE* f = std::fopen(p.c_str(), "a");
    if (!f) fail(rule::kUsage, "cannot open the report file " + p + ": " + std::strerror(errno) + " (checked before the run starts)");
    std::fclose(f);
    if (!existed) std::remove(p.c_str());
  }
}

// The signal that asked the run to stop (0: none). Handlers only store the number; the loops
// read it between cases.
inline std::atomic<int> g_stop_signal{0};  // constant-initialized: safe to touch in a handler
inline std::atomic<int>& stop_signal() { return g_stop_signal; }

inline void catch_stop_signals() {
  static_assert(std::atomic<int>::is_always_lock_free, "read in a signal handler");
  struct sigaction sa {};
  sa.sa_handler = [](int sig) { g_stop_signal.store(sig); };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// The exit code of a run stopped by a signal: 128 + its number (130 for SIGINT), as a shell says.
inline int stopped_exit_code() { return 128 + stop_signal().load(); }

}  // namespace tfspec::cli
