#include "target/targetView.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/errnoStatus.h"
#include "target/monotonicClock.h"

namespace vtctx::reader {
namespace {

constexpr double kTermGraceSeconds = 0.5;  // SIGTERM (removes the child's files) before SIGKILL
constexpr size_t kMaxMessageBytes = 4096;  // an error message from the child

// Paths the child removes when it is told to stop or the reader dies (ViewSession). Written
// before the signal that reads them can arrive for them; read only by the handler.
constexpr int kMaxCleanupPaths = 4;
char g_cleanup[kMaxCleanupPaths][PATH_MAX];

// Newest first: a file before the directory it was created in. unlink and rmdir are
// async-signal-safe; each fails harmlessly on the other kind.
void RemoveAndExit(int) {
  for (int i = kMaxCleanupPaths - 1; i >= 0; --i) {
    if (g_cleanup[i][0] == '\0') continue;
    if (unlink(g_cleanup[i]) != 0) rmdir(g_cleanup[i]);
  }
  _exit(128 + SIGTERM);
}

// Drops every capability of the calling (single-threaded) process.
bool DropCapabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return syscall(SYS_capset, &header, data) == 0;
}

// Writes all of `bytes`; false if the reader is gone.
bool WriteAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The child's setup (see the header). Returns "" or what failed.
std::string EnterView(int root_fd, int mnt_fd, uid_t uid, gid_t gid, pid_t reader) {
  // The reader's handlers must not run here; Ctrl-C reaches the whole process group, and the
  // reader (its parent) decides: it stops this child with SIGTERM.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, RemoveAndExit);
  struct stat ours {
  }, theirs{};
  if (stat("/proc/self/ns/mnt", &ours) != 0 || fstat(mnt_fd, &theirs) != 0) {
    return absl::StrCat("stat of the mount namespaces: ", strerror(errno));
  }
  if ((ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino) &&
      setns(mnt_fd, CLONE_NEWNS) != 0) {
    return absl::StrCat("entering the target's mount namespace: ", strerror(errno));
  }
  if (fchdir(root_fd) != 0 || chroot(".") != 0 || chdir("/") != 0) {
    return absl::StrCat("taking the target's root directory: ", strerror(errno));
  }
  // Group first: once no id is 0 any more, the groups cannot change.
  if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 ||
      setresuid(uid, uid, uid) != 0) {
    return absl::StrCat("taking the target's uid and gid: ", strerror(errno));
  }
  // A non-root uid has no capabilities left after setresuid; uid 0 keeps them until this.
  if (!DropCapabilities() || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return absl::StrCat("dropping capabilities: ", strerror(errno));
  }
  // After the credential change, which resets both.
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0) {
    return absl::StrCat("prctl: ", strerror(errno));
  }
  if (getppid() != reader) return "the reader exited";
  return "";
}

}  // namespace

bool ViewSession::RemoveUnlessKept(const std::string& path) {
  if (path.size() >= PATH_MAX) return false;
  // Appended after the last used slot, so that the handler's newest-first order holds.
  int last = -1;
  for (int i = 0; i < kMaxCleanupPaths; ++i) {
    if (g_cleanup[i][0] != '\0') last = i;
  }
  if (last + 1 >= kMaxCleanupPaths) return false;
  // The handler reads the slot only once its first byte is set: copy the tail first.
  char* slot = g_cleanup[last + 1];
  std::memcpy(slot + 1, path.c_str() + 1, path.size());
  std::atomic_signal_fence(std::memory_order_seq_cst);
  slot[0] = path[0];
  return true;
}

void ViewSession::Keep(const std::string& path) {
  for (auto& slot : g_cleanup) {
    if (path == slot) slot[0] = '\0';
  }
}

absl::StatusOr<TargetView> TargetView::Open(const TargetProcess& target, uid_t uid, gid_t gid) {
  int fds[3] = {-1, -1, -1};
  const char* names[3] = {"root", "cwd", "ns/mnt"};
  const int flags[3] = {O_PATH | O_DIRECTORY, O_PATH | O_DIRECTORY, O_RDONLY};
  for (int i = 0; i < 3; ++i) {
    // The kernel's own links: they lead to the held process's directories and namespace,
    // whatever its files say.
    fds[i] = open(absl::StrCat(target.dir(), "/", names[i]).c_str(), flags[i] | O_CLOEXEC);
    if (fds[i] < 0) {
      const int err = errno;
      for (int fd : fds) {
        if (fd >= 0) close(fd);
      }
      if (err == EACCES || err == EPERM) {
        return absl::PermissionDeniedError(
            absl::StrCat("no permission to enter pid ", target.pid(), "'s view (run as root)"));
      }
      if (err == ENOENT || err == ESRCH) {
        return absl::NotFoundError(absl::StrCat("pid ", target.pid(), " exited"));
      }
      return ErrnoStatus(err, absl::StrCat("open /proc/", target.pid(), "/", names[i]));
    }
  }
  return TargetView(target.pid(), target.exit_fd(), fds[0], fds[1], fds[2], uid, gid);
}

