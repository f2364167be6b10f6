// `vtctx-reader attach`: loads the vtctx agent into a running HotSpot JVM through the JVM's own
// attach mechanism (no JDK tools needed) and prints what the agent reports (agentLoad.h).
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "commands/commandDeadline.h"
#include "commands/commands.h"
#include "hotspot/agentLoad.h"
#include "target/agentStatusRead.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

const CommandHelp kAttachHelp = {
    "usage: vtctx-reader attach --pid P [flags]\n"
    "\n"
    "Loads the vtctx agent into the running HotSpot JVM P (JDK 21+) through the JVM's attach\n"
    "mechanism, also in another pid and mount namespace (a container) and as another user, then\n"
    "prints the agent's own report on stdout: version, options, records when it is active. Exits\n"
    "0 only if the agent is active (also when it already was); otherwise one line says why.\n"
    "\n",
    "\n"
    "Everything on P's side runs in P's own mount namespace and root, with P's uid and gid: P's\n"
    "symlinks lead nowhere outside its own view (docs/reader.md, \"Threat model\").\n"
    "\n"
    "exit: 0 active; 2 usage; 3 no such process; 4 no permission; 7 not a HotSpot JVM, Java < 21,\n"
    "attach disabled (-XX:+DisableAttachMechanism), no SIGQUIT handler and no listener, or "
    "another\n"
    "thread-context writer loaded; 8 the attach failed (the agent's reason, the JVM's answer, an\n"
    "answer that was not the agent's, or a timeout)\n"};

absl::Status RunAttach(const AttachOptions& options) {
  // --timeout bounds each wait; this, the whole attach (the listener, the load's 3 x, the rest).
  ArmCommandDeadline(5 * options.load.timeout_s + 10,
                     absl::StrCat("attaching to pid ", options.pid));
  absl::StatusOr<TargetProcess> target = TargetProcess::Hold(options.pid);
  if (!target.ok()) return target.status();
  absl::StatusOr<AgentReport> report = LoadAgent(*target, options.load);
  if (!report.ok()) return report.status();
  printf("pid %d: %s\n", options.pid, DescribeAgentReport(*report).c_str());
  if (absl::StatusOr<vtctx_agent_status> status = ReadAgentStatusOf(*target); status.ok()) {
    printf("pid %d: %s\n", options.pid, DescribeAgentStatus(*status).c_str());
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
