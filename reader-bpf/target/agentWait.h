// Resolving a held target, optionally waiting for the agent to appear in it (`--wait`): the
// late-attach workflow, where the reader is started before the agent is loaded.
#ifndef VTCTX_READER_AGENT_WAIT_H_
#define VTCTX_READER_AGENT_WAIT_H_

#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "target/processMemory.h"
#include "target/targetProcess.h"
#include "target/tlsResolver.h"

namespace vtctx::reader {

// How often a waiting reader reads the target's maps. 200 ms.
inline constexpr int kAgentWaitPollMs = 200;

// ResolveProcess on `target` (errors as there). The result counts only if the target is still
// alive afterwards (else NotFound): what was read by pid was then the held process.
//
// With `wait` (seconds; 0: no limit), a target that exports no symbol yet (FailedPrecondition) or
// whose access is not resolved yet (Unavailable: the middle of a dlopen) is resolved again every
// kAgentWaitPollMs, reading only files mapped since the last try, until it resolves; stderr gets
// one line when the wait starts. Ends with NotFound as soon as the target exits, with the last
// error (saying how long it waited) at the limit, and with Cancelled when `stop` returns true.
absl::StatusOr<Resolution> ResolveWithWait(const TargetProcess& target, MemoryReader& memory,
                                           std::optional<double> wait,
                                           const std::function<bool()>& stop);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_AGENT_WAIT_H_
