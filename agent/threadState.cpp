#include "threadState.h"

#include <sys/mman.h>

#include <new>

#include "taggedIndexStack.h"

namespace vtctx {
namespace thread_state_internal {
constinit thread_local ThreadState* t_state = nullptr;
}  // namespace thread_state_internal

namespace {

constexpr uint32_t kMaxStates = 1u << 16;

ThreadState* g_states =
    nullptr;  // arena of kMaxStates, MAP_NORESERVE: untouched pages cost nothing
std::atomic<uint32_t> g_used{0};  // states ever handed out (they are constructed on first use)

ThreadState& StateAt(uint32_t index) { return g_states[index - 1]; }  // 1-based
struct FreeLink {
  uint32_t& operator()(uint32_t index) const { return StateAt(index).free_link; }
};
TaggedIndexStack<FreeLink> g_free{FreeLink{}};

}  // namespace

bool InitThreadStates() {
  if (g_states != nullptr) return true;
  void* p = mmap(nullptr, sizeof(ThreadState) * kMaxStates, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  g_states = static_cast<ThreadState*>(p);
  return true;
}

ThreadState* thread_state_internal::AttachSlow() {
  if (g_states == nullptr) return nullptr;
  ThreadState* s = nullptr;
  if (const uint32_t index = g_free.Pop(); index != 0) {
    s = &StateAt(index);  // recycled: keeps its counters, its cache was flushed
  } else {
    uint32_t used = g_used.load(std::memory_order_relaxed);
    do {
      if (used >= kMaxStates) return nullptr;
    } while (!g_used.compare_exchange_weak(used, used + 1, std::memory_order_acq_rel));
    // The arena is zero-filled and a zeroed ThreadState is a valid empty one, so SumCounters()
    // reading this slot before the constructor below runs only ever sees zeros.
    s = new (&StateAt(used + 1)) ThreadState();
  }
  t_state = s;
  return s;
}

void ReleaseCurrentThreadState(RecordPool& pool) {
  ThreadState* s = thread_state_internal::t_state;
  if (s == nullptr) return;
  pool.Flush(s->cache);
  s->own = nullptr;
  s->vthread_mounted = false;
  s->mounted_record = nullptr;
  s->unmounted_record = nullptr;
  thread_state_internal::t_state = nullptr;
  g_free.Push(static_cast<uint32_t>(s - g_states) + 1);
}

CounterTotals SumCounters() {
  CounterTotals t{};
  const uint32_t used = g_states ? g_used.load(std::memory_order_acquire) : 0;
  auto get = [](const Counter& c) { return c.load(std::memory_order_relaxed); };
  for (uint32_t i = 1; i <= used; ++i) {
    const ThreadState& s = StateAt(i);
    const EventCounters& c = s.counters;
#define VTCTX_COUNTER_SUM(name, meaning) t.name += get(c.name);
    VTCTX_EVENT_COUNTERS(VTCTX_COUNTER_SUM)
#undef VTCTX_COUNTER_SUM
    t.records_taken += get(s.cache.taken);
    t.records_put_back += get(s.cache.returned);
  }
  t.thread_states = used;
  return t;
}

}  // namespace vtctx

namespace vtctx {

uint64_t ThreadStatesResidentBytes() {
  if (g_states == nullptr) return 0;
  return ResidentBytesOf(g_states, g_used.load(std::memory_order_acquire) * sizeof(ThreadState));
}

}  // namespace vtctx
