// The agent's thread index (vtctx/threadIndex.h): which record each publishing Java thread owns,
// by thread id, for readers that follow HotSpot's record of the mounted thread (channel=identity)
// and for `vtctx-reader verify`, which compares both channels (so the carrier channel fills it
// too, with thread_index=on).
//
// A record is entered at its thread's first publish through the shim (the natives), and leaves
// the index before it goes back to the pool (ReleaseEndedRecord, SweepRecordViews): a reader that
// validates its lookup never takes a record that another thread owns by now. The record's holder
// id word (RecordPool::HolderThreadId) remembers the id it was entered under.
#ifndef VTCTX_AGENT_IDENTITY_INDEX_H_
#define VTCTX_AGENT_IDENTITY_INDEX_H_

#include <cstdint>

#include "options.h"
#include "recordPool.h"
#include "threadIndexWriter.h"

namespace vtctx {

// Creates the index (once); false if it cannot be mapped. `fault` = Fault::kIdentityIndex makes
// every entry name the record entered before its own (TEST ONLY: the correctness harness must
// fail).
bool CreateThreadIndex(Fault fault);

// The index, or null before CreateThreadIndex() succeeded. Never freed.
ThreadIndexWriter* AgentThreadIndex();

// Enters `record` as thread `thread_id`'s. False if the index could not take it (no memory).
bool IndexThreadRecord(RecordPool& pool, uint64_t thread_id, ThreadContextRecord* record);

// The record `thread_id` was entered with, or null: the agent's own lookup (under fault=
// identity-index the true one, not what the index shows readers).
const ThreadContextRecord* FindThreadRecord(uint64_t thread_id);

void UnindexThreadRecordSlow(uint64_t thread_id, ThreadContextRecord* record);

// Removes `record`'s entry, if it has one. Call before `record` goes back to the pool. One load
// for a record that was never entered (a thread that never published): fine for end events.
inline void UnindexThreadRecord(RecordPool& pool, ThreadContextRecord* record) {
  std::atomic<uint64_t>& id = pool.HolderThreadId(record);
  const uint64_t thread_id = id.load(std::memory_order_relaxed);
  if (__builtin_expect(thread_id == 0, 1)) return;
  UnindexThreadRecordSlow(thread_id, record);
  id.store(0, std::memory_order_relaxed);
}

}  // namespace vtctx

#endif  // VTCTX_AGENT_IDENTITY_INDEX_H_