TargetView::TargetView(TargetView&& other) noexcept { *this = std::move(other); }

TargetView& TargetView::operator=(TargetView&& other) noexcept {
  if (this != &other) {
    Close();
    pid_ = other.pid_;
    pidfd_ = other.pidfd_;
    root_fd_ = std::exchange(other.root_fd_, -1);
    cwd_fd_ = std::exchange(other.cwd_fd_, -1);
    mnt_fd_ = std::exchange(other.mnt_fd_, -1);
    uid_ = other.uid_;
    gid_ = other.gid_;
  }
  return *this;
}

TargetView::~TargetView() { Close(); }

void TargetView::Close() {
  for (int* fd : {&root_fd_, &cwd_fd_, &mnt_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

absl::StatusOr<std::string> TargetView::Run(
    absl::string_view what, double timeout_s, size_t max_result_bytes,
    absl::FunctionRef<absl::StatusOr<std::string>(ViewSession&)> work) const {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe");
  const pid_t reader = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const int err = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return ErrnoStatus(err, "fork");
  }
  if (child == 0) {
    // The child: one byte of absl::StatusCode, then the result or the error message.
    close(pipe_fds[0]);
    for (auto& slot : g_cleanup) slot[0] = '\0';
    // Built by appending: GCC 12 reports a false -Wrestrict for std::string(1, c) + s at -O3.
    std::string reply;
    if (std::string error = EnterView(root_fd_, mnt_fd_, uid_, gid_, reader); !error.empty()) {
      reply.push_back(static_cast<char>(absl::StatusCode::kPermissionDenied));
      reply.append(error);
    } else {
      ViewSession session(cwd_fd_, pid_, pidfd_, uid_, gid_);
      absl::StatusOr<std::string> result = work(session);
      reply.push_back(
          static_cast<char>(result.ok() ? absl::StatusCode::kOk : result.status().code()));
      if (result.ok()) {
        reply.append(*result);
      } else {
        reply.append(result.status().message().data(), result.status().message().size());
      }
    }
    const bool written = WriteAll(pipe_fds[1], reply);
    _exit(written ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string reply;
  const double deadline = MonotonicSeconds() + timeout_s;
  const size_t bound = 1 + std::max(max_result_bytes, kMaxMessageBytes);
  absl::Status failure = absl::OkStatus();
  for (;;) {
    const double left = deadline - MonotonicSeconds();
    if (left <= 0) {
      failure = absl::DeadlineExceededError(
          absl::StrFormat("%s: no answer within %.1f s", what, timeout_s));
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min(left, 60.0) * 1000) + 1);
    if (ready < 0 && errno != EINTR) {
      failure = ErrnoStatus(errno, "poll");
      break;
    }
    if (ready <= 0) continue;
    char buffer[16384];
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child wrote everything
    if (reply.size() + static_cast<size_t>(n) > bound) {
      failure = absl::ResourceExhaustedError(
          absl::StrCat(what, ": more than ", max_result_bytes, " bytes"));
      break;
    }
    reply.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  if (!failure.ok()) {
    kill(child, SIGTERM);
    const double stop_by = MonotonicSeconds() + kTermGraceSeconds;
    while (waitpid(child, &status, WNOHANG) == 0) {
      if (MonotonicSeconds() > stop_by) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        break;
      }
      poll(nullptr, 0, 5);
    }
    return failure;
  }
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (reply.empty()) {
    return absl::InternalError(
        absl::StrCat(what, ": the helper in pid ", pid_, "'s view ended without an answer (",
                     WIFSIGNALED(status) ? absl::StrCat("signal ", WTERMSIG(status))
                                         : absl::StrCat("exit ", WEXITSTATUS(status)),
                     ")"));
  }
  const auto code = static_cast<absl::StatusCode>(static_cast<uint8_t>(reply[0]));
  if (code != absl::StatusCode::kOk) return absl::Status(code, reply.substr(1, kMaxMessageBytes));
  if (reply.size() - 1 > max_result_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": more than ", max_result_bytes, " bytes"));
  }
  return reply.substr(1);
}

}  // namespace vtctx::reader
