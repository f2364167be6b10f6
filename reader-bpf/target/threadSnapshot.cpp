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
#include "target/arch.h"
#include "target/errnoStatus.h"
#include "target/identityLookup.h"
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

// A thread held in a ptrace-stop for the lifetime of this object. Detaching re-delivers a
// signal that arrived while we held the thread, so the target never loses one.
class StoppedThread {
 public:
  static absl::StatusOr<std::optional<StoppedThread>> Stop(pid_t tid) {
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
      if (waitpid(tid, &wstatus, __WALL) < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
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
                                                            MemoryReader& memory) {
  const pid_t pid = target.pid();
  absl::Status list_error;
  const std::vector<pid_t> tids = ListThreads(target.dir(), list_error);
  if (!list_error.ok()) return ProcessAccessError(pid, list_error);

  std::vector<ThreadSnapshot> out;
  for (pid_t tid : tids) {
    ThreadSnapshot snap;
    snap.tid = tid;
    absl::StatusOr<std::optional<StoppedThread>> stopped = StoppedThread::Stop(tid);
    if (!stopped.ok() && absl::IsFailedPrecondition(stopped.status())) {
      // Traced by someone else: this thread cannot be stopped, so its record could tear; the
      // thread pointer is out of reach too. The other threads can still be read.
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
  return out;
}

}  // namespace vtctx::reader
