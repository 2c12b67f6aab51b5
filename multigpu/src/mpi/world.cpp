// The MPI world of one reshard-run (spec/MULTIGPU.md "Faults"): errors returned, never fatal
// inside MPI; every wait polled against a deadline; after a timeout, one round of messages finds
// which ranks are still alive, so the report names the rank that exited or hung and the step.
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <sstream>
#include <thread>

#include "tfspec/multigpu/mpi.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu::mpi {
namespace {
constexpr int kAliveTag = 7;
using Clock = std::chrono::steady_clock;

// Straight to the stderr file: a command may have silenced the C++ error stream on ranks other
// than 0 (their input errors repeat rank 0's), but a fault is this rank's own news.
void say(const std::string& line) {
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<size_t>(len));
}

// Polls until `test` says done or the deadline passed; true when done. For the first 50 ms the
// polls follow each other without yielding (measured on the 2-core machine: yielding between
// tests made the plans' time over the naive exchange's 1.15-1.45x higher with 4 ranks and up to
// 1.3x with 8; spec/MULTIGPU.md "Running at the engine's limit"), reading the
// clock every 64 polls; after that (a slow or stopped peer, not a step in progress) it sleeps
// 200 us between polls, so a hung peer does not cost a busy core until the deadline.
bool poll(const std::function<bool(int&)>& test, Clock::time_point deadline, int& rc) {
  const auto patient = Clock::now() + std::chrono::milliseconds(50);
  bool sleepy = false;
  for (unsigned spins = 1;; ++spins) {
    rc = MPI_SUCCESS;
    const bool done = test(rc);
    if (rc != MPI_SUCCESS || done) return rc == MPI_SUCCESS;
    if (sleepy || spins % 64 == 0) {
      const auto now = Clock::now();
      if (now > deadline) return false;
      sleepy = now > patient;
    }
    if (sleepy) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

bool poll(std::vector<MPI_Request>& reqs, Clock::time_point deadline, int& rc) {
  return poll(
      [&](int& code) {
        int done = 0;
        code = MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
        return done != 0;
      },
      deadline, rc);
}
}  // namespace

World::World(double timeout_seconds) : timeout_(timeout_seconds) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup", "start");
  check(MPI_Comm_dup(MPI_COMM_WORLD, &alive_), "MPI_Comm_dup", "start");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(alive_, MPI_ERRORS_RETURN);
}

World::~World() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (alive_ != MPI_COMM_NULL) MPI_Comm_free(&alive_);
  MPI_Finalize();
}

void World::check(int rc, const char* call, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  std::ostringstream o;
  o << "undecided: [" << rule::kMpiError.id << " -] rank " << rank_ << ": " << call << " failed in " << what << ": "
            << error_text(rc) << " (a peer may have exited)\n";
  say(o.str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::_Exit(2);
}

void World::wait(std::vector<MPI_Request>& requests, const std::string& what) {
  int rc = MPI_SUCCESS;
  if (poll(requests, Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout_), rc)) return;
  if (rc != MPI_SUCCESS) check(rc, "MPI_Testall", what);
  timed_out(what);
}

void World::wait_until(const std::function<bool(int&)>& test, const Plan& plan, size_t step) {
  int rc = MPI_SUCCESS;
  if (poll(test, Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout_), rc)) return;
  if (rc != MPI_SUCCESS) check(rc, "MPI_Test", describe_step(plan, step));
  timed_out(describe_step(plan, step));
}

// Every live rank ends up waiting for the stopped one (the run ends in a gather to rank 0), so
// every live rank times out within about one step's time of the others: each sends every rank a
// message and listens for a grace period; who never answers has exited or hung. The lowest live
// rank prints the report; the job is then aborted (mpiexec ends every rank).
void World::timed_out(const std::string& what) {
  std::vector<int> heard(static_cast<size_t>(size_), 0);
  std::vector<MPI_Request> recvs(static_cast<size_t>(size_), MPI_REQUEST_NULL), sends;
  int token = rank_;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    MPI_Irecv(&heard[static_cast<size_t>(r)], 1, MPI_INT, r, kAliveTag, alive_, &recvs[static_cast<size_t>(r)]);
    sends.emplace_back();
    MPI_Isend(&token, 1, MPI_INT, r, kAliveTag, alive_, &sends.back());
  }
  const auto grace = Clock::now() + std::chrono::seconds(2);
  std::vector<int> silent;
  int lowest_alive = rank_;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    std::vector<MPI_Request> one{recvs[static_cast<size_t>(r)]};
    int rc = MPI_SUCCESS;
    if (poll(one, grace, rc)) lowest_alive = std::min(lowest_alive, r);
    else silent.push_back(r);
  }
  if (lowest_alive == rank_) {
    std::string names;
    for (int r : silent) names += (names.empty() ? "" : ", ") + std::to_string(r);
    std::ostringstream o;
    o << "undecided: [" << rule::kMpiTimeout.id << " -] rank " << rank_ << ": " << what << " did not finish within "
              << timeout_.count() << " s; " << (silent.empty() ? std::string("every rank answered afterwards (a slow peer?)")
                                                                : "rank(s) " + names + " did not answer (exited or hung)")
              << "; aborting the run\n";
    say(o.str());
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(1));  // let the lowest live rank report first
  }
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::_Exit(2);
}

