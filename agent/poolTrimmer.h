// The record pool's maintenance thread: gives idle records' memory back to the OS
// (RecordPool::Trim()) when the pool has fallen far below its peak.
//
// Why a thread of its own: a trim walks every free record and zaps pages (milliseconds for a
// million records). In an event it would stall a carrier, and Mount/Unmount stay as they are. The
// thread sleeps on a futex until a spill (Return's slow path, once per 8 records) finds
// RecordPool::TrimWanted(), then waits 1 s (a burst of thread ends finishes, and no more than one
// trim per second), then trims if the policy still holds. A pool that does not shrink never
// wakes it.
#ifndef VTCTX_AGENT_POOL_TRIMMER_H_
#define VTCTX_AGENT_POOL_TRIMMER_H_

#include "recordPool.h"

namespace vtctx {

// Starts the thread (once per process; later calls return its first result). False if it could not
// be created: the pool then simply keeps its memory.
bool StartPoolTrimmer(RecordPool& pool);

}  // namespace vtctx

#endif  // VTCTX_AGENT_POOL_TRIMMER_H_
