// Per-OS-thread agent state: the thread's own platform record, whether a virtual thread is
// mounted on it (for carriers), its record cache and its event counters.
//
// States live in one arena that is reserved once and never unmapped; a thread finds its state
// through a hidden thread_local pointer. When a thread ends, its state is flushed and recycled for
// a later thread, counters included, so summing every state ever handed out gives exact totals
// without locks, registration lists or use-after-free risks.
#ifndef VTCTX_AGENT_THREAD_STATE_H_
#define VTCTX_AGENT_THREAD_STATE_H_

#include <atomic>
#include <cstdint>

#include "recordPool.h"
#include "threadContextRecord.h"

namespace vtctx {

// Written only by the owning thread (single writer, relaxed: plain loads and stores on x86-64 and
// aarch64); read by any thread for statistics.
using Counter = std::atomic<uint64_t>;
inline void Bump(Counter& c) {
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

struct EventCounters {
  Counter mounts;
  Counter unmounts;
  Counter unpaired_mounts;    // Mount while another virtual thread was still mounted here
  Counter unpaired_unmounts;  // Unmount with nothing mounted (e.g. running at attach time)
  Counter vthread_ends;
  Counter unpaired_ends;     // End of a virtual thread without a record (late attach; bind=use)
  Counter vthread_records;   // records bound to virtual threads
  Counter platform_records;  // records bound to platform threads
  Counter lazy_records;      // of those, bound at first use rather than at a start event
  Counter records_returned;
  Counter no_record;  // a record was needed but none could be bound (pool exhausted)
};

struct ThreadState {
  ThreadContextRecord* own = nullptr;  // this OS thread's platform-thread record, or null
  bool vthread_mounted = false;        // a virtual thread is mounted here (Mount seen, no Unmount)
  // The mounted virtual thread's record as its Mount found it, and the last unmounted one's until
  // the next Mount or End: what its End recycles without asking JVMTI (mountedRecord.h).
  ThreadContextRecord* mounted_record = nullptr;
  ThreadContextRecord* unmounted_record = nullptr;
  uint32_t free_link = 0;  // link in the arena's free stack while unused
  RecordCache cache;
  EventCounters counters;
};

namespace thread_state_internal {
extern constinit thread_local ThreadState* t_state;
ThreadState* AttachSlow();
}  // namespace thread_state_internal

// Reserves the arena. Call once before any event can fire; false if the mapping failed.
bool InitThreadStates();

// This thread's state, attached on first use. Fast path: one TLS load and a predictable branch.
// Returns null only if the arena is exhausted (65536 live OS threads) or not initialised.
inline ThreadState* CurrentThreadState() {
  ThreadState* s = thread_state_internal::t_state;
  if (__builtin_expect(s != nullptr, 1)) return s;
  return thread_state_internal::AttachSlow();
}

// Flushes the calling thread's cache into `pool` and recycles its state. The thread must not use
// the agent afterwards (it is ending); if it does, it simply attaches a fresh state.
void ReleaseCurrentThreadState(RecordPool& pool);

// Sums the counters of every state ever handed out.
struct CounterTotals {
  uint64_t mounts, unmounts, unpaired_mounts, unpaired_unmounts, vthread_ends, unpaired_ends,
      vthread_records, platform_records, lazy_records, records_returned, no_record, records_taken,
      records_put_back;
  uint64_t thread_states;  // states handed out (high-water mark of concurrent OS threads)
};
CounterTotals SumCounters();

// Resident bytes of the thread-state arena (only slots ever handed out can be resident).
uint64_t ThreadStatesResidentBytes();

}  // namespace vtctx

#endif  // VTCTX_AGENT_THREAD_STATE_H_
