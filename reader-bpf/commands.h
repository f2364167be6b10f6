// The subcommands of vtctx-reader. Each parses its own flags, prints data to stdout and
// diagnostics to stderr, and returns OK (exit 0) or the status main turns into a one-line reason
// and an exit code (see main.cpp).
#ifndef VTCTX_READER_COMMANDS_H_
#define VTCTX_READER_COMMANDS_H_

#include <span>

#include "absl/status/status.h"
#include "vtctx/record.h"

// Help text of `--wait`, for every command that takes it (agentWait.h).
#define VTCTX_WAIT_HELP                                                                          \
  "  --wait[=S]       when P does not export " VTCTX_TLS_SYMBOL                                  \
  " yet (agent not loaded, or\n"                                                                 \
  "                   being loaded), wait for it: P's maps are read every 200 ms, for at most\n" \
  "                   S seconds (default: no limit); exit 3 if P exits meanwhile\n"

namespace vtctx::reader {

absl::Status RunResolve(std::span<char* const> args);
absl::Status RunSyscalls(std::span<char* const> args);
absl::Status RunProfile(std::span<char* const> args);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_COMMANDS_H_
