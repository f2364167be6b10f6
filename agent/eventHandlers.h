// JVMTI callbacks: thin adapters from the JVM's events to handlerBodies.h.
#ifndef VTCTX_AGENT_EVENT_HANDLERS_H_
#define VTCTX_AGENT_EVENT_HANDLERS_H_

#include <jvmti.h>

#include <string>

#include "extensionEvents.h"
#include "options.h"

namespace vtctx {

// JVMTI thread-local storage of the current thread (nullptr form: the cheap one, ~12 ns Get).
// For VirtualThread* events the current thread is the virtual thread.
struct JvmtiBinding {
  jvmtiEnv* jvmti;
  void* Get() const {
    void* p = nullptr;
    return jvmti->GetThreadLocalStorage(nullptr, &p) == JVMTI_ERROR_NONE ? p : nullptr;
  }
  bool Set(void* p) const { return jvmti->SetThreadLocalStorage(nullptr, p) == JVMTI_ERROR_NONE; }
};

// Installs the callbacks and enables the events, in an order that can never leave a carrier
// pointing at a stale record: End and Unmount before Mount and Start. Returns an error line or "".
std::string EnableEvents(jvmtiEnv* jvmti, const MountEventIndexes& indexes, const Options& options,
                         bool late_attach);

// Undoes EnableEvents (however far it got): every event off, every callback cleared. For a load
// that fails after EnableEvents: HotSpot unloads the library after a failed Agent_OnAttach.
void DisableEvents(jvmtiEnv* jvmti, const MountEventIndexes& indexes);

// Binds a record to the calling thread if it has none (first use from Java after a late attach)
// and returns the calling thread's record (virtual or platform), or null.
void* CurrentThreadRecord(jvmtiEnv* jvmti, JNIEnv* jni);

// Events that ran on a thread that could get no agent state (the stats' stateless_events).
uint64_t StatelessEvents();

}  // namespace vtctx

#endif  // VTCTX_AGENT_EVENT_HANDLERS_H_
