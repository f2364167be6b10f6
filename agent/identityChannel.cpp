#include "identityChannel.h"

#include <pthread.h>

#include <mutex>

#include "agentState.h"
#include "handlerBodies.h"
#include "identityIndex.h"
#include "javaThreadIdentity.h"
#include "log.h"
#include "recordViews.h"
#include "threadState.h"

namespace vtctx {
namespace {

pthread_key_t g_exit_key;
bool g_exit_key_made = false;
constinit thread_local bool t_exit_hooked = false;
std::atomic<bool> g_index_full_logged{false};

// pthread key destructor: the OS thread is exiting (its TLS is still valid). Nothing of this
// thread's can point at its record after this, so it ends as a platform thread's does at ThreadEnd.
void OnOsThreadExit(void*) {
  ThreadState* state = thread_state_internal::t_state;
  PublishOnThisThread(nullptr);
  if (state == nullptr) return;
  if (ThreadContextRecord* own = state->own) {
    state->own = nullptr;
    std::lock_guard<std::mutex> lock(RecordViewMutex());
    ReleaseEndedRecord(state, *g_pool, own);
  }
  ReleaseCurrentThreadState(*g_pool);
}

void HookThisOsThread() {
  if (t_exit_hooked || !g_exit_key_made) return;
  // Any non-null value: the destructor runs only for those.
  t_exit_hooked = pthread_setspecific(g_exit_key, &t_exit_hooked) == 0;
}

}  // namespace

bool StartIdentityChannel() {
  if (g_exit_key_made) return true;
  g_exit_key_made = pthread_key_create(&g_exit_key, OnOsThreadExit) == 0;
  return g_exit_key_made;
}

CallingRecord IdentityCallingRecord(JNIEnv* jni) {
  ThreadState* state = CurrentThreadState();
  ThreadIndexWriter* index = AgentThreadIndex();
  if (state == nullptr || index == nullptr) return {};
  HookThisOsThread();
  const std::optional<JavaThreadIdentity> who = CurrentJavaThreadIdentity(jni);
  if (!who) return {};
  // Under the mutex: the sweep may claim a record whose view was collected (recordViews.h).
  std::lock_guard<std::mutex> lock(RecordViewMutex());
  if (auto* known = const_cast<ThreadContextRecord*>(FindThreadRecord(who->id))) {
    if (jobject view = LiveRecordView(jni, *g_pool, known)) return {known, view};
    // Its view was collected while the thread lives (it lost its ThreadLocal): that record is the
    // sweep's now (its entry is replaced below), and the thread gets a new one.
  }
  ThreadContextRecord* record = g_pool->Take(state->cache);
  if (record == nullptr) {
    Bump(state->counters.records_unavailable);
    return {};
  }
  jobject view = RecordView(jni, *g_pool, record);
  if (view == nullptr) {  // no memory for a view: no record either (nothing could return it)
    g_pool->Return(state->cache, record);
    Bump(state->counters.records_unavailable);
    return {};
  }
  if (IndexThreadRecord(*g_pool, who->id, record)) {
    Bump(state->counters.records_indexed);
  } else if (!g_index_full_logged.exchange(true)) {
    LogError(
        "the thread index cannot grow (mmap failed): threads that publish from now on read "
        "as no context");
  }
  if (who->is_virtual) {
    // Ended from the start: it goes back once its view is collected.
    g_pool->Holder(record).fetch_or(kHolderThreadEnded, std::memory_order_release);
    NoteRecordAwaitingView();
    Bump(state->counters.records_created_virtual);
  } else {
    ThreadContextRecord* previous = state->own;
    PublishOnThisThread(record);  // before the previous record can be released
    state->own = record;
    if (previous != nullptr) ReleaseEndedRecord(state, *g_pool, previous);
    Bump(state->counters.records_created_platform);
  }
  Bump(state->counters.records_lazily_created);
  return {record, view};
}

}  // namespace vtctx
