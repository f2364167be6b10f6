// A carrier remembers the record of the virtual thread it mounts, so that the thread's End needs
// no JVMTI GetThreadLocalStorage: one JVMTI call less per virtual thread (~10 ns of the ~70 ns
// vtctx adds per thread over empty callbacks; docs/results/service.md, "Churn").
//
// The handlers in eventHandlers.cpp call these instead of the bodies directly; `Binding` is the
// JVMTI binding (handlerBodies.h). Per carrier (ThreadState):
//   mounted_record    set by a delivered Mount (what the body found or bound), cleared by Unmount;
//   unmounted_record  set by Unmount (from mounted_record), cleared by Mount and End.
// End returns unmounted_record to the pool if it is set, else asks JVMTI as before.
//
// Why unmounted_record at End(T) on carrier C is T's record or null, never another thread's:
// a virtual thread ends on the carrier it is mounted on, and End is posted right after its final
// Unmount, with nothing mounted on C in between; so unmounted_record is what mounted_record held at
// T's final Unmount. mounted_record is only ever set by a delivered Mount, and only a thread that
// is mounted on C can be mounted there: since T's last mount on C, any delivered Mount on C (a
// pinned remount) was T's own. If T's last mount was delivered, mounted_record is T's record; if
// not (T mounted before a late attach enabled Mount), then no Mount on C was delivered since the
// last Unmount on C cleared it (Unmount is enabled before Mount, so every thread that left C after
// a delivered Mount cleared it), or none ever was: null. The JNI path that binds a record to a
// running thread (bind=use, late attach) deliberately does not set it: End then asks JVMTI.
#ifndef VTCTX_AGENT_MOUNTED_RECORD_H_
#define VTCTX_AGENT_MOUNTED_RECORD_H_

#include "handlerBodies.h"
#include "threadState.h"

namespace vtctx {

// At Mount: the JVMTI binding, remembering the record the body finds or binds.
template <typename Binding>
struct RememberingBinding {
  Binding inner;
  ThreadState* state;
  void* Get() const {
    void* p = inner.Get();
    state->mounted_record = static_cast<ThreadContextRecord*>(p);
    return p;
  }
  bool Set(void* p) const {
    if (!inner.Set(p)) return false;  // the body gives the record back: nothing to remember
    state->mounted_record = static_cast<ThreadContextRecord*>(p);
    return true;
  }
};

// At End: the record remembered at the final Unmount, else the JVMTI binding's.
template <typename Binding>
struct RememberedBinding {
  Binding inner;
  ThreadState* state;
  void* Get() const {
    if (state->unmounted_record != nullptr) return state->unmounted_record;
    return inner.Get();
  }
  bool Set(void* p) const { return inner.Set(p); }
};

template <bool kStaleCarrierFault = false, typename Binding>
void OnMountRemembering(Binding binding, ThreadState* state, RecordPool& pool, BindAt bind) {
  state->unmounted_record = nullptr;
  OnMountBody<kStaleCarrierFault>(RememberingBinding<Binding>{binding, state}, state, pool, bind);
}

template <bool kStaleCarrierFault = false>
void OnUnmountRemembering(ThreadState* state) {
  state->unmounted_record = state->mounted_record;
  state->mounted_record = nullptr;
  OnUnmountBody<kStaleCarrierFault>(state);
}

template <typename Binding>
void OnVirtualThreadEndRemembered(Binding binding, ThreadState* state, RecordPool& pool) {
  OnVirtualThreadEndBody(RememberedBinding<Binding>{binding, state}, state, pool);
  state->unmounted_record = nullptr;  // back in the pool: never hand it out again
}

}  // namespace vtctx

#endif  // VTCTX_AGENT_MOUNTED_RECORD_H_
