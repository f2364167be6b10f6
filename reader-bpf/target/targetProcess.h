// The process a command reads, held by identity instead of by number. A pid is free for reuse
// once its process has exited and been reaped; whatever is read by number after that (its
// /proc files, its memory, its BPF events) belongs to another process.
//
// Hold() opens a pidfd (pidfd_open, Linux 5.3) and the /proc/<pid> directory, then checks that
// the pidfd has not signalled an exit: both then refer to the same process, the one that had the
// pid when Hold() ran. From then on:
// - paths under dir() ("/proc/self/fd/<n>/maps", ".../mem") open the held process's files, or
//   fail with ESRCH once it is reaped, never another process's (the directory pins the kernel's
//   struct pid, which a new process with the same number does not share);
// - Exited() is true from the moment the process exits (a zombie has exited), and exit_fd()
//   polls readable (POLLIN) then, for event loops;
// - held_ns() bounds the process's start: it started before, and a process that reuses the pid
//   starts after (it can only be created once the held process is reaped, which is after a later
//   Exited() said false). The BPF programs filter on it (targetFilter.bpf.h).
//
// A held process can still run another program (execve: same pid, same start time, a new
// address space; a setuid program runs with other credentials). Execed() tells, and Memory()
// reads the address space the process had when it was held, and none other: its /proc mem file
// is opened at Hold() and is bound to that address space (after an exec it reads nothing).
//
// Where pidfd_open is unavailable (older kernels, seccomp filters), exit is read from the stat
// file under dir(): gone (reaped) or state Z/X. That is the process start time check (field 22 of
// /proc/<pid>/stat at every refresh) without its blind spot: the directory is the identity, so a
// process started in the same clock tick cannot pass for the held one. Without a pidfd nothing
// polls readable at exit: event loops see it at their next Exited() call.
#ifndef VTCTX_READER_TARGET_PROCESS_H_
#define VTCTX_READER_TARGET_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "target/processMemory.h"

namespace vtctx::reader {

class TargetProcess {
 public:
  // NotFound if `pid` does not exist or has already exited; InvalidArgument (with a pidfd) if it
  // names a thread other than a process's main thread. `use_pidfd` false: the fallback above.
  static absl::StatusOr<TargetProcess> Hold(pid_t pid, bool use_pidfd = true);

  TargetProcess(TargetProcess&& other) noexcept;
  TargetProcess& operator=(TargetProcess&& other) noexcept;
  TargetProcess(const TargetProcess&) = delete;
  TargetProcess& operator=(const TargetProcess&) = delete;
  ~TargetProcess();

  pid_t pid() const { return pid_; }
  // The held process's /proc directory as a path ("/proc/self/fd/<n>"), without a trailing '/'.
  const std::string& dir() const { return dir_path_; }
  // Readable (POLLIN) once the process has exited; -1 without a pidfd.
  int exit_fd() const { return pidfd_; }
  // CLOCK_MONOTONIC ns, taken after the process was found: its start time is not later.
  uint64_t held_ns() const { return held_ns_; }

  bool Exited() const;
  // True once the process runs another program than when it was held (its address space was
  // replaced, or its executable is another file). An exited process has not exec'd.
  bool Execed() const;
  // The held address space's memory (pread on the mem file opened at Hold()); PermissionDenied
  // when it could not be opened.
  absl::StatusOr<std::unique_ptr<ProcessMemory>> Memory() const;

 private:
  TargetProcess(pid_t pid, int pidfd, int dir_fd, uint64_t held_ns);

  pid_t pid_ = 0;
  int pidfd_ = -1;
  int dir_fd_ = -1;
  int mem_fd_ = -1;  // /proc/<pid>/mem as opened at Hold(); -1 without permission
  std::string dir_path_;
  uint64_t held_ns_ = 0;
  std::pair<uint64_t, uint64_t> exe_{0, 0};  // device and inode of the executable at Hold()
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_TARGET_PROCESS_H_
