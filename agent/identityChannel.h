// The identity channel (channel=identity): the agent runs with no JVMTI environment, so HotSpot's
// virtual-thread transitions stay on their fast path (no event, no notification: docs/design.md,
// "Channels"). Readers follow HotSpot's own record of the thread a carrier runs to that thread's
// record, through the thread index (identityIndex.h, vtctx/threadIndex.h).
//
//   - A thread gets its record at its first publish through the shim (the natives), entered in
//     the index by its id. A platform thread also publishes it in its own otel_thread_ctx_v1, as
//     with the carrier channel. No carrier ever points at a virtual thread's record (it would go
//     stale at an unmount no event reports): a carrier's slot is NULL, or its own record.
//   - Without end events, a virtual thread's record goes back to the pool once its view is
//     collected (recordViews.h: the JDK clears a terminated thread's ThreadLocals); a platform
//     thread's once, also, its OS thread has exited (a pthread key's destructor, which also clears
//     its slot and recycles its thread state). Late is never wrong: an ended thread's id is never
//     mounted again, and its entry leaves the index before its record is reused.
#ifndef VTCTX_AGENT_IDENTITY_CHANNEL_H_
#define VTCTX_AGENT_IDENTITY_CHANNEL_H_

#include <jni.h>

#include "callingRecord.h"

namespace vtctx {

// Creates the OS-thread exit hook. Call once, when the agent becomes active (the hook's code must
// stay mapped: an active agent is never unloaded). False if no pthread key is left.
bool StartIdentityChannel();

// The calling Java thread's record and view, binding them at its first call.
CallingRecord IdentityCallingRecord(JNIEnv* jni);

}  // namespace vtctx

#endif  // VTCTX_AGENT_IDENTITY_CHANNEL_H_
