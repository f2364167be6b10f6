#include "eventHandlers.h"

#include <array>
#include <cstring>

#include "agentState.h"
#include "handlerBodies.h"
#include "log.h"
#include "mountedRecord.h"
#include "stats.h"
#include "threadState.h"

namespace vtctx {
namespace {

std::atomic<uint64_t> g_stateless_events{0};  // events on a thread that could get no state

// Hot path. A thread without state (arena exhausted) still gets the essential TLS store.
template <bool kFault>
void JNICALL OnMount(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  ThreadState* state = CurrentThreadState();
  if (__builtin_expect(state == nullptr, 0)) {
    PublishOnThisThread(static_cast<ThreadContextRecord*>(JvmtiBinding{jvmti}.Get()));
    g_stateless_events.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  OnMountRemembering<kFault>(JvmtiBinding{jvmti}, state, *g_pool, g_bind);
}

template <bool kFault>
void JNICALL OnUnmount(jvmtiEnv*, JNIEnv*, jthread) {
  ThreadState* state = CurrentThreadState();
  if (__builtin_expect(state == nullptr, 0)) {
    if constexpr (!kFault) PublishOnThisThread(nullptr);
    g_stateless_events.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  OnUnmountRemembering<kFault>(state);
}

void JNICALL OnVirtualThreadStart(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  if (ThreadState* state = CurrentThreadState()) {
    OnVirtualThreadStartBody(JvmtiBinding{jvmti}, state, *g_pool);
  }
}

void JNICALL OnVirtualThreadEnd(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  if (ThreadState* state = CurrentThreadState()) {
    OnVirtualThreadEndRemembered(JvmtiBinding{jvmti}, state, *g_pool);
  } else {
    // Without a state we cannot recycle; the record stays bound (leaked, still mapped: harmless).
    g_stateless_events.fetch_add(1, std::memory_order_relaxed);
  }
}

void JNICALL OnThreadStart(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  if (ThreadState* state = CurrentThreadState()) {
    OnThreadStartBody(JvmtiBinding{jvmti}, state, *g_pool, /*lazy=*/false);
  }
}

void JNICALL OnThreadEnd(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  if (ThreadState* state = CurrentThreadState()) {
    OnThreadEndBody(JvmtiBinding{jvmti}, state, *g_pool);
    ReleaseCurrentThreadState(*g_pool);
  } else {
    PublishOnThisThread(nullptr);
  }
}

// The initial thread starts before events can be delivered, so it gets its record here.
void JNICALL OnVMInit(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  if (ThreadState* state = CurrentThreadState()) {
    OnThreadStartBody(JvmtiBinding{jvmti}, state, *g_pool, /*lazy=*/false);
  }
}

void JNICALL OnVMDeath(jvmtiEnv*, JNIEnv*) {
  // Events stay enabled and records stay mapped: threads still running during shutdown keep
  // publishing valid memory. Only the report is produced here.
  WriteStatsFileOnce();
}

// Order matters for a late attach into a running JVM: a record may only be published once the
// events that unpublish and recycle it are already on.
struct EventStep {
  jvmtiEvent event;
  const char* name;
  enum Condition { kAlways, kBindAtStart, kStartup } condition;
  bool Wanted(const Options& options, bool late_attach) const {
    return condition == kAlways || (condition == kBindAtStart && options.bind == BindAt::kStart) ||
           (condition == kStartup && !late_attach);
  }
};

std::array<EventStep, 8> EventSteps(const MountEventIndexes& indexes) {
  return {{
      {JVMTI_EVENT_THREAD_END, "ThreadEnd", EventStep::kAlways},
      {JVMTI_EVENT_VIRTUAL_THREAD_END, "VirtualThreadEnd", EventStep::kAlways},
      {static_cast<jvmtiEvent>(indexes.unmount), "VirtualThreadUnmount", EventStep::kAlways},
      {static_cast<jvmtiEvent>(indexes.mount), "VirtualThreadMount", EventStep::kAlways},
      {JVMTI_EVENT_VIRTUAL_THREAD_START, "VirtualThreadStart", EventStep::kBindAtStart},
      {JVMTI_EVENT_THREAD_START, "ThreadStart", EventStep::kAlways},
      {JVMTI_EVENT_VM_INIT, "VMInit", EventStep::kStartup},
      {JVMTI_EVENT_VM_DEATH, "VMDeath", EventStep::kAlways},
  }};
}

std::string Check(jvmtiError err, const char* what) {
  if (err == JVMTI_ERROR_NONE) return {};
  return std::string(what) + " failed with JVMTI error " + std::to_string(err);
}

}  // namespace

uint64_t StatelessEvents() { return g_stateless_events.load(std::memory_order_relaxed); }

std::string EnableEvents(jvmtiEnv* jvmti, const MountEventIndexes& indexes, const Options& options,
                         bool late_attach) {
  jvmtiEventCallbacks callbacks;
  std::memset(&callbacks, 0, sizeof callbacks);
  callbacks.VMInit = OnVMInit;
  callbacks.VMDeath = OnVMDeath;
  callbacks.ThreadStart = OnThreadStart;
  callbacks.ThreadEnd = OnThreadEnd;
  callbacks.VirtualThreadStart = OnVirtualThreadStart;
  callbacks.VirtualThreadEnd = OnVirtualThreadEnd;
  if (auto e = Check(jvmti->SetEventCallbacks(&callbacks, sizeof callbacks), "SetEventCallbacks");
      !e.empty()) {
    return e;
  }
  const bool fault = options.fault == Fault::kStaleCarrier;
  auto mount = fault ? OnMount<true> : OnMount<false>;
  auto unmount = fault ? OnUnmount<true> : OnUnmount<false>;
  // Extension callbacks are declared variadic by JVMTI; the JVM calls them with the documented
  // (jvmtiEnv*, JNIEnv*, jthread) signature that LookupMountEvents() verified.
  if (auto e = Check(jvmti->SetExtensionEventCallback(
                         indexes.unmount, reinterpret_cast<jvmtiExtensionEvent>(unmount)),
                     "SetExtensionEventCallback(VirtualThreadUnmount)");
      !e.empty()) {
    return e;
  }
  if (auto e = Check(jvmti->SetExtensionEventCallback(indexes.mount,
                                                      reinterpret_cast<jvmtiExtensionEvent>(mount)),
                     "SetExtensionEventCallback(VirtualThreadMount)");
      !e.empty()) {
    return e;
  }

  for (const EventStep& step : EventSteps(indexes)) {
    if (!step.Wanted(options, late_attach)) continue;
    if (auto e =
            Check(jvmti->SetEventNotificationMode(JVMTI_ENABLE, step.event, nullptr), step.name);
        !e.empty()) {
      return "enabling " + e;
    }
  }
  return {};
}

void DisableEvents(jvmtiEnv* jvmti, const MountEventIndexes& indexes) {
  // Reverse order: Mount goes off before the Unmount that repoints a carrier.
  const auto steps = EventSteps(indexes);
  for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, step->event, nullptr);
  }
  jvmti->SetExtensionEventCallback(indexes.mount, nullptr);
  jvmti->SetExtensionEventCallback(indexes.unmount, nullptr);
  jvmti->SetEventCallbacks(nullptr, 0);
}

void* CurrentThreadRecord(jvmtiEnv* jvmti, JNIEnv* jni) {
  JvmtiBinding binding{jvmti};
  if (void* record = binding.Get()) return record;  // the common case
  // No record yet: a thread that existed before a late attach (or one whose start event raced the
  // attach). Bind one now, exactly as the start event would have.
  ThreadState* state = CurrentThreadState();
  if (state == nullptr) return nullptr;
  jthread thread = nullptr;
  if (jvmti->GetCurrentThread(&thread) != JVMTI_ERROR_NONE || thread == nullptr) return nullptr;
  const bool is_virtual = jni->IsVirtualThread(thread);
  jni->DeleteLocalRef(thread);
  if (is_virtual) {
    // Running Java code, so mounted on this carrier right now: publish as Mount would have.
    ThreadContextRecord* record = BindNewRecord(binding, state, *g_pool);
    if (record == nullptr) return nullptr;
    Bump(state->counters.records_created_virtual);
    Bump(state->counters.records_lazily_created);
    PublishOnThisThread(record);
    state->vthread_mounted = true;
    return record;
  }
  OnThreadStartBody(binding, state, *g_pool, /*lazy=*/true);
  return state->own;
}

}  // namespace vtctx
