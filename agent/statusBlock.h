// The agent's status block (protocol/include/vtctx/agentStatus.h): the counters a reader reads to
// tell why samples carry no context, at an address the process context names (vtctx.status). One
// block per process, never freed: a reader may read it until the process ends.
#ifndef VTCTX_AGENT_STATUS_BLOCK_H_
#define VTCTX_AGENT_STATUS_BLOCK_H_

#include <cstdint>

#include "vtctx/agentStatus.h"

namespace vtctx {

// The block, initialised (magic, layout) at the first call.
const vtctx_agent_status* StatusBlock();

// A class loader's shim got the natives; `origin` is one VTCTX_SHIM_ORIGIN_* bit.
void CountShimServed(uint32_t origin);
// A shim asked for the natives and was refused.
void CountShimRefused();
// A thread took its record through the shim (its first publish).
void CountPublishingThread();

}  // namespace vtctx

#endif  // VTCTX_AGENT_STATUS_BLOCK_H_
