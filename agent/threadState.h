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

#include "counters.h"
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
#define VTCTX_COUNTER_FIELD(name, meaning) Counter name;
  VTCTX_EVENT_COUNTERS(VTCTX_COUNTER_FIELD)
#undef VTCTX_COUNTER_FIELD
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
#define VTCTX_COUNTER_TOTAL(name, meaning) uint64_t name = 0;
  VTCTX_EVENT_COUNTERS(VTCTX_COUNTER_TOTAL)
#undef VTCTX_COUNTER_TOTAL
  uint64_t records_taken = 0;     // from the pool, over every cache
  uint64_t records_put_back = 0;  // to the pool, over every cache
  uint64_t thread_states = 0;     // states handed out (high-water mark of concurrent OS threads)
};
CounterTotals SumCounters();

// Resident bytes of the thread-state arena (only slots ever handed out can be resident).
uint64_t ThreadStatesResidentBytes();

}  // namespace vtctx

#endif  // VTCTX_AGENT_THREAD_STATE_H_
