// The Java views of records (the direct ByteBuffers the shim writes through), and the rule that a
// record goes back to the pool only when no view of it can still be used: its thread has ended
// AND the garbage collector has found its views unreachable. A view can therefore never write
// into, or read, a record that another thread owns now, whoever kept it (a caller that kept the
// buffer past its thread's end, through reflection on the class path, keeps a dead record alive,
// nothing more).
//
// Bookkeeping: the record's holder word (RecordPool::Holder) holds a JNI weak global reference to
// the record's view while the record is taken, plus kHolderThreadEnded once its thread ended. The
// end events (handlerBodies.h: ReleaseEndedRecord) return a record without a view at once, as
// before, and only mark one with a view; the maintenance thread (maintenance.h) returns marked
// records whose view was collected (SweepRecordViews). JNI weak references are cleared only when
// the object is unreachable and not reachable through a finalizer either.
//
// Without JVMTI (channel=identity) there are no end events: a virtual thread's record is marked
// ended as soon as it has its view (the view lives in the thread's ThreadLocal, which the JDK
// clears when the thread terminates, so a collected view means nobody can write through it any
// more); a platform thread's record when its OS thread exits (identityChannel.h). Such records can
// be swept while their thread still asks for them: both sides hold RecordViewMutex() while they
// look at a holder word that may be claimed.
#ifndef VTCTX_AGENT_RECORD_VIEWS_H_
#define VTCTX_AGENT_RECORD_VIEWS_H_

#include <jni.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "recordPool.h"
#include "threadContextRecord.h"

namespace vtctx {

// The holder word's flag set by the end events (user-space handles never have bit 63 set).
inline constexpr uint64_t kHolderThreadEnded = uint64_t{1} << 63;

// A direct ByteBuffer over exactly `record` (record_size bytes) for the thread that owns it, as a
// local reference, or null (no memory, or an exception, cleared). The first view of a record is
// remembered (its holder word); a later call returns that same buffer while it is reachable.
jobject RecordView(JNIEnv* jni, RecordPool& pool, ThreadContextRecord* record);

// Records whose thread ended with a view outstanding (not yet swept): the maintenance thread's
// reason to sweep.
uint64_t RecordsAwaitingViews();
void NoteRecordAwaitingView();

// Returns to the pool, through `cache`, every record whose thread ended and whose view was
// collected, after removing its thread-index entry (identityIndex.h); deletes those weak
// references. Returns how many. `cache` belongs to the caller's thread (flushed here). Holds
// RecordViewMutex() for a few thousand records at a time.
uint64_t SweepRecordViews(JNIEnv* jni, RecordPool& pool, RecordCache& cache);

// True if the garbage collector ran since the last call that returned true (a weak reference to
// an object of its own cleared): views can only have been collected then. The first call is true.
bool CollectedSinceLastLook(JNIEnv* jni);

// Serialises the sweep's claims with the identity channel's look at a live thread's record.
std::mutex& RecordViewMutex();

// The record's view if it is still reachable (a local reference), else null. Call it only under
// RecordViewMutex() for a record that may be swept meanwhile.
jobject LiveRecordView(JNIEnv* jni, RecordPool& pool, ThreadContextRecord* record);

}  // namespace vtctx

#endif  // VTCTX_AGENT_RECORD_VIEWS_H_
