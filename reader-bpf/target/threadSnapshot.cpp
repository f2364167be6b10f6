#include "target/threadSnapshot.h"

#include <dirent.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/arch.h"
#include "target/errnoStatus.h"
#include "target/identityLookup.h"
#include "target/monotonicClock.h"
#include "target/tlsResolver.h"

namespace vtctx::reader {
namespace {

// Pid of the tracer already attached to `tid`, 0 if none.
pid_t TracerOf(pid_t tid) {
  std::ifstream in(absl::StrCat("/proc/", tid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    int tracer = 0;
    if (line.rfind("TracerPid:", 0) == 0 && absl::SimpleAtoi(line.substr(10), &tracer))
      return tracer;
  }
  return 0;
}

// Threads that did not stop in time stay seized (a tracee that is not stopped cannot be
// detached); they are let go when they stop, or when the reader exits.
std::vector<pid_t>& Unstopped() {
  static std::vector<pid_t> tids;
  return tids;
}

// Waits for `tid`'s next stop until `deadline` (MonotonicSeconds): 0 and `wstatus` set, or ETIME,
// or the errno of waitpid. Polls (WNOHANG) with a growing pause: a tracee's stop has no fd to
// wait on, and a signal-driven wait would race with the reader's own signal handling.
int WaitForStop(pid_t tid, double deadline, int& wstatus) {
  long pause_ns = 20'000;
  for (;;) {
    const pid_t got = waitpid(tid, &wstatus, __WALL | WNOHANG);
    if (got == tid) return 0;
    if (got < 0 && errno != EINTR) return errno;
    if (MonotonicSeconds() >= deadline) return ETIME;
    const timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min<long>(pause_ns * 2, 5'000'000);
  }
}

// A thread held in a ptrace-stop for the lifetime of this object. Detaching re-delivers a
// signal that arrived while we held the thread, so the target never loses one.
class StoppedThread {
 public:
  // A thread that does not stop by `deadline` (one in vfork() until its child execs or exits, or
  // in an uninterruptible sleep) gives DeadlineExceeded.
  static absl::StatusOr<std::optional<StoppedThread>> Stop(pid_t tid, double deadline) {
    if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
      const int err = errno;
      if (err == ESRCH) return std::optional<StoppedThread>();  // exited meanwhile
      if (err == EPERM) {
        if (const pid_t tracer = TracerOf(tid); tracer != 0) {
          return absl::FailedPreconditionError(
              absl::StrCat("already traced by pid ", tracer,
                           " (a debugger, strace or another reader?): not stopped, not read"));
        }
      }
      return ErrnoStatus(err, absl::StrCat("ptrace(SEIZE) of thread ", tid));
    }
    if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
      const int err = errno;
      ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
      if (err == ESRCH) return std::optional<StoppedThread>();
      return ErrnoStatus(err, absl::StrCat("ptrace(INTERRUPT) of thread ", tid));
    }
    for (;;) {
      int wstatus = 0;
      if (const int err = WaitForStop(tid, deadline, wstatus); err != 0) {
        if (err == ETIME) {
          Unstopped().push_back(tid);
          return absl::DeadlineExceededError(
              "did not stop in time (in vfork(), or an uninterruptible sleep): not read");
        }
        ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
        if (err == ECHILD || err == ESRCH) return std::optional<StoppedThread>();
        return ErrnoStatus(err, absl::StrCat("waitpid of thread ", tid));
      }
      if (WIFEXITED(wstatus) || WIFSIGNALED(wstatus)) return std::optional<StoppedThread>();
      if (!WIFSTOPPED(wstatus)) continue;
      // PTRACE_EVENT_STOP: our interrupt (or a group-stop); anything else is a signal that was
      // being delivered, to be passed on when we let go.
      const bool event_stop = (wstatus >> 16) == PTRACE_EVENT_STOP;
      return std::optional<StoppedThread>(StoppedThread(tid, event_stop ? 0 : WSTOPSIG(wstatus)));
    }
  }

  StoppedThread(StoppedThread&& other) noexcept : tid_(other.tid_), signal_(other.signal_) {
    other.tid_ = 0;
  }
  StoppedThread(const StoppedThread&) = delete;
  StoppedThread& operator=(const StoppedThread&) = delete;
  StoppedThread& operator=(StoppedThread&&) = delete;
  ~StoppedThread() {
    if (tid_ != 0) {
      ptrace(PTRACE_DETACH, tid_, nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(signal_)));
    }
  }

 private:
  StoppedThread(pid_t tid, int signal) : tid_(tid), signal_(signal) {}
  pid_t tid_;
  int signal_;
};

// Lets go of the threads that stopped since they were given up on.
void ReleaseUnstopped() {
  std::vector<pid_t>& tids = Unstopped();
  std::erase_if(tids, [](pid_t tid) {
    int wstatus = 0;
    const pid_t got = waitpid(tid, &wstatus, __WALL | WNOHANG);
    if (got == 0) return false;  // still not stopped: released when the reader exits
    if (got == tid && WIFSTOPPED(wstatus)) {
      const bool event_stop = (wstatus >> 16) == PTRACE_EVENT_STOP;
      ptrace(PTRACE_DETACH, tid, nullptr,
             reinterpret_cast<void*>(static_cast<intptr_t>(event_stop ? 0 : WSTOPSIG(wstatus))));
    }
    return true;
  });
}

std::vector<pid_t> ListThreads(const std::string& proc_dir, absl::Status& error) {
  std::vector<pid_t> tids;
  const std::string dir = absl::StrCat(proc_dir, "/task");
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    error = ErrnoStatus(errno, absl::StrCat("open ", dir));
    return tids;
  }
  while (dirent* e = readdir(d)) {
    int tid = 0;
    if (absl::SimpleAtoi(e->d_name, &tid) && tid > 0) tids.push_back(tid);
  }
  closedir(d);
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::string ThreadName(const std::string& proc_dir, pid_t tid) {
  std::ifstream in(absl::StrCat(proc_dir, "/task/", tid, "/comm"));
  std::string name;
  std::getline(in, name);
  return name;
}

}  // namespace

