#include "target/targetProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "target/errnoStatus.h"
#include "target/monotonicClock.h"
#include "target/processMemory.h"

namespace vtctx::reader {
namespace {

// A pidfd for `pid`, -1 when the kernel (or a seccomp filter) does not offer pidfd_open, or an
// error.
absl::StatusOr<int> OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == ESRCH) return absl::NotFoundError(absl::StrCat("no such process: ", pid));
  if (err == EINVAL || err == ENOENT) {  // not a thread group leader (ENOENT since Linux 6.9)
    return absl::InvalidArgumentError(
        absl::StrCat("--pid ", pid, " is a thread, not a process: give its process id (Tgid)"));
  }
  if (err == ENOSYS || err == EPERM) return -1;
  return ErrnoStatus(err, absl::StrCat("pidfd_open(", pid, ")"));
#else
  (void)pid;
  return -1;
#endif
}

}  // namespace

absl::StatusOr<TargetProcess> TargetProcess::Hold(pid_t pid, bool use_pidfd) {
  int pidfd = -1;
  if (use_pidfd) {
    absl::StatusOr<int> fd = OpenPidfd(pid);
    if (!fd.ok()) return fd.status();
    pidfd = *fd;
  }
  const std::string path = absl::StrCat("/proc/", pid);
  const int dir_fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    const int err = errno;
    if (pidfd >= 0) close(pidfd);
    if (err == ENOENT || err == ESRCH) {
      return absl::NotFoundError(absl::StrCat("no such process: ", pid));
    }
    return ErrnoStatus(err, absl::StrCat("open ", path));
  }
  TargetProcess target(pid, pidfd, dir_fd, MonotonicNs());
  // The program the process runs now: its memory (a mem fd is bound to the address space it
  // opened on, and reads nothing once an exec replaced it) and its executable file.
  target.mem_fd_ = openat(dir_fd, "mem", O_RDONLY | O_CLOEXEC);
  struct stat exe {};
  if (fstatat(dir_fd, "exe", &exe, 0) == 0) target.exe_ = {exe.st_dev, exe.st_ino};
  // Alive after all were opened: they name the same process (a pidfd outlives its pid's reuse
  // and would say exited).
  if (target.Exited()) return absl::NotFoundError(absl::StrCat("no such process: ", pid));
  if (target.Execed()) {
    return absl::NotFoundError(absl::StrCat("pid ", pid, " ran another program while it was held"));
  }
  return target;
}

TargetProcess::TargetProcess(pid_t pid, int pidfd, int dir_fd, uint64_t held_ns)
    : pid_(pid),
      pidfd_(pidfd),
      dir_fd_(dir_fd),
      dir_path_(absl::StrCat("/proc/self/fd/", dir_fd)),
      held_ns_(held_ns) {}

TargetProcess::TargetProcess(TargetProcess&& other) noexcept
    : pid_(other.pid_),
      pidfd_(std::exchange(other.pidfd_, -1)),
      dir_fd_(std::exchange(other.dir_fd_, -1)),
      mem_fd_(std::exchange(other.mem_fd_, -1)),
      dir_path_(std::move(other.dir_path_)),
      held_ns_(other.held_ns_),
      exe_(other.exe_) {}

TargetProcess& TargetProcess::operator=(TargetProcess&& other) noexcept {
  if (this != &other) {
    if (pidfd_ >= 0) close(pidfd_);
    if (dir_fd_ >= 0) close(dir_fd_);
    if (mem_fd_ >= 0) close(mem_fd_);
    pid_ = other.pid_;
    pidfd_ = std::exchange(other.pidfd_, -1);
    dir_fd_ = std::exchange(other.dir_fd_, -1);
    mem_fd_ = std::exchange(other.mem_fd_, -1);
    dir_path_ = std::move(other.dir_path_);
    held_ns_ = other.held_ns_;
    exe_ = other.exe_;
  }
  return *this;
}

TargetProcess::~TargetProcess() {
  if (pidfd_ >= 0) close(pidfd_);
  if (dir_fd_ >= 0) close(dir_fd_);
  if (mem_fd_ >= 0) close(mem_fd_);
}

bool TargetProcess::Execed() const {
  if (mem_fd_ >= 0) {
    // Address 0 is never mapped: the address space held gives EIO; one an exec replaced (or an
    // exit released) gives end of file. An exiting process has no address space at all (its
    // maps read empty); one that exec'd has a new one.
    char byte;
    if (pread(mem_fd_, &byte, 1, 0) == 0) {
      const int maps = openat(dir_fd_, "maps", O_RDONLY | O_CLOEXEC);
      const bool mapped = maps >= 0 && read(maps, &byte, 1) == 1;
      if (maps >= 0) close(maps);
      if (mapped) return true;
    }
  }
  struct stat exe {};
  if (exe_.second != 0 && fstatat(dir_fd_, "exe", &exe, 0) == 0 &&
      std::make_pair(exe.st_dev, exe.st_ino) != exe_) {
    return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<ProcessMemory>> TargetProcess::Memory() const {
  if (mem_fd_ < 0) return ProcessMemory::OpenIn(dir_path_);  // says why (permission)
  const int fd = fcntl(mem_fd_, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(errno, "dup");
  return ProcessMemory::FromMemFd(fd);
}

bool TargetProcess::Exited() const {
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
  }
  // Through the held directory: ESRCH once reaped; a zombie's state letter says it has exited.
  const int fd = openat(dir_fd_, "stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char stat[512];
  const ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return true;
  const std::string_view text(stat, static_cast<size_t>(n));
  const size_t paren = text.rfind(')');
  if (paren == std::string_view::npos || paren + 2 >= text.size()) return true;
  const char state = text[paren + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace vtctx::reader
