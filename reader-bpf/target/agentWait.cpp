#include "target/agentWait.h"

#include <poll.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/monotonicClock.h"

namespace vtctx::reader {
namespace {

bool WorthWaiting(const absl::Status& status) {
  return absl::IsFailedPrecondition(status) || absl::IsUnavailable(status);
}

absl::Status Exited(pid_t pid, absl::string_view when) {
  return absl::NotFoundError(absl::StrCat("pid ", pid, " exited", when));
}

}  // namespace

absl::StatusOr<Resolution> ResolveWithWait(const TargetProcess& target, MemoryReader& memory,
                                           std::optional<double> wait,
                                           const std::function<bool()>& stop) {
  FilesWithoutSymbol skip;
  absl::StatusOr<Resolution> resolution = ResolveProcess(target.pid(), memory, &skip);
  if (target.Exited()) return Exited(target.pid(), "");
  if (resolution.ok() || !wait.has_value() || !WorthWaiting(resolution.status())) {
    return resolution;
  }
  const double start = MonotonicSeconds();
  const std::string limit = *wait > 0 ? absl::StrFormat(" (up to %g s)", *wait) : "";
  fprintf(stderr, "vtctx-reader: waiting for the agent%s: %s\n", limit.c_str(),
          std::string(resolution.status().message()).c_str());
  fflush(stderr);
  for (;;) {
    // Sleeps one interval, or less: a pidfd polls readable at the target's exit, a stop signal
    // interrupts the poll.
    pollfd exit{target.exit_fd(), POLLIN, 0};
    poll(&exit, 1, kAgentWaitPollMs);
    if (stop()) return absl::CancelledError("stopped while waiting for the agent");
    if (target.Exited()) return Exited(target.pid(), " while waiting for the agent");
    resolution = ResolveProcess(target.pid(), memory, &skip);
    if (target.Exited()) return Exited(target.pid(), " while waiting for the agent");
    if (resolution.ok() || !WorthWaiting(resolution.status())) return resolution;
    const double waited = MonotonicSeconds() - start;
    if (*wait > 0 && waited >= *wait) {
      return absl::Status(
          resolution.status().code(),
          absl::StrFormat("%s (waited %.1f s)", resolution.status().message(), waited));
    }
  }
}

}  // namespace vtctx::reader
