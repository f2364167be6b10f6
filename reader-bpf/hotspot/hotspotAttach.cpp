#include "hotspot/hotspotAttach.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/errnoStatus.h"
#include "target/monotonicClock.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

constexpr int kSocketPollMs = 20;           // how often the socket's appearance is checked
constexpr int kConnectRetryMs = 10;         // a full backlog: how often connect is retried
constexpr size_t kArgumentMaxBytes = 1024;  // protocol version 1's limit per argument
constexpr double kViewMarginSeconds = 2;    // the view's own deadline, past the operation's

std::string SocketPath(pid_t nspid) { return absl::StrCat("/tmp/.java_pid", nspid); }

// The socket exists, is not a symlink and belongs to the JVM's user (in the view).
bool SocketReady(const std::string& path, uid_t owner) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == owner;
}

// HotSpot binds its socket under another name and renames it to SocketPath: in a sticky /tmp it
// cannot replace a file of another user (root's stale socket of an earlier process with this pid,
// or one a third user planted), so its listener would never start. Said at once, before any
// SIGQUIT, instead of waiting out the timeout.
absl::Status SocketPathTaken(const std::string& path, pid_t pid, uid_t owner) {
  struct stat st {};
  struct stat tmp {};
  if (owner == 0 || lstat(path.c_str(), &st) != 0 || st.st_uid == owner) return absl::OkStatus();
  if (lstat("/tmp", &tmp) != 0 || (tmp.st_mode & S_ISVTX) == 0 || tmp.st_uid == owner) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s (in pid %d's view) belongs to uid %u, not to the JVM's uid %u: HotSpot cannot create "
      "its attach socket there (a stale socket of an earlier process with this pid, or planted); "
      "remove that file, then retry",
      path, pid, st.st_uid, owner));
}

// Sends SIGQUIT to the held process (by pidfd: never to a process that reused the pid).
bool SendQuit(const ViewSession& session) {
#ifdef SYS_pidfd_send_signal
  if (session.target_pidfd() >= 0) {
    return syscall(SYS_pidfd_send_signal, session.target_pidfd(), SIGQUIT, nullptr, 0) == 0;
  }
#endif
  return kill(session.target_pid(), SIGQUIT) == 0;
}

