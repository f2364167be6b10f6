// HotSpot's attach mechanism on Linux, client side: what jcmd and the Attach API do, without a JDK.
//
// 1. Once the target's attach listener runs, it listens on the UNIX socket /tmp/.java_pid<nspid>
//    of the target's mount namespace (nspid: its pid in its own pid namespace). A JVM started with
//    -Xrs starts it at startup (no signal to wait for).
// 2. To start it: create .attach_pid<nspid> in the target's working directory (else its /tmp) and
//    send SIGQUIT; HotSpot's SIGQUIT handler finds the file and starts the listener, which creates
//    the socket. Wait for it (SIGQUIT once more half-way, as the JDK does), then remove the file.
//    SIGQUIT is sent only to a process that handles it (its default action dumps core) and whose
//    attach mechanism is not known to be off (then SIGQUIT prints a thread dump).
// 3. Per operation, one connection: "1\0<command>\0<arg0>\0<arg1>\0<arg2>\0" (protocol version 1,
//    which every HotSpot accepts; version 2, JDK 24+, only lifts the 1024-byte argument limit,
//    which the reader's arguments never reach), then read "<code>\n<output>" until the JVM closes.
//
// Everything on the target's side happens in its own view and with its credentials
// (target/targetView.h): the trigger file, the socket (never a symlink; it must belong to the
// JVM's user) and the connection. The peer of the connection must be the target process itself
// (SO_PEERCRED): another process of the target's user that answers on its socket is refused.
// Every wait has a deadline: connect (a full backlog), send, and the reply, which is bounded too.
#ifndef VTCTX_READER_HOTSPOT_ATTACH_H_
#define VTCTX_READER_HOTSPOT_ATTACH_H_

#include <sys/types.h>

#include <array>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/jvmProcess.h"
#include "target/targetProcess.h"
#include "target/targetView.h"

namespace vtctx::reader {

struct AttachReply {
  int code = 0;        // the operation's result (0: it ran)
  std::string output;  // what it printed (untrusted: print through Printable())
};

// The largest reply taken from a JVM (jcmd outputs are a few KiB).
inline constexpr size_t kMaxAttachReplyBytes = 1 << 20;

// The request bytes of one operation. InvalidArgument for an argument over 1024 bytes.
absl::StatusOr<std::string> AttachRequest(absl::string_view command,
                                          const std::array<std::string, 3>& args);
// "<code>\n<output>". InvalidArgument for anything else.
absl::StatusOr<AttachReply> ParseAttachReply(pid_t pid, absl::string_view reply);

// Inside the target's view: connects to its attach socket (lstat'ed: a socket of the target's
// user, not a symlink), checks the peer is the target, sends `request` and reads the reply (at
// most kMaxAttachReplyBytes) before `deadline` (MonotonicSeconds()).
absl::StatusOr<std::string> ExchangeInView(const ViewSession& session, pid_t nspid,
                                           const std::string& request, double deadline);

class HotSpotAttach {
 public:
  // The target's attach socket, starting its listener if needed and waiting up to `timeout_s` for
  // it. DeadlineExceeded when it does not appear, Unimplemented when the target does not handle
  // SIGQUIT, NotFound when it exits meanwhile. Holds `target`'s pidfd: must not outlive it.
  static absl::StatusOr<HotSpotAttach> Open(const TargetProcess& target, const JvmProcess& jvm,
                                            double timeout_s);

  // One operation ("load", "jcmd", "printflag", ...), waiting up to `timeout_s` for its reply.
  absl::StatusOr<AttachReply> Execute(absl::string_view command,
                                      const std::array<std::string, 3>& args,
                                      double timeout_s) const;

  // The target's view, for operations that combine files and the socket (agentLoad.h).
  const TargetView& view() const { return view_; }
  pid_t pid() const { return pid_; }
  pid_t nspid() const { return nspid_; }

 private:
  HotSpotAttach(TargetView view, pid_t pid, pid_t nspid)
      : view_(std::move(view)), pid_(pid), nspid_(nspid) {}

  TargetView view_;
  pid_t pid_;
  pid_t nspid_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_HOTSPOT_ATTACH_H_