std::vector<std::vector<unsigned char>> World::gather(const std::vector<unsigned char>& mine, const std::string& what) {
  int64_t n = static_cast<int64_t>(mine.size());
  std::vector<int64_t> sizes(static_cast<size_t>(size_));
  std::vector<MPI_Request> req(1);
  check(MPI_Igather(&n, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, 0, comm_, &req[0]), "MPI_Igather", what);
  wait(req, what);
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  int total = 0;
  for (size_t r = 0; r < sizes.size() && rank_ == 0; ++r) {
    if (sizes[r] > INT32_MAX - total) fail(rule::kResourceLimit, "the DST buffers to gather pass 2^31 bytes");
    counts[r] = static_cast<int>(sizes[r]), displs[r] = total, total += counts[r];
  }
  std::vector<unsigned char> all(static_cast<size_t>(total));
  check(MPI_Igatherv(mine.data(), static_cast<int>(n), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, comm_, &req[0]),
        "MPI_Igatherv", what);
  wait(req, what);
  std::vector<std::vector<unsigned char>> out;
  if (rank_ == 0)
    for (size_t r = 0; r < counts.size(); ++r) out.emplace_back(all.begin() + displs[r], all.begin() + displs[r] + counts[r]);
  return out;
}

int64_t World::broadcast(int64_t value, const std::string& what) {
  std::vector<MPI_Request> req(1);
  check(MPI_Ibcast(&value, 1, MPI_INT64_T, 0, comm_, &req[0]), "MPI_Ibcast", what);
  wait(req, what);
  return value;
}

Fault fault_from_env() {
  const char* v = std::getenv("TFSPEC_MPI_FAULT");
  if (!v || !*v) return Fault{};
  return parse_fault(v);
}

Fault parse_fault(const std::string& s) {
  Fault f;
  const auto a = s.find(':'), b = s.find(':', a == std::string::npos ? a : a + 1);
  const std::string kind = s.substr(0, a);
  if (a == std::string::npos || b == std::string::npos || (kind != "exit" && kind != "hang" && kind != "error"))
    fail(rule::kUsage, "TFSPEC_MPI_FAULT is exit:RANK:STEP, hang:RANK:STEP or error:RANK:STEP, not '" + s + "'");
  f.kind = kind == "exit" ? Fault::Kind::Exit : kind == "hang" ? Fault::Kind::Hang : Fault::Kind::Error;
  // RANK and STEP are decimal integers, read whole (a word or an overflow is a usage error, not
  // an exception out of main).
  auto number = [&](const std::string& text, const char* what, int64_t hi) {
    int64_t n = -1;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size() || n < 0 || n > hi)
      fail(rule::kUsage, std::string("TFSPEC_MPI_FAULT's ") + what + " is an integer from 0 to " + std::to_string(hi) + ", not '" + text + "' (in '" + s + "')");
    return n;
  };
  f.rank = static_cast<int>(number(s.substr(a + 1, b - a - 1), "RANK", 1 << 30));
  f.step = static_cast<size_t>(number(s.substr(b + 1), "STEP", int64_t{1} << 40));
  return f;
}

void check_fault_fires(const Fault& f, int ranks, size_t steps) {
  if (f.kind == Fault::Kind::None) return;
  const std::string text = std::string(f.kind == Fault::Kind::Exit ? "exit" : f.kind == Fault::Kind::Hang ? "hang" : "error") + ":" +
                           std::to_string(f.rank) + ":" + std::to_string(f.step);
  if (f.rank >= ranks)
    fail(rule::kUsage, "TFSPEC_MPI_FAULT=" + text + " names rank " + std::to_string(f.rank) + ", but the run has " + std::to_string(ranks) +
                           " rank(s), 0.." + std::to_string(ranks - 1) + ": the fault could never fire");
  if (f.step > steps)
    fail(rule::kUsage, "TFSPEC_MPI_FAULT=" + text + " names step " + std::to_string(f.step) + ", but the plan has " + std::to_string(steps) +
                           " step(s): a fault fires before a step 0.." + std::to_string(steps) + " (" + std::to_string(steps) +
                           ": before the gather to rank 0), so this one could never fire");
}

}  // namespace tfspec::multigpu::mpi
