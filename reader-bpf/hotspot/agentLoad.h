// Loading the vtctx agent into a running HotSpot JVM and reading back what the agent made of it:
// `vtctx-reader attach`, and `--attach` on resolve, syscalls and profile.
//
//   check the target (jvmProcess.h: HotSpot, Java 21+, attach enabled) -> a thread-context writer
//   there already? vtctx (its process context says so): report it and load nothing; another
//   writer: refuse (one per process) -> start the attach listener (hotspotAttach.h) -> in the
//   target's view and with its credentials (targetView.h), one child: the agent's path (the one
//   given, when it leads there to the same file and only root or the JVM's user can change it
//   on the way; else a private copy: a new 0700 directory in the target's /tmp holding a 0500
//   file, created exclusively by the JVM's user and checked with fstat), a report file created
//   exclusively there, HotSpot "load <agent> true <options>,report=<file>", the report read back
//   through the descriptor that created it (at most 4 KiB), the report removed; on failure the
//   copy too -> the agent's file mapped in the target (device and inode), or the answer was not
//   the agent's.
//
// No path the target names is ever handed to a JVM or read by root. What the target says (the
// JVM's answer, the agent's report) is printed through Printable().
#ifndef VTCTX_READER_AGENT_LOAD_H_
#define VTCTX_READER_AGENT_LOAD_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

struct AgentLoadOptions {
  std::string agent_path;     // the agent as the reader sees it; "" = DefaultAgentPath()
  std::string agent_options;  // the agent's options (without report=, which the load adds)
  double timeout_s = 10;      // for the attach listener to start, and for each reply (x3 for load)
  // `--attach` of a reader command without --channel: load channel=identity (no cost per virtual
  // thread mount for the JVM's life: docs/results/agent.md) where this reader can follow it in
  // the target, else channel=carrier.
  bool choose_channel = false;
};

// The agent's report line, parsed.
struct AgentReport {
  bool active = false;
  std::map<std::string, std::string> fields;  // vtctx, load, java, record_size, records, bind
  std::string text;  // the free text: `options` when active, `reason` when not
};
// InvalidArgument for a line that is not a report.
absl::StatusOr<AgentReport> ParseAgentReport(absl::string_view line);
// One line for the user, e.g. "vtctx 0.1.0 active (attached now; Java 25.0.1; 64-byte records,
// 3 handed out; bind=mount; options 'log=info')"; every value through Printable().
std::string DescribeAgentReport(const AgentReport& report);

// The agent installed beside the reader whose executable is `exe`: <dir>/../lib/libvtctx.so (the
// install layout bin/ + lib/), else <dir>/../agent/libvtctx.so (the build tree); "" if neither
// exists.
std::string AgentBesideReader(const std::string& exe);
// AgentBesideReader of this process's own executable.
std::string DefaultAgentPath();

// Loads the agent into `target`. OK with the agent's report when the agent is active (newly, or
// already: then fields come from its process context and nothing is loaded). Errors:
// Unimplemented (not HotSpot, Java < 21, attach disabled, SIGQUIT not handled, another
// thread-context writer loaded), PermissionDenied, DeadlineExceeded (no listener or no reply in
// time), Aborted (the agent stays inactive: its reason; or the JVM could not load it: the JVM's
// words; or the answer was not the agent's), NotFound (target gone), FailedPrecondition (no place
// in the target's /tmp that only its user can change).
absl::StatusOr<AgentReport> LoadAgent(const TargetProcess& target, const AgentLoadOptions& options);

// --attach of resolve, syscalls and profile: with `options`, LoadAgent (the channel chosen first
// when choose_channel) and stderr lines saying what the agent reports and how many shims it
// serves; without, nothing.
absl::Status AttachBeforeRun(const TargetProcess& target,
                             const std::optional<AgentLoadOptions>& options);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_AGENT_LOAD_H_
