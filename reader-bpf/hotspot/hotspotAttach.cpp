#include "hotspot/hotspotAttach.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/errnoStatus.h"
#include "target/monotonicClock.h"

namespace vtctx::reader {
namespace {

constexpr int kSocketPollMs = 20;           // how often the socket's appearance is checked
constexpr size_t kArgumentMaxBytes = 1024;  // protocol version 1's limit per argument

// Sends SIGQUIT to the held process (by pidfd: never to a process that reused the pid).
bool SendQuit(const TargetProcess& target) {
#ifdef SYS_pidfd_send_signal
  if (target.exit_fd() >= 0) {
    return syscall(SYS_pidfd_send_signal, target.exit_fd(), SIGQUIT, nullptr, 0) == 0;
  }
#endif
  return kill(target.pid(), SIGQUIT) == 0;
}

// The socket exists and belongs to the JVM's user: a socket another user planted is not used.
bool SocketReady(const std::string& path, uid_t owner) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == owner;
}

// Creates the trigger file in the target's working directory, else in its /tmp. Returns its path,
// or "" if neither could be created.
std::string CreateTrigger(const TargetProcess& target, const JvmProcess& jvm) {
  const std::string name = absl::StrCat("/.attach_pid", jvm.status.nspid);
  for (const std::string& dir : {target.dir() + "/cwd", jvm.root + "/tmp"}) {
    const std::string path = dir + name;
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
      close(fd);
      return path;
    }
  }
  return "";
}

// Starts the attach listener (the handshake above) and waits for `socket`.
absl::Status StartListener(const TargetProcess& target, const JvmProcess& jvm,
                           const std::string& socket, double timeout_s) {
  if (!jvm.status.catches_sigquit || jvm.status.ignores_sigquit) {
    return absl::UnimplementedError(absl::StrCat(
        "pid ", jvm.pid,
        " does not handle SIGQUIT (a JVM started with -Xrs?), the signal that starts HotSpot's "
        "attach listener: load the agent at startup (-agentpath:/path/to/libvtctx.so)"));
  }
  const std::string trigger = CreateTrigger(target, jvm);
  if (trigger.empty()) {
    return ErrnoStatus(errno, absl::StrCat("creating .attach_pid", jvm.status.nspid, " in pid ",
                                           jvm.pid, "'s working directory or /tmp"));
  }
  const double start = MonotonicSeconds();
  bool resent = false;
  absl::Status result = absl::OkStatus();
  if (!SendQuit(target)) result = ErrnoStatus(errno, absl::StrCat("SIGQUIT to pid ", jvm.pid));
  while (result.ok() && !SocketReady(socket, jvm.status.euid)) {
    const double waited = MonotonicSeconds() - start;
    if (target.Exited()) {
      result = absl::NotFoundError(absl::StrCat("pid ", jvm.pid, " exited during the attach"));
    } else if (waited >= timeout_s) {
      result = absl::DeadlineExceededError(absl::StrFormat(
          "pid %d did not start its attach listener within %.1f s (a JVM still starting, or "
          "too busy to reach a safepoint?); retry, or give more time with --timeout",
          jvm.pid, timeout_s));
    } else if (!resent && waited >= timeout_s / 2) {
      resent = true;  // a JVM that was still initialising its signal handling gets a second one
      SendQuit(target);
    } else {
      poll(nullptr, 0, kSocketPollMs);
    }
  }
  unlink(trigger.c_str());
  return result;
}

absl::Status SendAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "writing to the attach socket");
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Everything the JVM sends until it closes the connection, within `timeout_s`.
absl::StatusOr<std::string> ReceiveAll(int fd, pid_t pid, double timeout_s) {
  std::string out;
  char buffer[8192];
  const double deadline = MonotonicSeconds() + timeout_s;
  for (;;) {
    const double left = deadline - MonotonicSeconds();
    pollfd p{fd, POLLIN, 0};
    const int ready = left > 0 ? poll(&p, 1, static_cast<int>(left * 1000) + 1) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      return absl::DeadlineExceededError(absl::StrFormat(
          "pid %d did not answer its attach operation within %.0f s", pid, timeout_s));
    }
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "reading the attach socket");
    if (n == 0) return out;
    out.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

TargetCredentials::TargetCredentials(const ProcStatus& target) {
  if (geteuid() != 0 || (target.euid == 0 && target.egid == getegid())) return;
  old_egid_ = getegid();
  // Group first: once the uid is not root any more, the gid cannot be changed.
  ok_ = setegid(target.egid) == 0 && seteuid(target.euid) == 0;
  switched_ = true;
}

TargetCredentials::~TargetCredentials() {
  if (!switched_) return;
  // Back to root; cannot fail for a process whose saved uid is 0.
  if (seteuid(0) != 0 || setegid(old_egid_) != 0) abort();
}

absl::StatusOr<HotSpotAttach> HotSpotAttach::Open(const TargetProcess& target,
                                                  const JvmProcess& jvm, double timeout_s) {
  std::string socket = absl::StrCat(jvm.root, "/tmp/.java_pid", jvm.status.nspid);
  if (socket.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return absl::InternalError(absl::StrCat("attach socket path too long: ", socket));
  }
  TargetCredentials as_target(jvm.status);
  if (!as_target.ok()) return ErrnoStatus(errno, "taking the target's uid and gid");
  if (!SocketReady(socket, jvm.status.euid)) {
    if (absl::Status s = StartListener(target, jvm, socket, timeout_s); !s.ok()) return s;
  }
  return HotSpotAttach(jvm.pid, jvm.status, std::move(socket));
}

absl::StatusOr<AttachReply> HotSpotAttach::Execute(absl::string_view command,
                                                   const std::array<std::string, 3>& args,
                                                   double timeout_s) const {
  std::string request = absl::StrCat("1", std::string(1, '\0'), command, std::string(1, '\0'));
  for (const std::string& arg : args) {
    if (arg.size() > kArgumentMaxBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("attach argument of ", arg.size(), " bytes (HotSpot takes at most 1024)"));
    }
    absl::StrAppend(&request, arg, std::string(1, '\0'));
  }
  TargetCredentials as_target(status_);
  if (!as_target.ok()) return ErrnoStatus(errno, "taking the target's uid and gid");
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(errno, "socket");
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
  absl::StatusOr<std::string> reply;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int err = errno;
    reply = err == EACCES || err == EPERM
                ? absl::PermissionDeniedError(
                      absl::StrCat("no permission to connect to pid ", pid_,
                                   "'s attach socket: run as root or as the JVM's user"))
                : ErrnoStatus(err, absl::StrCat("connecting to pid ", pid_, "'s attach socket"));
  } else if (absl::Status sent = SendAll(fd, request); !sent.ok()) {
    reply = sent;
  } else {
    reply = ReceiveAll(fd, pid_, timeout_s);
  }
  close(fd);
  if (!reply.ok()) return reply.status();
  const size_t newline = reply->find('\n');
  AttachReply out;
  if (!absl::SimpleAtoi(reply->substr(0, newline), &out.code)) {
    return absl::InternalError(
        absl::StrCat("pid ", pid_, " answered the attach with '", reply->substr(0, 80), "'"));
  }
  out.output = newline == std::string::npos ? "" : reply->substr(newline + 1);
  return out;
}

}  // namespace vtctx::reader
