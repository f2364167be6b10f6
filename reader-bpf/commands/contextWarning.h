// The summary's `with_context=` and the one warning line when few events or samples carried a
// trace context, naming the likely cause from what the target says of itself (its process context
// and the vtctx agent's status block, read at the end of the run) and the channel the run
// followed. Exit 0 with no context at all is the failure a user must not miss.
#ifndef VTCTX_READER_CONTEXT_WARNING_H_
#define VTCTX_READER_CONTEXT_WARNING_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "target/targetProcess.h"
#include "vtctx/agentStatus.h"

namespace vtctx::reader {

// What the target says of its thread-context writer.
struct WriterFacts {
  bool vtctx = false;              // its process context is a vtctx agent's
  std::string channel;             // the agent's channel ("carrier", "identity"), "" when not vtctx
  bool followed_identity = false;  // what this run followed
  std::optional<vtctx_agent_status> status;  // the agent's status block, if readable
};

// Read at the end of a run (the counters are the agent's latest).
WriterFacts ReadWriterFacts(const TargetProcess& target, bool followed_identity);

// The warning (without the "vtctx-reader: " prefix), or "" when enough carried a context: none of
// at least one, or under 1 % of at least 100. `what` is "samples" or "events".
std::string ContextWarning(uint64_t with_context, uint64_t total, absl::string_view what,
                           const WriterFacts& facts);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_CONTEXT_WARNING_H_
