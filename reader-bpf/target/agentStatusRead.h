// The vtctx agent's status block (vtctx/agentStatus.h), found through the process context
// (vtctx.status) and read from the target's memory: how many shims the agent serves and refused,
// and how many threads published. Advice for `attach` and the no-context warning; the target
// writes it, so nothing is trusted beyond printing numbers.
#ifndef VTCTX_READER_AGENT_STATUS_READ_H_
#define VTCTX_READER_AGENT_STATUS_READ_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "target/processContextReader.h"
#include "target/processMemory.h"
#include "target/targetProcess.h"
#include "vtctx/agentStatus.h"

namespace vtctx::reader {

// The address an extra attribute `key` of a vtctx process context names ("0x" and lowercase hex,
// not 0), if its `layout_key` says `layout`. NotFound when the context has no such attribute;
// FailedPrecondition (one line) when it names something this reader cannot read.
absl::StatusOr<uint64_t> NamedAddress(const ProcessContext& context, absl::string_view key,
                                      absl::string_view layout_key, int layout);

// The block at the address the context names. NotFound: no block named (not vtctx, or a vtctx
// before the block existed); other errors say why it cannot be read.
absl::StatusOr<vtctx_agent_status> ReadAgentStatus(const ProcessContext& context,
                                                   MemoryReader& memory);

// The block of the held `target`, through its own process context.
absl::StatusOr<vtctx_agent_status> ReadAgentStatusOf(const TargetProcess& target);

// "serves 1 shim (the OpenTelemetry Java agent's extensions), refused 0; 12 threads published".
std::string DescribeAgentStatus(const vtctx_agent_status& status);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_AGENT_STATUS_READ_H_
