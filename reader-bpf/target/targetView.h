// Acting on a target's files and sockets the way the target itself could, and in no other way.
//
// The reader runs as root; a target (a container, another user's JVM) is not trusted. Paths the
// reader would reach through /proc/<pid>/root follow the target's symlinks, and an absolute
// symlink there resolves in the reader's own root: a container could point the reader at any host
// file or socket. So every operation on a target's files runs in a child process that
//   1. enters the target's mount namespace (setns) and makes the target's root directory its own
//      (chroot): a path, symlinks and ".." included, resolves exactly as it does for the target;
//   2. takes the target's effective uid and gid for all of its ids, drops supplementary groups and
//      every capability (also when the target runs as uid 0), and sets no_new_privs: it can open
//      only what the target's user could;
//   3. is not dumpable (the target's user cannot ptrace it or read its memory) and dies with the
//      reader (PR_SET_PDEATHSIG), removing the files it created for the reader on the way.
// This is what the JDK's own tools and jattach do (they enter the namespace and take the
// credentials), done in a child so that the reader itself keeps its privileges and its view.
//
// Results come back through a pipe, bounded in size and in time: the child is killed when it does
// not answer within the caller's timeout.
#ifndef VTCTX_READER_TARGET_VIEW_H_
#define VTCTX_READER_TARGET_VIEW_H_

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

// What work running in the view may use besides plain paths.
class ViewSession {
 public:
  // The target's working directory (an O_PATH fd).
  int cwd_fd() const { return cwd_fd_; }
  // The target as the reader's pid namespace numbers it (SO_PEERCRED answers in that namespace:
  // the child does not enter the target's pid namespace).
  pid_t target_pid() const { return target_pid_; }
  // The held target's pidfd (-1 without one): signals go to it, never to a reused pid.
  int target_pidfd() const { return pidfd_; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }

  // `path` (absolute, in the view) is removed if the child is killed or the reader dies before
  // Keep(path); up to 4 paths. Returns false when full.
  bool RemoveUnlessKept(const std::string& path);
  void Keep(const std::string& path);

 private:
  friend class TargetView;
  ViewSession(int cwd_fd, pid_t target_pid, int pidfd, uid_t uid, gid_t gid)
      : cwd_fd_(cwd_fd), target_pid_(target_pid), pidfd_(pidfd), uid_(uid), gid_(gid) {}
  int cwd_fd_;
  pid_t target_pid_;
  int pidfd_;
  uid_t uid_;
  gid_t gid_;
};

class TargetView {
 public:
  // The view of the held `target` with the credentials `uid`/`gid` (its effective ones, from its
  // /proc status). Opens its root, working directory and mount namespace through its /proc
  // directory; PermissionDenied without the privilege to (root, or CAP_SYS_ADMIN and
  // CAP_SYS_PTRACE and CAP_SYS_CHROOT).
  static absl::StatusOr<TargetView> Open(const TargetProcess& target, uid_t uid, gid_t gid);

  TargetView(TargetView&& other) noexcept;
  TargetView& operator=(TargetView&& other) noexcept;
  TargetView(const TargetView&) = delete;
  TargetView& operator=(const TargetView&) = delete;
  ~TargetView();

  // Runs `work` in a child inside the view and returns what it returned: at most
  // `max_result_bytes`, within `timeout_s` (then the child is stopped: SIGTERM, which removes its
  // files, then SIGKILL). `what` names the operation in errors. The reader must be single-threaded
  // (fork). Errors of the child's own setup are PermissionDenied or Internal.
  absl::StatusOr<std::string> Run(
      absl::string_view what, double timeout_s, size_t max_result_bytes,
      absl::FunctionRef<absl::StatusOr<std::string>(ViewSession&)> work) const;

  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }

 private:
  TargetView(pid_t pid, int pidfd, int root_fd, int cwd_fd, int mnt_fd, uid_t uid, gid_t gid)
      : pid_(pid),
        pidfd_(pidfd),
        root_fd_(root_fd),
        cwd_fd_(cwd_fd),
        mnt_fd_(mnt_fd),
        uid_(uid),
        gid_(gid) {}
  void Close();

  pid_t pid_ = 0;
  int pidfd_ = -1;  // borrowed from the TargetProcess: not closed here
  int root_fd_ = -1;
  int cwd_fd_ = -1;
  int mnt_fd_ = -1;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_TARGET_VIEW_H_
