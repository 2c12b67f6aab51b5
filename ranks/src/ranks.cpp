// The rank/merge helper (ranks.hpp) over MPI: MPI_ERRORS_RETURN on a duplicate of the world,
// notes and results as byte messages to rank 0 (probed, then received without blocking), every
// wait polled against a deadline (TOOLING-NOTES.md: a rank waiting on a dead peer blocks forever
// by default). Without MPI a Campaign cannot be made: the commands say so (mpi-unavailable).
#include "tfspec/ranks/ranks.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <thread>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

#ifdef TFSPEC_RANKS_MPI
#include <mpi.h>
#endif

namespace tfspec::ranks {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

#ifndef TFSPEC_RANKS_MPI

bool built_with_mpi() { return false; }
struct Campaign::State {};
Campaign::Campaign() {
  fail(rule::kMpiUnavailable,
       "this tfspec was built without MPI (CMake's find_package(MPI) found none), so a campaign cannot be split over MPI ranks; "
       "run it without mpiexec and --mpi, or rebuild with libopenmpi-dev installed");
}
Campaign::~Campaign() = default;
void Campaign::note(const std::string&) {}
void Campaign::read_notes() {}
void Campaign::finish(const std::string&, double) {}
std::vector<RankReport> Campaign::collect(const std::string& mine, double, const std::atomic<int>*, double) {
  return {RankReport{0, "", true, mine, "", 0}};
}
void Campaign::abort_job(int code) { std::_Exit(code); }
std::vector<std::optional<std::string>> Campaign::ask(const std::string&, const std::vector<int>& to, bool, double) {
  return std::vector<std::optional<std::string>>(to.size());
}
std::optional<std::string> Campaign::await_word(double) { return std::nullopt; }
void Campaign::when_stopped(const std::atomic<int>*, std::function<void()>) {}
double Campaign::root_silent_seconds() const { return 0; }
void Campaign::answer(const std::string&, double) {}

#else

namespace {
using Clock = std::chrono::steady_clock;
constexpr int kNoteTag = 47, kResultTag = 48, kWordTag = 49, kAnswerTag = 50, kAliveTag = 51;
constexpr double kAliveSeconds = 0.5;  // rank 0's sign of life to the others, at most this often
char g_alive = 1;                       // its one byte (sends outlive the call that starts them)

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}
}  // namespace

bool built_with_mpi() { return true; }

struct Campaign::State {
  MPI_Comm comm = MPI_COMM_NULL;
  std::string note_buf, pending;  // the note in flight (its buffer), the newest one waiting
  bool has_pending = false;
  MPI_Request note_req = MPI_REQUEST_NULL;
  bool aborted = false;
  Clock::time_point heard_root = Clock::now();  // the others: rank 0's last sign of life
  // rank 0
  Clock::time_point alive_sent{};
  std::vector<RankReport> reports;
  std::vector<Clock::time_point> heard;