bool TargetExited(const ViewSession& session) {
  if (session.target_pidfd() < 0) return kill(session.target_pid(), 0) != 0 && errno == ESRCH;
  pollfd p{session.target_pidfd(), POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

// Creates the trigger file in the target's working directory, else in its /tmp; returns its path
// in the view ("" if neither could be created). A trigger already there of the JVM's user does
// as well (and is left where it is).
std::string CreateTrigger(ViewSession& session, pid_t nspid, bool* created) {
  const std::string name = absl::StrCat(".attach_pid", nspid);
  std::string cwd_name;
  if (fchdir(session.cwd_fd()) == 0) cwd_name = name;  // relative to the target's cwd
  for (const std::string& path : {cwd_name, "/tmp/" + name}) {
    if (path.empty()) continue;
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      close(fd);
      *created = true;
      session.RemoveUnlessKept(path);
      return path;
    }
    struct stat st {};
    if (errno == EEXIST && lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == session.uid()) {
      *created = false;
      return path;
    }
  }
  return "";
}

// In the view: starts the listener and waits for its socket (the handshake in the header).
absl::StatusOr<std::string> StartListener(ViewSession& session, pid_t pid, pid_t nspid,
                                          double timeout_s) {
  const std::string socket = SocketPath(nspid);
  if (SocketReady(socket, session.uid())) return std::string("up");
  if (absl::Status taken = SocketPathTaken(socket, pid, session.uid()); !taken.ok()) return taken;
  bool created = false;
  const std::string trigger = CreateTrigger(session, nspid, &created);
  if (trigger.empty()) {
    return ErrnoStatus(errno, absl::StrCat("creating .attach_pid", nspid, " in pid ", pid,
                                           "'s working directory or /tmp"));
  }
  const double start = MonotonicSeconds();
  bool resent = false;
  absl::Status result = absl::OkStatus();
  if (!SendQuit(session)) result = ErrnoStatus(errno, absl::StrCat("SIGQUIT to pid ", pid));
  while (result.ok() && !SocketReady(socket, session.uid())) {
    const double waited = MonotonicSeconds() - start;
    if (TargetExited(session)) {
      result = absl::NotFoundError(absl::StrCat("pid ", pid, " exited during the attach"));
    } else if (waited >= timeout_s) {
      result = absl::DeadlineExceededError(absl::StrFormat(
          "pid %d did not start its attach listener within %.1f s (a JVM still starting, or "
          "too busy to reach a safepoint?); retry, or give more time with --timeout",
          pid, timeout_s));
    } else if (!resent && waited >= timeout_s / 2) {
      resent = true;  // a JVM that was still initialising its signal handling gets a second one
      SendQuit(session);
    } else {
      poll(nullptr, 0, kSocketPollMs);
    }
  }
  if (created) {
    unlink(trigger.c_str());
    session.Keep(trigger);
  }
  if (!result.ok()) return result;
  return std::string("started");
}

int MillisLeft(double deadline) {
  const double left = deadline - MonotonicSeconds();
  return left <= 0 ? 0 : static_cast<int>(std::min(left, 3600.0) * 1000) + 1;
}

// Waits for `events` on `fd` until `deadline`; false when it passed.
bool WaitFor(int fd, short events, double deadline) {
  for (;;) {
    const int ms = MillisLeft(deadline);
    if (ms == 0) return false;
    pollfd p{fd, events, 0};
    const int ready = poll(&p, 1, ms);
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

absl::Status Connect(int fd, const std::string& path, pid_t pid, double deadline,
                     const std::string& within) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  for (;;) {
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
      return absl::OkStatus();
    }
    const int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN) {  // the listener's backlog is full: it is not accepting
      if (MillisLeft(deadline) == 0) {
        return absl::DeadlineExceededError(
            absl::StrCat("pid ", pid, " did not accept the attach connection ", within,
                         " (its listener is stuck: a JVM stopped, or at a safepoint for long?)"));
      }
      poll(nullptr, 0, kConnectRetryMs);
      continue;
    }
    if (err == EACCES || err == EPERM) {
      return absl::PermissionDeniedError(
          absl::StrCat("no permission to connect to pid ", pid,
                       "'s attach socket: run as root or as the JVM's user"));
    }
    return ErrnoStatus(err, absl::StrCat("connecting to pid ", pid, "'s attach socket"));
  }
}

}  // namespace

absl::StatusOr<std::string> AttachRequest(absl::string_view command,
                                          const std::array<std::string, 3>& args) {
  std::string request = absl::StrCat("1", std::string(1, '\0'), command, std::string(1, '\0'));
  for (const std::string& arg : args) {
    if (arg.size() > kArgumentMaxBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("attach argument of ", arg.size(), " bytes (HotSpot takes at most 1024)"));
    }
    absl::StrAppend(&request, arg, std::string(1, '\0'));
  }
  return request;
}

absl::StatusOr<AttachReply> ParseAttachReply(pid_t pid, absl::string_view reply) {
  const size_t newline = reply.find('\n');
  AttachReply out;
  if (!absl::SimpleAtoi(reply.substr(0, newline), &out.code)) {
    return absl::InvalidArgumentError(absl::StrCat("pid ", pid, " answered the attach with '",
                                                   Printable(reply.substr(0, 80)), "'"));
  }
  out.output = newline == absl::string_view::npos ? "" : std::string(reply.substr(newline + 1));
  return out;
}

