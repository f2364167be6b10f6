// What the reader needs to know about a target before it attaches to it through HotSpot's attach
// mechanism (hotspotAttach.h), read from /proc and HotSpot's perf-data file without touching the
// JVM: its pid inside its own pid namespace, the credentials it runs with, whether it is HotSpot,
// which Java it runs, whether its attach mechanism is on, and whether it handles SIGQUIT (the
// signal that starts the attach listener; it kills a process that does not handle it).
#ifndef VTCTX_READER_JVM_PROCESS_H_
#define VTCTX_READER_JVM_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/hsperfData.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

// The fields of /proc/<pid>/status the attach needs.
struct ProcStatus {
  pid_t nspid = 0;  // innermost NSpid: the pid the process sees for itself (Tgid without NSpid)
  uid_t euid = 0;
  gid_t egid = 0;
  bool catches_sigquit = false;  // SigCgt has SIGQUIT
  bool ignores_sigquit = false;  // SigIgn has SIGQUIT
};
absl::StatusOr<ProcStatus> ParseProcStatus(absl::string_view text);

struct JvmProcess {
  pid_t pid = 0;
  ProcStatus status;
  // The target's root directory as the reader reaches it (the held /proc directory's "root"):
  // paths below it are looked up in the target's mount namespace, e.g. its private /tmp.
  std::string root;
  bool hotspot = false;  // libjvm.so mapped, and not OpenJ9's
  bool openj9 = false;
  std::optional<HsPerfData> perf;  // none with -XX:-UsePerfData (or before the JVM set it up)
  std::string java_version;        // from perf data; "" when unknown
};

// Reads the facts of a held target. NotFound if it is gone, PermissionDenied if not readable.
absl::StatusOr<JvmProcess> InspectJvm(const TargetProcess& target);

// OK, or the one-line reason the agent cannot be attached to `jvm` with what to do: not a HotSpot
// JVM, Java older than 21, attach disabled (-XX:+DisableAttachMechanism) (Unimplemented). A Java
// version or attach flag that perf data does not tell (-XX:-UsePerfData) is not checked here.
absl::Status CheckAttachable(const JvmProcess& jvm);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_JVM_PROCESS_H_
