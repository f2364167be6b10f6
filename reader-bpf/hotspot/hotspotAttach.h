// HotSpot's attach mechanism on Linux, client side: what jcmd and the Attach API do, without a JDK.
//
// 1. Once the target's attach listener runs, it listens on the UNIX socket /tmp/.java_pid<nspid>
//    of the target's mount namespace (nspid: its pid in its own pid namespace).
// 2. To start it: create .attach_pid<nspid> in the target's working directory (else its /tmp) and
//    send SIGQUIT; HotSpot's SIGQUIT handler finds the file and starts the listener, which creates
//    the socket. Wait for it (SIGQUIT once more half-way, as the JDK does), then remove the file.
//    SIGQUIT is sent only to a process that handles it (its default action dumps core).
// 3. Per operation, one connection: "1\0<command>\0<arg0>\0<arg1>\0<arg2>\0" (protocol version 1,
//    which every HotSpot accepts; version 2, JDK 24+, only lifts the 1024-byte argument limit,
//    which the reader's arguments never reach), then read "<code>\n<output>" until the JVM closes.
//
// The listener serves only peers with its effective uid and gid (or root), and HotSpot accepts
// only a trigger file owned by its effective uid (or root). Every step runs with the target's
// effective uid and gid (setegid/seteuid while the reader is root, as jattach does), so the files
// it creates belong to the JVM's user.
#ifndef VTCTX_READER_HOTSPOT_ATTACH_H_
#define VTCTX_READER_HOTSPOT_ATTACH_H_

#include <sys/types.h>

#include <array>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/jvmProcess.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

// Runs as the target's effective uid and gid until destroyed, if the reader is root and the
// target is another user (else changes nothing). Single-threaded use only.
class TargetCredentials {
 public:
  explicit TargetCredentials(const ProcStatus& target);
  ~TargetCredentials();
  TargetCredentials(const TargetCredentials&) = delete;
  TargetCredentials& operator=(const TargetCredentials&) = delete;
  bool ok() const { return ok_; }

 private:
  bool switched_ = false;
  bool ok_ = true;
  gid_t old_egid_ = 0;
};

struct AttachReply {
  int code = 0;        // the operation's result (0: it ran)
  std::string output;  // what it printed
};

class HotSpotAttach {
 public:
  // The target's attach socket, starting its listener if needed and waiting up to `timeout_s` for
  // it. DeadlineExceeded when it does not appear, Unimplemented when the target does not handle
  // SIGQUIT, NotFound when it exits meanwhile.
  static absl::StatusOr<HotSpotAttach> Open(const TargetProcess& target, const JvmProcess& jvm,
                                            double timeout_s);

  // One operation ("load", "jcmd", "printflag", ...), waiting up to `timeout_s` for its reply.
  absl::StatusOr<AttachReply> Execute(absl::string_view command,
                                      const std::array<std::string, 3>& args,
                                      double timeout_s) const;

 private:
  HotSpotAttach(pid_t pid, ProcStatus status, std::string socket_path)
      : pid_(pid), status_(status), socket_path_(std::move(socket_path)) {}

  pid_t pid_;
  ProcStatus status_;
  std::string socket_path_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_HOTSPOT_ATTACH_H_