absl::StatusOr<std::string> ExchangeInView(const ViewSession& session, pid_t nspid,
                                           const std::string& request, double deadline) {
  const pid_t pid = session.target_pid();
  const std::string path = SocketPath(nspid);
  const std::string within = absl::StrFormat("within %.0f s", deadline - MonotonicSeconds());
  if (!SocketReady(path, session.uid())) {
    return absl::FailedPreconditionError(absl::StrCat("pid ", pid, "'s attach socket ", path,
                                                      " is gone or not a socket of its user"));
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(errno, "socket");
  auto fail = [fd](absl::Status s) {
    close(fd);
    return s;
  };
  if (absl::Status s = Connect(fd, path, pid, deadline, within); !s.ok()) return fail(s);
  ucred peer{};
  socklen_t peer_size = sizeof peer;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0) {
    return fail(ErrnoStatus(errno, "SO_PEERCRED"));
  }
  if (peer.pid != pid || peer.uid != session.uid()) {
    return fail(absl::FailedPreconditionError(
        absl::StrCat("pid ", pid, "'s attach socket is served by pid ", peer.pid, " (uid ",
                     peer.uid, "), not by the JVM: refusing it")));
  }
  // One send or recv on the socket (`io`), retried on EINTR and, once the socket is ready for
  // `events`, on EAGAIN: the bytes it moved (0: the JVM closed the connection). `verb`: what the
  // JVM did not do with its operation by the deadline; `what`: the call, named in its error.
  auto transfer = [&](auto io, short events, const char* verb,
                      const char* what) -> absl::StatusOr<size_t> {
    for (;;) {
      const ssize_t n = io();
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      if (errno != EAGAIN) return ErrnoStatus(errno, what);
      if (!WaitFor(fd, events, deadline)) {
        return absl::DeadlineExceededError(
            absl::StrCat("pid ", pid, " did not ", verb, " its attach operation ", within));
      }
    }
  };
  for (size_t done = 0; done < request.size();) {
    absl::StatusOr<size_t> n = transfer(
        [&] { return send(fd, request.data() + done, request.size() - done, MSG_NOSIGNAL); },
        POLLOUT, "read", "writing to the attach socket");
    if (!n.ok()) return fail(n.status());
    done += *n;
  }
  std::string out;
  char buffer[8192];
  for (;;) {
    absl::StatusOr<size_t> n = transfer([&] { return recv(fd, buffer, sizeof buffer, 0); }, POLLIN,
                                        "answer", "reading the attach socket");
    if (!n.ok()) return fail(n.status());
    if (*n == 0) break;
    if (out.size() + *n > kMaxAttachReplyBytes) {
      return fail(absl::ResourceExhaustedError(
          absl::StrCat("pid ", pid, " answered its attach operation with more than ",
                       kMaxAttachReplyBytes, " bytes")));
    }
    out.append(buffer, *n);
  }
  close(fd);
  return out;
}

absl::StatusOr<HotSpotAttach> HotSpotAttach::Open(const TargetProcess& target,
                                                  const JvmProcess& jvm, double timeout_s) {
  absl::StatusOr<TargetView> view = TargetView::Open(target, jvm.status.euid, jvm.status.egid);
  if (!view.ok()) return view.status();
  const pid_t pid = jvm.pid;
  const pid_t nspid = jvm.status.nspid;
  const bool sigquit = jvm.status.catches_sigquit && !jvm.status.ignores_sigquit;
  absl::StatusOr<std::string> up = view->Run(
      "starting the attach listener", timeout_s + kViewMarginSeconds, 16,
      [&](ViewSession& session) -> absl::StatusOr<std::string> {
        if (!sigquit && !SocketReady(SocketPath(nspid), session.uid())) {
          return absl::UnimplementedError(absl::StrCat(
              "pid ", pid,
              " does not handle SIGQUIT, the signal that starts HotSpot's attach listener, and "
              "has none running: load the agent at startup (-agentpath:/path/to/libvtctx.so)"));
        }
        return StartListener(session, pid, nspid, timeout_s);
      });
  if (!up.ok()) return up.status();
  return HotSpotAttach(*std::move(view), pid, nspid);
}

absl::StatusOr<AttachReply> HotSpotAttach::Execute(absl::string_view command,
                                                   const std::array<std::string, 3>& args,
                                                   double timeout_s) const {
  absl::StatusOr<std::string> request = AttachRequest(command, args);
  if (!request.ok()) return request.status();
  const pid_t nspid = nspid_;
  absl::StatusOr<std::string> reply =
      view_.Run(absl::StrCat("attach operation ", command), timeout_s + kViewMarginSeconds,
                kMaxAttachReplyBytes, [&](ViewSession& session) {
                  return ExchangeInView(session, nspid, *request, MonotonicSeconds() + timeout_s);
                });
  if (!reply.ok()) return reply.status();
  return ParseAttachReply(pid_, *reply);
}

}  // namespace vtctx::reader
