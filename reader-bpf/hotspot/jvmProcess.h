// What the reader needs to know about a target before it attaches to it through HotSpot's attach
// mechanism (hotspotAttach.h), read from /proc and from the JVM's memory (jvmFacts.h) without
// touching the JVM: its pid inside its own pid namespace, the credentials it runs with, whether
// it is HotSpot, which Java it runs, whether its attach mechanism is on, and whether it handles
// SIGQUIT (the signal that starts the attach listener; it kills a process that does not handle
// it). Nothing here opens a file of the target's: /proc files are the kernel's, and libjvm.so is
// read through its map_files link.
#ifndef VTCTX_READER_JVM_PROCESS_H_
#define VTCTX_READER_JVM_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/jvmFacts.h"
#include "target/procMaps.h"
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
  bool hotspot = false;  // libjvm.so mapped, and not OpenJ9's
  bool openj9 = false;
  // From the JVM's memory; none when its VMStructs cannot be read (facts_error says why).
  std::optional<JvmFacts> facts;
  std::string facts_error;
  std::vector<Mapping> maps;  // as read when inspected

  // The Java release ("25.0.1+8-LTS"), "" when unknown.
  std::string java_version() const { return facts ? facts->release : ""; }
  // A boolean -XX flag's value, nullopt when unknown.
  std::optional<bool> Flag(const std::string& name) const;
};

// The boolean flags InspectJvm reads.
inline constexpr absl::string_view kDisableAttachMechanism = "DisableAttachMechanism";
inline constexpr absl::string_view kPreserveFramePointer = "PreserveFramePointer";

// Reads the facts of a held target. NotFound if it is gone, PermissionDenied if not readable.
absl::StatusOr<JvmProcess> InspectJvm(const TargetProcess& target);

// OK, or the one-line reason the agent cannot be attached to `jvm` with what to do: not a HotSpot
// JVM, Java older than 21, attach disabled (-XX:+DisableAttachMechanism) (Unimplemented). Facts
// the JVM's memory does not give are not checked here.
absl::Status CheckAttachable(const JvmProcess& jvm);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_JVM_PROCESS_H_
