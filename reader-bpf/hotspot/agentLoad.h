// Loading the vtctx agent into a running HotSpot JVM and reading back what the agent made of it:
// `vtctx-reader attach`, and `--attach` on resolve, syscalls and profile.
//
//   check the target (jvmProcess.h: HotSpot, Java 21+, attach enabled) -> the agent already
//   loaded? load that same file again (the agent answers "already active" with its state) ->
//   else make the agent file visible in the target's mount namespace (a copy in its /tmp when the
//   path does not lead to the same file there: a container) -> create a report file in the
//   target's /tmp -> HotSpot "load <agent> true <options>,report=<file>" (hotspotAttach.h) ->
//   read the agent's one line (agent/loadReport.h) -> remove the report file.
//
// The JVM itself only says whether Agent_OnAttach returned 0; the report carries the agent's
// state or its reason, which HotSpot prints only on the target's stderr.
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
// 3 handed out; bind=mount; options 'log=info')".
std::string DescribeAgentReport(const AgentReport& report);

// The agent installed beside the reader whose executable is `exe`: <dir>/../lib/libvtctx.so (the
// install layout bin/ + lib/), else <dir>/../agent/libvtctx.so (the build tree); "" if neither
// exists.
std::string AgentBesideReader(const std::string& exe);
// AgentBesideReader of this process's own executable.
std::string DefaultAgentPath();

// Loads the agent into `target`. OK with the agent's report when the agent is active (newly, or
// already). Errors: Unimplemented (not HotSpot, Java < 21, attach disabled, SIGQUIT not handled),
// PermissionDenied, DeadlineExceeded (no listener or no reply in time), Aborted (the agent stays
// inactive: its reason; or the JVM could not load it: the JVM's words), NotFound (target gone).
absl::StatusOr<AgentReport> LoadAgent(const TargetProcess& target, const AgentLoadOptions& options);

// --attach of resolve, syscalls and profile: with `options`, LoadAgent and one stderr line saying
// what the agent reports; without, nothing.
absl::Status AttachBeforeRun(const TargetProcess& target,
                             const std::optional<AgentLoadOptions>& options);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_AGENT_LOAD_H_