  // A message announced by a probe, received without blocking (a sender that dies mid-transfer
  // must not hang rank 0): true with its text, false when it did not arrive within `seconds`.
  bool receive(const MPI_Status& st, std::string& text, double seconds) {
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    text.assign(static_cast<size_t>(count), '\0');
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Irecv(text.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, comm, &req) != MPI_SUCCESS) return false;
    const auto t0 = Clock::now();
    for (;;) {
      int done = 0;
      if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
      if (done) return true;
      if (since(t0) > seconds) {
        MPI_Cancel(&req);
        return false;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  // Polls `req` until it completes or `seconds` pass; true when it completed.
  bool wait(MPI_Request& req, double seconds) {
    const auto t0 = Clock::now();
    for (;;) {
      check_stop();
      int done = 0;
      if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
      if (done) return true;
      if (since(t0) > seconds) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  // when_stopped(): called in every wait of this rank's (the others') once *stop turned non-zero.
  const std::atomic<int>* stop = nullptr;
  std::function<void()> on_stop;
  void check_stop() {
    if (!stop || stop->load() == 0 || !on_stop) return;
    auto fn = std::move(on_stop);
    on_stop = nullptr;
    fn();
  }

  // Rank 0: a one-byte sign of life to every other rank, at most every kAliveSeconds (between
  // units of its own work and while it collects), so that a rank waiting for rank 0's word can
  // tell a rank 0 still at work from one that hangs or died.
  void send_alive(int size) {
    if (since(alive_sent) < kAliveSeconds) return;
    alive_sent = Clock::now();
    for (int r = 1; r < size; ++r) {
      MPI_Request req = MPI_REQUEST_NULL;
      if (MPI_Isend(&g_alive, 1, MPI_CHAR, r, kAliveTag, comm, &req) == MPI_SUCCESS) MPI_Request_free(&req);
    }
  }
  // The others: takes in rank 0's signs of life that arrived.
  void take_alive() {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      if (MPI_Iprobe(0, kAliveTag, comm, &flag, &st) != MPI_SUCCESS || !flag) return;
      std::string text;
      if (!receive(st, text, 1)) return;
      heard_root = Clock::now();
    }
  }
};

Campaign::Campaign() : s_(std::make_unique<State>()) {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (MPI_Comm_dup(MPI_COMM_WORLD, &s_->comm) != MPI_SUCCESS) fail(rule::kMpiError, "MPI_Comm_dup failed at the start of the campaign");
  MPI_Comm_set_errhandler(s_->comm, MPI_ERRORS_RETURN);
  MPI_Comm local = MPI_COMM_NULL;  // the ranks of this host: a rank's device is its rank among them
  if (MPI_Comm_split_type(s_->comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_rank(local, &local_rank_);
    MPI_Comm_free(&local);
  }
  constexpr int kHost = 256;
  std::string mine = this_host();
  mine.resize(kHost, '\0');
  std::string all(static_cast<size_t>(kHost) * static_cast<size_t>(size_), '\0');
  if (MPI_Allgather(mine.data(), kHost, MPI_CHAR, all.data(), kHost, MPI_CHAR, s_->comm) != MPI_SUCCESS)
    fail(rule::kMpiError, "MPI_Allgather of the host names failed at the start of the campaign");
  for (int r = 0; r < size_; ++r) hosts_.push_back(all.substr(static_cast<size_t>(r) * kHost, kHost).c_str());
  if (root()) {
    s_->reports.resize(static_cast<size_t>(size_));
    s_->heard.assign(static_cast<size_t>(size_), Clock::now());
    for (int r = 0; r < size_; ++r) s_->reports[static_cast<size_t>(r)].rank = r, s_->reports[static_cast<size_t>(r)].host = hosts_[static_cast<size_t>(r)];
  }
}

Campaign::~Campaign() {
  if (s_->aborted) return;
  if (s_->note_req != MPI_REQUEST_NULL) MPI_Cancel(&s_->note_req);
  MPI_Comm_free(&s_->comm);
  MPI_Finalize();
}

void Campaign::note(const std::string& text) {
  if (root()) return;
  s_->take_alive();
  if (s_->note_req != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Test(&s_->note_req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      s_->pending = text;
      s_->has_pending = true;
      return;
    }
  }
  s_->note_buf = text;
  s_->has_pending = false;
  MPI_Isend(s_->note_buf.data(), static_cast<int>(s_->note_buf.size()), MPI_CHAR, 0, kNoteTag, s_->comm, &s_->note_req);
}

void Campaign::read_notes() {
  if (!root()) return;
  s_->send_alive(size_);
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s_->comm, &flag, &st) != MPI_SUCCESS || !flag) return;
    std::string text;
    if (!s_->receive(st, text, 10)) return;
    RankReport& r = s_->reports.at(static_cast<size_t>(st.MPI_SOURCE));
    s_->heard[static_cast<size_t>(st.MPI_SOURCE)] = Clock::now();
    if (st.MPI_TAG == kNoteTag) r.last_note = std::move(text);
    else if (st.MPI_TAG == kResultTag) r.result = std::move(text), r.reported = true;
  }
}

void Campaign::finish(const std::string& result, double timeout_seconds) {
  if (root()) return;
  if (s_->note_req != MPI_REQUEST_NULL && !s_->wait(s_->note_req, timeout_seconds)) {
    std::fprintf(stderr, "tfspec: rank %d: rank 0 did not take its progress note within %g s\n", rank_, timeout_seconds);
    return;
  }
  MPI_Request req = MPI_REQUEST_NULL;
  std::string buf = result;
  if (MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_CHAR, 0, kResultTag, s_->comm, &req) != MPI_SUCCESS ||
      !s_->wait(req, timeout_seconds))
    std::fprintf(stderr, "tfspec: rank %d: rank 0 did not take this rank's result within %g s\n", rank_, timeout_seconds);
}