void ReadContextAt(uint64_t slot, MemoryReader& memory, ThreadSnapshot& out) {
  out.slot = slot;
  absl::StatusOr<uint64_t> record = memory.ReadU64(slot);
  if (!record.ok()) {
    out.status = VTCTX_CTX_FAULT;
    out.note = absl::StrCat("slot unreadable: ", record.status().message());
    return;
  }
  if (*record == 0) {
    out.status = VTCTX_CTX_NULL;
    return;
  }
  ReadRecordAt(*record, memory, out);
}

void ReadRecordAt(uint64_t record, MemoryReader& memory, ThreadSnapshot& out) {
  out.record = record;
  if (absl::Status s = memory.Read(out.record, &out.header, sizeof out.header); !s.ok()) {
    out.status = VTCTX_CTX_FAULT;
    out.note = absl::StrCat("record unreadable: ", s.message());
    return;
  }
  out.status = VTCTX_CTX_OK;
  if (out.header.valid == VTCTX_RECORD_VALID && out.header.attrs_data_size > 0) {
    const size_t size = std::min<size_t>(out.header.attrs_data_size, VTCTX_ATTRS_MAX_SIZE);
    out.attrs.resize(size);
    if (absl::Status s = memory.Read(out.record + VTCTX_RECORD_HEADER_SIZE, out.attrs.data(), size);
        !s.ok()) {
      out.attrs.clear();
      out.note = absl::StrCat("attrs-data unreadable: ", s.message());
    }
  }
}

absl::StatusOr<std::vector<ThreadSnapshot>> SnapshotThreads(const TargetProcess& target,
                                                            const vtctx_slot_recipe& recipe,
                                                            const vtctx_identity_recipe& identity,
                                                            MemoryReader& memory,
                                                            double stop_budget_s) {
  const pid_t pid = target.pid();
  const double budget_end = MonotonicSeconds() + stop_budget_s;
  absl::Status list_error;
  const std::vector<pid_t> tids = ListThreads(target.dir(), list_error);
  if (!list_error.ok()) return ProcessAccessError(pid, list_error);

  std::vector<ThreadSnapshot> out;
  for (pid_t tid : tids) {
    ThreadSnapshot snap;
    snap.tid = tid;
    const double now = MonotonicSeconds();
    if (now >= budget_end) {
      snap.name = ThreadName(target.dir(), tid);
      snap.status = VTCTX_CTX_NO_TP;
      snap.note =
          absl::StrFormat("not read: the %.0f s for stopping threads ran out", stop_budget_s);
      out.push_back(std::move(snap));
      continue;
    }
    absl::StatusOr<std::optional<StoppedThread>> stopped =
        StoppedThread::Stop(tid, std::min(now + kThreadStopWaitS, budget_end));
    if (!stopped.ok() && (absl::IsFailedPrecondition(stopped.status()) ||
                          absl::IsDeadlineExceeded(stopped.status()))) {
      // Traced by someone else, or not stopping: this thread cannot be read safely (its record
      // could tear); the thread pointer is out of reach too. The other threads can still be read.
      snap.name = ThreadName(target.dir(), tid);
      snap.status = VTCTX_CTX_NO_TP;
      snap.note = std::string(stopped.status().message());
      out.push_back(std::move(snap));
      continue;
    }
    if (!stopped.ok()) return ProcessAccessError(pid, stopped.status());
    if (!stopped->has_value()) continue;  // the thread exited
    // A tid listed before it was stopped may have been freed and taken by another process's
    // thread: it is the target's if it is still in the held process's task list. A thread we
    // hold stopped cannot free its tid (a tracee is reaped by its tracer).
    if (access(absl::StrCat(target.dir(), "/task/", tid).c_str(), F_OK) != 0) continue;

    snap.name = ThreadName(target.dir(), tid);
    absl::StatusOr<uint64_t> tp = ReadThreadPointer(tid);
    if (!tp.ok()) {
      snap.status = VTCTX_CTX_NO_TP;
      snap.note = std::string(tp.status().message());
    } else if (*tp == 0) {
      snap.status = VTCTX_CTX_NO_TP;
    } else {
      snap.thread_pointer = *tp;
      absl::StatusOr<uint64_t> slot = SlotAddress(recipe, *tp, memory);
      if (identity.kind != VTCTX_IDENTITY_NONE) {
        const IdentityFollow follow = FollowIdentity(identity, *tp, memory);
        snap.java_thread_id = follow.java_thread_id;
        snap.status = follow.status;
        snap.note = follow.note;
        if (slot.ok()) snap.slot = *slot;
        if (follow.status == VTCTX_CTX_OK) {
          ReadRecordAt(follow.record, memory, snap);
          if (!ConfirmIdentity(identity, follow, memory)) {
            snap.record = 0;
            snap.header = {};
            snap.attrs.clear();
            snap.status = VTCTX_CTX_CHANGED;
          }
        }
      } else if (slot.ok()) {
        ReadContextAt(*slot, memory, snap);
      } else {
        snap.status = absl::IsNotFound(slot.status()) ? VTCTX_CTX_NO_SLOT : VTCTX_CTX_FAULT;
        snap.note = std::string(slot.status().message());
      }
    }
    out.push_back(std::move(snap));
  }  // each StoppedThread is released at the end of its iteration
  ReleaseUnstopped();
  return out;
}

}  // namespace vtctx::reader
