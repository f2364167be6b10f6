// The subcommands of vtctx-reader. Each parses its own flags, prints data to stdout and
// diagnostics to stderr, and returns OK (exit 0) or the status main turns into a one-line reason
// and an exit code (see main.cpp).
#ifndef VTCTX_READER_COMMANDS_H_
#define VTCTX_READER_COMMANDS_H_

#include <span>

#include "absl/status/status.h"

namespace vtctx::reader {

absl::Status RunResolve(std::span<char* const> args);
absl::Status RunSyscalls(std::span<char* const> args);
absl::Status RunProfile(std::span<char* const> args);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_COMMANDS_H_