std::vector<RankReport> Campaign::collect(const std::string& mine, double silence_seconds, const std::atomic<int>* stop, double grace_seconds) {
  auto& reports = s_->reports;
  reports[0].reported = true;
  reports[0].result = mine;
  std::vector<bool> given_up(reports.size(), false);
  Clock::time_point stopped_at{};
  for (;;) {
    read_notes();
    bool waiting = false;
    const bool stopping = stop && stop->load() != 0;
    if (stopping && stopped_at == Clock::time_point{}) stopped_at = Clock::now();
    for (size_t r = 1; r < reports.size(); ++r) {
      if (reports[r].reported || given_up[r]) continue;
      const double silent = since(s_->heard[r]);
      if (silent > silence_seconds || (stopping && since(stopped_at) > grace_seconds)) {
        given_up[r] = true;
        reports[r].silent_seconds = silent;
      } else {
        waiting = true;
      }
    }
    if (!waiting) return reports;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::vector<std::optional<std::string>> Campaign::ask(const std::string& word, const std::vector<int>& to, bool answers, double timeout_seconds) {
  std::vector<std::optional<std::string>> out(to.size());
  std::vector<MPI_Request> sent(to.size(), MPI_REQUEST_NULL);
  std::string buf = word;
  for (size_t i = 0; i < to.size(); ++i)
    MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_CHAR, to[i], kWordTag, s_->comm, &sent[i]);
  const auto t0 = Clock::now();
  for (size_t left = answers ? to.size() : 0; left > 0 && since(t0) <= timeout_seconds;) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kAnswerTag, s_->comm, &flag, &st) != MPI_SUCCESS) break;
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    std::string text;
    const bool got = s_->receive(st, text, timeout_seconds);
    for (size_t i = 0; i < to.size(); ++i)
      if (to[i] == st.MPI_SOURCE && got && !out[i]) out[i] = std::move(text), --left;
  }
  for (MPI_Request& r : sent)  // delivered before rank 0 goes on (abort_job would drop them)
    if (!s_->wait(r, timeout_seconds)) MPI_Cancel(&r);
  return out;
}

std::optional<std::string> Campaign::await_word(double silence_seconds) {
  s_->heard_root = std::max(s_->heard_root, Clock::now() - std::chrono::milliseconds(static_cast<int64_t>(kAliveSeconds * 1000)));
  for (;;) {
    s_->check_stop();
    s_->take_alive();
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(0, kWordTag, s_->comm, &flag, &st) != MPI_SUCCESS) return std::nullopt;
    if (flag) {
      std::string text;
      if (!s_->receive(st, text, silence_seconds)) return std::nullopt;
      return text;
    }
    if (since(s_->heard_root) > silence_seconds) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

double Campaign::root_silent_seconds() const { return since(s_->heard_root); }

void Campaign::when_stopped(const std::atomic<int>* stop, std::function<void()> fn) {
  s_->stop = stop;
  s_->on_stop = std::move(fn);
}

void Campaign::answer(const std::string& text, double timeout_seconds) {
  MPI_Request req = MPI_REQUEST_NULL;
  std::string buf = text;
  if (MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_CHAR, 0, kAnswerTag, s_->comm, &req) != MPI_SUCCESS || !s_->wait(req, timeout_seconds))
    std::fprintf(stderr, "tfspec: rank %d: rank 0 did not take this rank's answer within %g s\n", rank_, timeout_seconds);
}

// Not MPI_Abort: measured with OpenMPI 4.1 on this machine, mpiexec then lost the end of rank 0's
// output and once crashed itself (exit 139); a rank 0 that exits without MPI_Finalize is taken
// as the job's end, the others are killed and mpiexec exits with rank 0's code (under
// --enable-recovery mpiexec exits 0 whatever rank 0 returns, and waits for a hung rank).
void Campaign::abort_job(int code) {
  s_->aborted = true;
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

#endif

}  // namespace tfspec::ranks
