// One deadline for a whole command, whatever stalls it: a target's file that blocks a read (FUSE,
// a hung network file system), a JVM that never answers, work a hostile target made larger than
// every bound foresaw. When it passes, the reader writes one line and exits 1:
//
//   vtctx-reader: resolve: gave up after 40 s (resolving pid 1234): a target's file or
//   answer stalled it
//
// Every bounded part (a thread stop, an attach step, a read) ends on its own well before: this is
// the net under them. An interval timer (SIGALRM, not inherited by the children a command forks)
// whose handler only writes the prepared line and calls _exit: no lock, no allocation.
#ifndef VTCTX_READER_COMMAND_DEADLINE_H_
#define VTCTX_READER_COMMAND_DEADLINE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "hotspot/agentLoad.h"

namespace vtctx::reader {

// The command's name in the line (argv[1]); main says it once.
void NameCommandForDeadline(absl::string_view command);
// From now on, the command ends `seconds` from now unless re-armed or disarmed; `stage` names what
// it was doing in the line.
void ArmCommandDeadline(double seconds, absl::string_view stage);
// No deadline (a streaming command's run, which its user ends).
void DisarmCommandDeadline();

// How long a command may take to get going (hold, resolve, read the target's files, load BPF).
inline constexpr double kSetupDeadlineS = 30;
// How long a streaming command may take from the end of its run to its last output (profile: the
// JVM's second perf map, symbols, the report): 20 s, and half the run's length more (a long
// profile has that many more stacks to name).
inline constexpr double kReportDeadlineS = 20;
inline double ReportDeadline(double run_s) { return kReportDeadlineS + run_s / 2; }

// A command's setup deadline: kSetupDeadlineS, plus an agent load's whole time with --attach (5 x
// its --timeout: the listener, then the load's 3 x), plus --wait=S; nullopt for a --wait without
// limit (then the deadline is armed once the wait is over).
std::optional<double> SetupDeadline(const std::optional<AgentLoadOptions>& attach,
                                    std::optional<double> wait_s);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_COMMAND_DEADLINE_H_
