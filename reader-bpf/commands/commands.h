// The subcommands of vtctx-reader: a help text, options (commandOptions.h) and a run. main parses
// the options and prints the help when asked, else runs the command; a run prints data to stdout
// and diagnostics to stderr, and returns OK (exit 0) or the status main turns into a one-line
// reason and an exit code (see main.cpp).
#ifndef VTCTX_READER_COMMANDS_H_
#define VTCTX_READER_COMMANDS_H_

#include "absl/status/status.h"
#include "commands/commandOptions.h"
#include "vtctx/record.h"

namespace vtctx::reader {

// What a command does, before and after the flags (readerFlags.h) in its --help.
struct CommandHelp {
  const char* intro;  // the usage line, an example, what it does
  const char* outro;  // "" or what follows the flags (exit codes)
};
extern const CommandHelp kAttachHelp;
extern const CommandHelp kResolveHelp;
extern const CommandHelp kSyscallsHelp;
extern const CommandHelp kProfileHelp;
extern const CommandHelp kVerifyHelp;

absl::Status RunAttach(const AttachOptions& options);
absl::Status RunResolve(const ResolveOptions& options);
absl::Status RunSyscalls(const SyscallsOptions& options);
absl::Status RunProfile(const ProfileOptions& options);
absl::Status RunVerify(const VerifyOptions& options);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_COMMANDS_H_
