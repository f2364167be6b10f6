// The subcommands of vtctx-reader: a help text, options (commandOptions.h) and a run. main parses
// the options and prints the help when asked, else runs the command; a run prints data to stdout
// and diagnostics to stderr, and returns OK (exit 0) or the status main turns into a one-line
// reason and an exit code (see main.cpp).
#ifndef VTCTX_READER_COMMANDS_H_
#define VTCTX_READER_COMMANDS_H_

#include "absl/status/status.h"
#include "commands/commandOptions.h"
#include "vtctx/record.h"

// Help text of `--wait`, for every command that takes it (agentWait.h).
#define VTCTX_WAIT_HELP                                                                          \
  "  --wait[=S]       when P does not export " VTCTX_TLS_SYMBOL                                  \
  " yet (agent not loaded, or\n"                                                                 \
  "                   being loaded), wait for it: P's maps are read every 200 ms, for at most\n" \
  "                   S seconds (default: no limit); exit 3 if P exits meanwhile\n"

// Help text of `--attach`, for resolve, syscalls and profile (agentLoad.h).
#define VTCTX_ATTACH_HELP                                                                        \
  "  --attach         first load the vtctx agent into P if it is a HotSpot JVM without it (as\n" \
  "                   `vtctx-reader attach`); already active: say so and go on\n"                \
  "  --agent PATH     with --attach: the agent (default: beside vtctx-reader)\n"                 \
  "  --agent-options OPTS  with --attach: the agent's options\n"

namespace vtctx::reader {

extern const char kAttachHelp[];
extern const char kResolveHelp[];
extern const char kSyscallsHelp[];
extern const char kProfileHelp[];

absl::Status RunAttach(const AttachOptions& options);
absl::Status RunResolve(const ResolveOptions& options);
absl::Status RunSyscalls(const SyscallsOptions& options);
absl::Status RunProfile(const ProfileOptions& options);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_COMMANDS_H_
