// The agent's own work in each JVMTI event, separated from JVMTI so that unit tests and benchmarks
// drive exactly the code the JVM runs.
//
// `Binding` is the JVMTI thread-local storage of the event's thread (the virtual thread for the
// VirtualThread* events, the platform thread for Thread*): `void* Get()` and `bool Set(void*)`.
//
// Every function runs on the OS thread the event is about (for virtual threads: the carrier), so
// `otel_thread_ctx_v1` below is the carrier's slot and `state` is the carrier's state.
//
// Hot-path rules (Mount/Unmount): no JNI, no locks, no malloc, no logging. The only exception is
// the first mount of a virtual thread that has no record yet (bind=mount, or late attach): it takes
// a record from the pool (thread-local cache; a lock-free refill every 8 records) and binds it.
#ifndef VTCTX_AGENT_HANDLER_BODIES_H_
#define VTCTX_AGENT_HANDLER_BODIES_H_

#include "identityIndex.h"
#include "options.h"
#include "otelThreadContext.h"
#include "recordPool.h"
#include "recordViews.h"
#include "threadState.h"

namespace vtctx {

// Takes a record for the event's thread and binds it through `binding`. Returns null (and counts
// it) if no record can be had; the thread then simply publishes nothing (incomplete, never wrong).
template <typename Binding>
ThreadContextRecord* BindNewRecord(Binding binding, ThreadState* state, RecordPool& pool) {
  ThreadContextRecord* record = pool.Take(state->cache);
  if (record != nullptr && !binding.Set(record)) {
    pool.Return(state->cache, record);
    record = nullptr;
  }
  if (record == nullptr) Bump(state->counters.records_unavailable);
  return record;
}

// A record whose thread has ended, and that no carrier can point at any more: back to the pool, or,
// while Java may still hold a view of it, marked for the maintenance thread to return once the
// view is collected (recordViews.h). Reads one word beside the record; no JNI here.
inline void ReleaseEndedRecord(ThreadState* state, RecordPool& pool, ThreadContextRecord* record) {
  std::atomic<uint64_t>& holder = pool.Holder(record);
  if (__builtin_expect(holder.load(std::memory_order_relaxed) != 0, 0)) {
    holder.fetch_or(kHolderThreadEnded, std::memory_order_release);
    NoteRecordAwaitingView();
    Bump(state->counters.records_held_by_view);
    return;
  }
  UnindexThreadRecord(pool, record);
  pool.Return(state->cache, record);
  Bump(state->counters.records_returned);
}

// VirtualThreadStart (only with bind=start).
template <typename Binding>
void OnVirtualThreadStartBody(Binding binding, ThreadState* state, RecordPool& pool) {
  if (BindNewRecord(binding, state, pool) != nullptr) Bump(state->counters.records_created_virtual);
}

// VirtualThreadMount: the carrier now runs `binding`'s virtual thread; point the carrier's slot at
// its record. A reader interrupting this carrier sees either the previous pointer (its own record
// or null: the virtual thread's user code has not resumed yet) or the new one.
//
// A thread without a record: with bind=use it has published nothing yet, so the carrier publishes
// NULL for it (the shim binds and publishes on first use); otherwise this is its first mount (or
// its first after a late attach, if records are bound at Start) and it gets its record now.
template <bool kStaleCarrierFault = false, typename Binding>
void OnMountBody(Binding binding, ThreadState* state, RecordPool& pool, BindAt bind) {
  auto* record = static_cast<ThreadContextRecord*>(binding.Get());
  if (__builtin_expect(record == nullptr, 0)) {
    if (bind != BindAt::kFirstUse) {
      record = BindNewRecord(binding, state, pool);
      if (record != nullptr) {
        Bump(state->counters.records_created_virtual);
        if (bind == BindAt::kStart) Bump(state->counters.records_lazily_created);
      }
    }
    if constexpr (kStaleCarrierFault) PublishOnThisThread(record);  // only at the first mount
  }
  if constexpr (!kStaleCarrierFault) PublishOnThisThread(record);
  if (state->vthread_mounted) Bump(state->counters.unpaired_mounts);
  state->vthread_mounted = true;
  Bump(state->counters.mounts);
}

// VirtualThreadUnmount: the virtual thread leaves this carrier (or attempts to: a pinned thread is
// re-mounted before its code runs again). Repoint the slot at the carrier's own record (or null),
// never at the leaving thread's: from here on the carrier may run another thread's code.
template <bool kStaleCarrierFault = false>
void OnUnmountBody(ThreadState* state) {
  if constexpr (!kStaleCarrierFault) PublishOnThisThread(state->own);
  if (!state->vthread_mounted) Bump(state->counters.unpaired_unmounts);
  state->vthread_mounted = false;
  Bump(state->counters.unmounts);
}

// VirtualThreadEnd: posted on the carrier after the final Unmount. No carrier points at the record
// any more: a virtual thread is mounted on at most one carrier, every Mount is followed by an
// Unmount before it can mount elsewhere, and the final Unmount happened on this carrier. The
// checks below repeat that Unmount in case it was missed (events enabled mid-transition at attach).
template <typename Binding>
void OnVirtualThreadEndBody(Binding binding, ThreadState* state, RecordPool& pool) {
  auto* record = static_cast<ThreadContextRecord*>(binding.Get());
  Bump(state->counters.vthread_ends);
  if (record == nullptr) {
    Bump(state->counters.ends_without_record);
    return;
  }
  if (PublishedOnThisThread() == record) PublishOnThisThread(state->own);
  state->vthread_mounted = false;
  ReleaseEndedRecord(state, pool, record);
}

// ThreadStart (platform threads, on the new thread): its own record, published at once.
template <typename Binding>
void OnThreadStartBody(Binding binding, ThreadState* state, RecordPool& pool, bool lazy) {
  if (state->own != nullptr) return;  // already bound (first use from Java raced the event)
  ThreadContextRecord* record = BindNewRecord(binding, state, pool);
  if (record == nullptr) return;
  state->own = record;
  if (!state->vthread_mounted) PublishOnThisThread(record);
  Bump(state->counters.records_created_platform);
  if (lazy) Bump(state->counters.records_lazily_created);
}

// ThreadEnd (platform threads, on the ending thread): unpublish, then recycle. Nothing else can
// point at a platform thread's record: only this thread's own slot ever held it.
template <typename Binding>
void OnThreadEndBody(Binding binding, ThreadState* state, RecordPool& pool) {
  PublishOnThisThread(nullptr);
  ThreadContextRecord* record = state->own;
  state->own = nullptr;
  if (record == nullptr) return;
  binding.Set(nullptr);
  ReleaseEndedRecord(state, pool, record);
}

}  // namespace vtctx

#endif  // VTCTX_AGENT_HANDLER_BODIES_H_
