// The rank/merge helper of campaigns under mpiexec (issue 47; docs/fuzzing.md and
// docs/conformance.md "Across MPI ranks"). `tfspec fuzz` and `tfspec conform` started by mpiexec
// (or given --mpi) split their work over the ranks: the layer that runs the work decides each
// rank's share (props/: batches of the case stream; conformance/: the selected cases) and what a
// result is; this helper only knows who is who and carries text: a note now and then from every
// rank to rank 0 (its progress: a heartbeat, the case it started last) and each rank's result at
// the end, collected by rank 0 with a deadline. Every MPI call returns its errors and no wait is
// unbounded: a rank that crashed, was killed or stopped answering is reported by rank 0 with its
// last note, never waited for forever.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfspec::ranks {

// An MPI launcher's environment (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE, ...): this process
// was started by mpiexec / mpirun / srun.
bool launched_by_mpi();
// Whether this tfspec was built with MPI (find_package(MPI) found it).
bool built_with_mpi();

// What rank 0 knows of one rank at the end: its result, or why there is none.
struct RankReport {
  int rank = 0;
  std::string host;
  bool reported = false;   // its result arrived
  std::string result;      // the result's text (reported)
  std::string last_note;   // the last note that arrived ("" when none)
  double silent_seconds = 0;  // since the last message from it, when rank 0 gave up on it
};

class Campaign {
 public:
  // MPI_Init, the world with MPI_ERRORS_RETURN, every rank's host name (one allgather, while
  // every rank is alive). A SpecError (mpi-unavailable) when built without MPI.
  Campaign();
  ~Campaign();  // MPI_Finalize, unless abort_job() ended the job
  Campaign(const Campaign&) = delete;
  Campaign& operator=(const Campaign&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // the rank among those on this host (device = local rank)
  const std::string& host(int rank) const { return hosts_.at(static_cast<size_t>(rank)); }
  bool root() const { return rank_ == 0; }

  // A rank other than 0: its progress for rank 0 (any text). Cheap: sent when the previous note
  // was delivered, otherwise the newest text waits for the next call.
  void note(const std::string& text);
  // Rank 0: takes in the notes that arrived (between units of its own work).
  void read_notes();
  // A rank other than 0: its result, then waits at most `timeout_seconds` for rank 0 to take it.
  void finish(const std::string& result, double timeout_seconds);
  // Rank 0: every rank's report (rank 0's own `mine`), in rank order. Waits until every rank's
  // result arrived; a rank from which nothing arrived for `silence_seconds` is given up; once
  // `*stop` is non-zero (a signal) the others are given `grace_seconds` more, then given up.
  std::vector<RankReport> collect(const std::string& mine, double silence_seconds, const std::atomic<int>* stop, double grace_seconds);
  // A second exchange after collect() (fuzz: the cut at the campaign's earliest disagreement):
  // rank 0 sends `word` to each rank of `to` and, when `answers`, waits at most `timeout_seconds`
  // for each one's answer (nullopt where none came), in the order of `to`. The other ranks:
  // await_word() is rank 0's word, or nullopt once rank 0 has been silent for `silence_seconds`
  // (rank 0 sends a sign of life every 0.5 s between units of its own work and while it
  // collects, so a rank 0 still at work is waited for, and one that hangs or died is not);
  // answer() replies.
  std::vector<std::optional<std::string>> ask(const std::string& word, const std::vector<int>& to, bool answers, double timeout_seconds);
  std::optional<std::string> await_word(double silence_seconds);
  // The others: `fn` runs once, in whichever wait of finish(), await_word() or answer() this rank
  // is in when `*stop` turns non-zero (a signal: mpiexec ending the job, perhaps because rank 0
  // died, with SIGKILL a second later), so that what it found is written before it is killed.
  void when_stopped(const std::atomic<int>* stop, std::function<void()> fn);
  double root_silent_seconds() const;  // the others: seconds since rank 0's last sign of life
  void answer(const std::string& text, double timeout_seconds);
  // Ends this process with `code` without MPI_Finalize (a rank given up may still hang, and
  // MPI_Finalize would wait for it); mpiexec then ends the other ranks (ranks.cpp says why not MPI_Abort).
  [[noreturn]] void abort_job(int code);

 private:
  struct State;
  std::unique_ptr<State> s_;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::vector<std::string> hosts_;
};

}  // namespace tfspec::ranks
